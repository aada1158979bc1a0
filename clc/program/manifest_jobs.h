/*
 * manifest_jobs.h — the kernels folder's manifest as build jobs: each
 * planned variant (variant_plan.h) becomes a build_job holding its program
 * text (includes folded, or generated), options, defines and work-group,
 * the one kernel it must hold, and the manifest kernel whose reference
 * check it gets (clc/seeds/). From here on the engine builds it like any
 * other program.
 */
#ifndef CLC_MANIFEST_JOBS_H
#define CLC_MANIFEST_JOBS_H

#include "build_job.h"
#include "manifest.h"
#include "variant_plan.h"

/* Appends plan's variants to out. 0, or -1 with err (a source that cannot
 * be read or generated). */
int manifest_jobs_make(const manifest_file *m, const variant_plan *plan, build_job_list *out, char err[MANIFEST_ERR_MAX]);

/* The family name the manifest spells ("conv-grey"), "" for none. */
const char *mf_family_text(manifest_family f);

#endif /* CLC_MANIFEST_JOBS_H */
