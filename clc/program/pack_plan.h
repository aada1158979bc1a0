/*
 * pack_plan.h — what `clc-pack [pack]` builds, as one list of build jobs
 * (build_job.h): the direct command line's programs (direct_jobs.h), or
 * the kernels folder's kernel blocks (variant_plan.h, manifest_jobs.h) and
 * program blocks (program_blocks.h) that the selection names. Nothing here
 * prints; the plan's notes are in plan->notes.
 */
#ifndef CLC_PACK_PLAN_H
#define CLC_PACK_PLAN_H

#include <stddef.h>

#include "build_job.h"
#include "direct_jobs.h"
#include "variant_plan.h"

#define PACK_PLAN_ERR_MAX 2400

typedef struct pack_plan_request {
    int direct;                 /* the direct command line, else the kernels folder */
    const direct_jobs_spec *direct_spec; /* with direct */
    const char *kernels_dir;    /* without: the folder holding manifest.txt */
    const variant_plan_request *req;      /* without: --kernel (kernel or program block names), values */
} pack_plan_request;

/* Appends the jobs of r to plan. 0, with *seed_checks 1 when the jobs come
 * from the kernels folder (whose kernel blocks may name a seed check);
 * PACK_PLAN_USAGE when the request itself is wrong (an unknown kernel, a bad
 * value); PACK_PLAN_FAILED when a file is unreadable or wrong, or memory ran out.
 * err says what, naming the file. */
#define PACK_PLAN_FAILED 1
#define PACK_PLAN_USAGE 2
int pack_plan_make(const pack_plan_request *r, build_job_list *plan, int *seed_checks, char *err, size_t cap);

#endif /* CLC_PACK_PLAN_H */
