/*
 * include_app.c — a small OpenCL application for tests/cli/cli_record.sh: builds
 * the kernel file KERNEL.cl with OPTIONS (typically "-I DIR ..." for a header
 * the kernel includes), runs its kernel "fill" over 8 ints and prints them.
 *   include_app KERNEL.cl "OPTIONS"
 */
#include <stdio.h>
#include <stdlib.h>

#include <CL/cl.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: include_app KERNEL.cl OPTIONS\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    static char src[1 << 16];
    size_t n = f ? fread(src, 1, sizeof src - 1, f) : 0;
    if (f)
        fclose(f);
    if (!n) {
        fprintf(stderr, "include_app: cannot read %s\n", argv[1]);
        return 1;
    }
    src[n] = '\0';
    cl_platform_id plat;
    cl_device_id dev;
    cl_int rc;
    if (clGetPlatformIDs(1, &plat, NULL) != CL_SUCCESS ||
        clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS)
        return 1;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &rc);
    const char *text = src;
    cl_program p = clCreateProgramWithSource(ctx, 1, &text, NULL, &rc);
    if (clBuildProgram(p, 1, &dev, argv[2], NULL, NULL) != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        printf("build failed: %s\n", log);
        return 1;
    }
    cl_kernel k = clCreateKernel(p, "fill", &rc);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, 8 * sizeof(cl_int), NULL, &rc);
    size_t global = 8;
    cl_int out[8];
    clSetKernelArg(k, 0, sizeof buf, &buf);
    clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
    clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
    for (int i = 0; i < 8; i++)
        printf("%d%c", out[i], i == 7 ? '\n' : ' ');
    clReleaseMemObject(buf);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}
