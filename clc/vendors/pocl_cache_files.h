/*
 * pocl_cache_files.h — the files PoCL's kernel cache holds for one program:
 * the work-group functions its launches compiled, which a program's binary
 * taken before those launches lacks (PoCL returns the bytes of a program's
 * first CL_PROGRAM_BINARIES query ever after). `clc-pack record` gives the
 * application a private cache and adds them to each recorded binary
 * (docs/RECORD.md, "What is recorded"). Nothing here prints.
 */
#ifndef CLC_POCL_CACHE_FILES_H
#define CLC_POCL_CACHE_FILES_H

#include "pocl_binary_canon.h"

/* Limits on what one kernel's folder may give. */
#define POCL_CACHE_FILES_MAX_FILES 4096
#define POCL_CACHE_FILES_MAX_FILE_BYTES ((size_t)256 << 20)
#define POCL_CACHE_FILES_MAX_DEPTH 8

/* A pocl_binary_canon_more_fn: user is the program's cache folder (CACHE/<build hash>);
 * the files are every regular file under its folder of the kernel, paths
 * "/KERNEL/..." as PoCL stores them. A kernel name with '/' or that is "."
 * or ".." gives none; so does a folder that is not there. Symbolic links
 * are not followed. */
int pocl_cache_files_kernel_files(const char *name, size_t len, pocl_binary_canon_file **files, size_t *n, void *user);

#endif /* CLC_POCL_CACHE_FILES_H */
