/* Scrubbing PoCL's temporary names (pocl_binary_canon_scrub_temp_names):
 * the search that skips through the bytes changes exactly the bytes a
 * scan of every byte and every bit offset changes (the reference below,
 * the scan it replaced), on buffers with stems planted as bytes and as
 * 7-bit characters at any offset, overlapping, cut short and at the ends,
 * and on the real PoCL binary of the fuzz corpus; and it stays fast on a
 * binary of megabytes. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "pocl_binary_canon.h"

static const char *const ref_stems[] = {"tempfile_", "clcpack-record-"};

/* A 7-bit character at any bit offset, read and written through the
 * (at most) two bytes that hold it, not bit by bit as the code under test
 * does. */
static unsigned ref_get7(const unsigned char *b, size_t bit)
{
    size_t i = bit >> 3;
    unsigned s = (unsigned)(bit & 7);
    unsigned w = b[i] | (s > 1 ? (unsigned)b[i + 1] << 8 : 0u);
    return (w >> s) & 0x7fu;
}

static void ref_put7(unsigned char *b, size_t bit, unsigned v)
{
    size_t i = bit >> 3;
    unsigned s = (unsigned)(bit & 7), m = 0x7fu << s;
    unsigned w = b[i] | (s > 1 ? (unsigned)b[i + 1] << 8 : 0u);
    w = (w & ~m) | ((v & 0x7fu) << s);
    b[i] = (unsigned char)w;
    if (s > 1)
        b[i + 1] = (unsigned char)(w >> 8);
}

static void ref_scrub_stem(unsigned char *buf, size_t size, const char *name)
{
    const size_t stem = strlen(name), whole = stem + 6;
    for (size_t i = 0; i + whole <= size; i++) {
        if (buf[i] != (unsigned char)name[0] || memcmp(buf + i, name, stem) != 0)
            continue;
        size_t k = 0;
        while (k < 6 && isalnum(buf[i + stem + k]))
            k++;
        if (k == 6)
            memset(buf + i + stem, '0', 6);
    }
    const size_t bits = size * 8, need = whole * 7;
    for (size_t bit = 0; bit + need <= bits; bit++) {
        if (ref_get7(buf, bit) != (unsigned char)name[0])
            continue;
        size_t k = 1;
        while (k < stem && ref_get7(buf, bit + 7 * k) == (unsigned char)name[k])
            k++;
        if (k < stem)
            continue;
        size_t r = 0;
        while (r < 6 && isalnum((int)ref_get7(buf, bit + 7 * (stem + r))))
            r++;
        if (r < 6)
            continue;
        for (r = 0; r < 6; r++)
            ref_put7(buf, bit + 7 * (stem + r), '0');
    }
}

static void ref_scrub(unsigned char *buf, size_t size)
{
    for (size_t i = 0; i < 2; i++)
        ref_scrub_stem(buf, size, ref_stems[i]);
}

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A stem, cut or whole, and six characters, mostly letters and digits, as
 * bytes at byte i or as 7-bit characters at bit offset i. */
static void plant(unsigned char *buf, size_t size, int as_bits)
{
    const char *name = ref_stems[next() % 2];
    char text[32];
    size_t n = strlen(name);
    memcpy(text, name, n);
    static const char chars[] = "aZ09xQ_-.";
    for (int r = 0; r < 6; r++)
        text[n + r] = next() % 8 ? chars[next() % 4] : chars[next() % 9];
    n += 6;
    if (next() % 6 == 0)
        n = (size_t)(next() % n); /* cut short */
    if (next() % 10 == 0)
        text[next() % (n ? n : 1)] ^= 1; /* one character off */
    if (!as_bits) {
        if (n > size)
            return;
        memcpy(buf + next() % (size - n + 1), text, n);
        return;
    }
    if (7 * n > 8 * size)
        return;
    size_t at = (size_t)(next() % (8 * size - 7 * n + 1));
    for (size_t k = 0; k < n; k++)
        ref_put7(buf, at + 7 * k, (unsigned char)text[k] & 0x7fu);
}

static int same_as_reference(const unsigned char *in, size_t size)
{
    unsigned char *a = malloc(size ? size : 1), *b = malloc(size ? size : 1);
    if (!a || !b) {
        free(a);
        free(b);
        return 0;
    }
    memcpy(a, in, size);
    memcpy(b, in, size);
    ref_scrub(a, size);
    pocl_binary_canon_scrub_temp_names(b, size);
    int same = memcmp(a, b, size) == 0;
    free(a);
    free(b);
    return same;
}

static void test_planted(void)
{
    size_t failed = 0, changed = 0, cases = 0;
    for (int round = 0; round < 3000; round++) {
        size_t size = (size_t)(next() % (round < 2000 ? 200 : 4000));
        unsigned char *buf = malloc(size ? size : 1);
        if (!buf)
            break;
        int fill = round % 3;
        for (size_t i = 0; i < size; i++)
            buf[i] = fill == 0 ? (unsigned char)next() : fill == 1 ? 0 : (unsigned char)"0a"[next() % 2];
        int plants = (int)(next() % 12);
        for (int p = 0; p < plants; p++)
            plant(buf, size, (int)(next() % 3 != 0));
        unsigned char *copy = malloc(size ? size : 1);
        if (copy) {
            memcpy(copy, buf, size);
            ref_scrub(copy, size);
            changed += memcmp(copy, buf, size) != 0;
            free(copy);
        }
        failed += !same_as_reference(buf, size);
        cases++;
        free(buf);
    }
    CHECK(failed == 0, "%zu of %zu buffers with planted stems scrubbed as the reference does",
          cases - failed, cases);
    CHECK(changed > cases / 4, "the planted stems are scrubbed in %zu buffers", changed);
}

/* Runs of one stem packed back to back and overlapping at every offset,
 * whose scrubbing changes the bytes later matches would read. */
static void test_packed_runs(void)
{
    size_t failed = 0;
    for (size_t shift = 0; shift < 64; shift++) {
        unsigned char buf[160];
        memset(buf, 0, sizeof buf);
        const char *text = shift % 2 ? "tempfile_tempfile_Ab3xZ9tempfile_q1w2e3" :
                                       "clcpack-record-clcpack-record-x1y2z3tempfile_AAAAAA";
        size_t n = strlen(text);
        for (size_t k = 0; k < n && shift + 7 * (k + 1) <= 8 * sizeof buf; k++)
            ref_put7(buf, shift + 7 * k, (unsigned char)text[k]);
        memcpy(buf + 100 - shift / 2, text, n < 60 ? n : 60);
        failed += !same_as_reference(buf, sizeof buf);
        for (size_t cut = 0; cut <= sizeof buf; cut += 9)
            failed += !same_as_reference(buf, cut);
    }
    CHECK(failed == 0, "runs of stems at every bit offset scrubbed as the reference does (%zu differ)",
          failed);
}

static void test_real_binary(void)
{
    FILE *f = fopen("tests/fuzz/corpus_pocl_canon/real_convolve_def_fw3", "rb");
    if (!f) {
        CHECK_SKIP("tests/fuzz/corpus_pocl_canon/real_convolve_def_fw3 not found (run from the "
                   "source tree)");
        return;
    }
    static unsigned char buf[1 << 18];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    CHECK(n > 1000 && same_as_reference(buf, n), "the real PoCL binary (%zu bytes) scrubbed as the "
          "reference does", n);
    /* With its temporary name planted at a few offsets. */
    size_t failed = 0;
    for (int round = 0; round < 8; round++) {
        for (int p = 0; p < 4; p++)
            plant(buf, n, p % 2);
        failed += !same_as_reference(buf, n);
    }
    CHECK(failed == 0, "the real binary with planted names scrubbed as the reference does "
          "(%zu differ)", failed);
}

/* 4 MiB of random bytes: the old scan of every bit offset took seconds
 * under the sanitizers; this is well under one. */
static void test_fast(void)
{
    size_t size = 4u << 20;
    unsigned char *buf = malloc(size);
    if (!buf)
        return;
    for (size_t i = 0; i < size; i++)
        buf[i] = (unsigned char)next();
    clock_t t0 = clock();
    pocl_binary_canon_scrub_temp_names(buf, size);
    double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(s < 2.0, "4 MiB scrubbed in %.3f s", s);
    free(buf);
}

int main(void)
{
    test_planted();
    test_packed_runs();
    test_real_binary();
    test_fast();
    return check_summary();
}
