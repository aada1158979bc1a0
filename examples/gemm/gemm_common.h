/*
 * gemm_common.h — what the GEMM example's application (gemm_app.c) and its
 * timing command (time_sgemm.c) share: the device by the number
 * `clc-pack --list-devices` gives it, random square matrices on it, one
 * launch of sgemm.cl's kernel, and the check against a CPU product.
 */
#ifndef GEMM_COMMON_H
#define GEMM_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#define GC_ERR_MAX 256

/* The device numbered `ordinal` counting every device of every platform in
 * order, as clc-pack --list-devices and its {device} placeholder do. */
int gc_device(unsigned ordinal, cl_device_id *dev, char err[GC_ERR_MAX]);

/* The value of define `name` in "RTS=4,TS=16,WPT=4" (clc-pack's {defines}),
 * or -1 when it is missing or not a positive number. */
long gc_define(const char *defines, const char *name);

typedef struct gc_problem {
    int n;                    /* M = N = K */
    cl_context ctx;
    cl_command_queue queue;   /* with profiling */
    cl_mem a, b, c;
    float *ha, *hb, *hc;      /* host copies: inputs and the result */
} gc_problem;

/* n x n random matrices A and B (a fixed seed) on dev. */
int gc_setup(gc_problem *g, cl_device_id dev, int n, char err[GC_ERR_MAX]);

/* One launch of kernel k (sgemm.cl) with tile ts and wpt work per item; its
 * time (event profiling) in *ns. */
int gc_launch(gc_problem *g, cl_kernel k, long ts, long wpt, uint64_t *ns, char err[GC_ERR_MAX]);

/* Reads C back and compares it with the CPU product; *max_err the largest
 * difference. 0 when every element is within 1e-3 relative. */
int gc_check(gc_problem *g, double *max_err);

void gc_free(gc_problem *g);

#endif /* GEMM_COMMON_H */
