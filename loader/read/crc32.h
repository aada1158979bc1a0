/*
 * crc32.h — the CRC-32 (zlib's polynomial) that checks every blob, table
 * and record of a pack (docs/FORMAT.md). Internal to libclcpack. crc32.c
 * picks the fastest way this CPU has: crc32_x86.c (PCLMULQDQ folds),
 * crc32_arm.c (the Armv8 CRC32 instructions), or zlib's crc32().
 */
#ifndef CLCPACK_CRC32_H
#define CLCPACK_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32 (zlib's) of n bytes, any n. Thread-safe. */
uint32_t clcpk_crc32(const void *data, size_t n);

/* Continues a CRC-32 over more bytes: zlib's crc32(crc, data, n) for any n.
 * Uses PCLMULQDQ on x86-64 CPUs that have it (crc32_x86.c), the CRC32
 * instructions on 64-bit Arm CPUs that have them (crc32_arm.c). Thread-safe. */
uint32_t clcpk_crc32_more(uint32_t crc, const void *data, size_t n);

/* The same through zlib alone, whatever the CPU: what the fast path is
 * tested and measured against. */
uint32_t clcpk_crc32_portable(uint32_t crc, const void *data, size_t n);

/* How clcpk_crc32_more computes long buffers here: "vpclmul" (512-bit
 * folds), "pclmul" (128-bit folds), "armv8-crc" or "zlib". */
const char *clcpk_crc32_method(void);

#endif /* CLCPACK_CRC32_H */
