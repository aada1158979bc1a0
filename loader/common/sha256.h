/*
 * sha256.h — SHA-256 (FIPS 180-4), for pinning a pack to the digest an
 * application ships with (clcpack_open_file_pinned), and the tool's content
 * digests. In loader/common/ (compiled into libclcpack, hidden); the public entry
 * point is clcpack_digest_sha256.
 */
#ifndef CLCPACK_SHA256_H
#define CLCPACK_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct clcpk_sha256 {
    uint32_t h[8];
    uint64_t length;   /* bytes hashed so far */
    uint8_t block[64]; /* bytes of the current block not yet compressed */
    size_t used;
} clcpk_sha256;

void clcpk_sha256_init(clcpk_sha256 *s);
void clcpk_sha256_update(clcpk_sha256 *s, const void *data, size_t n);
void clcpk_sha256_final(clcpk_sha256 *s, uint8_t out[32]);

/* SHA-256 of size bytes at data (NULL with size 0: the empty input) into
 * out: clcpack_digest_sha256's work, which the tool calls by this name so
 * that its calls stay out of the stable ABI. */
void clcpk_digest_sha256(const void *data, size_t size, uint8_t out[32]);

/* Writes n bytes as 2n lowercase hex digits and a NUL at out. */
void clcpk_hex(const uint8_t *bytes, size_t n, char *out);

#endif /* CLCPACK_SHA256_H */
