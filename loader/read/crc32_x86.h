/*
 * crc32_x86.h — zlib's CRC-32 by carry-less multiplication (PCLMULQDQ) on
 * x86-64. Internal to libclcpack: clcpk_crc32_more (crc32.c) calls it
 * for long buffers when the CPU has the instruction, zlib otherwise.
 */
#ifndef CLCPACK_CRC32_X86_H
#define CLCPACK_CRC32_X86_H

#include <stddef.h>
#include <stdint.h>

/* GCC and clang: they have the target attribute and __builtin_cpu_supports. */
#if defined(__x86_64__) && defined(__GNUC__)
#define CLCPK_HAVE_CRC32_PCLMUL 1

/* The fewest bytes clcpk_crc32_pclmul takes. Below it zlib is as fast:
 * the folding leaves zlib 16 bytes and the tail. */
#define CLCPK_CRC32_PCLMUL_MIN_BYTES 32

/* Whether this CPU has PCLMULQDQ. Thread-safe, any time (constructors
 * included). */
int clcpk_crc32_pclmul_usable(void);

/* Which folds clcpk_crc32_pclmul uses for long buffers here: "vpclmul"
 * (512-bit) or "pclmul" (128-bit). */
const char *clcpk_crc32_pclmul_width(void);

/* zlib's crc32(crc, p, n), for n >= CLCPK_CRC32_PCLMUL_MIN_BYTES on a CPU
 * where clcpk_crc32_pclmul_usable() is true; long buffers take 512-bit
 * folds where the CPU has VPCLMULQDQ and AVX-512. Thread-safe. */
uint32_t clcpk_crc32_pclmul(uint32_t crc, const uint8_t *p, size_t n);
#endif

#endif /* CLCPACK_CRC32_X86_H */
