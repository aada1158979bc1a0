/*
 * first_enqueue — how long the first launch of a program loaded from a
 * pack takes, against the second. A benchmark, not a test (no pass/fail on
 * time; make test does not run it):
 *
 *   make B=build build/bench/first_enqueue
 *   build/bench/first_enqueue PACK [--kernels DIR] [--size WxH|N]
 *
 * For each key of PACK (kernel, defines, work-group), on the default
 * device, it loads the program with clcpack_create_program (the form it
 * picks is the "path" column) into a fresh context, runs it twice on one
 * problem (the variant's default problem, the size clc-pack's check run
 * uses, or --size: WxH for convolutions, N for polynomials) with kernel_run_check, and
 * prints both host-timed launches (enqueue to finish) and their ratio.
 * POCL_KERNEL_CACHE=0 is set (unless already set) so nothing compiled
 * earlier on this machine can help: what the first launch does not have to
 * compile must come from the binary. One size per run: within a process
 * PoCL keeps what a first launch compiled, which would help a later size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clcpack.h"
#include "common/bench_entry.h"
#include "device_select.h"
#include "kernel_run.h"
#include "manifest.h"
#include "pack_text.h"
#include "kernelgen.h"

#define TOL 1e-4

typedef struct size_req {
    int width, height; /* 0: the variant's default problem */
    size_t n;
} size_req;

/* One load and two launches; 0 with the two times, -1 when skipped. */
static int measure(const clcpack *p, const clcpack_entry_info *e, const manifest_variant *v,
                   const kernel_run_problem *pr, cl_device_id dev, double *first, double *second,
                   const char **path)
{
    char err[KERNEL_RUN_ERR_MAX];
    if (kernel_run_supports(v, pr, err) != 0)
        return -1;
    cl_int rc;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &rc);
    clcpack_key key = pack_text_key(e);
    cl_program prog = NULL;
    clcpack_load_report rep = {.struct_size = sizeof rep};
    clcpack_error cerr;
    int out = -1;
    if (clcpack_create_program(p, &key, ctx, dev, NULL, &prog, &rep, &cerr) != CLCPACK_OK) {
        fprintf(stderr, "load failed: %s\n", cerr.message);
        goto done;
    }
    *path = clcpack_path_name(rep.path);
    kernel_run_result r1, r2;
    if (kernel_run_check(ctx, q, prog, v, pr, TOL, &r1, err) != 0 ||
        kernel_run_check(ctx, q, prog, v, pr, TOL, &r2, err) != 0) {
        fprintf(stderr, "%s: run or check failed: %s\n", e->kernel, err);
        goto done;
    }
    *first = r1.kernel_ms;
    *second = r2.kernel_ms;
    out = 0;
done:
    if (prog)
        clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return out;
}

static void usage(FILE *f, const char *argv0)
{
    fprintf(f, "usage: %s PACK [--kernels DIR] [--size WxH|N]\n", argv0);
}

int main(int argc, char **argv)
{
    source_gen_install(&kernelgen_generator); /* the bundled manifest's generators */
    const char *pack_path = NULL, *kernels = "kernels";
    size_req size = {0, 0, 0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0) {
            usage(stdout, argv[0]);
            return 0;
        } else if (strcmp(argv[i], "--kernels") == 0 && i + 1 < argc) {
            kernels = argv[++i];
        } else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            const char *s = argv[++i];
            if (sscanf(s, "%dx%d", &size.width, &size.height) != 2) {
                size.n = strtoul(s, NULL, 10);
                size.width = size.height = 0;
            }
        } else if (!pack_path && argv[i][0] != '-') {
            pack_path = argv[i];
        } else {
            usage(stderr, argv[0]);
            return 2;
        }
    }
    if (!pack_path) {
        usage(stderr, argv[0]);
        return 2;
    }
    setenv("POCL_KERNEL_CACHE", "0", 0);
    printf("POCL_KERNEL_CACHE=%s\n", getenv("POCL_KERNEL_CACHE"));

    static manifest_file m;
    char merr[MANIFEST_ERR_MAX];
    if (manifest_load(kernels, &m, merr) != 0) {
        fprintf(stderr, "%s\n", merr);
        return 1;
    }
    clcpack *p = NULL;
    clcpack_error e;
    if (clcpack_open_file(pack_path, &p, &e) != CLCPACK_OK) {
        fprintf(stderr, "%s: %s\n", pack_path, e.message);
        return 1;
    }
    static device_select_list devs;
    char derr[DEVICE_SELECT_ERR_MAX];
    size_t sel[DEVICE_SELECT_MAX_DEVICES], n_sel;
    if (device_select_enumerate(&devs, derr) != 0 || device_select(&devs, "default", NULL, sel, &n_sel, derr)) {
        fprintf(stderr, "%s\n", derr);
        return 1;
    }
    cl_device_id dev = devs.dev[sel[0]].device;
    printf("device: %s\n", devs.dev[sel[0]].name);
    printf("%-52s %-11s %-6s %10s %10s %7s\n", "entry", "problem", "path", "first ms",
           "second ms", "ratio");

    /* One row per key: the loader picks the form, whichever entry of the
     * key is looked at, so entries of one key would repeat one measurement. */
    size_t *keys = NULL, n_keys = 0;
    if (bench_distinct_keys(p, &keys, &n_keys) != 0) {
        fprintf(stderr, "%s: cannot list the entries\n", pack_path);
        clcpack_close(p);
        return 1;
    }
    double worst = 0, worst_extra = 0;
    size_t runs = 0, over = 0;
    for (size_t i = 0; i < n_keys; i++) {
        clcpack_entry_info ei = {.struct_size = sizeof ei};
        manifest_variant v;
        if (clcpack_get_entry(p, keys[i], &ei) != CLCPACK_OK ||
            bench_entry_variant(&m, &ei, &v) != 0)
            continue;
        kernel_run_problem pr;
        kernel_run_default_problem(&v, 1234, &pr);
        if (size.width) {
            pr.width = size.width;
            pr.height = size.height;
        }
        if (size.n)
            pr.n = size.n;
        double first = 0, second = 0;
        const char *path = "?";
        if (measure(p, &ei, &v, &pr, dev, &first, &second, &path) != 0)
            continue;
        char label[256], problem[32];
        bench_key_label(&ei, label, sizeof label);
        if (v.kernel->family == MANIFEST_FAMILY_POLY)
            snprintf(problem, sizeof problem, "n=%zu", pr.n);
        else
            snprintf(problem, sizeof problem, "%dx%d", pr.width, pr.height);
        double ratio = second > 0 ? first / second : 0;
        printf("%-52.52s %-11s %-6s %10.3f %10.3f %7.2f\n", label, problem, path, first, second,
               ratio);
        fflush(stdout);
        runs++;
        if (ratio > worst)
            worst = ratio;
        if (ratio > 1.5)
            over++;
        if (first - second > worst_extra)
            worst_extra = first - second;
    }
    printf("%zu measurements, worst first/second ratio %.2f, %zu above 1.5, first launch at "
           "most %.3f ms longer than the second\n",
           runs, worst, over, worst_extra);
    free(keys);
    clcpack_close(p);
    return 0;
}
