#include "codec.h"

#include <limits.h>
#include <stdlib.h>
#include <zlib.h>

clcpack_status clcpk_deflate_level(const uint8_t *src, size_t n, int level, uint8_t **out,
                                   size_t *out_n)
{
    *out = NULL;
    *out_n = 0;
    /* The writer refuses blobs over 1 GiB, so a uLong bound is exact. */
    if (n > (size_t)1 << 30)
        return CLCPACK_E_LIMIT;
    uLong cap = compressBound((uLong)n);
    uint8_t *buf = malloc(cap ? cap : 1);
    if (!buf)
        return CLCPACK_E_NOMEM;
    uLongf len = cap;
    /* Fixed level, default window and strategy, so packs are reproducible. */
    int rc = compress2(buf, &len, src, (uLong)n, level);
    if (rc != Z_OK) {
        free(buf);
        return rc == Z_MEM_ERROR ? CLCPACK_E_NOMEM : CLCPACK_E_LIMIT;
    }
    *out = buf;
    *out_n = len;
    return CLCPACK_OK;
}

clcpack_status clcpk_deflate(const uint8_t *src, size_t n, uint8_t **out, size_t *out_n)
{
    return clcpk_deflate_level(src, n, 9, out, out_n);
}
