/*
 * launch_app.c — a small OpenCL application for the record tests
 * (tests/cli/cli_record_link.sh): makes the program "scale" one of three ways,
 * launches its kernel once over 256 items in work-groups of 16, prints the
 * results on stdout and the time of that first launch (enqueue to finish)
 * on stderr.
 *   launch_app build [LOCAL]         clCreateProgramWithSource + clBuildProgram,
 *                                    work-groups of LOCAL (default 16)
 *   launch_app link [FACTOR]         clCompileProgram of two sources, one with
 *                                    a header program "params.h" (FACTOR, default
 *                                    3), + clLinkProgram
 *   launch_app binary FILE           clCreateProgramWithBinary from FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <CL/cl.h>

#include "../../common/app_launch.h"

#define N 256
#define LOCAL 16

static const char *lib_src = "#include \"params.h\"\n"
                             "int scale(int x) { return FACTOR * x + OFFSET; }\n";
static const char *main_src = "int scale(int x);\n"
                              "__kernel void run(__global int *y) {\n"
                              "    int i = get_global_id(0);\n"
                              "    y[i] = scale(i);\n"
                              "}\n";
static const char *whole_src = "int scale(int x) { return 3 * x + OFFSET; }\n"
                               "__kernel void run(__global int *y) {\n"
                               "    int i = get_global_id(0);\n"
                               "    y[i] = scale(i);\n"
                               "}\n";

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = malloc(64 << 20);
    *size = buf ? fread(buf, 1, 64 << 20, f) : 0;
    fclose(f);
    return buf;
}

static void log_of(cl_program p, cl_device_id dev)
{
    char log[4096] = "";
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fprintf(stderr, "launch_app: build log: %s\n", log);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "build";
    cl_device_id dev;
    cl_context ctx;
    cl_int rc;
    if (app_launch(&dev, &ctx) != 0)
        return 1;
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &rc);
    cl_program p = NULL;
    if (strcmp(mode, "build") == 0) {
        p = clCreateProgramWithSource(ctx, 1, &whole_src, NULL, &rc);
        if (clBuildProgram(p, 1, &dev, "-DOFFSET=1", NULL, NULL) != CL_SUCCESS) {
            log_of(p, dev);
            return 1;
        }
    } else if (strcmp(mode, "link") == 0) {
        char params[128];
        snprintf(params, sizeof params, "#define FACTOR %s\n", argc > 2 ? argv[2] : "3");
        const char *params_src = params;
        cl_program hdr = clCreateProgramWithSource(ctx, 1, &params_src, NULL, &rc);
        cl_program a = clCreateProgramWithSource(ctx, 1, &lib_src, NULL, &rc);
        cl_program b = clCreateProgramWithSource(ctx, 1, &main_src, NULL, &rc);
        const char *names[] = {"params.h"};
        if (clCompileProgram(a, 1, &dev, "-DOFFSET=1", 1, &hdr, names, NULL, NULL) !=
                CL_SUCCESS ||
            clCompileProgram(b, 1, &dev, "", 0, NULL, NULL, NULL, NULL) != CL_SUCCESS) {
            log_of(a, dev);
            return 1;
        }
        cl_program inputs[] = {b, a};
        p = clLinkProgram(ctx, 1, &dev, "", 2, inputs, NULL, NULL, &rc);
        if (!p) {
            printf("link failed (%d)\n", (int)rc);
            return 1;
        }
        clReleaseProgram(hdr);
        clReleaseProgram(a);
        clReleaseProgram(b);
    } else if (strcmp(mode, "binary") == 0 && argc > 2) {
        size_t size = 0;
        unsigned char *bin = slurp(argv[2], &size);
        if (!bin || !size) {
            printf("cannot read %s\n", argv[2]);
            return 1;
        }
        const unsigned char *b = bin;
        p = clCreateProgramWithBinary(ctx, 1, &dev, &size, &b, NULL, &rc);
        if (!p || clBuildProgram(p, 1, &dev, "-DOFFSET=1", NULL, NULL) != CL_SUCCESS) {
            printf("binary build failed\n");
            return 1;
        }
        free(bin);
    } else {
        fprintf(stderr, "usage: launch_app build | link [FACTOR] | binary FILE\n");
        return 2;
    }
    cl_kernel k = clCreateKernel(p, "run", &rc);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, N * sizeof(cl_int), NULL, &rc);
    size_t global = N, local = LOCAL;
    if (strcmp(mode, "build") == 0 && argc > 2)
        local = (size_t)atoi(argv[2]);
    cl_int out[N];
    clSetKernelArg(k, 0, sizeof buf, &buf);
    double t0 = now_ms();
    clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
    clFinish(q);
    double first = now_ms() - t0;
    clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
    long sum = 0;
    for (int i = 0; i < N; i++)
        sum += out[i];
    printf("%d %d %d ... %d, sum %ld\n", out[0], out[1], out[2], out[N - 1], sum);
    fprintf(stderr, "launch_app: first launch: %.3f ms\n", first);
    clReleaseMemObject(buf);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}
