/*
 * direct_jobs.h — the direct command line's programs as build jobs:
 *   clc-pack FILE.cl... -D NAME=LIST -D NAME --derive 'N=EXPR' --where 'EXPR'
 *            --wg LIST|'EXPR,EXPR' --variant 'A=1,B=x' --program NAME=a.h,b.cl
 *            -I DIR --options STRING --default 'A=1' --kernel NAME
 * (docs/CLI.md, "Packing your own kernels"). No manifest, no knowledge of
 * what the kernels compute: each program is folded (source_fold.h), each
 * variant's defines computed (define_value.h, expr.h) and each becomes a
 * program entry holding every kernel of its binary.
 */
#ifndef CLC_DIRECT_JOBS_H
#define CLC_DIRECT_JOBS_H

#include <stddef.h>

#include "build_job.h"

#define DIRECT_JOBS_ERR_MAX 2048
#define DIRECT_JOBS_MAX_VARIANTS 100000 /* beyond this a command line is a mistake */

/* What the command line said; every string is the caller's (argv). */
typedef struct direct_jobs_spec {
    size_t n_files;
    const char **files;      /* positional sources: one program each */
    size_t n_programs;
    const char **programs;   /* --program NAME=FILE1,FILE2 */
    size_t n_defines;
    const char **defines;    /* -D arguments */
    size_t n_derives;
    const char **derives;    /* --derive NAME=EXPR, in order */
    size_t n_wheres;
    const char **wheres;     /* --where EXPR */
    size_t n_variants;
    const char **variants;   /* --variant A=1,B=x */
    size_t n_defaults;
    const char **defaults;   /* --default A=1,WG=16x16 */
    size_t n_includes;
    const char **includes;   /* -I DIR */
    size_t n_kernels;
    const char **kernels;    /* --kernel NAME: must be in every program */
    const char *wg;          /* --wg, or NULL */
    const char *options;     /* --options, or NULL */
    int wg_defines;          /* --wg-defines */
} direct_jobs_spec;

/* Appends every program's variants to out. Returns 0; 2 for a usage error
 * (a bad -D value, expression or work-group; err names the option and the
 * value); 1 for any other failure (a source that cannot be read, out of
 * memory). out->notes gets a line per constraint that skipped variants. */
int direct_jobs_make(const direct_jobs_spec *s, build_job_list *out, char err[DIRECT_JOBS_ERR_MAX]);

#endif /* CLC_DIRECT_JOBS_H */
