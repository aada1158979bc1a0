/*
 * test_crc32.c — the library's CRC-32 against zlib's crc32(): every length
 * to 2 KB at every alignment, random lengths to 1 MB, continuation from
 * random CRC values, constant buffers and the standard check value. The
 * line "crc32 method:" says which path this machine takes: "pclmul" on an
 * x86-64 CPU with PCLMULQDQ (crc32_x86.c, for 32 bytes and more), where a
 * wrong folding constant fails every check but the check value's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "check.h"
#include "test_rng.h"
#include "codec.h"
#include "crc32.h"

#define BUF_MAX (1u << 20)
#define ALIGN_SPAN 16

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static uint64_t rnd(void) { return test_rng_next(&rng); }

static void fill_random(uint8_t *p, size_t n) { test_rng_fill(&rng, p, n); }

static uint32_t zlib_crc(uint32_t crc, const uint8_t *p, size_t n)
{
    return (uint32_t)crc32(crc, p, (uInt)n);
}

/* Whether every way the library computes crc32(crc, p, n) agrees with
 * zlib; prints the first disagreement. */
static int agrees(uint32_t crc, const uint8_t *p, size_t n)
{
    uint32_t want = zlib_crc(crc, p, n);
    uint32_t got = clcpk_crc32_more(crc, p, n);
    uint32_t portable = clcpk_crc32_portable(crc, p, n);
    if (got == want && portable == want)
        return 1;
    printf("crc 0x%08x, %zu bytes: zlib 0x%08x, crc32_more 0x%08x, portable 0x%08x\n",
           (unsigned)crc, n, (unsigned)want, (unsigned)got, (unsigned)portable);
    return 0;
}

static void test_check_value(void)
{
    const char *s = "123456789";
    CHECK(clcpk_crc32(s, strlen(s)) == 0xCBF43926u, "CRC-32 of \"123456789\" is 0xCBF43926");
    CHECK(clcpk_crc32(s, 0) == 0, "CRC-32 of nothing is 0");
}

/* Every length to 2 KB from every offset in a 16-byte span: each way the
 * head, the 64-byte loop and the tail can fall. */
static void test_lengths_and_offsets(const uint8_t *buf)
{
    for (size_t off = 0; off < ALIGN_SPAN; off++) {
        size_t bad = 0;
        for (size_t n = 0; n <= 2048 && !bad; n++)
            if (!agrees(0, buf + off, n))
                bad = n + 1;
        CHECK(!bad, "lengths 0..2048 at offset %zu (first wrong: %zu bytes)", off,
              bad ? bad - 1 : 0);
    }
}

/* Random lengths to 1 MB, random offsets, random starting CRC values. */
static void test_random_lengths(const uint8_t *buf)
{
    size_t bad = 0;
    for (int i = 0; i < 300 && !bad; i++) {
        size_t off = rnd() % ALIGN_SPAN;
        size_t n = rnd() % (BUF_MAX + 1);
        if (!agrees((uint32_t)rnd(), buf + off, n))
            bad = n + 1;
    }
    CHECK(!bad, "300 random lengths to 1 MB with random CRC values in");
}

/* crc32_more(crc32(a), b) is the CRC of a followed by b, wherever the cut. */
static void test_continuation(const uint8_t *buf)
{
    size_t bad = 0;
    for (int i = 0; i < 500 && !bad; i++) {
        size_t n = rnd() % (i < 250 ? 4096 : BUF_MAX) + 1;
        size_t cut = rnd() % (n + 1);
        uint32_t whole = zlib_crc(0, buf, n);
        uint32_t joined = clcpk_crc32_more(clcpk_crc32(buf, cut), buf + cut, n - cut);
        if (joined != whole)
            bad = n + 1;
    }
    CHECK(!bad, "a CRC continued across a cut equals the CRC of the whole");
}

/* Constant bytes, with the CRC values that make the register all zeros or
 * all ones, and a random one. */
static void test_constant_buffers(uint8_t *buf)
{
    static const size_t lens[] = {32, 63, 64, 65, 1000, 4096, 18432, 102400, BUF_MAX};
    static const uint8_t bytes[] = {0x00, 0xFF};
    const uint32_t crcs[] = {0, 0xFFFFFFFFu, (uint32_t)rnd()};
    for (size_t b = 0; b < sizeof bytes; b++) {
        memset(buf, bytes[b], BUF_MAX);
        int ok = 1;
        for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++)
            for (size_t c = 0; c < sizeof crcs / sizeof crcs[0]; c++)
                ok &= agrees(crcs[c], buf, lens[l]);
        CHECK(ok, "buffers of bytes 0x%02x", bytes[b]);
    }
}

int main(void)
{
    printf("crc32 method: %s\n", clcpk_crc32_method());
    uint8_t *buf = malloc(BUF_MAX + ALIGN_SPAN);
    if (!CHECK(buf != NULL, "buffer"))
        return check_summary();
    fill_random(buf, BUF_MAX + ALIGN_SPAN);
    test_check_value();
    test_lengths_and_offsets(buf);
    test_random_lengths(buf);
    test_continuation(buf);
    test_constant_buffers(buf);
    free(buf);
    return check_summary();
}
