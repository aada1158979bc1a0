/*
 * codec.h — the blob codecs of docs/FORMAT.md: zlib streams decoded to an
 * exact declared size, and the XOR delta. Internal to libclcpack.
 * codec_read.c (with crc32_x86.c, its fast CRC-32) is all a reader needs;
 * codec_write.c adds compression.
 */
#ifndef CLCPACK_CODEC_H
#define CLCPACK_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "clcpack.h"

/* CRC-32 (zlib's) of n bytes, any n. Thread-safe. */
uint32_t clcpk_crc32(const void *data, size_t n);

/* Continues a CRC-32 over more bytes: zlib's crc32(crc, data, n) for any n.
 * Uses PCLMULQDQ on x86-64 CPUs that have it (crc32_x86.c). Thread-safe. */
uint32_t clcpk_crc32_more(uint32_t crc, const void *data, size_t n);

/* The same through zlib alone, whatever the CPU: what the fast path is
 * tested and measured against. */
uint32_t clcpk_crc32_portable(uint32_t crc, const void *data, size_t n);

/* How clcpk_crc32_more computes long buffers here: "vpclmul" (512-bit
 * folds), "pclmul" (128-bit folds) or "zlib". */
const char *clcpk_crc32_method(void);

/* Inflates the zlib stream src[0..n) into exactly raw bytes at dst.
 * CLCPACK_OK when the stream decodes to exactly raw bytes and ends exactly
 * at src+n; else CLCPACK_E_FORMAT (or E_NOMEM) with a reason in why. */
clcpack_status clcpk_inflate_exact(const uint8_t *src, size_t n, uint8_t *dst, size_t raw,
                                char *why, size_t why_cap);

/* Which inflater decodes zlib blobs: "libdeflate" when the library was
 * built with it (make LIBDEFLATE=1, the default where it is installed),
 * else "zlib". Both give the same bytes and the same errors. */
const char *clcpk_inflate_method(void);

/* dst[i] ^= base[i] for i < min(n, base_n). Both directions of the delta. */
void clcpk_xor_delta(uint8_t *dst, size_t n, const uint8_t *base, size_t base_n);

/* Deflates src (level 9) into a malloc'd buffer. CLCPACK_OK or E_NOMEM. */
clcpack_status clcpk_deflate(const uint8_t *src, size_t n, uint8_t **out, size_t *out_n);
/* The same at another zlib level: the writer ranks delta bases with a fast
 * level and compresses only the winner at level 9. */
clcpack_status clcpk_deflate_level(const uint8_t *src, size_t n, int level, uint8_t **out,
                                   size_t *out_n);

#endif /* CLCPACK_CODEC_H */
