/*
 * time_sgemm.c — the GEMM example's timing command for clc-pack --tune-cmd
 * (docs/CLI.md, "Your own timing"):
 *
 *   clc-pack sgemm.cl ... --tune-cmd './time_sgemm {binary} {defines} {device}'
 *
 * loads the variant's binary on the device clc-pack built it for, launches
 * it twice to warm up and RUNS times on N x N matrices, and prints the
 * median kernel time (event profiling) as the line clc-pack stores:
 *
 *   median_ns=123456 runs=11 size=128x128
 *
 * It needs only OpenCL: the binary is the variant's, as clc-pack built it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gemm_common.h"

#define RUNS 11
#define WARMUP 2

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n)) &&
        fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *size = n > 0 ? (size_t)n : 0;
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: time_sgemm BINARY DEFINES DEVICE [N]\n");
        return 2;
    }
    long ts = gc_define(argv[2], "TS"), wpt = gc_define(argv[2], "WPT");
    int n = argc == 5 ? atoi(argv[4]) : 128;
    char err[GC_ERR_MAX];
    cl_device_id dev;
    size_t size;
    unsigned char *bin = read_file(argv[1], &size);
    if (!bin || ts < 0 || wpt < 0 || n <= 0) {
        fprintf(stderr, "time_sgemm: %s\n", !bin ? "cannot read the binary" : "bad arguments");
        return 1;
    }
    gc_problem g;
    if (gc_device((unsigned)atoi(argv[3]), &dev, err) != 0 || gc_setup(&g, dev, n, err) != 0) {
        fprintf(stderr, "time_sgemm: %s\n", err);
        return 1;
    }
    const unsigned char *bins[1] = {bin};
    cl_int rc, st;
    cl_program prog = clCreateProgramWithBinary(g.ctx, 1, &dev, &size, bins, &st, &rc);
    if (prog)
        rc = clBuildProgram(prog, 1, &dev, "", NULL, NULL);
    cl_kernel k = rc == CL_SUCCESS ? clCreateKernel(prog, "sgemm", &rc) : NULL;
    if (!k) {
        fprintf(stderr, "time_sgemm: the binary does not load: OpenCL error %d\n", (int)rc);
        return 1;
    }
    uint64_t t[RUNS];
    for (int i = 0; i < WARMUP + RUNS; i++)
        if (gc_launch(&g, k, ts, wpt, &t[i < WARMUP ? 0 : i - WARMUP], err) != 0) {
            fprintf(stderr, "time_sgemm: %s\n", err);
            return 1;
        }
    double max_err;
    if (gc_check(&g, &max_err) != 0) {
        fprintf(stderr, "time_sgemm: wrong result (error %g)\n", max_err);
        return 1;
    }
    qsort(t, RUNS, sizeof t[0], cmp_u64);
    printf("median_ns=%llu runs=%d size=%dx%d\n", (unsigned long long)t[RUNS / 2], RUNS, n, n);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    gc_free(&g);
    free(bin);
    return 0;
}
