/*
 * npp_filter — NVIDIA NPP's general convolution, nppiFilter_32f_C1R_Ctx
 * (grey float) and nppiFilter_32f_C4R_Ctx (RGBA float), timed on the
 * problem tests/bench/speed --best times clc-pack's kernels on: a W x W
 * output, the valid region of a (W + FW - 1)^2 input (no border handling:
 * the source pointer sits FW/2 pixels inside a padded image, the anchor at
 * the kernel's centre), filter widths 3..31 odd.
 *
 *   npp_filter [--size 4096] [--widths 3-31:2] [--runs 21] [--warmup 3]
 *              [--csv FILE]
 *
 * Each (channels, width): --warmup calls, then --runs calls each timed
 * with CUDA events around the call on its stream; the median is kept. Then
 * the output is checked at 256 pixels against a double sum on the host
 * (NPP stores the kernel in reverse order; the check tries that order and
 * says so), so the time is for a correct result.
 *
 * Prints a markdown table; with --csv writes lines
 * family,fw,width,height,ms,name (conv-grey / conv-rgba) for speed
 * --peer-csv, for the results that passed the check only. Exit status 0; 1 when a call failed or a check did not pass;
 * 2 on a usage error. Built by scripts/gpu_conv_bench.sh with nvcc when
 * NPP is installed.
 */
#include <cuda_runtime.h>
#include <npp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK_CUDA(call)                                                                   \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "npp_filter: %s: %s\n", #call, cudaGetErrorString(e_));        \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Magnitude in [1/8, 1], random sign: the data of docs/KERNELS.md. */
static float signed_value(uint64_t *s)
{
    uint64_t r = splitmix(s);
    float m = 0.125f + 0.875f * (float)((r >> 11) & 0xffffff) / 16777216.0f;
    return (r & 1) ? -m : m;
}

static int parse_widths(const char *t, std::vector<int> *out)
{
    int a, b, step = 1;
    char c;
    if (sscanf(t, "%d-%d:%d%c", &a, &b, &step, &c) == 3 || sscanf(t, "%d-%d%c", &a, &b, &c) == 2) {
        if (a < 1 || b < a || b > 63 || step < 1)
            return -1;
        for (int w = a; w <= b; w += step)
            out->push_back(w);
        return 0;
    }
    const char *p = t;
    while (*p) {
        char *end;
        long w = strtol(p, &end, 10);
        if (end == p || w < 1 || w > 63)
            return -1;
        out->push_back((int)w);
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return out->empty() ? -1 : 0;
}

int main(int argc, char **argv)
{
    int size = 4096, runs = 21, warmup = 3;
    const char *csv = NULL;
    std::vector<int> widths;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--size") && v && (size = atoi(v)) >= 16 && size <= 16384)
            i++;
        else if (!strcmp(a, "--runs") && v && (runs = atoi(v)) >= 1 && runs <= 1000)
            i++;
        else if (!strcmp(a, "--warmup") && v && (warmup = atoi(v)) >= 0 && warmup <= 1000)
            i++;
        else if (!strcmp(a, "--widths") && v && parse_widths(v, &widths) == 0)
            i++;
        else if (!strcmp(a, "--csv") && v)
            csv = argv[++i];
        else {
            fprintf(stderr, "usage: npp_filter [--size 16..16384] [--widths 3-31:2] "
                            "[--runs N] [--warmup N] [--csv FILE]\n");
            return 2;
        }
    }
    if (widths.empty())
        for (int w = 3; w <= 31; w += 2)
            widths.push_back(w);
    int maxw = *std::max_element(widths.begin(), widths.end());

    cudaDeviceProp prop;
    int dev = 0;
    CHECK_CUDA(cudaGetDevice(&dev));
    CHECK_CUDA(cudaGetDeviceProperties(&prop, dev));
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreate(&stream));
    NppStreamContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.hStream = stream;
    ctx.nCudaDeviceId = dev;
    ctx.nMultiProcessorCount = prop.multiProcessorCount;
    ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
    ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
    ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
    CHECK_CUDA(cudaDeviceGetAttribute(&ctx.nCudaDevAttrComputeCapabilityMajor,
                                      cudaDevAttrComputeCapabilityMajor, dev));
    CHECK_CUDA(cudaDeviceGetAttribute(&ctx.nCudaDevAttrComputeCapabilityMinor,
                                      cudaDevAttrComputeCapabilityMinor, dev));
    CHECK_CUDA(cudaStreamGetFlags(stream, &ctx.nStreamFlags));

    const NppLibraryVersion *ver = nppGetLibVersion();
    printf("### NPP nppiFilter_32f, %dx%d valid region\n\n", size, size);
    printf("Device: %s (compute capability %d.%d), NPP %d.%d.%d. Median of %d calls after %d "
           "warm-up calls, CUDA events around each call; output checked at 256 pixels against "
           "a double sum.\n\n",
           prop.name, prop.major, prop.minor, ver->major, ver->minor, ver->build, runs, warmup);
    printf("| channels | FW | ms | GFLOP/s | check |\n|---:|---:|---:|---:|---|\n");

    FILE *out = NULL;
    if (csv && !(out = fopen(csv, "w"))) {
        fprintf(stderr, "npp_filter: --csv %s: cannot write\n", csv);
        return 1;
    }
    if (out)
        fprintf(out, "family,fw,width,height,ms,name\n");
    int failed = 0;
    for (int ch = 1; ch <= 4; ch += 3) {
        /* One padded source for the largest width; each width reads the
         * centre of it. */
        int pad = maxw - 1, hpad = pad / 2;
        size_t inW = (size_t)size + pad, inH = (size_t)size + pad;
        std::vector<float> h_in(inW * inH * ch);
        uint64_t seed = 0x5eed0000u + (uint64_t)ch;
        for (float &x : h_in)
            x = signed_value(&seed);
        float *d_in, *d_out, *d_k;
        size_t in_pitch, out_pitch;
        CHECK_CUDA(cudaMallocPitch((void **)&d_in, &in_pitch, inW * ch * sizeof(float), inH));
        CHECK_CUDA(cudaMallocPitch((void **)&d_out, &out_pitch, (size_t)size * ch * sizeof(float),
                                   (size_t)size));
        CHECK_CUDA(cudaMemcpy2D(d_in, in_pitch, h_in.data(), inW * ch * sizeof(float),
                                inW * ch * sizeof(float), inH, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMalloc((void **)&d_k, (size_t)maxw * maxw * sizeof(float)));
        cudaEvent_t e0, e1;
        CHECK_CUDA(cudaEventCreate(&e0));
        CHECK_CUDA(cudaEventCreate(&e1));
        for (int fw : widths) {
            int hfs = fw / 2;
            std::vector<float> h_k((size_t)fw * fw);
            for (float &x : h_k)
                x = signed_value(&seed);
            CHECK_CUDA(cudaMemcpy(d_k, h_k.data(), h_k.size() * sizeof(float),
                                  cudaMemcpyHostToDevice));
            /* Output (x, y) is centred on source pixel (x + hpad, y + hpad). */
            const Npp32f *src = (const Npp32f *)((const char *)d_in + (size_t)hpad * in_pitch) +
                                (size_t)hpad * ch;
            NppiSize roi = {size, size};
            NppiSize ks = {fw, fw};
            NppiPoint anchor = {hfs, hfs};
            auto call = [&]() {
                return ch == 1 ? nppiFilter_32f_C1R_Ctx(src, (Npp32s)in_pitch, d_out,
                                                        (Npp32s)out_pitch, roi, d_k, ks, anchor, ctx)
                               : nppiFilter_32f_C4R_Ctx(src, (Npp32s)in_pitch, d_out,
                                                        (Npp32s)out_pitch, roi, d_k, ks, anchor, ctx);
            };
            NppStatus st = NPP_SUCCESS;
            for (int i = 0; i < warmup && st == NPP_SUCCESS; i++)
                st = call();
            std::vector<float> ms;
            for (int i = 0; i < runs && st == NPP_SUCCESS; i++) {
                CHECK_CUDA(cudaEventRecord(e0, stream));
                st = call();
                CHECK_CUDA(cudaEventRecord(e1, stream));
                CHECK_CUDA(cudaEventSynchronize(e1));
                float t = 0;
                CHECK_CUDA(cudaEventElapsedTime(&t, e0, e1));
                ms.push_back(t);
            }
            if (st != NPP_SUCCESS) {
                printf("| %d | %d | failed: NppStatus %d | | |\n", ch, fw, (int)st);
                failed = 1;
                continue;
            }
            std::sort(ms.begin(), ms.end());
            double med = runs % 2 ? ms[runs / 2] : (ms[runs / 2 - 1] + ms[runs / 2]) / 2.0;

            /* The check: 256 pixels spread over the image, every channel. */
            std::vector<float> h_out((size_t)size * ch);
            double worst_rev = 0, worst_dir = 0;
            uint64_t ps = 0xc4ec4u + (uint64_t)fw;
            for (int n = 0; n < 256; n++) {
                int x = (int)(splitmix(&ps) % (uint64_t)size);
                int y = (int)(splitmix(&ps) % (uint64_t)size);
                float got[4];
                CHECK_CUDA(cudaMemcpy(got, (const char *)d_out + (size_t)y * out_pitch +
                                               (size_t)x * ch * sizeof(float),
                                      ch * sizeof(float), cudaMemcpyDeviceToHost));
                for (int k = 0; k < ch; k++) {
                    double rev = 0, dir = 0, mag = 0;
                    for (int r = 0; r < fw; r++)
                        for (int c = 0; c < fw; c++) {
                            size_t iy = (size_t)(y + hpad - hfs + r), ix = (size_t)(x + hpad - hfs + c);
                            double v = h_in[(iy * inW + ix) * ch + k];
                            rev += v * h_k[(size_t)(fw - 1 - r) * fw + (fw - 1 - c)];
                            dir += v * h_k[(size_t)r * fw + c];
                            mag += fabs(v * h_k[(size_t)r * fw + c]);
                        }
                    worst_rev = std::max(worst_rev, fabs(got[k] - rev) / mag);
                    worst_dir = std::max(worst_dir, fabs(got[k] - dir) / mag);
                }
            }
            const char *check;
            char buf[96];
            if (worst_rev <= 1e-5) {
                snprintf(buf, sizeof buf, "ok (reversed kernel, max rel err %.1e)", worst_rev);
                check = buf;
            } else if (worst_dir <= 1e-5) {
                snprintf(buf, sizeof buf, "ok (kernel in order, max rel err %.1e)", worst_dir);
                check = buf;
            } else {
                snprintf(buf, sizeof buf, "WRONG (max rel err %.1e / %.1e)", worst_rev, worst_dir);
                check = buf;
                failed = 1;
            }
            double gflops = 2.0 * fw * fw * ch * (double)size * size / (med / 1e3) / 1e9;
            printf("| %d | %d | %.4f | %.0f | %s |\n", ch, fw, med, gflops, check);
            fflush(stdout);
            /* A time for a wrong result is no peer time: that width gets none. */
            if (out && strncmp(check, "ok", 2) == 0)
                fprintf(out, "%s,%d,%d,%d,%.6f,%s\n", ch == 1 ? "conv-grey" : "conv-rgba", fw,
                        size, size, med,
                        ch == 1 ? "nppiFilter_32f_C1R_Ctx" : "nppiFilter_32f_C4R_Ctx");
        }
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
        cudaFree(d_in);
        cudaFree(d_out);
        cudaFree(d_k);
    }
    if (out && fclose(out) != 0) {
        fprintf(stderr, "npp_filter: --csv %s: write failed\n", csv);
        failed = 1;
    }
    cudaStreamDestroy(stream);
    return failed;
}
