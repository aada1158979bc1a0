/*
 * crc32_arm.c — zlib's CRC-32 with the ARMv8 CRC32 instructions.
 *
 * CRC32X folds 8 bytes into the register in one instruction (CRC32B one
 * byte), against zlib's table lookups: a few times faster on the Arm
 * cores that have it, which is every ARMv8.1 CPU and most ARMv8.0 ones.
 * Only these functions are compiled for the instructions (a target
 * attribute, no global flag), so the library runs on any AArch64; it asks
 * the kernel first, unless the build already assumes them. On other
 * targets this file compiles to nothing.
 */
#include "crc32_arm.h"

#if defined(CLCPK_HAVE_CRC32_ARM)

#include <arm_acle.h>
#include <string.h>

#include "platform.h"

#define ARM_CRC __attribute__((target("+crc")))

int clcpk_crc32_arm_usable(void)
{
#if defined(__ARM_FEATURE_CRC32)
    return 1;
#else
    /* The system's word for the CPU (what qemu-user emulates included). */
    return clcpk_os_cpu_has_arm_crc32();
#endif
}

ARM_CRC uint32_t clcpk_crc32_arm(uint32_t crc, const uint8_t *p, size_t n)
{
    /* zlib's register is ~crc; the instructions take and give it plain. */
    uint32_t c = ~crc;
    for (; n && ((uintptr_t)p & 7); p++, n--)
        c = __crc32b(c, *p);
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        c = __crc32d(c, w);
    }
    for (; n; p++, n--)
        c = __crc32b(c, *p);
    return ~c;
}

#endif /* CLCPK_HAVE_CRC32_ARM */
