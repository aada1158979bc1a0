/* crc32.c — the pack's CRC-32, the fastest way this CPU has (crc32.h). */
#include "crc32.h"

#include <limits.h>
#include <zlib.h>

/* The CPU's own CRC instructions, unless a load-only build leaves them out
 * (make LOAD_SIMD_CRC=0, loader/README.md): zlib's crc32() then does it. */
#ifndef CLCPK_NO_SIMD_CRC
#include "crc32_arm.h"
#include "crc32_x86.h"
#endif

uint32_t clcpk_crc32_portable(uint32_t crc, const void *data, size_t n)
{
    const uint8_t *p = data;
    /* crc32() takes a uInt length; feed large blocks in pieces. */
    while (n) {
        uInt chunk = n > UINT_MAX ? UINT_MAX : (uInt)n;
        crc = (uint32_t)crc32(crc, p, chunk);
        p += chunk;
        n -= chunk;
    }
    return crc;
}

/* The fastest way this CPU has, asked each time (a flag or a word the
 * kernel gave, under 1 ns): no state of our own, so any thread, any time. */
uint32_t clcpk_crc32_more(uint32_t crc, const void *data, size_t n)
{
#if defined(CLCPK_HAVE_CRC32_ARM)
    if (clcpk_crc32_arm_usable())
        return clcpk_crc32_arm(crc, data, n);
#endif
#if defined(CLCPK_HAVE_CRC32_PCLMUL)
    if (n >= CLCPK_CRC32_PCLMUL_MIN_BYTES && clcpk_crc32_pclmul_usable())
        return clcpk_crc32_pclmul(crc, data, n);
#endif
    return clcpk_crc32_portable(crc, data, n);
}

const char *clcpk_crc32_method(void)
{
#if defined(CLCPK_HAVE_CRC32_ARM)
    if (clcpk_crc32_arm_usable())
        return "armv8-crc";
#endif
#if defined(CLCPK_HAVE_CRC32_PCLMUL)
    if (clcpk_crc32_pclmul_usable())
        return clcpk_crc32_pclmul_width();
#endif
    return "zlib";
}

uint32_t clcpk_crc32(const void *data, size_t n)
{
    return clcpk_crc32_more((uint32_t)crc32(0L, Z_NULL, 0), data, n);
}
