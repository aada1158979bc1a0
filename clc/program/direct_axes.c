/* direct_axes.c — a program's axes, every program's joined with its own
 * (direct_axes.h). */
#include "direct_axes.h"

#include <stdlib.h>
#include <string.h>

int direct_axes_empty(const direct_axes *a)
{
    return !a->n_defines && !a->n_derives && !a->n_wheres && !a->n_variants && !a->n_defaults &&
           !a->n_kernels && !a->wg && !a->check_cmd && !a->tune_cmd;
}

/* The length of the name an item gives: "TS" of "TS=8,16", "MOD2" of
 * "MOD2(x,y)=...", "RTS" of "RTS = TS/WPT". */
static size_t name_len(const char *item)
{
    return strcspn(item, "=( \t");
}

static int same_name(const char *a, const char *b)
{
    size_t n = name_len(a);
    return n == name_len(b) && memcmp(a, b, n) == 0;
}

/* all's items with those own names in their place, then own's others.
 * *out malloc'd; -1 when out of memory. */
static int join_named(const char **all, size_t n_all, const char **own, size_t n_own,
                      const char ***out, size_t *n_out)
{
    const char **j = malloc((n_all + n_own ? n_all + n_own : 1) * sizeof *j);
    if (!j)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < n_all; i++) {
        size_t k = 0;
        while (k < n_own && !same_name(own[k], all[i]))
            k++;
        j[n++] = k < n_own ? own[k] : all[i];
    }
    /* A name own gives twice is kept twice, so that the planner refuses
     * it as it refuses one given twice in all. */
    for (size_t k = 0; k < n_own; k++) {
        size_t i = 0, e = 0;
        while (i < n_all && !same_name(own[k], all[i]))
            i++;
        while (e < k && !same_name(own[k], own[e]))
            e++;
        if (i == n_all || e < k)
            j[n++] = own[k];
    }
    *out = j;
    *n_out = n;
    return 0;
}

/* all's items, then own's. */
static int join_added(const char **all, size_t n_all, const char **own, size_t n_own,
                      const char ***out, size_t *n_out)
{
    const char **j = malloc((n_all + n_own ? n_all + n_own : 1) * sizeof *j);
    if (!j)
        return -1;
    if (n_all)
        memcpy(j, all, n_all * sizeof *j);
    if (n_own)
        memcpy(j + n_all, own, n_own * sizeof *j);
    *out = j;
    *n_out = n_all + n_own;
    return 0;
}

int direct_axes_join(const direct_axes *all, const direct_axes *own, direct_axes *out)
{
    memset(out, 0, sizeof *out);
    int bad = join_named(all->defines, all->n_defines, own->defines, own->n_defines,
                         &out->defines, &out->n_defines) != 0;
    bad |= join_named(all->derives, all->n_derives, own->derives, own->n_derives, &out->derives,
                      &out->n_derives) != 0;
    bad |= join_added(all->wheres, all->n_wheres, own->wheres, own->n_wheres, &out->wheres,
                      &out->n_wheres) != 0;
    bad |= join_added(all->defaults, all->n_defaults, own->defaults, own->n_defaults,
                      &out->defaults, &out->n_defaults) != 0;
    bad |= join_added(all->kernels, all->n_kernels, own->kernels, own->n_kernels, &out->kernels,
                      &out->n_kernels) != 0;
    if (own->n_variants)
        bad |= join_added(NULL, 0, own->variants, own->n_variants, &out->variants,
                          &out->n_variants) != 0;
    else
        bad |= join_added(all->variants, all->n_variants, NULL, 0, &out->variants,
                          &out->n_variants) != 0;
    out->wg = own->wg ? own->wg : all->wg;
    out->check_cmd = own->check_cmd ? own->check_cmd : all->check_cmd;
    out->tune_cmd = own->tune_cmd ? own->tune_cmd : all->tune_cmd;
    if (bad) {
        direct_axes_free_join(out);
        return -1;
    }
    return 0;
}

void direct_axes_free_join(direct_axes *a)
{
    free(a->defines);
    free(a->derives);
    free(a->wheres);
    free(a->variants);
    free(a->defaults);
    free(a->kernels);
    memset(a, 0, sizeof *a);
}
