/*
 * scale_app.c — the smallest application of a pack, built for Linux and
 * for Windows alike (docs/PLATFORMS.md, "An example"). It opens the pack
 *   - given PACK: that file, by its UTF-8 path (any folder name);
 *   - else, built with -DSCALE_PACK_RC: the executable's RCDATA resource
 *     (clc-pack embed --format rc, compiled by windres or rc.exe);
 *   - else the array linked in (clc-pack embed --format c or asm);
 * loads scale_k (SCALE=3) on the first OpenCL device, runs it on 8 numbers
 * and prints them and where the program came from: the same lines on every
 * system and from every source of the pack.
 *
 *   scale_app [PACK]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clcpack.h>

#include "scale_pack.h" /* clc-pack embed ... --symbol scale_pack --header scale_pack.h */

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <shellapi.h>

/* Windows hands main's argv in the ANSI code page; the library takes
 * UTF-8, so the path comes from the wide command line (link -lshell32). */
static char *utf8_arg(int i)
{
    int n = 0;
    wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &n);
    char *s = NULL;
    if (w && i < n) {
        int len = WideCharToMultiByte(CP_UTF8, 0, w[i], -1, NULL, 0, NULL, NULL);
        s = len > 0 ? malloc((size_t)len) : NULL;
        if (s)
            WideCharToMultiByte(CP_UTF8, 0, w[i], -1, s, len, NULL, NULL);
    }
    LocalFree(w);
    return s;
}
#else
static char *utf8_arg(int i)
{
    (void)i;
    return NULL;
}
#endif

static clcpack_status open_pack(int argc, char **argv, clcpack **pack, clcpack_error *err)
{
    if (argc > 1) {
        char *path = utf8_arg(1);
        clcpack_status st = clcpack_open_file(path ? path : argv[1], pack, err);
        free(path);
        return st;
    }
#ifdef SCALE_PACK_RC
    return clcpack_open_resource(NULL, scale_pack_resource, pack, err);
#else
    return clcpack_open_memory(scale_pack, scale_pack_size, pack, err);
#endif
}

/* The first device of the first platform, and a context on it. */
static int device_open(cl_device_id *dev, cl_context *ctx)
{
    cl_platform_id plat;
    cl_int e = clGetPlatformIDs(1, &plat, NULL);
    if (e == CL_SUCCESS)
        e = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, dev, NULL);
    if (e == CL_SUCCESS)
        *ctx = clCreateContext(NULL, 1, dev, NULL, NULL, &e);
    if (e != CL_SUCCESS)
        fprintf(stderr, "no OpenCL device (error %d)\n", (int)e);
    return e == CL_SUCCESS ? 0 : -1;
}

/* b = a * 3 + 1 on the device, for a = 0..7. */
static int run(cl_context ctx, cl_device_id dev, cl_kernel k, float *b)
{
    float a[8];
    cl_int n = 8, e;
    for (int i = 0; i < n; i++)
        a[i] = (float)i;
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &e);
    cl_mem ma = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, a, &e);
    cl_mem mb = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof a, NULL, &e);
    size_t global = (size_t)n;
    e = clSetKernelArg(k, 0, sizeof ma, &ma);
    e |= clSetKernelArg(k, 1, sizeof mb, &mb);
    e |= clSetKernelArg(k, 2, sizeof n, &n);
    if (e == CL_SUCCESS)
        e = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
    if (e == CL_SUCCESS)
        e = clEnqueueReadBuffer(q, mb, CL_TRUE, 0, sizeof a, b, 0, NULL, NULL);
    clReleaseMemObject(ma);
    clReleaseMemObject(mb);
    clReleaseCommandQueue(q);
    return e == CL_SUCCESS ? 0 : -1;
}

int main(int argc, char **argv)
{
    cl_device_id dev = NULL;
    cl_context ctx = NULL;
    if (device_open(&dev, &ctx) != 0)
        return 1;
    clcpack *pack = NULL;
    clcpack_error err;
    if (open_pack(argc, argv, &pack, &err) != CLCPACK_OK) {
        fprintf(stderr, "scale_app: %s\n", err.message);
        return 1;
    }
    clcpack_define defs[1] = {{"SCALE", "3"}};
    clcpack_key key = {"scale_k", defs, 1, {0, 0, 0}};
    cl_program prog = NULL;
    cl_kernel k = NULL;
    clcpack_load_report rep = {.struct_size = sizeof rep};
    if (clcpack_create_kernel(pack, &key, ctx, dev, NULL, &prog, &k, &rep, &err) != CLCPACK_OK) {
        fprintf(stderr, "scale_app: scale_k: %s\n", err.message);
        return 1;
    }
    float b[8];
    int rc = run(ctx, dev, k, b);
    printf("program from: %s\n", clcpack_path_name(rep.path));
    for (int i = 0; rc == 0 && i < 8; i++)
        printf("%d * 3 + 1 = %.1f\n", i, (double)b[i]);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseContext(ctx);
    clcpack_close(pack);
    return rc == 0 ? 0 : 1;
}
