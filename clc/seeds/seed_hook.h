/*
 * seed_hook.h — the bundled example kernels' checks, behind the engine's
 * check_hook interface (check_hook.h).
 *
 * A job whose `check` names a kernel of the kernels folder's manifest is
 * launched the way that manifest entry says (family, argument roles, grid)
 * on random data and compared with the double-precision CPU reference
 * (kernel_run.h); --tune times it (tune_variant.h). Everything that knows
 * what these kernels compute lives behind this one call.
 */
#ifndef CLC_SEED_HOOK_H
#define CLC_SEED_HOOK_H

#include "check_hook.h"
#include "manifest.h"

/* Fills *h with the seeds' hook over manifest m (which must outlive it). */
void seed_hook_init(check_hook *h, const manifest_file *m);

#endif /* CLC_SEED_HOOK_H */
