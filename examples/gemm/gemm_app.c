/*
 * gemm_app.c — an application that uses a tuned GEMM pack through
 * clcpack.h alone: it asks the pack for the fastest sgemm variant on its
 * device whose defines match the constraints given (none: over every
 * axis), loads it, runs it and checks the product.
 *
 *   gemm_app PACK [--device N] [NAME=VALUE]...
 *
 * prints the choice (its entry, defines, work-group, median and why) and
 * "product ok" when the kernel computed C = A * B right.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clcpack.h>

#include "gemm_common.h"

#define MAX_CONSTRAINTS 8

static long choice_define(const clcpack_choice *c, const char *name)
{
    for (size_t i = 0; i < c->define_count; i++)
        if (strcmp(c->defines[i].name, name) == 0)
            return atol(c->defines[i].value);
    return -1;
}

int main(int argc, char **argv)
{
    clcpack_define cons[MAX_CONSTRAINTS];
    char text[MAX_CONSTRAINTS][64];
    size_t n_cons = 0;
    unsigned device = 0;
    const char *path = argc > 1 ? argv[1] : NULL;
    for (int i = 2; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
            device = (unsigned)atoi(argv[++i]);
        } else if (eq && n_cons < MAX_CONSTRAINTS && strlen(argv[i]) < sizeof text[0]) {
            strcpy(text[n_cons], argv[i]);
            text[n_cons][eq - argv[i]] = '\0';
            cons[n_cons].name = text[n_cons];
            cons[n_cons].value = text[n_cons] + (eq - argv[i]) + 1;
            n_cons++;
        } else {
            path = NULL;
        }
    }
    if (!path) {
        fprintf(stderr, "usage: gemm_app PACK [--device N] [NAME=VALUE]...\n");
        return 2;
    }

    char gerr[GC_ERR_MAX];
    cl_device_id dev;
    if (gc_device(device, &dev, gerr) != 0) {
        fprintf(stderr, "gemm_app: %s\n", gerr);
        return 1;
    }
    clcpack *pack;
    clcpack_error err;
    if (clcpack_open_file(path, &pack, &err) != CLCPACK_OK) {
        fprintf(stderr, "gemm_app: %s\n", err.message);
        return 1;
    }
    clcpack_device_info here = {.struct_size = sizeof here};
    clcpack_choice c = {.struct_size = sizeof c};
    if (clcpack_device_query(dev, &here, &err) != CLCPACK_OK ||
        clcpack_best_variant(pack, "sgemm", cons, n_cons, NULL, &here, &c, &err) != CLCPACK_OK) {
        fprintf(stderr, "gemm_app: %s (%s)\n", err.message, clcpack_strerror(err.status));
        clcpack_close(pack);
        return 1;
    }
    printf("choice: entry %u, defines", (unsigned)c.entry);
    for (size_t i = 0; i < c.define_count; i++)
        printf("%s%s=%s", i ? "," : " ", c.defines[i].name, c.defines[i].value);
    printf(", wg %ux%u, %s, median_ns %llu, candidates %u\n", (unsigned)c.wg[0],
           (unsigned)c.wg[1], c.measured ? "measured" : "default rule",
           (unsigned long long)c.timing.median_ns, (unsigned)c.candidates);
    printf("why: %s\n", c.why);

    clcpack_key key;
    gc_problem g;
    cl_program prog = NULL;
    cl_kernel k = NULL;
    clcpack_load_report report = {.struct_size = sizeof report};
    int rc = 1;
    if (gc_setup(&g, dev, 64, gerr) != 0) {
        fprintf(stderr, "gemm_app: %s\n", gerr);
        goto out;
    }
    if (clcpack_choice_key(&c, &key) != CLCPACK_OK ||
        clcpack_create_kernel(pack, &key, g.ctx, dev, NULL, &prog, &k, &report, &err) !=
            CLCPACK_OK) {
        fprintf(stderr, "gemm_app: %s\n", err.message);
        goto out;
    }
    printf("loaded: %s\n", clcpack_path_name(report.path));
    uint64_t ns;
    double max_err;
    if (gc_launch(&g, k, choice_define(&c, "TS"), choice_define(&c, "WPT"), &ns, gerr) != 0) {
        fprintf(stderr, "gemm_app: %s\n", gerr);
        goto out;
    }
    if (gc_check(&g, &max_err) != 0) {
        fprintf(stderr, "gemm_app: wrong product (error %g)\n", max_err);
        goto out;
    }
    printf("product ok (64x64, max error %.2g)\n", max_err);
    rc = 0;
out:
    if (k)
        clReleaseKernel(k);
    if (prog)
        clReleaseProgram(prog);
    gc_free(&g);
    clcpack_close(pack);
    return rc;
}
