/*
 * check_hook.h — how kernel-specific checks plug into the build engine.
 *
 * The engine checks every variant the same way, whatever the program
 * (docs/ARCHITECTURE.md, "Checks"): it must build, hold the kernels asked
 * for, and come back from its own binary with the same kernels and
 * arguments (checks/roundtrip.h); a user's --check-cmd may run on it too.
 * A variant whose job names a `check` is also handed to a hook: the module
 * that knows those kernels (for the bundled example kernels, clc/seeds/)
 * launches it on random data and compares with its CPU reference, and times
 * it for --tune. The engine never knows what the kernels compute.
 */
#ifndef CLC_CHECK_HOOK_H
#define CLC_CHECK_HOOK_H

#include <stddef.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "build_job.h"
#include "clcpack.h"
#include "tune_options.h"

#define CH_MSG_MAX 1024

typedef struct check_hook {
    void *self;
    /* Runs job's check on prog (built from source on dev): with compare 1,
     * launches on random data and compares with the reference; with 0,
     * launches once without comparing (a warm-up). Returns 0 when it
     * passed, 1 when the output is wrong, -1 on an error; msg says what
     * (one line). */
    int (*check)(void *self, cl_context ctx, cl_command_queue q, cl_program prog,
                 const build_job *job, int compare, double tol, char msg[CH_MSG_MAX]);
    /* --tune: times job's kernel as o asks; up to TUNE_OPTIONS_MAX_WIDTHS timings in
     * out, their count in *n. 0, or -1 with note (timings taken are kept). */
    int (*tune)(void *self, cl_context ctx, cl_command_queue q, cl_program prog,
                const build_job *job, const tune_options *o, clcpack_tuning *out, size_t *n,
                char note[TUNE_OPTIONS_NOTE_MAX]);
} check_hook;

#endif /* CLC_CHECK_HOOK_H */
