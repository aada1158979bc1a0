/*
 * plan_shard.h — `--shard K/N`: the variants of a plan that the K-th of N
 * runners builds (docs/CLI.md, "Sharding over several machines").
 *
 * The partition is a pure function of the plan: each variant's cost is
 * estimated from its job alone (never from times measured on this
 * machine), in integers, so every runner of a CI matrix, on any machine,
 * computes the same partition and the N parts cover the plan exactly once.
 * Balanced greedily, longest first: the variants in decreasing cost (ties:
 * plan order) each go to the part whose cost is the smallest so far (ties:
 * the lowest part). Nothing here prints.
 */
#ifndef CLC_PLAN_SHARD_H
#define CLC_PLAN_SHARD_H

#include <stddef.h>
#include <stdint.h>

#include "build_job.h"

#define PLAN_SHARD_MAX_SHARDS 10000
#define PLAN_SHARD_ERR_MAX 160
/* A build's fixed cost, in bytes of program text: what a variant whose
 * text is empty would cost (the driver's set-up, the checks, taking the
 * binary). The least-squares fit of time = a + b * text bytes over the 264
 * variants of the default pack on PoCL gave a/b = 16600 bytes
 * (docs/SCALE.md). */
#define PLAN_SHARD_FIXED_COST 16384u

typedef struct plan_shard {
    unsigned k, n;  /* part k (1..n) of n; n == 0: no sharding */
} plan_shard;

/* Parses "K/N" (1 <= K <= N <= PLAN_SHARD_MAX_SHARDS, decimal, nothing else).
 * 0, or -1 with err. */
int plan_shard_parse(const char *text, plan_shard *out, char err[PLAN_SHARD_ERR_MAX]);

/* The estimated cost of building j: its program text's length plus
 * PLAN_SHARD_FIXED_COST (an unrolled kernel's text grows with what it unrolls). */
uint64_t plan_shard_cost(const build_job *j);

/* part[i] (0-based) for each of jobs[0..n), as described above; cost[p]
 * (when not NULL, n_parts long) gets each part's summed cost. 0, or -1
 * when out of memory. */
int plan_shard_partition(const build_job *jobs, size_t n, unsigned n_parts, unsigned *part,
                 uint64_t *cost);

/* Part s->k of plan: *part becomes a view of the plan's jobs that part
 * builds (the jobs stay the plan's; free only part->jobs), *share its share
 * of the estimated cost. 0, or -1 when out of memory. */
int plan_shard_take(const plan_shard *s, const build_job_list *plan, build_job_list *part, double *share);

#endif /* CLC_PLAN_SHARD_H */
