/*
 * filter_app_source.c — filter_app built the usual way, for comparison: it
 * reads the kernel source at start-up and compiles it with
 * clCreateProgramWithSource/clBuildProgram (the driver's compiler runs on
 * every start), with the same build options clc-pack stores in a pack.
 *
 *   filter_app_source [--kernel NAME] [--width N] [--kernels DIR] in.pgm out.pgm
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter_common.h"

static const char USAGE[] =
    "usage: filter_app_source [--kernel NAME] [--width N] [--kernels DIR] IN OUT\n"
    "  --kernels DIR  clc-pack's kernels folder (default: kernels)\n";

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) == (size_t)n)
        s[n] = '\0';
    else {
        free(s);
        s = NULL;
    }
    fclose(f);
    return s;
}

int main(int argc, char **argv)
{
    app_args a;
    image img = {0}, out = {0};
    if (app_parse(argc, argv, &a, USAGE) != 0 || image_read(a.in, &img) != 0)
        return 2;
    const char *kernel = a.kernel ? a.kernel : default_kernel(&img);
    const int rgba = kernel_is_rgba(kernel);

    double t0 = now_ms();
    cl_device_id dev;
    cl_context ctx;
    if (device_open(&dev, &ctx) != 0)
        return 1;
    double t_ctx = now_ms();

    char path[1024], opts[1024];
    snprintf(path, sizeof path, "%s/%s", a.kernels_dir,
             rgba ? "reda_global.cl" : "amd_convolve.cl");
    char *src = read_text(path);
    if (!src)
        return 1;
    if (rgba)
        snprintf(opts, sizeof opts,
                 "-cl-std=CL1.2 -DFILTER_WIDTH=%d -DHALF_FILTER_SIZE=%d "
                 "-DTWICE_HALF_FILTER_SIZE=%d -DWG_X=%d -DWG_Y=%d -I %s",
                 a.filter_width, (a.filter_width - 1) / 2, a.filter_width - 1, WG_SIZE, WG_SIZE,
                 a.kernels_dir);
    else
        snprintf(opts, sizeof opts, "-cl-std=CL1.2%s%.0d -DWG_X=%d -DWG_Y=%d",
                 strstr(kernel, "_Def") ? " -DFILTER_WIDTH=" : "",
                 strstr(kernel, "_Def") ? a.filter_width : 0, WG_SIZE, WG_SIZE);
    const char *text = src;
    cl_int e;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &text, NULL, &e);
    if (e != CL_SUCCESS || clBuildProgram(prog, 1, &dev, opts, NULL, NULL) != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        fprintf(stderr, "%s: build failed with '%s':\n%s\n", path, opts, log);
        return 1;
    }
    free(src);
    double t_prog = now_ms();

    int rc = filter_run(ctx, dev, prog, kernel, a.filter_width, &img, &out);
    double t_run = now_ms();
    if (rc == 0)
        rc = image_write(a.out, &out);
    if (rc == 0) {
        printf("program: source (clBuildProgram of %s)\n", path);
        printf("start-up: %.1f ms (context %.1f ms, program from source %.1f ms); filter %dx%d "
               "%s width %d: %.1f ms\n",
               t_prog - t0, t_ctx - t0, t_prog - t_ctx, img.width, img.height, kernel,
               a.filter_width, t_run - t_prog);
    }
    clReleaseProgram(prog);
    clReleaseContext(ctx);
    free(img.pixels);
    free(out.pixels);
    return rc == 0 ? 0 : 1;
}
