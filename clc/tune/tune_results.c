/* tune_results.c — a tuning run's results (tune_session.h): kept, copied,
 * ranked, and the median of a configuration's runs. */
#include "tune_session.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tune_results_free(tune_results *rs)
{
    for (size_t i = 0; i < rs->n; i++) {
        free(rs->r[i].runs_ns);
        free(rs->r[i].message);
    }
    free(rs->r);
    memset(rs, 0, sizeof *rs);
}

int tune_results_add(tune_results *rs, const tune_result *r)
{
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? rs->cap * 2 : 64;
        tune_result *g = realloc(rs->r, cap * sizeof *g);
        if (!g)
            return -1;
        rs->r = g;
        rs->cap = cap;
    }
    tune_result c = *r;
    c.runs_ns = NULL;
    c.message = r->message ? strdup(r->message) : NULL;
    if (r->n_runs) {
        c.runs_ns = malloc(r->n_runs * sizeof *c.runs_ns);
        if (!c.runs_ns) {
            free(c.message);
            return -1;
        }
        memcpy(c.runs_ns, r->runs_ns, r->n_runs * sizeof *c.runs_ns);
    }
    rs->r[rs->n++] = c;
    return 0;
}

const tune_result *tune_results_best(const tune_results *rs)
{
    const tune_result *best = NULL;
    for (size_t i = 0; i < rs->n; i++)
        if (rs->r[i].verdict == TUNE_CORRECT && (!best || rs->r[i].median_ns < best->median_ns))
            best = &rs->r[i];
    return best;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double tune_median_ns(const double *v, size_t n)
{
    if (!n)
        return INFINITY;
    double *c = malloc(n * sizeof *c);
    if (!c)
        return v[0];
    memcpy(c, v, n * sizeof *c);
    qsort(c, n, sizeof *c, by_double);
    double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    free(c);
    return m;
}
