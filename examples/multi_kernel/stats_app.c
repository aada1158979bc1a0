/*
 * stats_app.c — loads the two-kernel program of kernels/stats.cl from a pack
 * made by one direct clc-pack command line (see Makefile), clamps and scales
 * a buffer with one kernel, sums it with the other, checks the sum on the
 * CPU and prints whether the program came from a binary or was rebuilt from
 * the pack's source.
 *
 *   stats_app PACK [GROUP]      GROUP: a work-group size in the pack (default 64)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clcpack.h>

typedef struct stats_range {
    cl_float lo;
    cl_float hi;
} stats_range; /* as in include/stats.h */

static int first_device(cl_device_id *dev, cl_context *ctx)
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    if (clGetPlatformIDs(8, plats, &np) != CL_SUCCESS || np == 0)
        return -1;
    for (int type = 0; type < 2; type++)
        for (cl_uint i = 0; i < np && i < 8; i++)
            if (clGetDeviceIDs(plats[i], type == 0 ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL, 1, dev,
                               NULL) == CL_SUCCESS) {
                cl_int rc;
                *ctx = clCreateContext(NULL, 1, dev, NULL, NULL, &rc);
                return rc == CL_SUCCESS ? 0 : -1;
            }
    return -1;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: stats_app PACK [GROUP]\n");
        return 2;
    }
    const char *group = argc > 2 ? argv[2] : "64";
    unsigned g = (unsigned)strtoul(group, NULL, 10);
    if (g == 0 || g > 1024) {
        fprintf(stderr, "stats_app: GROUP %s: not a work-group size\n", group);
        return 2;
    }

    cl_device_id dev;
    cl_context ctx;
    if (first_device(&dev, &ctx) != 0) {
        fprintf(stderr, "stats_app: no OpenCL device\n");
        return 1;
    }
    clcpack *pack = NULL;
    clcpack_error err;
    if (clcpack_open_file(argv[1], &pack, &err) != CLCPACK_OK) {
        fprintf(stderr, "stats_app: %s\n", err.message);
        return 1;
    }
    /* The program holds both kernels: either name finds it. */
    clcpack_define defs[1] = {{"GROUP", group}};
    clcpack_key key = {"clamp_scale", defs, 1, {g, 1, 1}};
    cl_program prog = NULL;
    clcpack_load_report rep = {.struct_size = sizeof rep};
    if (clcpack_create_program(pack, &key, ctx, dev, NULL, &prog, &rep, &err) != CLCPACK_OK) {
        fprintf(stderr, "stats_app: %s\n", err.message);
        return 1;
    }
    printf("program GROUP=%s: %s (%s)\n", group,
           rep.path == CLCPACK_PATH_SOURCE ? "rebuilt from the pack's source" : "from a binary",
           clcpack_path_name(rep.path));

    cl_int rc;
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &rc);
    cl_kernel scale = clCreateKernel(prog, "clamp_scale", &rc);
    cl_kernel sum = rc == CL_SUCCESS ? clCreateKernel(prog, "group_sum", &rc) : NULL;
    if (rc != CL_SUCCESS) {
        fprintf(stderr, "stats_app: clCreateKernel: %d\n", rc);
        return 1;
    }

    size_t n = 16 * (size_t)g, groups = 16;
    float *x = malloc(n * sizeof *x), *sums = malloc(groups * sizeof *sums);
    double want = 0;
    stats_range r = {-5.0f, 5.0f};
    cl_float k = 2.0f;
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)((int)(i * 37 % 200) - 100) / 10.0f;
        want += k * fminf(fmaxf(x[i], r.lo), r.hi);
    }
    cl_mem xm = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof *x, x, &rc);
    cl_mem sm = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, groups * sizeof *sums, NULL, &rc);
    size_t local = g;
    clSetKernelArg(scale, 0, sizeof xm, &xm);
    clSetKernelArg(scale, 1, sizeof r, &r);
    clSetKernelArg(scale, 2, sizeof k, &k);
    clSetKernelArg(sum, 0, sizeof xm, &xm);
    clSetKernelArg(sum, 1, sizeof sm, &sm);
    clSetKernelArg(sum, 2, g * sizeof(float), NULL);
    rc = clEnqueueNDRangeKernel(q, scale, 1, NULL, &n, NULL, 0, NULL, NULL);
    if (rc == CL_SUCCESS)
        rc = clEnqueueNDRangeKernel(q, sum, 1, NULL, &n, &local, 0, NULL, NULL);
    if (rc == CL_SUCCESS)
        rc = clEnqueueReadBuffer(q, sm, CL_TRUE, 0, groups * sizeof *sums, sums, 0, NULL, NULL);
    if (rc != CL_SUCCESS) {
        fprintf(stderr, "stats_app: running the kernels: %d\n", rc);
        return 1;
    }
    double got = 0;
    for (size_t i = 0; i < groups; i++)
        got += sums[i];
    int ok = fabs(got - want) <= 1e-3 * (fabs(want) + 1);
    printf("sum of %zu clamped, scaled values: %.3f (CPU %.3f): %s\n", n, got, want, ok ? "ok" : "WRONG");

    clReleaseMemObject(xm);
    clReleaseMemObject(sm);
    clReleaseKernel(scale);
    clReleaseKernel(sum);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    clcpack_close(pack);
    free(x);
    free(sums);
    return ok ? 0 : 1;
}
