/*
 * crc32_speed — the loader's CRC-32 (clcpk_crc32, PCLMULQDQ where the CPU
 * has it) against zlib's crc32() on buffers the size of kernel binaries.
 * A benchmark, not a test; needs no device:
 *
 *   make B=build build/bench/crc32_speed && build/bench/crc32_speed
 *
 * For each size, ROUNDS rounds alternate between the two; a round times a
 * batch of calls on one buffer (in cache, as a freshly decoded blob is)
 * lasting about BATCH_MS, and each column is the median round. Prints a
 * markdown table.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "crc32.h"
#include "common/bench_stats.h"

#define ROUNDS 21
#define BATCH_MS 2.0

typedef uint32_t (*crc_fn)(const uint8_t *p, size_t n);

static uint32_t with_zlib(const uint8_t *p, size_t n)
{
    return clcpk_crc32_portable(0, p, n);
}

static uint32_t with_loader(const uint8_t *p, size_t n)
{
    return clcpk_crc32(p, n);
}

/* Keeps the calls from being optimised away. */
static volatile uint32_t sink;

/* Calls in a batch of about BATCH_MS on n bytes. */
static size_t batch_calls(crc_fn f, const uint8_t *p, size_t n)
{
    size_t calls = 1;
    for (;;) {
        double t0 = bench_now_ms();
        for (size_t i = 0; i < calls; i++)
            sink ^= f(p, n);
        if (bench_now_ms() - t0 >= BATCH_MS / 4)
            return calls * 4;
        calls *= 2;
    }
}

/* Microseconds per call for one batch. */
static double time_batch(crc_fn f, const uint8_t *p, size_t n, size_t calls)
{
    double t0 = bench_now_ms();
    for (size_t i = 0; i < calls; i++)
        sink ^= f(p, n);
    return (bench_now_ms() - t0) * 1e3 / (double)calls;
}

static void measure(const uint8_t *p, size_t n, double *zlib_us, double *ours_us)
{
    double z[ROUNDS], o[ROUNDS];
    size_t zc = batch_calls(with_zlib, p, n), oc = batch_calls(with_loader, p, n);
    for (int r = 0; r < ROUNDS; r++) {
        z[r] = time_batch(with_zlib, p, n, zc);
        o[r] = time_batch(with_loader, p, n, oc);
    }
    *zlib_us = bench_median(z, ROUNDS);
    *ours_us = bench_median(o, ROUNDS);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        int help = strcmp(argv[1], "--help") == 0;
        fputs("usage: crc32_speed (no arguments)\n", help ? stdout : stderr);
        return help ? 0 : 2;
    }
    static const size_t sizes[] = {1024, 18 * 1024, 100 * 1024, 1024 * 1024};
    size_t max = sizes[sizeof sizes / sizeof sizes[0] - 1];
    uint8_t *buf = malloc(max);
    if (!buf) {
        fputs("crc32_speed: out of memory\n", stderr);
        return 1;
    }
    uint32_t x = 0x9E3779B9u;
    for (size_t i = 0; i < max; i++) {
        x = x * 1664525u + 1013904223u;
        buf[i] = (uint8_t)(x >> 24);
    }
    printf("CRC-32, loader method: %s\n\n", clcpk_crc32_method());
    printf("| buffer | zlib GB/s | loader GB/s | ratio | zlib µs | loader µs |\n");
    printf("|---:|---:|---:|---:|---:|---:|\n");
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        double zus, ous;
        measure(buf, n, &zus, &ous);
        printf("| %zu KB | %.2f | %.2f | %.1fx | %.2f | %.2f |\n", n / 1024, (double)n / zus / 1e3,
               (double)n / ous / 1e3, zus / ous, zus, ous);
    }
    free(buf);
    return 0;
}
