/*
 * source_fold.h — one OpenCL program's text with its #include files folded
 * in, so a pack can rebuild it with no source tree (docs/MANIFEST.md,
 * "Sources and includes").
 *
 * The sources form ONE program, their texts taken in order as
 * clCreateProgramWithSource takes several strings. #include "x" is looked
 * for beside the including file, then in the include folders in order;
 * #include <x> in the include folders only. An include found nowhere is not
 * an error: the line is kept as it is (it may sit in a branch the
 * preprocessor skips) and listed in the result's missing includes. A file
 * holding #pragma once is folded once; include loops and nesting deeper
 * than SOURCE_FOLD_DEPTH_MAX are refused. #line directives keep the compiler's
 * messages pointing at the user's files and lines, with paths as the user
 * spelled them (relative to base_dir): the same inputs give the same bytes
 * wherever the tree lies.
 *
 * Every file is opened O_RDONLY|O_NONBLOCK|O_CLOEXEC and must be a regular
 * file (a FIFO, device or folder is refused at once, never read), at most
 * SOURCE_FOLD_FILE_MAX bytes, SOURCE_FOLD_TEXT_MAX for the whole program, with no NUL byte.
 * Its real path (symbolic links resolved) must lie inside one of the
 * allowed roots (a root that does not exist holds nothing); a link
 * pointing elsewhere is refused naming the link and its target. Pure: no
 * printing, no global state.
 */
#ifndef CLC_SOURCE_FOLD_H
#define CLC_SOURCE_FOLD_H

#include <stddef.h>

#define SOURCE_FOLD_FILE_MAX (16L << 20)   /* bytes of one file */
#define SOURCE_FOLD_TEXT_MAX (64L << 20)   /* bytes of the folded program */
#define SOURCE_FOLD_DEPTH_MAX 32           /* includes nested this deep at most */
#define SOURCE_FOLD_PATH_MAX 4096          /* bytes of any path */
#define SOURCE_FOLD_ERR_MAX 1024

typedef struct source_fold_options {
    /* Folder the relative paths below are relative to; NULL or "" is the
     * current folder. The paths in the output are relative to it too. */
    const char *base_dir;
    const char *const *sources;        /* the program's files, in order (at least one) */
    size_t n_sources;
    const char *const *include_dirs;   /* -I folders, in search order */
    size_t n_include_dirs;
    const char *const *roots;          /* folders every file read must lie inside */
    size_t n_roots;
    /* The noun phrase naming the roots in "...: outside <roots_what>", e.g.
     * "the kernels folder" (no leading "outside"). NULL: "the allowed
     * folders". */
    const char *roots_what;
    /* Non-zero: the text starts with #line 1 "FIRST" too (the later sources
     * always start with one). Zero keeps a single source with no includes
     * byte for byte. */
    int line_at_start;
} source_fold_options;

/* An include that was found nowhere: its line was kept as it is. */
typedef struct source_fold_missing {
    char *file;     /* the including file, as in files[] */
    int line;       /* 1-based line in it */
    char *name;     /* the name between the quotes or brackets */
    int angled;     /* 1 for #include <name> */
} source_fold_missing;

typedef struct source_fold_result {
    char *text;             /* the folded program, NUL-terminated */
    size_t len;             /* its length without the NUL */
    char **files;           /* every file read, sources and headers, once each, in order */
    size_t n_files;
    source_fold_missing *missing;    /* includes found nowhere, in order of appearance */
    size_t n_missing;
} source_fold_result;

/* Folds the program. Returns 0 with *out filled (free with source_fold_result_free);
 * or -1 with *out empty and err (errlen bytes, SOURCE_FOLD_ERR_MAX is enough) naming
 * the file, line and what is wrong: a file that cannot be opened, is not a
 * regular file, is too large or holds a NUL byte; a file outside the roots
 * ("kernels/x.h -> /etc/passwd: outside the kernels folder"); an include
 * loop ("include loop: a.cl -> b.h -> a.cl"); nesting too deep. */
int source_fold(const source_fold_options *opt, source_fold_result *out, char *err, size_t errlen);

/* Frees what source_fold allocated and empties r; an empty r is a no-op. */
void source_fold_result_free(source_fold_result *r);

#endif /* CLC_SOURCE_FOLD_H */
