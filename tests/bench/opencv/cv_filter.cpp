/*
 * cv_filter — OpenCV's cv::filter2D (FP32, grey CV_32FC1 and RGBA
 * CV_32FC4) on the problem tests/bench/speed --best times clc-pack's
 * kernels on: a W x W output, the valid region of a (W + FW - 1)^2 input.
 * filter2D runs on the W x W view of the padded image's interior, so the
 * pixels it reads around the view are the real neighbours (no border
 * rule is applied); it correlates, as the kernels do.
 *
 *   cv_filter [--size 512] [--widths 3-31:2] [--runs 11] [--warmup 2]
 *             [--threads N] [--csv FILE]
 *
 * --threads: cv::setNumThreads (give it the OpenCL CPU device's compute
 * units so both use the same cores). Each (channels, width): --warmup
 * calls, then the median of --runs calls (steady clock); the output is then
 * checked at 256 pixels against a double sum. Prints a markdown table; with
 * --csv writes lines family,fw,width,height,ms,name for speed --peer-csv.
 * Exit status 0; 1 when a check failed; 2 on a usage error.
 */
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

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
        if (end == p || w < 1 || w > 63 || (*end && *end != ','))
            return -1;
        out->push_back((int)w);
        p = *end == ',' ? end + 1 : end;
    }
    return out->empty() ? -1 : 0;
}

int main(int argc, char **argv)
{
    int size = 512, runs = 11, warmup = 2, threads = 0;
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
        else if (!strcmp(a, "--threads") && v && (threads = atoi(v)) >= 1 && threads <= 1024)
            i++;
        else if (!strcmp(a, "--widths") && v && parse_widths(v, &widths) == 0)
            i++;
        else if (!strcmp(a, "--csv") && v)
            csv = argv[++i];
        else {
            fprintf(stderr, "usage: cv_filter [--size 16..16384] [--widths 3-31:2] [--runs N] "
                            "[--warmup N] [--threads N] [--csv FILE]\n");
            return 2;
        }
    }
    if (widths.empty())
        for (int w = 3; w <= 31; w += 2)
            widths.push_back(w);
    if (threads)
        cv::setNumThreads(threads);
    int maxw = *std::max_element(widths.begin(), widths.end());

    printf("### OpenCV cv::filter2D, %dx%d valid region\n\n", size, size);
    printf("OpenCV %s, %d threads. Median of %d calls after %d warm-up calls (steady clock); "
           "output checked at 256 pixels against a double sum.\n\n",
           CV_VERSION, cv::getNumThreads(), runs, warmup);
    printf("| channels | FW | ms | GFLOP/s | check |\n|---:|---:|---:|---:|---|\n");
    FILE *out = NULL;
    if (csv && !(out = fopen(csv, "w"))) {
        fprintf(stderr, "cv_filter: --csv %s: cannot write\n", csv);
        return 1;
    }
    if (out)
        fprintf(out, "family,fw,width,height,ms,name\n");
    int failed = 0;
    for (int ch = 1; ch <= 4; ch += 3) {
        int hpad = (maxw - 1) / 2;
        int inW = size + 2 * hpad;
        cv::Mat in(inW, inW, CV_MAKETYPE(CV_32F, ch));
        uint64_t seed = 0x5eed0000u + (uint64_t)ch;
        for (int y = 0; y < inW; y++) {
            float *row = in.ptr<float>(y);
            for (int x = 0; x < inW * ch; x++)
                row[x] = signed_value(&seed);
        }
        cv::Mat view = in(cv::Rect(hpad, hpad, size, size));
        for (int fw : widths) {
            cv::Mat k(fw, fw, CV_32F);
            for (int r = 0; r < fw; r++)
                for (int c = 0; c < fw; c++)
                    k.at<float>(r, c) = signed_value(&seed);
            cv::Mat dst;
            std::vector<double> ms;
            for (int i = 0; i < warmup + runs; i++) {
                auto t0 = std::chrono::steady_clock::now();
                cv::filter2D(view, dst, CV_32F, k, cv::Point(-1, -1), 0, cv::BORDER_REFLECT_101);
                auto t1 = std::chrono::steady_clock::now();
                if (i >= warmup)
                    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
            }
            std::sort(ms.begin(), ms.end());
            double med = runs % 2 ? ms[runs / 2] : (ms[runs / 2 - 1] + ms[runs / 2]) / 2.0;
            /* The check: output (x, y) is centred on padded pixel
             * (x + hpad, y + hpad), the kernel in order. */
            int hfs = fw / 2;
            double worst = 0;
            uint64_t ps = 0xc4ec4u + (uint64_t)fw;
            for (int n = 0; n < 256; n++) {
                int x = (int)(splitmix(&ps) % (uint64_t)size);
                int y = (int)(splitmix(&ps) % (uint64_t)size);
                for (int c0 = 0; c0 < ch; c0++) {
                    double sum = 0, mag = 0;
                    for (int r = 0; r < fw; r++)
                        for (int c = 0; c < fw; c++) {
                            double v = in.ptr<float>(y + hpad - hfs + r)[(x + hpad - hfs + c) * ch + c0];
                            double t = v * k.at<float>(r, c);
                            sum += t;
                            mag += fabs(t);
                        }
                    double got = dst.ptr<float>(y)[x * ch + c0];
                    worst = std::max(worst, fabs(got - sum) / mag);
                }
            }
            /* filter2D's DFT path (large kernels) rounds more than a direct sum. */
            int ok = worst <= 1e-4;
            failed |= !ok;
            double gflops = 2.0 * fw * fw * ch * (double)size * size / (med / 1e3) / 1e9;
            printf("| %d | %d | %.4f | %.1f | %s (max rel err %.1e) |\n", ch, fw, med, gflops,
                   ok ? "ok" : "WRONG", worst);
            fflush(stdout);
            if (out)
                fprintf(out, "%s,%d,%d,%d,%.6f,cv::filter2D\n", ch == 1 ? "conv-grey" : "conv-rgba",
                        fw, size, size, med);
        }
    }
    if (out && fclose(out) != 0) {
        fprintf(stderr, "cv_filter: --csv %s: write failed\n", csv);
        failed = 1;
    }
    return failed;
}
