/*
 * crc32_x86.c — zlib's CRC-32 folded with PCLMULQDQ.
 *
 * The message is a polynomial over GF(2) and its CRC a remainder mod P, so
 * any 128-bit piece of it can be carried forward by multiplying it by
 * x^D mod P and adding (XOR) it to the piece D bits later. Four 128-bit
 * accumulators take 64 bytes per step, each step two carry-less multiplies
 * per accumulator, independent of the others: about 8 bytes a cycle
 * against zlib's table lookups. The accumulators are then folded into one,
 * which is congruent mod P to everything read so far, and zlib finishes
 * its 16 bytes and the tail (under 16): no Barrett reduction to get wrong.
 * A CPU with VPCLMULQDQ and AVX-512 does four such multiplies in one
 * instruction: there sixteen lanes take 256 bytes per step. On the H200
 * machine's Xeon that took the check of 100 KB (a large cubin) from 3.3 µs
 * (128-bit folds, ~30 GB/s) to 1.2 µs (85-97 GB/s), against a 34 µs driver
 * call; zlib's crc32 takes 18 µs there.
 *
 * Only these functions are compiled for PCLMUL and AVX-512 (target
 * attributes, no global flag), so the library runs on any x86-64; they ask
 * the CPU first. On other targets this file compiles to nothing.
 */
#include "crc32_x86.h"

#if defined(CLCPK_HAVE_CRC32_PCLMUL)

#include <immintrin.h>
#include <string.h>
#include <zlib.h>

#define PCLMUL __attribute__((target("pclmul")))

/* Folding constants, printed by scripts/crc32_constants.py, which says how
 * they are defined: for a fold over D bits, x^(D+64-33) mod P multiplies
 * the low 64 bits of an accumulator (the half of higher degree, read
 * first) and x^(D-33) mod P the high 64 bits, each bit-reversed in the low
 * 32 bits of its 64-bit lane. */
#define FOLD_512_LO 0x8f352d95u
#define FOLD_512_HI 0x1d9513d7u
#define FOLD_128_LO 0xae689191u
#define FOLD_128_HI 0xccaa009eu
#define FOLD_2048_LO 0xce3371cbu
#define FOLD_2048_HI 0xe95c1271u

/* The 512-bit path (VPCLMULQDQ: four 128-bit carry-less multiplies in one
 * instruction) for buffers of at least this many bytes: below it the lane
 * reduction at its end costs more than it saves. */
#define VPCLMUL_MIN_BYTES 1024
#define VPCLMUL __attribute__((target("pclmul,vpclmulqdq,avx512f")))

int clcpk_crc32_pclmul_usable(void)
{
    /* __builtin_cpu_supports reads what libgcc's constructor found, and a
     * call from another constructor may come before it. Asking again is a
     * check of a flag (under 1 ns) and stores the same values, so no state
     * of our own is needed. */
    __builtin_cpu_init();
    return __builtin_cpu_supports("pclmul");
}

/* Whether this CPU (and OS) has the 512-bit path: VPCLMULQDQ with AVX-512.
 * Valgrind, which has no AVX-512, reports neither. */
static int vpclmul_usable(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("vpclmulqdq") && __builtin_cpu_supports("avx512f");
}

const char *clcpk_crc32_pclmul_width(void)
{
    return vpclmul_usable() ? "vpclmul" : "pclmul";
}

PCLMUL static inline __m128i lanes(uint32_t lo, uint32_t hi)
{
    return _mm_set_epi64x((long long)hi, (long long)lo);
}

PCLMUL static inline __m128i load(const uint8_t *p)
{
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}

/* A value congruent mod P to acc * x^D, for the D whose constants k holds. */
PCLMUL static inline __m128i fold(__m128i acc, __m128i k)
{
    return _mm_xor_si128(_mm_clmulepi64_si128(acc, k, 0x00), _mm_clmulepi64_si128(acc, k, 0x11));
}

/* Folds *p[0..*n), n >= 64, 64 bytes at a time in four accumulators, the
 * first starting from a0 (its first 16 bytes, already loaded), and those
 * into one; leaves *p and *n at what is left (under 64 bytes). */
PCLMUL static __m128i fold_64s(__m128i a0, const uint8_t **pp, size_t *pn)
{
    const __m128i k512 = lanes(FOLD_512_LO, FOLD_512_HI);
    const __m128i k128 = lanes(FOLD_128_LO, FOLD_128_HI);
    const uint8_t *p = *pp;
    size_t n = *pn;
    __m128i a1 = load(p + 16), a2 = load(p + 32), a3 = load(p + 48);
    for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) {
        a0 = _mm_xor_si128(fold(a0, k512), load(p));
        a1 = _mm_xor_si128(fold(a1, k512), load(p + 16));
        a2 = _mm_xor_si128(fold(a2, k512), load(p + 32));
        a3 = _mm_xor_si128(fold(a3, k512), load(p + 48));
    }
    *pp = p;
    *pn = n;
    __m128i a = _mm_xor_si128(fold(a0, k128), a1);
    a = _mm_xor_si128(fold(a, k128), a2);
    return _mm_xor_si128(fold(a, k128), a3);
}

VPCLMUL static inline __m512i fold4(__m512i acc, __m512i k)
{
    return _mm512_xor_si512(_mm512_clmulepi64_epi128(acc, k, 0x00),
                            _mm512_clmulepi64_epi128(acc, k, 0x11));
}

/* The 512-bit version of fold_64s: four 512-bit accumulators (sixteen
 * 128-bit lanes) take 256 bytes per step, each lane carried forward 2048
 * bits; then the accumulators are folded into one (512 bits apart), and its
 * four lanes into one 128-bit value congruent to all of it, at the place of
 * the last 16 bytes read. n >= 256; crc goes in as in clcpk_crc32_pclmul.
 * Leaves *pp and *pn at what is left (under 256 bytes). */
VPCLMUL static __m128i fold_256s(uint32_t crc, const uint8_t **pp, size_t *pn)
{
    const __m512i k2048 = _mm512_broadcast_i32x4(lanes(FOLD_2048_LO, FOLD_2048_HI));
    const __m512i k512 = _mm512_broadcast_i32x4(lanes(FOLD_512_LO, FOLD_512_HI));
    const __m128i k128 = lanes(FOLD_128_LO, FOLD_128_HI);
    const uint8_t *p = *pp;
    size_t n = *pn;
    __m512i z0 = _mm512_xor_si512(_mm512_loadu_si512(p), _mm512_maskz_set1_epi32(1, (int)~crc));
    __m512i z1 = _mm512_loadu_si512(p + 64), z2 = _mm512_loadu_si512(p + 128),
            z3 = _mm512_loadu_si512(p + 192);
    for (p += 256, n -= 256; n >= 256; p += 256, n -= 256) {
        z0 = _mm512_xor_si512(fold4(z0, k2048), _mm512_loadu_si512(p));
        z1 = _mm512_xor_si512(fold4(z1, k2048), _mm512_loadu_si512(p + 64));
        z2 = _mm512_xor_si512(fold4(z2, k2048), _mm512_loadu_si512(p + 128));
        z3 = _mm512_xor_si512(fold4(z3, k2048), _mm512_loadu_si512(p + 192));
    }
    *pp = p;
    *pn = n;
    __m512i z = _mm512_xor_si512(fold4(z0, k512), z1);
    z = _mm512_xor_si512(fold4(z, k512), z2);
    z = _mm512_xor_si512(fold4(z, k512), z3);
    __m128i a = _mm512_extracti32x4_epi32(z, 0);
    a = _mm_xor_si128(fold(a, k128), _mm512_extracti32x4_epi32(z, 1));
    a = _mm_xor_si128(fold(a, k128), _mm512_extracti32x4_epi32(z, 2));
    return _mm_xor_si128(fold(a, k128), _mm512_extracti32x4_epi32(z, 3));
}

/* zlib's crc32 from a zero register over a (16 bytes congruent mod P to
 * all folded so far) followed by the tail, n < 16: one call, as each
 * costs several ns. A zero register is zlib's crc 0xFFFFFFFF. */
PCLMUL static uint32_t finish(__m128i a, const uint8_t *tail, size_t n)
{
    uint8_t last[32];
    _mm_storeu_si128((__m128i *)(void *)last, a);
    memcpy(last + 16, tail, n);
    return (uint32_t)crc32(0xFFFFFFFFul, last, (uInt)(16 + n));
}

PCLMUL uint32_t clcpk_crc32_pclmul(uint32_t crc, const uint8_t *p, size_t n)
{
    /* zlib's register is ~crc. XORed into the first four bytes (the CRC is
     * linear), it leaves a CRC from a zero register. */
    __m128i a;
    if (n >= VPCLMUL_MIN_BYTES && vpclmul_usable()) {
        a = fold_256s(crc, &p, &n);
    } else {
        a = _mm_xor_si128(load(p), _mm_cvtsi32_si128((int)~crc));
        if (n >= 64) {
            a = fold_64s(a, &p, &n);
        } else {
            p += 16;
            n -= 16;
        }
    }
    const __m128i k128 = lanes(FOLD_128_LO, FOLD_128_HI);
    for (; n >= 16; p += 16, n -= 16)
        a = _mm_xor_si128(fold(a, k128), load(p));
    return finish(a, p, n);
}

#endif /* CLCPK_HAVE_CRC32_PCLMUL */
