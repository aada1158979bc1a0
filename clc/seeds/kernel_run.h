/*
 * kernel_run.h — launching a built kernel variant the way the manifest says,
 * on random data, and checking it against a double-precision CPU reference.
 *
 * Used by the correctness tests, by clc-pack (the warm-up run that makes
 * PoCL put the work-group function into the binary; verify --check), and by
 * the benchmarks (timing). Nothing here prints.
 */
#ifndef CLC_KERNEL_RUN_H
#define CLC_KERNEL_RUN_H

#include <stddef.h>
#include <stdint.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "manifest.h"

#define KERNEL_RUN_ERR_MAX 1024

/* The problem a variant is run on. For convolutions: the output is
 * width x height; the input is padded as docs/KERNELS.md's border rule says;
 * filter_width is the width for kernels that take it as an argument (it is
 * taken from the FILTER_WIDTH define when the variant has one).
 * For polynomials: n inputs, numcoeffs coefficients (numcoeffs is taken from
 * the NUMCOEFFS define when the variant has one). */
typedef struct kernel_run_problem {
    int width, height;
    size_t n;
    int numcoeffs;
    uint64_t seed;              /* random data is a function of the seed */
    int filter_width;
} kernel_run_problem;

/* The outputs one work-item computes in x and y: the values of the axes the
 * manifest's block line names, 1 x 1 for a kernel without one. */
void kernel_run_block(const manifest_variant *v, int *bx, int *by);

/* A problem of a sensible small size for v (both dimensions a few
 * work-groups, filled in deterministically from seed). */
void kernel_run_default_problem(const manifest_variant *v, uint64_t seed, kernel_run_problem *p);

/* A problem whose grid is wide: 65536 work-items in its first dimension
 * (a "large grid" for PoCL 3.1, whose small-grid work-group functions
 * serve grids below 65535 in every dimension), one work-group tall; a
 * kernel with IMAGE_W compiled in keeps its width. */
void kernel_run_large_problem(const manifest_variant *v, uint64_t seed, kernel_run_problem *p);

/* 0 when v can run p; else -1 and err says why (e.g. "Convolve needs the
 * width to be a multiple of the work-group width 16: 100 is not"). */
int kernel_run_supports(const manifest_variant *v, const kernel_run_problem *p, char err[KERNEL_RUN_ERR_MAX]);

typedef struct kernel_run_result {
    double max_rel_err;         /* max |out-ref| / (sum of |terms| of that
                                   output): docs/KERNELS.md, "Checking" */
    size_t bad_index;           /* first element beyond tolerance (if any) */
    size_t unwritten;           /* outputs still holding the NaN poison */
    double kernel_ms;           /* time of the checked run (event profiling
                                   when the queue has it, else host clock) */
} kernel_run_result;

/* Runs kernel v->kernel->name from prog once on p: random inputs (never all
 * zeros), output poisoned with NaN, compared with the double reference.
 * Returns 0 when every output is within tol, 1 on a mismatch (res says
 * where), -1 on an error (err says which OpenCL call failed or why the
 * problem is refused). res may be NULL. */
int kernel_run_check(cl_context ctx, cl_command_queue q, cl_program prog, const manifest_variant *v,
             const kernel_run_problem *p, double tol, kernel_run_result *res, char err[KERNEL_RUN_ERR_MAX]);

/* Launches the variant once on p without checking (for warm-up, and for
 * problems too large for the reference to be quick); ms, when not NULL,
 * gets the launch's time as kernel_run_result.kernel_ms does. */
int kernel_run_run_once(cl_context ctx, cl_command_queue q, cl_program prog, const manifest_variant *v,
                const kernel_run_problem *p, double *ms, char err[KERNEL_RUN_ERR_MAX]);

/* Times the variant: warmup launches, then runs launches timed with event
 * profiling (the queue must have CL_QUEUE_PROFILING_ENABLE); *median_ns gets
 * the median. The launches hold the device lock lock_key names
 * (device_lock.h; NULL or "": none), taken once the problem is uploaded. */
int kernel_run_time(cl_context ctx, cl_command_queue q, cl_program prog, const manifest_variant *v,
            const kernel_run_problem *p, int warmup, int runs, const char *lock_key,
            uint64_t *median_ns, char err[KERNEL_RUN_ERR_MAX]);

#endif /* CLC_KERNEL_RUN_H */
