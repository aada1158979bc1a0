#include "codec.h"

#include <limits.h>
#include <stdio.h>
#include <zlib.h>

#if defined(CLCPK_HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif

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
