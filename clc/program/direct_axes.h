/*
 * direct_axes.h — what shapes the variants of one program of the direct
 * mode: its defines, derives, constraints, explicit sets, defaults, the
 * kernels it must hold, its work-groups and the user's commands
 * (docs/CLI.md, "Several programs"). The command line gives every
 * program's (the options before the first program) and each program's
 * own (those after it); a manifest program block gives its program's.
 */
#ifndef CLC_DIRECT_AXES_H
#define CLC_DIRECT_AXES_H

#include <stddef.h>

/* Every string is the caller's (argv, or a manifest block's). A list's
 * array may be part of a longer one: its n items from the pointer on are
 * its own. */
typedef struct direct_axes {
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
    size_t n_kernels;
    const char **kernels;    /* --kernel NAME: must be in the program */
    const char *wg;          /* --wg, or NULL */
    const char *check_cmd;   /* --check-cmd, or NULL */
    const char *tune_cmd;    /* --tune-cmd, or NULL */
} direct_axes;

/* Whether a holds no axis at all. */
int direct_axes_empty(const direct_axes *a);

/* The axes of a program: every program's (all) with its own joined in.
 * An own -D NAME or --derive NAME takes the place of all's of that NAME
 * (a list replaced, not added to: the order of the product and of the
 * derives stays all's), the other own ones follow all's; own --where,
 * --kernel and --default are added after all's; own --variant sets
 * replace all's when there are any; own --wg, --check-cmd and --tune-cmd
 * replace all's. out's arrays are malloc'd (direct_axes_free_join), its
 * strings those of all and own. 0, or -1 when out of memory. */
int direct_axes_join(const direct_axes *all, const direct_axes *own, direct_axes *out);

/* Frees the arrays of a direct_axes_join result and zeroes it. */
void direct_axes_free_join(direct_axes *a);

#endif /* CLC_DIRECT_AXES_H */
