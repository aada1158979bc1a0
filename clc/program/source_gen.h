/*
 * source_gen.h — how source generators plug into the kernels folder's
 * manifest: a kernel block's `generator NAME` line (docs/MANIFEST.md) names
 * a generator that writes the kernel's text for each variant from a
 * template. The manifest reader knows generators only through this
 * interface; the module that has them (clc/seeds/kernelgen.h for the
 * bundled kernels) is installed by the program's entry (clc/main/), once,
 * before any manifest is read.
 */
#ifndef CLC_SOURCE_GEN_H
#define CLC_SOURCE_GEN_H

#include <stddef.h>

#include "manifest.h"

typedef struct mf_generator {
    /* 1 when name is a generator of this module. */
    int (*known)(const char *name);
    /* Their names, comma-separated, for messages. */
    const char *(*names)(void);
    /* Runs generator on template text tmpl (tmpl_len bytes; tmpl_name
     * names it in messages) for variant v. 0 with *out a malloc'd
     * NUL-terminated text (caller frees), *out_len its length, and label
     * (MANIFEST_PATH_MAX bytes) the defines the text depends on, e.g.
     * "FILTER_WIDTH=5"; or -1 with err (errlen bytes) saying why. */
    int (*generate)(const char *generator, const char *tmpl_name, const char *tmpl,
                    size_t tmpl_len, const manifest_variant *v, char **out, size_t *out_len,
                    char label[MANIFEST_PATH_MAX], char *err, size_t errlen);
} mf_generator;

/* Installs g (NULL: no generator; every generator line is then refused).
 * Not thread-safe: call it before reading manifests. */
void source_gen_install(const mf_generator *g);

/* The installed module's answers; with none, no name is known and the
 * names are "none". */
int source_gen_known(const char *name);
const char *source_gen_names(void);
int source_gen_generate(const char *generator, const char *tmpl_name, const char *tmpl, size_t tmpl_len,
                const manifest_variant *v, char **out, size_t *out_len, char label[MANIFEST_PATH_MAX],
                char *err, size_t errlen);

#endif /* CLC_SOURCE_GEN_H */
