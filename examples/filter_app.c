/*
 * filter_app.c — filters a PGM/PPM image with one of clc-pack's kernels,
 * taking the program from a pack linked into this binary (clc-pack embed):
 * no kernel file to ship and, on the device the pack was built for, no
 * compiler run at start-up. Prints which path the program came from and
 * how long start-up took. filter_app_source.c does the same by compiling
 * the kernel source, for comparison.
 *
 *   filter_app [--kernel NAME] [--width N] in.pgm out.pgm
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clcpack.h>

#include "filter_common.h"
#include "filter_pack.h" /* clc-pack embed ... --symbol filter_pack --header filter_pack.h */

static const char USAGE[] =
    "usage: filter_app [--kernel NAME] [--width N] IN.pgm|IN.ppm OUT.pgm|OUT.ppm\n"
    "  --kernel NAME  a kernel in the embedded pack (default: Convolve_Def for PGM,\n"
    "                 reda_float4 for PPM)\n"
    "  --width N      the filter width, odd, 1 to 31 (default 5)\n";

int main(int argc, char **argv)
{
    app_args a;
    image img = {0}, out = {0};
    if (app_parse(argc, argv, &a, USAGE) != 0 || image_read(a.in, &img) != 0)
        return 2;
    const char *kernel = a.kernel ? a.kernel : default_kernel(&img);

    double t0 = now_ms();
    cl_device_id dev;
    cl_context ctx;
    if (device_open(&dev, &ctx) != 0)
        return 1;
    double t_ctx = now_ms();

    /* The pack's bytes are used in place: no copy, no file. */
    clcpack *pack = NULL;
    clcpack_error err;
    if (clcpack_open_memory(filter_pack, filter_pack_size, &pack, &err) != CLCPACK_OK) {
        fprintf(stderr, "embedded pack: %s\n", err.message);
        return 1;
    }
    /* The key gives the axis only: the defines the manifest derives from
     * it (Reda's HALF_FILTER_SIZE, ...) are found in the pack. */
    char fw[16];
    snprintf(fw, sizeof fw, "%d", a.filter_width);
    clcpack_define defs[1] = {{"FILTER_WIDTH", fw}};
    size_t ndefs = kernel_is_rgba(kernel) || strstr(kernel, "_Def") ? 1 : 0;
    clcpack_key key = {kernel, defs, ndefs, {WG_SIZE, WG_SIZE, 1}};
    cl_program prog = NULL;
    clcpack_load_report rep = {.struct_size = sizeof rep};
    clcpack_status st = clcpack_create_program(pack, &key, ctx, dev, NULL, &prog, &rep, &err);
    if (st != CLCPACK_OK) {
        fprintf(stderr, "%s at width %d: %s\n", kernel, a.filter_width, err.message);
        clcpack_close(pack);
        return 1;
    }
    double t_prog = now_ms();

    int rc = filter_run(ctx, dev, prog, kernel, a.filter_width, &img, &out);
    double t_run = now_ms();
    if (rc == 0)
        rc = image_write(a.out, &out);
    if (rc == 0) {
        printf("program: %s (%s, entry %u)\n",
               rep.path == CLCPACK_PATH_SOURCE ? "source" : "binary", clcpack_path_name(rep.path),
               (unsigned)rep.entry);
        printf("start-up: %.1f ms (context %.1f ms, program from pack %.1f ms); filter %dx%d "
               "%s width %d: %.1f ms\n",
               t_prog - t0, t_ctx - t0, t_prog - t_ctx, img.width, img.height, kernel,
               a.filter_width, t_run - t_prog);
    }
    clReleaseProgram(prog);
    clcpack_close(pack);
    clReleaseContext(ctx);
    free(img.pixels);
    free(out.pixels);
    return rc == 0 ? 0 : 1;
}
