/*
 * cubin_launch.c — runs one packed convolution kernel through the CUDA
 * driver API, so that Nsight Compute (which hooks CUDA launches, not
 * OpenCL ones) can profile the very code the pack holds.
 *
 *   cubin_launch MODULE KERNEL FW OUT_X OUT_Y WG_X WG_Y CHANNELS [SIZE] [RUNS]
 *
 * MODULE is a cubin or PTX made by scripts/gpu_conv_profile.sh from a
 * packed variant's PTX, with its __constant filter argument turned into a
 * module constant named clc_filter (the kernel's loads from it stay
 * constant-memory loads; the argument itself is then unused). The kernel
 * takes the arguments of docs/KERNELS.md's grid=round families:
 * input, filter, output, in_width, width, height. The grid is the one
 * the pack's launcher uses: ceil(SIZE/OUT_X) x ceil(SIZE/OUT_Y) work-items
 * rounded up to WG_X x WG_Y. Prints the median of RUNS launches (CUDA
 * events) and checks 64 output values against a double sum.
 */
#include <cuda.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x)                                                                                  \
    do {                                                                                       \
        CUresult r_ = (x);                                                                     \
        if (r_ != CUDA_SUCCESS) {                                                              \
            const char *s_ = NULL;                                                             \
            cuGetErrorString(r_, &s_);                                                         \
            fprintf(stderr, "cubin_launch: %s: %s\n", #x, s_ ? s_ : "?");                       \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static unsigned char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    long len = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (len < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    unsigned char *p = malloc((size_t)len + 1);
    if (p && fread(p, 1, (size_t)len, f) != (size_t)len) {
        free(p);
        p = NULL;
    }
    fclose(f);
    if (p)
        p[len] = 0; /* a PTX text must end in a NUL */
    *n = (size_t)len;
    return p;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 9) {
        fprintf(stderr, "usage: cubin_launch MODULE KERNEL FW OUT_X OUT_Y WG_X WG_Y CHANNELS "
                        "[SIZE] [RUNS]\n");
        return 2;
    }
    const char *module = argv[1], *kernel = argv[2];
    int fw = atoi(argv[3]), ox = atoi(argv[4]), oy = atoi(argv[5]), wgx = atoi(argv[6]),
        wgy = atoi(argv[7]), ch = atoi(argv[8]);
    int size = argc > 9 ? atoi(argv[9]) : 4096, runs = argc > 10 ? atoi(argv[10]) : 11;
    if (fw < 1 || ox < 1 || oy < 1 || wgx < 1 || wgy < 1 || (ch != 1 && ch != 4) || size < 16 ||
        runs < 1) {
        fprintf(stderr, "cubin_launch: bad arguments\n");
        return 2;
    }
    size_t mod_len;
    unsigned char *image = read_all(module, &mod_len);
    if (!image) {
        fprintf(stderr, "cubin_launch: cannot read %s\n", module);
        return 1;
    }
    CK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CUmodule mod;
    CUfunction fn;
    CK(cuModuleLoadData(&mod, image));
    CK(cuModuleGetFunction(&fn, mod, kernel));
    CUdeviceptr cfilter;
    size_t cbytes;
    CK(cuModuleGetGlobal(&cfilter, &cbytes, mod, "clc_filter"));

    int in_w = size + fw - 1;
    size_t n_in = (size_t)in_w * in_w * ch, n_out = (size_t)size * size * ch,
           n_f = (size_t)fw * fw * ch;
    if (n_f * sizeof(float) > cbytes) {
        fprintf(stderr, "cubin_launch: clc_filter holds %zu bytes, the filter needs %zu\n",
                cbytes, n_f * sizeof(float));
        return 1;
    }
    float *h_in = malloc(n_in * sizeof(float)), *h_f = malloc(n_f * sizeof(float)),
          *h_out = malloc(n_out * sizeof(float));
    unsigned s = 12345;
    for (size_t i = 0; i < n_in; i++)
        h_in[i] = (float)((s = s * 1664525u + 1013904223u) >> 8) / 16777216.0f - 0.5f;
    for (size_t i = 0; i < n_f; i++)
        h_f[i] = (float)((s = s * 1664525u + 1013904223u) >> 8) / 16777216.0f - 0.5f;
    CUdeviceptr d_in, d_out;
    CK(cuMemAlloc(&d_in, n_in * sizeof(float)));
    CK(cuMemAlloc(&d_out, n_out * sizeof(float)));
    CK(cuMemcpyHtoD(d_in, h_in, n_in * sizeof(float)));
    CK(cuMemcpyHtoD(cfilter, h_f, n_f * sizeof(float)));
    CK(cuMemsetD32(d_out, 0x7fc00000u, n_out)); /* NaN: unwritten outputs show */

    int items_x = (size + ox - 1) / ox, items_y = (size + oy - 1) / oy;
    unsigned gx = (unsigned)((items_x + wgx - 1) / wgx), gy = (unsigned)((items_y + wgy - 1) / wgy);
    CUdeviceptr unused = cfilter;
    void *args[] = {&d_in, &unused, &d_out, &in_w, &size, &size};
    CUevent e0, e1;
    CK(cuEventCreate(&e0, 0));
    CK(cuEventCreate(&e1, 0));
    float *ms = malloc((size_t)runs * sizeof(float));
    for (int r = -1; r < runs; r++) { /* one warm-up launch */
        CK(cuEventRecord(e0, 0));
        CK(cuLaunchKernel(fn, gx, gy, 1, (unsigned)wgx, (unsigned)wgy, 1, 0, 0, args, NULL));
        CK(cuEventRecord(e1, 0));
        CK(cuEventSynchronize(e1));
        if (r >= 0)
            CK(cuEventElapsedTime(&ms[r], e0, e1));
    }
    qsort(ms, (size_t)runs, sizeof *ms, cmp_float);
    CK(cuMemcpyDtoH(h_out, d_out, n_out * sizeof(float)));

    /* out(x, y) sums the FW x FW pixels whose top-left corner is (x, y). */
    double worst = 0;
    for (int k = 0; k < 64; k++) {
        int x = (int)((k * 2654435761u) % (unsigned)size), y = (int)((k * 40503u + 7) % (unsigned)size);
        for (int c = 0; c < ch; c++) {
            double sum = 0, mag = 0;
            for (int r = 0; r < fw; r++)
                for (int q = 0; q < fw; q++) {
                    double v = h_in[((size_t)(y + r) * in_w + x + q) * ch + c] *
                               (double)h_f[((size_t)r * fw + q) * ch + c];
                    sum += v;
                    mag += fabs(v);
                }
            double got = h_out[((size_t)y * size + x) * ch + c];
            double err = fabs(got - sum) / (mag > 0 ? mag : 1);
            if (isnan(err) || err > worst) /* a NaN: an output left unwritten */
                worst = isnan(err) ? INFINITY : err;
        }
    }
    double flops = 2.0 * fw * fw * ch * (double)size * size;
    printf("%s FW %d block %dx%d wg %dx%d, %dx%d x%d: median %.4f ms of %d, %.1f GFLOP/s, "
           "max rel err %.1e %s\n",
           kernel, fw, ox, oy, wgx, wgy, size, size, ch, ms[runs / 2], runs,
           flops / (ms[runs / 2] * 1e-3) / 1e9, worst, worst <= 1e-5 ? "ok" : "WRONG");
    return worst <= 1e-5 ? 0 : 1;
}
