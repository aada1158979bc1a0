/*
 * dlopen_app.c — an OpenCL application that loads the runtime itself, as
 * hashcat and OpenCV do: dlopen(LIBRARY) (default "libOpenCL.so", then
 * "libOpenCL.so.1") and every function taken with dlsym(handle, ...). It is
 * linked with no OpenCL library. Builds a kernel from source, runs it over
 * 16 ints and prints them (tests/cli/cli_record_dlopen.sh).
 *   dlopen_app [LIBRARY]
 */
#include <dlfcn.h>
#include <stdio.h>

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#define FUNCTIONS(X)                                                                           \
    X(clGetPlatformIDs)                                                                        \
    X(clGetDeviceIDs)                                                                          \
    X(clCreateContext)                                                                         \
    X(clCreateCommandQueue)                                                                    \
    X(clCreateProgramWithSource)                                                               \
    X(clBuildProgram)                                                                          \
    X(clCreateKernel)                                                                          \
    X(clCreateBuffer)                                                                          \
    X(clSetKernelArg)                                                                          \
    X(clEnqueueNDRangeKernel)                                                                  \
    X(clEnqueueReadBuffer)                                                                     \
    X(clReleaseMemObject)                                                                      \
    X(clReleaseKernel)                                                                         \
    X(clReleaseProgram)                                                                        \
    X(clReleaseCommandQueue)                                                                   \
    X(clReleaseContext)

#define DECLARE(n) static __typeof__(&n) p_##n;
FUNCTIONS(DECLARE)

static const char *source =
    "__kernel void triple(__global int *y) {\n"
    "    int i = get_global_id(0);\n"
    "    y[i] = 3 * i + 1;\n"
    "}\n";

int main(int argc, char **argv)
{
    const char *names[] = {argc > 1 ? argv[1] : "libOpenCL.so", "libOpenCL.so.1"};
    void *h = NULL;
    for (int i = 0; i < (argc > 1 ? 1 : 2) && !h; i++)
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("cannot load OpenCL: %s\n", dlerror());
        return 1;
    }
#define LOAD(n)                                                                                \
    if (!(p_##n = (__typeof__(&n))dlsym(h, #n))) {                                             \
        printf("no %s\n", #n);                                                                 \
        return 1;                                                                              \
    }
    FUNCTIONS(LOAD)
    cl_platform_id plat;
    cl_device_id dev;
    cl_int rc;
    if (p_clGetPlatformIDs(1, &plat, NULL) != CL_SUCCESS ||
        p_clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS) {
        printf("no OpenCL device\n");
        return 1;
    }
    cl_context ctx = p_clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
    cl_command_queue q = p_clCreateCommandQueue(ctx, dev, 0, &rc);
    cl_program p = p_clCreateProgramWithSource(ctx, 1, &source, NULL, &rc);
    if (p_clBuildProgram(p, 1, &dev, "-DUNUSED=1", NULL, NULL) != CL_SUCCESS) {
        printf("build failed\n");
        return 1;
    }
    cl_kernel k = p_clCreateKernel(p, "triple", &rc);
    cl_mem buf = p_clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, 16 * sizeof(cl_int), NULL, &rc);
    size_t global = 16, local = 8;
    cl_int out[16];
    p_clSetKernelArg(k, 0, sizeof buf, &buf);
    p_clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
    p_clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
    for (int i = 0; i < 16; i++)
        printf("%d%c", out[i], i == 15 ? '\n' : ' ');
    p_clReleaseMemObject(buf);
    p_clReleaseKernel(k);
    p_clReleaseProgram(p);
    p_clReleaseCommandQueue(q);
    p_clReleaseContext(ctx);
    return 0;
}
