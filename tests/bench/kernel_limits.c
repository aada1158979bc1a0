/*
 * kernel_limits — what a driver says a kernel can be launched with, for
 * each form of one program: built from source, and made from each binary
 * file given (PTX, a cubin, a PoCL binary). The probe behind the
 * work-group limit the tuner and the pack build check (docs/TUNING.md,
 * "The kernel's real limits").
 *
 *   kernel_limits DEVICE_INDEX KERNEL SOURCE.cl "OPTIONS" [BINARY...]
 *
 * Prints, one line per form: CL_KERNEL_WORK_GROUP_SIZE,
 * CL_KERNEL_COMPILE_WORK_GROUP_SIZE, CL_KERNEL_LOCAL_MEM_SIZE and
 * CL_KERNEL_PRIVATE_MEM_SIZE. The device is DEVICE_INDEX among every
 * platform's devices, in order.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc(size > 0 ? (size_t)size + 1 : 1);
    if (p && fread(p, 1, (size_t)size, f) != (size_t)size) {
        free(p);
        p = NULL;
    }
    if (p)
        p[size] = 0;
    fclose(f);
    *n = (size_t)size;
    return p;
}

static void report(const char *what, cl_program p, cl_device_id dev, const char *kernel)
{
    cl_int rc;
    cl_kernel k = clCreateKernel(p, kernel, &rc);
    if (!k) {
        printf("%-40s clCreateKernel failed (%d)\n", what, rc);
        return;
    }
    size_t wg = 0, cwg[3] = {0, 0, 0};
    cl_ulong lmem = 0, pmem = 0;
    clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof cwg, cwg, NULL);
    clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL);
    clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof pmem, &pmem, NULL);
    printf("%-40s work-group size %zu, compile size %zux%zux%zu, local %llu B, private %llu B\n",
           what, wg, cwg[0], cwg[1], cwg[2], (unsigned long long)lmem, (unsigned long long)pmem);
    clReleaseKernel(k);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: kernel_limits DEVICE_INDEX KERNEL SOURCE.cl \"OPTIONS\" [BINARY...]\n");
        return 2;
    }
    cl_platform_id plats[16];
    cl_uint np = 0;
    clGetPlatformIDs(16, plats, &np);
    cl_device_id dev = NULL;
    unsigned want = (unsigned)atoi(argv[1]), seen = 0;
    for (cl_uint i = 0; i < np && !dev; i++) {
        cl_device_id d[16];
        cl_uint nd = 0;
        clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 16, d, &nd);
        for (cl_uint j = 0; j < nd && !dev; j++, seen++)
            if (seen == want)
                dev = d[j];
    }
    if (!dev) {
        fprintf(stderr, "kernel_limits: no device %u\n", want);
        return 1;
    }
    cl_int rc;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
    size_t n;
    unsigned char *src = slurp(argv[3], &n);
    if (!ctx || !src) {
        fprintf(stderr, "kernel_limits: no context or no %s\n", argv[3]);
        return 1;
    }
    const char *s = (const char *)src;
    cl_program p = clCreateProgramWithSource(ctx, 1, &s, &n, &rc);
    if (clBuildProgram(p, 1, &dev, argv[4], NULL, NULL) != CL_SUCCESS) {
        fprintf(stderr, "kernel_limits: the source does not build\n");
        return 1;
    }
    report("source", p, dev, argv[2]);
    clReleaseProgram(p);
    for (int i = 5; i < argc; i++) {
        unsigned char *bin = slurp(argv[i], &n);
        const unsigned char *b = bin;
        cl_int st;
        p = bin ? clCreateProgramWithBinary(ctx, 1, &dev, &n, &b, &st, &rc) : NULL;
        if (!p || clBuildProgram(p, 1, &dev, argv[4], NULL, NULL) != CL_SUCCESS)
            printf("%-40s does not load (%d)\n", argv[i], rc);
        else
            report(argv[i], p, dev, argv[2]);
        if (p)
            clReleaseProgram(p);
        free(bin);
    }
    free(src);
    clReleaseContext(ctx);
    return 0;
}
