/*
 * roofline.h — the two ceilings a kernel's speed is judged against, each
 * measured on the device in the same run as the kernels: memory bandwidth
 * by a float4 copy kernel (bytes read + bytes written per second) and FP32
 * peak by kernels of independent FMA chains (2 flops per FMA; the faster
 * of a scalar and a float16 form).
 */
#ifndef ROOFLINE_H
#define ROOFLINE_H

#include <stddef.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#define ROOFLINE_ERR_MAX 512

typedef struct roofline {
    double copy_gbps;           /* GB/s, 1e9 bytes */
    double fma_gflops;          /* GFLOP/s */
    size_t copy_bytes;          /* size of each of the copy's two buffers */
    double fma_gflop;           /* work of one FMA launch */
    int runs;
} roofline;

/* Measures both ceilings: warmup launches, then the median of runs, timed
 * with event profiling (q must have CL_QUEUE_PROFILING_ENABLE). The copy
 * uses buffers of copy_bytes each (rounded down to 16 bytes). Returns 0, or
 * -1 with err naming the failing call. */
int roofline_measure(cl_context ctx, cl_device_id dev, cl_command_queue q, size_t copy_bytes,
                     int warmup, int runs, roofline *out, char err[ROOFLINE_ERR_MAX]);

/* The speed a kernel can reach at arithmetic intensity flops/bytes:
 * min(peak, intensity x bandwidth), in GFLOP/s. */
double roofline_attainable(const roofline *r, double flops, double bytes);

#endif /* ROOFLINE_H */
