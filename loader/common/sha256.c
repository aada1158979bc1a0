/*
 * sha256.c — SHA-256 as FIPS 180-4 defines it (section 6.2), written for
 * clarity: a pack is hashed once when it is opened pinned, and the digest
 * is small next to reading the file. (The block function is written out
 * without loops, the one concession to speed; see compress.)
 */
#include "sha256.h"

#include <string.h>

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

#define BIG_S0(x) (rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22))
#define BIG_S1(x) (rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25))
#define SMALL_S0(x) (rotr(x, 7) ^ rotr(x, 18) ^ ((x) >> 3))
#define SMALL_S1(x) (rotr(x, 17) ^ rotr(x, 19) ^ ((x) >> 10))
#define CH(x, y, z) (((x) & (y)) ^ (~(x) & (z)))
#define MAJ(x, y, z) (((x) & (y)) ^ ((x) & (z)) ^ ((y) & (z)))
/* Round T of section 6.2.2, step 3, with the working variables named in
 * this round's order: instead of moving each one down (h = g, ..., b = a),
 * the next round names them one place on, so D takes e = d + T1 and H
 * takes a = T1 + T2. */
#define ROUND(A, B, C, D, E, F, G, H, T)                                                          \
    do {                                                                                          \
        uint32_t t1 = H + BIG_S1(E) + CH(E, F, G) + K[T] + w[T];                                  \
        D += t1;                                                                                  \
        H = t1 + BIG_S0(A) + MAJ(A, B, C);                                                        \
    } while (0)
#define WORD(t) ((uint32_t)block[4 * (t)] << 24 | (uint32_t)block[4 * (t) + 1] << 16 |           \
                 (uint32_t)block[4 * (t) + 2] << 8 | block[4 * (t) + 3])
#define SCHEDULE(t) (w[t] = SMALL_S1(w[(t) - 2]) + w[(t) - 7] + SMALL_S0(w[(t) - 15]) + w[(t) - 16])

#define WORDS4(t) (w[t] = WORD(t), w[(t) + 1] = WORD((t) + 1), w[(t) + 2] = WORD((t) + 2),      \
                   w[(t) + 3] = WORD((t) + 3))
#define SCHEDULE4(t) (SCHEDULE(t), SCHEDULE((t) + 1), SCHEDULE((t) + 2), SCHEDULE((t) + 3))
#define ROUNDS8(t)                                                                                \
    do {                                                                                          \
        ROUND(a, b, c, d, e, f, g, k, t);                                                         \
        ROUND(k, a, b, c, d, e, f, g, (t) + 1);                                                   \
        ROUND(g, k, a, b, c, d, e, f, (t) + 2);                                                   \
        ROUND(f, g, k, a, b, c, d, e, (t) + 3);                                                   \
        ROUND(e, f, g, k, a, b, c, d, (t) + 4);                                                   \
        ROUND(d, e, f, g, k, a, b, c, (t) + 5);                                                   \
        ROUND(c, d, e, f, g, k, a, b, (t) + 6);                                                   \
        ROUND(b, c, d, e, f, g, k, a, (t) + 7);                                                   \
    } while (0)

/* Written out, no loop: every index a constant. The same arithmetic,
 * without a test or a computed address per step (under a fuzzer's
 * instrumentation and the sanitizers, each of those is a call). */
static void compress(uint32_t h[8], const uint8_t *block)
{
    uint32_t w[64];
    WORDS4(0);
    WORDS4(4);
    WORDS4(8);
    WORDS4(12);
    SCHEDULE4(16);
    SCHEDULE4(20);
    SCHEDULE4(24);
    SCHEDULE4(28);
    SCHEDULE4(32);
    SCHEDULE4(36);
    SCHEDULE4(40);
    SCHEDULE4(44);
    SCHEDULE4(48);
    SCHEDULE4(52);
    SCHEDULE4(56);
    SCHEDULE4(60);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    ROUNDS8(0);
    ROUNDS8(8);
    ROUNDS8(16);
    ROUNDS8(24);
    ROUNDS8(32);
    ROUNDS8(40);
    ROUNDS8(48);
    ROUNDS8(56);
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += k;
}

void clcpk_sha256_init(clcpk_sha256 *s)
{
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, h0, sizeof h0);
    s->length = 0;
    s->used = 0;
}

void clcpk_sha256_update(clcpk_sha256 *s, const void *data, size_t n)
{
    const uint8_t *p = data;
    s->length += n;
    if (s->used) {
        size_t take = 64 - s->used < n ? 64 - s->used : n;
        memcpy(s->block + s->used, p, take);
        s->used += take;
        p += take;
        n -= take;
        if (s->used < 64)
            return;
        compress(s->h, s->block);
        s->used = 0;
    }
    for (; n >= 64; p += 64, n -= 64)
        compress(s->h, p);
    memcpy(s->block, p, n);
    s->used = n;
}

void clcpk_sha256_final(clcpk_sha256 *s, uint8_t out[32])
{
    uint64_t bits = s->length * 8;
    /* The 0x80 marker, zeros to 56 mod 64, then the length in bits. */
    s->block[s->used++] = 0x80;
    if (s->used > 56) {
        memset(s->block + s->used, 0, 64 - s->used);
        compress(s->h, s->block);
        s->used = 0;
    }
    memset(s->block + s->used, 0, 56 - s->used);
    for (int i = 0; i < 8; i++)
        s->block[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
    compress(s->h, s->block);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(s->h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
        out[4 * i + 3] = (uint8_t)s->h[i];
    }
}

void clcpk_hex(const uint8_t *bytes, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * n] = '\0';
}

void clcpk_digest_sha256(const void *data, size_t size, uint8_t out[32])
{
    clcpk_sha256 s;
    clcpk_sha256_init(&s);
    if (data)
        clcpk_sha256_update(&s, data, size);
    clcpk_sha256_final(&s, out);
}
