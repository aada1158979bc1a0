/*
 * crc32_arm.h — zlib's CRC-32 with the ARMv8 CRC32 instructions on 64-bit
 * Arm. Internal to libclcpack: clcpk_crc32_more (crc32.c) calls it
 * when the CPU has them, zlib otherwise.
 *
 * The pack's CRC-32 is zlib's (docs/FORMAT.md: polynomial 0xEDB88320
 * reflected), which is what CRC32B/H/W/X compute; CRC32CB/CH/CW/CX compute
 * Castagnoli's and are not used.
 */
#ifndef CLCPACK_CRC32_ARM_H
#define CLCPACK_CRC32_ARM_H

#include <stddef.h>
#include <stdint.h>

/* GCC and clang on little-endian AArch64 (the 8-byte steps read words in
 * the order the CRC takes bytes), where the instructions are either known
 * at build time (-march=armv8-a+crc, every ARMv8.1 and later CPU) or asked
 * of Linux at run time (AT_HWCAP). Elsewhere zlib alone. */
#if defined(__aarch64__) && defined(__GNUC__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&                                     \
    (defined(__ARM_FEATURE_CRC32) || defined(__linux__))
#define CLCPK_HAVE_CRC32_ARM 1

/* Whether this CPU has the CRC32 instructions. Thread-safe, any time. */
int clcpk_crc32_arm_usable(void);

/* zlib's crc32(crc, p, n), any n, on a CPU where clcpk_crc32_arm_usable()
 * is true. Thread-safe. */
uint32_t clcpk_crc32_arm(uint32_t crc, const uint8_t *p, size_t n);
#endif

#endif /* CLCPACK_CRC32_ARM_H */
