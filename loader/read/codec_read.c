#include "codec.h"

#include <limits.h>
#include <stdio.h>
#include <zlib.h>

#include "crc32_arm.h"
#include "crc32_x86.h"
#if defined(CLCPK_HAVE_LIBDEFLATE)
#include <libdeflate.h>
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

void clcpk_xor_delta(uint8_t *dst, size_t n, const uint8_t *base, size_t base_n)
{
    size_t common = n < base_n ? n : base_n;
    for (size_t i = 0; i < common; i++)
        dst[i] ^= base[i];
}

/* Gives the stream the next piece of a buffer longer than a uInt can say;
 * zlib has already advanced next_in/next_out past what it used. */
static void refill(uInt *avail, size_t *left)
{
    if (*avail == 0 && *left) {
        uInt chunk = *left > UINT_MAX ? UINT_MAX : (uInt)*left;
        *avail = chunk;
        *left -= chunk;
    }
}

#if defined(CLCPK_HAVE_LIBDEFLATE)
/* libdeflate inflates a whole zlib stream in one call about 2.5 times as
 * fast as zlib here (docs/bench/). It is asked only the question "is this
 * exactly raw bytes, ending exactly at src+n?"; any other answer goes to
 * zlib's streaming path below, which tells a short stream from a corrupt
 * one for the error status. */
static int inflate_fast(const uint8_t *src, size_t n, uint8_t *dst, size_t raw)
{
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    if (!d)
        return 0;
    size_t in_used = 0, out_used = 0;
    enum libdeflate_result r = libdeflate_zlib_decompress_ex(d, src, n, dst, raw, &in_used, &out_used);
    libdeflate_free_decompressor(d);
    return r == LIBDEFLATE_SUCCESS && in_used == n && out_used == raw;
}
#endif

const char *clcpk_inflate_method(void)
{
#if defined(CLCPK_HAVE_LIBDEFLATE)
    return "libdeflate";
#else
    return "zlib";
#endif
}

static clcpack_status inflate_zlib(const uint8_t *src, size_t n, uint8_t *dst, size_t raw,
                                   char *why, size_t why_cap);

clcpack_status clcpk_inflate_exact(const uint8_t *src, size_t n, uint8_t *dst, size_t raw,
                                char *why, size_t why_cap)
{
#if defined(CLCPK_HAVE_LIBDEFLATE)
    if (inflate_fast(src, n, dst, raw))
        return CLCPACK_OK;
#endif
    return inflate_zlib(src, n, dst, raw, why, why_cap);
}

static clcpack_status inflate_zlib(const uint8_t *src, size_t n, uint8_t *dst, size_t raw,
                                   char *why, size_t why_cap)
{
    z_stream zs = {0};
    int rc = inflateInit(&zs);
    if (rc != Z_OK) {
        snprintf(why, why_cap, "zlib cannot start (%s)", rc == Z_MEM_ERROR ? "out of memory" : "error");
        return rc == Z_MEM_ERROR ? CLCPACK_E_NOMEM : CLCPACK_E_FORMAT;
    }
    size_t in_left = n, out_left = raw;
    zs.next_in = (Bytef *)src;
    zs.next_out = dst;
    clcpack_status st = CLCPACK_OK;
    for (;;) {
        refill(&zs.avail_in, &in_left);
        refill(&zs.avail_out, &out_left);
        rc = inflate(&zs, Z_NO_FLUSH);
        if (rc == Z_STREAM_END)
            break;
        if (rc == Z_OK)
            continue;
        if (rc == Z_BUF_ERROR && zs.avail_out == 0 && out_left == 0) {
            /* Output is full but the stream goes on: one more byte would
             * tell a pending end marker from data past the declared size. */
            uint8_t extra;
            zs.next_out = &extra;
            zs.avail_out = 1;
            rc = inflate(&zs, Z_NO_FLUSH);
            if (rc == Z_STREAM_END && zs.avail_out == 1) {
                zs.avail_out = 0;
                break;
            }
            if (zs.avail_out == 0)
                snprintf(why, why_cap, "decodes to more than the declared %zu bytes", raw);
            else if (rc == Z_BUF_ERROR)
                snprintf(why, why_cap, "compressed data ends before its end marker");
            else
                snprintf(why, why_cap, "corrupt compressed data (zlib: %s)",
                         zs.msg ? zs.msg : "data error");
            st = rc == Z_DATA_ERROR ? CLCPACK_E_CHECKSUM : CLCPACK_E_FORMAT;
            break;
        }
        if (rc == Z_BUF_ERROR) {
            snprintf(why, why_cap, "compressed data ends early: %llu of %zu bytes decoded",
                     (unsigned long long)zs.total_out, raw);
            st = CLCPACK_E_FORMAT;
            break;
        }
        if (rc == Z_MEM_ERROR) {
            snprintf(why, why_cap, "zlib ran out of memory");
            st = CLCPACK_E_NOMEM;
            break;
        }
        /* The index is checksummed, so a stream zlib finds corrupt (its
         * own Adler-32 included) is a damaged payload: a checksum error. */
        snprintf(why, why_cap, "corrupt compressed data (zlib: %s)", zs.msg ? zs.msg : "data error");
        st = rc == Z_DATA_ERROR ? CLCPACK_E_CHECKSUM : CLCPACK_E_FORMAT;
        break;
    }
    if (st == CLCPACK_OK) {
        if (zs.avail_out != 0 || out_left != 0) {
            snprintf(why, why_cap, "decodes to %llu bytes, declared %zu",
                     (unsigned long long)zs.total_out, raw);
            st = CLCPACK_E_FORMAT;
        } else if (zs.avail_in != 0 || in_left != 0) {
            snprintf(why, why_cap, "%zu bytes after the end of the compressed stream",
                     (size_t)zs.avail_in + in_left);
            st = CLCPACK_E_FORMAT;
        }
    }
    inflateEnd(&zs);
    return st;
}
