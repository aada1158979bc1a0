/*
 * test_compress_pocl.c — how small a real PoCL pack gets: one convolution
 * kernel built at 15 filter widths (3..31), each run once at its local size
 * (so the binary holds its work-group function) and checked against a
 * double reference on random data, then packed. Prints the raw binary
 * bytes and what zlib per entry and the writer's choice (zlib or XOR delta
 * against the best of the nearest earlier widths, docs/FORMAT.md) store,
 * and checks the target: the pack stores at most 8% of the raw bytes.
 *
 *   test_compress_pocl [FILE.cl KERNEL]   measure another kernel's binaries
 *                                         (e.g. kernels/amd_convolve.cl
 *                                         Convolve_Def); no target check
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "check.h"
#include "conv_check.h"
#include "clcpack_write.h"

/* AMD's Convolve_Def (image convolution, step 5): the filter width is
 * compiled in, the nFilterWidth argument kept for the common signature. */
static const char DEFAULT_SOURCE[] =
    "__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))\n"
    "void Convolve_Def(const __global float *pInput, __constant float *pFilter,\n"
    "                  __global float *pOutput, const int nInWidth, const int nFilterWidth)\n"
    "{\n"
    "    const int nWidth = get_global_size(0);\n"
    "    const int xOut = get_global_id(0);\n"
    "    const int yOut = get_global_id(1);\n"
    "    const int xInTopLeft = xOut;\n"
    "    const int yInTopLeft = yOut;\n"
    "    float sum = 0;\n"
    "    for (int r = 0; r < FILTER_WIDTH; r++) {\n"
    "        const int idxFtmp = r * FILTER_WIDTH;\n"
    "        const int yIn = yInTopLeft + r;\n"
    "        const int idxIntmp = yIn * nInWidth + xInTopLeft;\n"
    "        for (int c = 0; c < FILTER_WIDTH; c++) {\n"
    "            const int idxF = idxFtmp + c;\n"
    "            const int idxIn = idxIntmp + c;\n"
    "            sum += pFilter[idxF] * pInput[idxIn];\n"
    "        }\n"
    "    }\n"
    "    const int idxOut = yOut * nWidth + xOut;\n"
    "    pOutput[idxOut] = sum;\n"
    "}\n";

#define WG 16
#define OUT_W 64
#define OUT_H 32
#define N_WIDTHS 15

static cl_context ctx;
static cl_device_id dev;

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

int main(int argc, char **argv)
{
    const char *kernel = "Convolve_Def";
    char *source = NULL;
    if (argc == 3) {
        source = read_text(argv[1]);
        kernel = argv[2];
        if (!CHECK(source != NULL, "cannot read %s", argv[1]))
            return check_summary();
    }
    const char *text = source ? source : DEFAULT_SOURCE;
    cl_platform_id plat;
    cl_int rc;
    if (!CHECK(clGetPlatformIDs(1, &plat, NULL) == CL_SUCCESS &&
                   clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) == CL_SUCCESS,
               "an OpenCL device"))
        return check_summary();
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);

    clcpack_writer *w = NULL;
    clcpack_error err;
    clcpack_device_info info = {.struct_size = sizeof info};
    uint32_t d, s;
    clcpack_writer_new(0, &w, &err);
    clcpack_device_query(dev, &info, &err);
    clcpack_writer_add_device(w, &info, &d, &err);
    clcpack_writer_add_source(w, source ? argv[1] : "convolve_def.cl", text, strlen(text), &s, &err);

    unsigned char *bins[N_WIDTHS] = {NULL};
    size_t sizes[N_WIDTHS] = {0}, raw = 0, zlib_only = 0;
    int built = 0;
    for (int i = 0; i < N_WIDTHS; i++) {
        int fw = 3 + 2 * i;
        char opts[128], value[8];
        snprintf(opts, sizeof opts, "-cl-std=CL1.2 -DFILTER_WIDTH=%d -DWG_X=%d -DWG_Y=%d", fw, WG, WG);
        snprintf(value, sizeof value, "%d", fw);
        cl_program prog = clCreateProgramWithSource(ctx, 1, &text, NULL, &rc);
        if (!CHECK(rc == CL_SUCCESS && clBuildProgram(prog, 1, &dev, opts, NULL, NULL) == CL_SUCCESS,
                   "build at width %d", fw)) {
            if (prog)
                clReleaseProgram(prog);
            continue;
        }
        /* The launch is also the warm-up the binary needs (work-group
         * function compiled in). */
        char why[200] = "";
        double e = test_conv_check(ctx, dev, prog, kernel, fw, OUT_W, OUT_H, WG, 1234 + (uint64_t)i,
                                   why, sizeof why);
        CHECK(e >= 0 && e < 1e-5, "width %d computes right (max rel error %g) %s", fw, e, why);
        clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof sizes[i], &sizes[i], NULL);
        bins[i] = malloc(sizes[i]);
        clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins[i], &bins[i], NULL);
        clReleaseProgram(prog);
        raw += sizes[i];
        uLongf zn = compressBound((uLong)sizes[i]);
        unsigned char *z = malloc(zn);
        compress2(z, &zn, bins[i], (uLong)sizes[i], 9);
        zlib_only += zn;
        free(z);
        clcpack_define def = {"FILTER_WIDTH", value};
        clcpack_entry_spec spec = {sizeof spec, kernel, "conv_grey", opts, &def, 1, {WG, WG, 1}, d, s,
                                   CLCPACK_KIND_NATIVE, 0, bins[i], sizes[i], NULL, 0, 0, NULL};
        built += CHECK(clcpack_writer_add_entry(w, &spec, &err) == CLCPACK_OK, "add: %s", err.message);
    }

    void *data = NULL;
    size_t pack_size = 0;
    CHECK(clcpack_writer_write_memory(w, &data, &pack_size, &err) == CLCPACK_OK, "write: %s",
          err.message);
    clcpack *p = NULL;
    if (CHECK(data && clcpack_open_memory(data, pack_size, &p, &err) == CLCPACK_OK, "open: %s",
              err.message)) {
        size_t stored = 0, deltas = 0;
        for (size_t i = 0; i < clcpack_entry_count(p); i++) {
            clcpack_entry_info e = {.struct_size = sizeof e};
            clcpack_get_entry(p, i, &e);
            stored += e.stored_size;
            deltas += e.codec == 2;
            /* Entries are sorted by width (numbers as numbers): entry i is
             * width 3+2i. The bytes must come back exactly. */
            unsigned char *back = malloc(e.raw_size);
            size_t got = 0;
            CHECK(i < N_WIDTHS && e.raw_size == sizes[i] &&
                      clcpack_read_binary(p, i, back, e.raw_size, &got, &err) == CLCPACK_OK &&
                      memcmp(back, bins[i], sizes[i]) == 0,
                  "entry %zu decodes to the binary of width %zu", i, 3 + 2 * i);
            free(back);
        }
        double ratio = (double)stored / (double)raw;
        printf("%d widths of %s: raw binaries %zu bytes; zlib per entry %zu (%.1f%%); "
               "pack entries %zu (%.2f%%, %zu deltas); whole pack file %zu bytes\n",
               built, kernel, raw, zlib_only, 100.0 * (double)zlib_only / (double)raw, stored,
               100.0 * ratio, deltas, pack_size);
        if (!source)
            CHECK(built == N_WIDTHS && ratio <= 0.08,
                  "a PoCL pack of one kernel at 15 widths stores at most 8%% of the raw bytes "
                  "(%.2f%%)",
                  100.0 * ratio);
        clcpack_close(p);
    }
    clcpack_free(data);
    clcpack_writer_free(w);
    for (int i = 0; i < N_WIDTHS; i++)
        free(bins[i]);
    free(source);
    clReleaseContext(ctx);
    return check_summary();
}
