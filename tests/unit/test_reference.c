/*
 * test_reference.c — the pieces of the correctness check that need no
 * device: the double references on hand-computed cases, the random data,
 * and which problems the launcher refuses (kernel_run_supports) and why.
 */
#include "check.h"
#include "kernel_run.h"
#include "manifest.h"
#include "random_data.h"
#include "reference.h"
#include "kernelgen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void test_conv_grey(void)
{
    /* 2x2 output, 2x2 filter, input 3x3 with pitch 4 (one unused column). */
    const float in[] = {1, 2, 3, 99, 4, 5, 6, 99, 7, 8, 9, 99};
    const float f[] = {1, -1, 2, 0.5f};
    double out[4], mag[4];
    reference_conv_grey(in, 4, f, 2, 2, 2, out, mag);
    /* out(0,0) = 1*1 - 2 + 2*4 + 0.5*5 = 9.5; |terms| 1+2+8+2.5 = 13.5 */
    CHECK(out[0] == 9.5 && mag[0] == 13.5, "out(0,0) = %g, mag %g", out[0], mag[0]);
    /* out(1,0) = 2 - 3 + 10 + 3 = 12 */
    CHECK(out[1] == 12, "out(1,0) = %g", out[1]);
    /* out(0,1) = 4 - 5 + 14 + 4 = 17; out(1,1) = 5 - 6 + 16 + 4.5 = 19.5 */
    CHECK(out[2] == 17 && out[3] == 19.5, "out(0,1) = %g, out(1,1) = %g", out[2], out[3]);
}

static void test_conv_rgba(void)
{
    /* 1x1 output, 3x3 filter: each channel sees only its own terms. */
    float in[9 * 4], f[9 * 4];
    for (int i = 0; i < 9; i++)
        for (int ch = 0; ch < 4; ch++) {
            in[4 * i + ch] = (float)(i + 1) * (float)(ch + 1);
            f[4 * i + ch] = ch == 2 ? -1.0f : (i == 4 ? 1.0f : 0.0f);
        }
    double out[4], mag[4];
    reference_conv_rgba(in, 3, f, 3, 1, 1, out, mag);
    /* R, G, A: the centre pixel (i = 4) alone; B: minus the sum of all. */
    CHECK(out[0] == 5 && out[1] == 10 && out[3] == 20, "centre terms: %g %g %g", out[0], out[1],
          out[3]);
    CHECK(out[2] == -45 * 3 && mag[2] == 45 * 3, "channel B: %g (mag %g)", out[2], mag[2]);
}

static void test_poly(void)
{
    const float x[] = {0.5f, 2.0f};
    const float c[] = {1, 2, 3};
    double out[2], mag[2];
    reference_poly(x, 2, c, 3, out, mag);
    CHECK(out[0] == 1 + 1 + 0.75 && out[1] == 1 + 4 + 12, "1 + 2x + 3x^2: %g %g", out[0],
          out[1]);
    const float xn[] = {-1.0f};
    reference_poly(xn, 1, c, 3, out, mag);
    CHECK(out[0] == 2 && mag[0] == 6, "at -1: %g, magnitudes %g", out[0], mag[0]);
}

static void test_random_data(void)
{
    enum { N = 100000 };
    float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    random_data_fill_signed(a, N, 42);
    random_data_fill_signed(b, N, 42);
    CHECK(memcmp(a, b, N * sizeof *a) == 0, "same seed, same data");
    int in_range = 1, neg = 0;
    for (int i = 0; i < N; i++) {
        float m = fabsf(a[i]);
        in_range &= m >= 0.125f && m <= 1.0f;
        neg += a[i] < 0;
    }
    CHECK(in_range, "magnitudes in [1/8, 1]");
    CHECK(neg > N / 2 - N / 50 && neg < N / 2 + N / 50, "about half negative: %d", neg);
    random_data_fill_signed(b, N, 43);
    CHECK(memcmp(a, b, N * sizeof *a) != 0, "another seed, other data");
    random_data_fill_range(a, N, 0.5f, 1.0f, 7);
    float lo = 2, hi = -2;
    for (int i = 0; i < N; i++) {
        lo = fminf(lo, a[i]);
        hi = fmaxf(hi, a[i]);
    }
    CHECK(lo >= 0.5f && hi <= 1.0f && lo < 0.51f && hi > 0.99f, "range [0.5, 1]: %g..%g", lo,
          hi);
    free(a);
    free(b);
}

static const manifest_variant *variant(const manifest_file *m, const char *kernel, const char *axis,
                                 long value, manifest_variant **keep)
{
    const manifest_kernel *k = manifest_find(m, kernel);
    if (!k)
        return NULL;
    manifest_selection sel;
    memset(&sel, 0, sizeof sel);
    if (axis) {
        strcpy(sel.names[0], axis);
        sel.n = 1;
        sel.n_values[0] = 1;
        sel.values[0][0].v[0] = value;
    }
    size_t n;
    char err[MANIFEST_ERR_MAX];
    if (manifest_expand(k, &sel, keep, &n, err) != 0 || n == 0)
        return NULL;
    return &(*keep)[0];
}

static void refused(const manifest_variant *v, const kernel_run_problem *p, const char *needle)
{
    char err[KERNEL_RUN_ERR_MAX] = "";
    int rc = kernel_run_supports(v, p, err);
    CHECK(rc == -1 && strstr(err, needle), "%s refuses: %s", v->kernel->name, err);
}

static void test_supports(void)
{
    manifest_file *m = malloc(sizeof *m);
    char err[KERNEL_RUN_ERR_MAX]; /* the larger of MANIFEST_ERR_MAX and KERNEL_RUN_ERR_MAX */
    if (!CHECK(m && manifest_load("kernels", m, err) == 0, "manifest: %s", err)) {
        free(m);
        return;
    }
    manifest_variant *keep;
    const manifest_variant *v = variant(m, "Convolve_Def", "FILTER_WIDTH", 5, &keep);
    if (CHECK(v, "Convolve_Def variant")) {
        kernel_run_problem p;
        kernel_run_default_problem(v, 1, &p);
        CHECK(kernel_run_supports(v, &p, err) == 0 && p.width % 16 == 0 && p.height % 16 == 0 &&
                  p.width >= 32 && p.filter_width == 5,
              "default problem %dx%d runs", p.width, p.height);
        p.width = 100;
        refused(v, &p, "Convolve_Def needs the width to be a multiple of the work-group width "
                       "16: 100 is not");
        p.width = 32;
        p.height = 20;
        refused(v, &p, "height to be a multiple of the work-group height 16: 20 is not");
        p.height = 0;
        refused(v, &p, "at least 1x1");
        free(keep);
    }
    v = variant(m, "Convolve", NULL, 0, &keep);
    if (CHECK(v, "Convolve variant")) {
        kernel_run_problem p;
        kernel_run_default_problem(v, 1, &p);
        p.filter_width = 0;
        refused(v, &p, "filter width of at least 1");
        p.filter_width = 129;
        refused(v, &p, "__constant memory");
        p.filter_width = 128;
        CHECK(kernel_run_supports(v, &p, err) == 0, "a 128-wide filter fits 64 KB: %s", err);
        free(keep);
    }
    v = variant(m, "reda_local", "IMAGE_W", 128, &keep);
    if (CHECK(v, "reda_local IMAGE_W variant")) {
        kernel_run_problem p;
        kernel_run_default_problem(v, 1, &p);
        CHECK(p.width == 128 && kernel_run_supports(v, &p, err) == 0, "default width is IMAGE_W: %d",
              p.width);
        CHECK(p.height % 8 != 0, "default height leaves a partial group: %d", p.height);
        p.width = 127;
        refused(v, &p, "built for IMAGE_W=128 and cannot run a width of 127");
        free(keep);
    }
    v = variant(m, "reda_naive", NULL, 0, &keep);
    if (CHECK(v, "reda_naive variant")) {
        kernel_run_problem p;
        kernel_run_default_problem(v, 1, &p);
        CHECK(p.width % 16 != 0 && kernel_run_supports(v, &p, err) == 0,
              "grid=round: %dx%d, not a multiple, runs", p.width, p.height);
        manifest_variant even = *v;
        strcpy(even.define_values[0], "4"); /* FILTER_WIDTH sorts first */
        refused(&even, &p, "odd filter width: 4 is not");
        free(keep);
    }
    v = variant(m, "conv_block_rgba", "FILTER_WIDTH", 31, &keep);
    if (CHECK(v, "conv_block_rgba variant")) {
        kernel_run_problem p;
        kernel_run_default_problem(v, 1, &p);
        int bx, by;
        kernel_run_block(v, &bx, &by);
        /* The default shape is OUT_X=1, OUT_Y=4 at 8x8: a partial group of
         * outputs each way, counted in outputs, not work-items. */
        CHECK(bx == 1 && by == 4, "block of the first default variant: %dx%d", bx, by);
        CHECK(p.width == 2 * 8 * bx + 8 * bx / 2 + 1 && p.height == 2 * 8 * by + 3,
              "default problem counts outputs: %dx%d", p.width, p.height);
        /* --tune at 4096x4096: 4126^2 x 4 = 68 million input values fit. */
        p.width = p.height = 4096;
        CHECK(kernel_run_supports(v, &p, err) == 0, "4096x4096 RGBA at width 31 runs: %s", err);
        p.width = p.height = 8192;
        refused(v, &p, "larger than this checker handles");
        free(keep);
    }
    v = variant(m, "poly_unroll4", NULL, 0, &keep);
    if (CHECK(v, "poly_unroll4 variant")) {
        kernel_run_problem p;
        kernel_run_default_problem(v, 1, &p);
        CHECK(kernel_run_supports(v, &p, err) == 0 && p.numcoeffs % 4 == 0 && p.n % 64 != 0,
              "default: %d coefficients, n=%zu", p.numcoeffs, p.n);
        p.numcoeffs = 6;
        refused(v, &p, "multiple of 4: 6 is not");
        p.numcoeffs = 4;
        p.n = 0;
        refused(v, &p, "inputs: 0 is not");
        free(keep);
    }
    v = variant(m, "poly_numcoeffs", "NUMCOEFFS", 7, &keep);
    if (CHECK(v, "poly_numcoeffs variant")) {
        kernel_run_problem p;
        kernel_run_default_problem(v, 1, &p);
        p.numcoeffs = 3000; /* ignored: the define decides */
        CHECK(kernel_run_supports(v, &p, err) == 0, "NUMCOEFFS define wins over the problem: %s", err);
        free(keep);
    }
    free(m);
}

int main(void)
{
    source_gen_install(&kernelgen_generator); /* the bundled manifest's generators */
    test_conv_grey();
    test_conv_rgba();
    test_poly();
    test_random_data();
    test_supports();
    return check_summary();
}
