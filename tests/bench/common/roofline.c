/* roofline.c — bandwidth and FP32 peak of a device (roofline.h). */
#include "roofline.h"

#include <stdlib.h>
#include <string.h>

#include "bench_stats.h"
#include "bounded_fmt.h"

/* Two FMA kernels, each 16 * iters FMAs per work-item, and the faster one
 * counts: 16 scalar chains suit a GPU (many work-items in flight hide the
 * latency), 4 float16 chains suit a CPU (explicit 16-wide vectors; PoCL's
 * own vectorizer across work-items reached half of that here). a and b
 * are arguments so nothing folds, every lane reaches the output so nothing
 * is dead, and with |a| < 1 each chain converges to b / (1 - a), far from
 * overflow and from denormals. */
static const char *roofline_source =
    "__kernel void copy4(__global const float4 *in, __global float4 *out)\n"
    "{ size_t i = get_global_id(0); out[i] = in[i]; }\n"
    "__kernel void fma_scalar(__global float *out, float a, float b, int iters)\n"
    "{\n"
    "    float x[16];\n"
    "    for (int j = 0; j < 16; j++) x[j] = (float)get_global_id(0) * 1e-7f + (float)j;\n"
    "    for (int i = 0; i < iters; i++) {\n"
    "#pragma unroll\n"
    "        for (int j = 0; j < 16; j++) x[j] = fma(x[j], a, b);\n"
    "    }\n"
    "    float s = 0.0f;\n"
    "    for (int j = 0; j < 16; j++) s += x[j];\n"
    "    out[get_global_id(0)] = s;\n"
    "}\n"
    "__kernel void fma_vector(__global float *out, float a, float b, int iters)\n"
    "{\n"
    "    float16 x = (float16)((float)get_global_id(0) * 1e-7f);\n"
    "    float16 y = x + 1.0f, z = x + 2.0f, w = x + 3.0f;\n"
    "    for (int i = 0; i < iters / 4; i++) {\n"
    "        x = fma(x, a, b); y = fma(y, a, b); z = fma(z, a, b); w = fma(w, a, b);\n"
    "    }\n"
    "    float16 s = x + y + z + w;\n"
    "    float8 e = s.lo + s.hi;\n"
    "    float4 f = e.lo + e.hi;\n"
    "    out[get_global_id(0)] = dot(f, (float4)(1.0f));\n"
    "}\n";

#define FMA_PER_ITER 16
#define FMA_ITERS 4096 /* a multiple of 4 */

static int cl_fail(char err[ROOFLINE_ERR_MAX], const char *what, cl_int rc)
{
    bfmt(err, ROOFLINE_ERR_MAX, "roofline: %s failed with error %d", what, (int)rc);
    return -1;
}

/* Median duration in ns of runs launches of k over global items. */
static int time_kernel(cl_command_queue q, cl_kernel k, size_t global, int warmup, int runs,
                       double *median_ns, char err[ROOFLINE_ERR_MAX])
{
    double *ns = malloc((size_t)runs * sizeof *ns);
    if (!ns) {
        bfmt(err, ROOFLINE_ERR_MAX, "roofline: out of memory");
        return -1;
    }
    for (int i = 0; i < warmup + runs; i++) {
        cl_event ev;
        cl_int rc = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, &ev);
        if (rc != CL_SUCCESS) {
            free(ns);
            return cl_fail(err, "clEnqueueNDRangeKernel", rc);
        }
        rc = clWaitForEvents(1, &ev);
        cl_ulong t0 = 0, t1 = 0;
        if (rc == CL_SUCCESS)
            rc = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
        if (rc == CL_SUCCESS)
            rc = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
        clReleaseEvent(ev);
        if (rc != CL_SUCCESS) {
            free(ns);
            return cl_fail(err, "timing a launch (clWaitForEvents, clGetEventProfilingInfo)", rc);
        }
        if (i >= warmup)
            ns[i - warmup] = t1 > t0 ? (double)(t1 - t0) : 0;
    }
    *median_ns = bench_median(ns, (size_t)runs);
    free(ns);
    return 0;
}

int roofline_measure(cl_context ctx, cl_device_id dev, cl_command_queue q, size_t copy_bytes,
                     int warmup, int runs, roofline *out, char err[ROOFLINE_ERR_MAX])
{
    memset(out, 0, sizeof *out);
    out->runs = runs;
    if (runs < 1 || warmup < 0) {
        bfmt(err, ROOFLINE_ERR_MAX, "roofline: runs must be at least 1");
        return -1;
    }
    cl_int rc;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &roofline_source, NULL, &rc);
    if (rc != CL_SUCCESS)
        return cl_fail(err, "clCreateProgramWithSource", rc);
    cl_kernel copy = NULL, fma[2] = {NULL, NULL};
    cl_mem in = NULL, outb = NULL, sums = NULL;
    int status = -1;
    rc = clBuildProgram(prog, 1, &dev, "-cl-std=CL1.2", NULL, NULL);
    if (rc != CL_SUCCESS) {
        cl_fail(err, "clBuildProgram", rc);
        goto done;
    }
    copy = clCreateKernel(prog, "copy4", &rc);
    if (rc == CL_SUCCESS)
        fma[0] = clCreateKernel(prog, "fma_scalar", &rc);
    if (rc == CL_SUCCESS)
        fma[1] = clCreateKernel(prog, "fma_vector", &rc);
    if (rc != CL_SUCCESS) {
        cl_fail(err, "clCreateKernel", rc);
        goto done;
    }

    /* Bandwidth. */
    size_t items = copy_bytes / 16;
    out->copy_bytes = items * 16;
    in = clCreateBuffer(ctx, CL_MEM_READ_ONLY, out->copy_bytes, NULL, &rc);
    if (rc == CL_SUCCESS)
        outb = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, out->copy_bytes, NULL, &rc);
    if (rc != CL_SUCCESS) {
        cl_fail(err, "clCreateBuffer (copy)", rc);
        goto done;
    }
    /* Written once so the copy reads real pages, not a lazily mapped zero page. */
    const cl_float pattern = 1.5f;
    rc = clEnqueueFillBuffer(q, in, &pattern, sizeof pattern, 0, out->copy_bytes, 0, NULL, NULL);
    if (rc == CL_SUCCESS)
        rc = clEnqueueFillBuffer(q, outb, &pattern, sizeof pattern, 0, out->copy_bytes, 0, NULL,
                                 NULL);
    if (rc == CL_SUCCESS)
        rc = clFinish(q);
    if (rc == CL_SUCCESS)
        rc = clSetKernelArg(copy, 0, sizeof in, &in);
    if (rc == CL_SUCCESS)
        rc = clSetKernelArg(copy, 1, sizeof outb, &outb);
    if (rc != CL_SUCCESS) {
        cl_fail(err, "preparing the copy", rc);
        goto done;
    }
    double ns;
    if (time_kernel(q, copy, items, warmup, runs, &ns, err) != 0)
        goto done;
    out->copy_gbps = ns > 0 ? 2.0 * (double)out->copy_bytes / ns : 0;

    /* FP32 peak: enough work-items to fill every compute unit many times. */
    cl_uint cus = 1;
    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
    size_t global = (size_t)(cus ? cus : 1) * 2048;
    sums = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, global * sizeof(cl_float), NULL, &rc);
    cl_float a = 0.9999f, b = 1e-4f;
    cl_int iters = FMA_ITERS;
    if (rc != CL_SUCCESS) {
        cl_fail(err, "clCreateBuffer (FMA)", rc);
        goto done;
    }
    out->fma_gflop = 2.0 * FMA_PER_ITER * (double)FMA_ITERS * (double)global / 1e9;
    for (int v = 0; v < 2; v++) {
        rc = clSetKernelArg(fma[v], 0, sizeof sums, &sums);
        if (rc == CL_SUCCESS)
            rc = clSetKernelArg(fma[v], 1, sizeof a, &a);
        if (rc == CL_SUCCESS)
            rc = clSetKernelArg(fma[v], 2, sizeof b, &b);
        if (rc == CL_SUCCESS)
            rc = clSetKernelArg(fma[v], 3, sizeof iters, &iters);
        if (rc != CL_SUCCESS) {
            cl_fail(err, "preparing the FMA kernels", rc);
            goto done;
        }
        if (time_kernel(q, fma[v], global, warmup, runs, &ns, err) != 0)
            goto done;
        double gflops = ns > 0 ? out->fma_gflop / (ns / 1e9) : 0;
        if (gflops > out->fma_gflops)
            out->fma_gflops = gflops;
    }
    status = 0;
done:
    if (sums)
        clReleaseMemObject(sums);
    if (in)
        clReleaseMemObject(in);
    if (outb)
        clReleaseMemObject(outb);
    if (copy)
        clReleaseKernel(copy);
    for (int v = 0; v < 2; v++)
        if (fma[v])
            clReleaseKernel(fma[v]);
    clReleaseProgram(prog);
    return status;
}

double roofline_attainable(const roofline *r, double flops, double bytes)
{
    double bound = bytes > 0 ? flops / bytes * r->copy_gbps : r->fma_gflops;
    return bound < r->fma_gflops ? bound : r->fma_gflops;
}
