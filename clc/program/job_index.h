/*
 * job_index.h — the jobs of a build_job_list by a hash of their entry
 * name, defines and work-group, so that a variant made twice (explicit
 * variants that overlap) is found at once: compared with every job made
 * before, a product of 10 000 variants took minutes.
 */
#ifndef CLC_JOB_INDEX_H
#define CLC_JOB_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "build_job.h"

/* Zeroed: empty. */
typedef struct job_index {
    size_t *slots;         /* job index + 1; 0 is an empty slot */
    uint64_t *hashes;      /* of the job in each slot */
    size_t cap;            /* slots: a power of two, or 0 */
    size_t indexed;        /* jobs of the list in the table: jobs[0..indexed) */
} job_index;

/* Whether out holds the job of entry with exactly the n defines (names[i],
 * values[i], sorted by name as build_job_set_defines sorts them) and wg:
 * 1, 0, or -1 when out of memory. The jobs added to out since the last
 * call are indexed first: out may only grow between calls. */
int job_index_holds(job_index *x, const build_job_list *out, const char *entry,
                    const char *const *names, const char *const *values, size_t n,
                    const uint32_t wg[3]);

void job_index_free(job_index *x);

#endif /* CLC_JOB_INDEX_H */
