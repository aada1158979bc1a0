/* plan_shard.c — the partition of a plan over N runners (plan_shard.h). */
#include "plan_shard.h"

#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"

/* A decimal number from 1 to PLAN_SHARD_MAX_SHARDS, exactly [s, end). */
static int parse_count(const char *s, const char *end, unsigned *out)
{
    if (s == end || end - s > 5)
        return -1;
    unsigned v = 0;
    for (const char *c = s; c < end; c++) {
        if (*c < '0' || *c > '9')
            return -1;
        v = v * 10 + (unsigned)(*c - '0');
    }
    if (v < 1 || v > PLAN_SHARD_MAX_SHARDS)
        return -1;
    *out = v;
    return 0;
}

int plan_shard_parse(const char *text, plan_shard *out, char err[PLAN_SHARD_ERR_MAX])
{
    char clip[BFMT_QUOTE_MAX + 4];
    const char *slash = strchr(text, '/');
    unsigned k = 0, n = 0;
    if (!slash || parse_count(text, slash, &k) != 0 ||
        parse_count(slash + 1, slash + 1 + strlen(slash + 1), &n) != 0) {
        bfmt(err, PLAN_SHARD_ERR_MAX, "--shard %s: expected K/N, two numbers from 1 to %d (e.g. 2/4)",
             bfmt_clip(text, clip), PLAN_SHARD_MAX_SHARDS);
        return -1;
    }
    if (k > n) {
        bfmt(err, PLAN_SHARD_ERR_MAX, "--shard %s: part %u of %u does not exist (K is 1 to N)",
             bfmt_clip(text, clip), k, n);
        return -1;
    }
    out->k = k;
    out->n = n;
    return 0;
}

uint64_t plan_shard_cost(const build_job *j)
{
    return (uint64_t)j->source_size + PLAN_SHARD_FIXED_COST;
}

typedef struct by_cost_item {
    uint64_t cost;
    size_t index;
} by_cost_item;

static int by_cost(const void *a, const void *b)
{
    const by_cost_item *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost > y->cost ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

int plan_shard_partition(const build_job *jobs, size_t n, unsigned n_parts, unsigned *part,
                 uint64_t *cost)
{
    if (n_parts == 0)
        return -1;
    by_cost_item *items = malloc((n ? n : 1) * sizeof *items);
    uint64_t *sum = calloc(n_parts, sizeof *sum);
    if (!items || !sum) {
        free(items);
        free(sum);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        items[i].cost = plan_shard_cost(&jobs[i]);
        items[i].index = i;
    }
    /* The comparison is total (ties by index), so qsort's instability
     * cannot make two runners disagree. */
    qsort(items, n, sizeof *items, by_cost);
    for (size_t i = 0; i < n; i++) {
        unsigned best = 0;
        for (unsigned p = 1; p < n_parts; p++)
            if (sum[p] < sum[best])
                best = p;
        sum[best] += items[i].cost;
        part[items[i].index] = best;
    }
    if (cost)
        memcpy(cost, sum, n_parts * sizeof *sum);
    free(items);
    free(sum);
    return 0;
}

/* plan_shard_take (plan_shard.h): *part becomes a view of the plan's jobs that part K
 * builds (the jobs stay the plan's; free only part->jobs). 0, or -1 when
 * out of memory. */
int plan_shard_take(const plan_shard *s, const build_job_list *plan, build_job_list *part, double *share)
{
    memset(part, 0, sizeof *part);
    unsigned *which = malloc((plan->n ? plan->n : 1) * sizeof *which);
    uint64_t *cost = calloc(s->n, sizeof *cost);
    part->jobs = malloc((plan->n ? plan->n : 1) * sizeof *part->jobs);
    if (!which || !cost || !part->jobs ||
        plan_shard_partition(plan->jobs, plan->n, s->n, which, cost) != 0) {
        free(which);
        free(cost);
        free(part->jobs);
        part->jobs = NULL;
        return -1;
    }
    uint64_t total = 0;
    for (unsigned p = 0; p < s->n; p++)
        total += cost[p];
    *share = total ? (double)cost[s->k - 1] / (double)total : 0.0;
    for (size_t i = 0; i < plan->n; i++)
        if (which[i] == s->k - 1)
            part->jobs[part->n++] = plan->jobs[i];
    part->cap = part->n;
    free(which);
    free(cost);
    return 0;
}
