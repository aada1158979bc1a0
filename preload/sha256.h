/*
 * sha256.h — SHA-256 (FIPS 180-4), for the record/replay content key
 * (docs/RECORD.md). Pure functions over bytes; no allocation, no printing.
 */
#ifndef CLCPACK_PRELOAD_SHA256_H
#define CLCPACK_PRELOAD_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST 32

typedef struct sha256_ctx {
    uint32_t h[8];
    uint64_t length;       /* bytes hashed so far */
    unsigned char block[64];
    size_t used;           /* bytes waiting in block */
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const void *data, size_t size);
void sha256_final(sha256_ctx *c, unsigned char out[SHA256_DIGEST]);

#endif /* CLCPACK_PRELOAD_SHA256_H */
