/*
 * codec_zstd_write.c — making the Zstandard blobs and dictionaries of
 * format 4 (docs/FORMAT.md, "How the writer chooses"): one frame per
 * blob, with the content size and without a dictionary ID or checksum, at
 * a fixed level, on the calling thread (no zstd worker threads), so that
 * the same input gives the same bytes with the same zstd version; and
 * dictionaries trained with zstd's trainer at fixed parameters.
 */
#include "codec.h"

#include <stdlib.h>
#include <string.h>

#if defined(CLCPK_HAVE_ZSTD)
#include <zdict.h>
#include <zstd.h>
#include <zstd_errors.h>

struct clcpk_zcdict {
    ZSTD_CDict *cdict;
};

clcpk_zcdict *clcpk_zcdict_new(const uint8_t *dict, size_t n, int level)
{
    clcpk_zcdict *d = malloc(sizeof *d);
    if (!d)
        return NULL;
    d->cdict = ZSTD_createCDict(dict, n, level);
    if (!d->cdict) {
        free(d);
        return NULL;
    }
    return d;
}

void clcpk_zcdict_free(clcpk_zcdict *d)
{
    if (!d)
        return;
    ZSTD_freeCDict(d->cdict);
    free(d);
}

void clcpk_zstd_cctx_free(void *cctx) { ZSTD_freeCCtx(cctx); }

clcpack_status clcpk_zstd_compress(void **cctx, const uint8_t *src, size_t n, int level,
                                   const clcpk_zcdict *dict, const uint8_t *prefix,
                                   size_t prefix_n, uint8_t **out, size_t *out_n)
{
    *out = NULL;
    *out_n = 0;
    if (!*cctx && !(*cctx = ZSTD_createCCtx()))
        return CLCPACK_E_NOMEM;
    ZSTD_CCtx *c = *cctx;
    size_t cap = ZSTD_compressBound(n);
    uint8_t *buf = malloc(cap ? cap : 1);
    if (!buf)
        return CLCPACK_E_NOMEM;
    ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
    /* Fixed parameters: the bytes depend on the input and zstd's version
     * alone. The CRC-32 of the index covers the bytes, so the frame needs
     * no checksum; the pack names the dictionary, so no ID either. */
    size_t rc = ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
    if (!ZSTD_isError(rc))
        rc = ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 0);
    if (!ZSTD_isError(rc))
        rc = ZSTD_CCtx_setParameter(c, ZSTD_c_dictIDFlag, 0);
    if (!ZSTD_isError(rc))
        rc = ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 1);
    if (!ZSTD_isError(rc) && dict)
        rc = ZSTD_CCtx_refCDict(c, dict->cdict);
    else if (!ZSTD_isError(rc) && prefix)
        rc = ZSTD_CCtx_refPrefix(c, prefix, prefix_n);
    if (!ZSTD_isError(rc))
        rc = ZSTD_compress2(c, buf, cap, src, n);
    if (ZSTD_isError(rc)) {
        free(buf);
        return ZSTD_getErrorCode(rc) == ZSTD_error_memory_allocation ? CLCPACK_E_NOMEM
                                                                     : CLCPACK_E_LIMIT;
    }
    *out = buf;
    *out_n = rc;
    return CLCPACK_OK;
}

size_t clcpk_zdict_train(uint8_t *dict, size_t cap, const uint8_t *samples, const size_t *sizes,
                         unsigned n)
{
    /* zstd's own choice of trainer (fastCover, d=8, a few segment sizes
     * tried, one thread): deterministic for given samples. Measured on
     * the default PoCL pack against fixed segment sizes and cover
     * (docs/FORMAT.md): as small or smaller. */
    size_t rc = ZDICT_trainFromBuffer(dict, cap, samples, sizes, n);
    if (ZDICT_isError(rc))
        return 0;
    /* Kept as raw content: the trained content without zstd's header and
     * entropy tables, which a reader then uses in place as a prefix, with
     * no copy or tables to build (codec_zstd.c). Blobs come out the same
     * size (default PoCL pack: 1,872,451 bytes against 1,872,354), and the
     * first load of a pack reads no more than the dictionary's bytes.
     * Content that would itself start with the magic number, and so be
     * read as a zstd-format dictionary (FORMAT.md's ZSTD_dct_auto rule),
     * keeps the header. */
    size_t head = ZDICT_getDictHeaderSize(dict, rc);
    if (ZDICT_isError(head) || head >= rc)
        return rc;
    if (clcpk_zdict_zstd_format(dict + head, rc - head))
        return rc;
    memmove(dict, dict + head, rc - head);
    return rc - head;
}

#else /* !CLCPK_HAVE_ZSTD: the writer never asks (clcpack_compression_available). */

struct clcpk_zcdict {
    int unused;
};

clcpk_zcdict *clcpk_zcdict_new(const uint8_t *dict, size_t n, int level)
{
    (void)dict;
    (void)n;
    (void)level;
    return NULL;
}

void clcpk_zcdict_free(clcpk_zcdict *d) { free(d); }

void clcpk_zstd_cctx_free(void *cctx) { (void)cctx; }

clcpack_status clcpk_zstd_compress(void **cctx, const uint8_t *src, size_t n, int level,
                                   const clcpk_zcdict *dict, const uint8_t *prefix,
                                   size_t prefix_n, uint8_t **out, size_t *out_n)
{
    (void)cctx;
    (void)src;
    (void)n;
    (void)level;
    (void)dict;
    (void)prefix;
    (void)prefix_n;
    *out = NULL;
    *out_n = 0;
    return CLCPACK_E_VERSION;
}

size_t clcpk_zdict_train(uint8_t *dict, size_t cap, const uint8_t *samples, const size_t *sizes,
                         unsigned n)
{
    (void)dict;
    (void)cap;
    (void)samples;
    (void)sizes;
    (void)n;
    return 0;
}
#endif
