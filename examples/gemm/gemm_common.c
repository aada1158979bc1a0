/* gemm_common.c — the GEMM example's shared parts (gemm_common.h). */
#include "gemm_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gc_device(unsigned ordinal, cl_device_id *dev, char err[GC_ERR_MAX])
{
    cl_platform_id plats[32];
    cl_uint np = 0;
    if (clGetPlatformIDs(32, plats, &np) != CL_SUCCESS || np == 0) {
        snprintf(err, GC_ERR_MAX, "no OpenCL platform");
        return -1;
    }
    unsigned seen = 0;
    for (cl_uint p = 0; p < np && p < 32; p++) {
        cl_device_id devs[64];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < nd && d < 64; d++, seen++)
            if (seen == ordinal) {
                *dev = devs[d];
                return 0;
            }
    }
    snprintf(err, GC_ERR_MAX, "no device %u (there are %u)", ordinal, seen);
    return -1;
}

long gc_define(const char *defines, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = defines; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, name, n) == 0 && p[n] == '=') {
            char *end;
            long v = strtol(p + n + 1, &end, 10);
            return v > 0 && (*end == ',' || *end == '\0') ? v : -1;
        }
    return -1;
}

int gc_setup(gc_problem *g, cl_device_id dev, int n, char err[GC_ERR_MAX])
{
    memset(g, 0, sizeof *g);
    g->n = n;
    size_t count = (size_t)n * (size_t)n, bytes = count * sizeof(float);
    cl_int rc;
    g->ha = malloc(bytes);
    g->hb = malloc(bytes);
    g->hc = malloc(bytes);
    if (!g->ha || !g->hb || !g->hc) {
        snprintf(err, GC_ERR_MAX, "out of memory");
        return -1;
    }
    unsigned s = 12345;
    for (size_t i = 0; i < count; i++) {
        s = s * 1103515245u + 12345u;
        g->ha[i] = (float)((s >> 16) % 1000) / 500.0f - 1.0f;
        s = s * 1103515245u + 12345u;
        g->hb[i] = (float)((s >> 16) % 1000) / 500.0f - 1.0f;
    }
    g->ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
    if (g->ctx)
        g->queue = clCreateCommandQueue(g->ctx, dev, CL_QUEUE_PROFILING_ENABLE, &rc);
    if (g->queue) {
        g->a = clCreateBuffer(g->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, g->ha, &rc);
        g->b = clCreateBuffer(g->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, g->hb, &rc);
        g->c = clCreateBuffer(g->ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &rc);
    }
    if (!g->a || !g->b || !g->c) {
        snprintf(err, GC_ERR_MAX, "setting up the matrices failed with OpenCL error %d", (int)rc);
        return -1;
    }
    return 0;
}

int gc_launch(gc_problem *g, cl_kernel k, long ts, long wpt, uint64_t *ns, char err[GC_ERR_MAX])
{
    cl_int n = g->n;
    if (ts <= 0 || wpt <= 0 || n % ts || ts % wpt) {
        snprintf(err, GC_ERR_MAX, "size %d does not fit TS=%ld WPT=%ld", (int)n, ts, wpt);
        return -1;
    }
    cl_int rc = clSetKernelArg(k, 0, sizeof n, &n);
    rc |= clSetKernelArg(k, 1, sizeof n, &n);
    rc |= clSetKernelArg(k, 2, sizeof n, &n);
    rc |= clSetKernelArg(k, 3, sizeof g->a, &g->a);
    rc |= clSetKernelArg(k, 4, sizeof g->b, &g->b);
    rc |= clSetKernelArg(k, 5, sizeof g->c, &g->c);
    size_t global[2] = {(size_t)n, (size_t)(n / wpt)}, local[2] = {(size_t)ts, (size_t)(ts / wpt)};
    cl_event ev = NULL;
    if (rc == CL_SUCCESS)
        rc = clEnqueueNDRangeKernel(g->queue, k, 2, NULL, global, local, 0, NULL, &ev);
    if (rc == CL_SUCCESS)
        rc = clWaitForEvents(1, &ev);
    cl_ulong t0 = 0, t1 = 0;
    if (rc == CL_SUCCESS)
        rc = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
    if (rc == CL_SUCCESS)
        rc = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
    if (ev)
        clReleaseEvent(ev);
    if (rc != CL_SUCCESS) {
        snprintf(err, GC_ERR_MAX, "the launch failed with OpenCL error %d", (int)rc);
        return -1;
    }
    *ns = t1 > t0 ? (uint64_t)(t1 - t0) : 1;
    return 0;
}

int gc_check(gc_problem *g, double *max_err)
{
    int n = g->n;
    size_t bytes = (size_t)n * (size_t)n * sizeof(float);
    *max_err = INFINITY;
    if (clEnqueueReadBuffer(g->queue, g->c, CL_TRUE, 0, bytes, g->hc, 0, NULL, NULL) !=
        CL_SUCCESS)
        return -1;
    double worst = 0;
    int ok = 1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double want = 0;
            for (int k = 0; k < n; k++)
                want += (double)g->ha[i * n + k] * (double)g->hb[k * n + j];
            double d = fabs((double)g->hc[i * n + j] - want);
            worst = d > worst ? d : worst;
            ok &= d <= 1e-3 * (fabs(want) + 1.0);
        }
    *max_err = worst;
    return ok ? 0 : -1;
}

void gc_free(gc_problem *g)
{
    if (g->a)
        clReleaseMemObject(g->a);
    if (g->b)
        clReleaseMemObject(g->b);
    if (g->c)
        clReleaseMemObject(g->c);
    if (g->queue)
        clReleaseCommandQueue(g->queue);
    if (g->ctx)
        clReleaseContext(g->ctx);
    free(g->ha);
    free(g->hb);
    free(g->hc);
    memset(g, 0, sizeof *g);
}
