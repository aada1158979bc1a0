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

