/*
 * tune_measure.h — how a kernel's time is measured, for every tuner of the
 * project: `clc-pack tune`'s timing worker (tune_worker.c) and the bundled
 * kernels' --tune (clc/seeds/kernel_run.c). One method, so that a time
 * from either means the same (docs/TUNING.md, "How a configuration is
 * timed"): the launches are queued together and waited for once, and each
 * one's time is its own event's start to end, so no host gap is counted;
 * the figure kept is the median.
 */
#ifndef CLC_TUNE_MEASURE_H
#define CLC_TUNE_MEASURE_H

#include <stddef.h>

#include <CL/cl.h>

/* Launches kern runs times over global (local: NULL lets the driver pick)
 * on q, which must profile (CL_QUEUE_PROFILING_ENABLE), and writes each
 * launch's nanoseconds to runs_ns[0..runs). CL_SUCCESS, or the first
 * failing call's error with *what naming the call. */
cl_int tune_measure_launches(cl_command_queue q, cl_kernel kern, cl_uint dims, const size_t *global,
                             const size_t *local, unsigned runs, double *runs_ns, const char **what);

/* The median of v[0..n); INFINITY for none. */
double tune_median_ns(const double *v, size_t n);

#endif /* CLC_TUNE_MEASURE_H */
