/*
 * kernel_source.h — the exact program text clc-pack builds and stores for a
 * variant: the kernel's source file with its local #include "..." files
 * folded in (so the pack can rebuild it with no kernels folder), or, for a
 * kernel with a generator, the generated text for the variant's defines.
 */
#ifndef CLC_KERNEL_SOURCE_H
#define CLC_KERNEL_SOURCE_H

#include <stddef.h>

#include "manifest.h"

/* On success returns 0, *text is a malloc'd NUL-terminated string (caller
 * frees), *len its length without the NUL, and name (MANIFEST_PATH_MAX bytes) a
 * name for the source table, e.g. "amd_convolve.cl" or
 * "reda_unrolled.cl.in[FILTER_WIDTH=5]". On error returns -1 and err names
 * the file and what is wrong (missing file, include loop, include outside
 * the kernels folder, unknown generator). */
int kernel_source_program_source(const manifest_file *m, const manifest_variant *v, char **text, size_t *len,
                      char name[MANIFEST_PATH_MAX], char err[MANIFEST_ERR_MAX]);

/* Called once per file a fold reads (the kernel's source and every file
 * it includes, in reading order, repeats included), with its path as
 * opened: "<kernels folder>/<name>". */
typedef void (*kernel_source_file_fn)(void *ctx, const char *path);

/* Like kernel_source_program_source, and also reports every file read to on_file
 * (which may be NULL): what a dependency file lists. */
int kernel_source_program_source_files(const manifest_file *m, const manifest_variant *v, char **text, size_t *len,
                            char name[MANIFEST_PATH_MAX], char err[MANIFEST_ERR_MAX], kernel_source_file_fn on_file,
                            void *ctx);

#endif /* CLC_KERNEL_SOURCE_H */
