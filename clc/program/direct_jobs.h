/*
 * direct_jobs.h — the direct command line's programs as build jobs:
 *   clc-pack [AXES] FILE.cl [AXES]... [--program NAME=a.h,b.cl [AXES]]...
 *            -I DIR --options STRING --wg-defines
 *   AXES: -D NAME=LIST -D NAME --derive 'N=EXPR' --where 'EXPR'
 *         --wg LIST|'EXPR,EXPR' --variant 'A=1,B=x' --default 'A=1'
 *         --kernel NAME --check-cmd CMD --tune-cmd CMD
 * (docs/CLI.md, "Packing your own kernels"; the axes before the first
 * program are every program's, those after one its own, direct_axes.h).
 * No manifest, no knowledge of what the kernels compute: each program is
 * folded (source_fold.h), each variant's defines computed (define_value.h,
 * expr.h) and each becomes a program entry holding every kernel of its
 * binary.
 */
#ifndef CLC_DIRECT_JOBS_H
#define CLC_DIRECT_JOBS_H

#include <stddef.h>

#include "build_job.h"
#include "direct_axes.h"

#define DIRECT_JOBS_ERR_MAX 2048
#define DIRECT_JOBS_MAX_VARIANTS 100000 /* beyond this a command line is a mistake */

/* One program: a source file or a --program, and the axes that are its
 * alone (on the command line, the axis options after it). */
typedef struct direct_program {
    const char *file;        /* a source file: one program named after it; or NULL */
    const char *program;     /* else --program NAME=FILE1,FILE2 */
    direct_axes own;
} direct_program;

/* What the command line said. A program's axes are `all` and its own
 * joined (direct_axes_join). */
typedef struct direct_jobs_spec {
    direct_axes all;         /* every program's: the options before the first program */
    size_t n_programs;
    direct_program *programs;   /* in the order given */
    size_t n_includes;
    const char **includes;   /* -I DIR */
    const char *options;     /* --options, or NULL */
    int wg_defines;          /* --wg-defines */
} direct_jobs_spec;

/* "src/fir.cl", or "program app" for a --program: how messages name p. */
void direct_jobs_program_label(const direct_program *p, char *buf, size_t cap);

/* Appends every program's variants to out: the source files' first, then
 * the --program ones', each in the order given. Each job carries its
 * program's check and tune commands. Returns 0; 2 for a usage error (a
 * bad -D value, expression, work-group or command; err names the option
 * and the value, and the program first when there are several or the
 * option is the program's own); 1 for any other failure (a source that
 * cannot be read, out of memory). out->notes gets a line per constraint
 * that skipped variants. */
int direct_jobs_make(const direct_jobs_spec *s, build_job_list *out, char err[DIRECT_JOBS_ERR_MAX]);

#endif /* CLC_DIRECT_JOBS_H */
