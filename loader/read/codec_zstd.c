/*
 * codec_zstd.c — decoding the Zstandard blobs of format 4 (docs/FORMAT.md,
 * "Zstandard frames"): exactly one frame, decoded in one pass straight into
 * the caller's buffer of exactly the declared size, with a dictionary, a
 * prefix or neither. Built without zstd (make ZSTD=0), every call says so
 * with CLCPACK_E_VERSION, and opening and listing a format-4 pack still
 * work.
 */
#include "codec.h"

#include "bytes.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(CLCPK_HAVE_ZSTD)
#include <zstd.h>
#include <zstd_errors.h>
#endif

int clcpk_zstd_available(void)
{
#if defined(CLCPK_HAVE_ZSTD)
    return 1;
#else
    return 0;
#endif
}

#if defined(CLCPK_HAVE_ZSTD)
struct clcpk_zdict {
    ZSTD_DDict *ddict;      /* a zstd-format dictionary; NULL for raw content */
    const uint8_t *content; /* raw content, given to each frame as it is */
    size_t content_n;
    uint8_t *owned; /* the buffer holding content, when it is ours */
};

int clcpk_zdict_zstd_format(const uint8_t *bytes, size_t n)
{
    return n >= 4 && get_le32(bytes) == ZSTD_MAGIC_DICTIONARY;
}

clcpack_status clcpk_zdict_load(const uint8_t *bytes, size_t n, uint8_t *owned,
                                clcpk_zdict **out, char *why, size_t why_cap)
{
    *out = NULL;
    clcpk_zdict *d = calloc(1, sizeof *d);
    if (!d) {
        free(owned);
        snprintf(why, why_cap, "out of memory for a dictionary of %zu bytes", n);
        return CLCPACK_E_NOMEM;
    }
    if (!clcpk_zdict_zstd_format(bytes, n)) {
        /* Raw content: referenced where it lies (clcpk_unzstd_exact gives
         * it to each frame), no copy and no tables. What libclcpack's
         * writer trains is stored so. */
        d->content = bytes;
        d->content_n = n;
        d->owned = owned;
        *out = d;
        return CLCPACK_OK;
    }
    /* A zstd-format dictionary (packs written before raw content): zstd
     * copies it, so our buffer can go. Its by-reference form is in zstd's
     * static-linking-only API, which a shared libzstd of another version
     * need not keep. */
    d->ddict = ZSTD_createDDict(bytes, n);
    free(owned);
    if (!d->ddict) {
        free(d);
        /* The bytes matched their CRC-32: a dictionary zstd refuses was
         * made that way, not damaged. */
        snprintf(why, why_cap, "zstd refuses the dictionary (%zu bytes): corrupt entropy tables",
                 n);
        return CLCPACK_E_FORMAT;
    }
    *out = d;
    return CLCPACK_OK;
}

void clcpk_zdict_free(clcpk_zdict *d)
{
    if (!d)
        return;
    ZSTD_freeDDict(d->ddict);
    free(d->owned);
    free(d);
}

/* Sorts zstd's error into the pack's statuses as inflate's are sorted:
 * sizes that disagree are format errors, damaged data a checksum error. */
static clcpack_status zstd_failure(size_t rc, size_t raw, char *why, size_t why_cap)
{
    ZSTD_ErrorCode code = ZSTD_getErrorCode(rc);
    switch (code) {
    case ZSTD_error_dstSize_tooSmall:
        snprintf(why, why_cap, "decodes to more than the declared %zu bytes", raw);
        return CLCPACK_E_FORMAT;
    case ZSTD_error_srcSize_wrong:
        snprintf(why, why_cap, "zstd frame ends early (%s)", ZSTD_getErrorName(rc));
        return CLCPACK_E_FORMAT;
    case ZSTD_error_memory_allocation:
        snprintf(why, why_cap, "zstd ran out of memory");
        return CLCPACK_E_NOMEM;
    case ZSTD_error_prefix_unknown:
    case ZSTD_error_frameParameter_unsupported:
    case ZSTD_error_version_unsupported:
        snprintf(why, why_cap, "not a zstd frame this reader decodes (%s)", ZSTD_getErrorName(rc));
        return CLCPACK_E_FORMAT;
    default:
        /* The index is checksummed: a frame zstd finds corrupt (a wrong
         * dictionary ID included) is a damaged payload. */
        snprintf(why, why_cap, "corrupt compressed data (zstd: %s)", ZSTD_getErrorName(rc));
        return CLCPACK_E_CHECKSUM;
    }
}

/* A few contexts: more threads than this decoding at once make their own. */
#define ZPOOL_KEEP 4

struct clcpk_zpool {
    pthread_mutex_t lock;
    ZSTD_DCtx *free[ZPOOL_KEEP];
    size_t n;
};

clcpk_zpool *clcpk_zpool_new(void)
{
    clcpk_zpool *pool = calloc(1, sizeof *pool);
    if (pool && pthread_mutex_init(&pool->lock, NULL) != 0) {
        free(pool);
        pool = NULL;
    }
    return pool;
}

void clcpk_zpool_free(clcpk_zpool *pool)
{
    if (!pool)
        return;
    for (size_t i = 0; i < pool->n; i++)
        ZSTD_freeDCtx(pool->free[i]);
    pthread_mutex_destroy(&pool->lock);
    free(pool);
}

static ZSTD_DCtx *zpool_take(clcpk_zpool *pool)
{
    ZSTD_DCtx *d = NULL;
    if (pool) {
        pthread_mutex_lock(&pool->lock);
        if (pool->n)
            d = pool->free[--pool->n];
        pthread_mutex_unlock(&pool->lock);
    }
    return d ? d : ZSTD_createDCtx();
}

/* Back to the pool without the dictionary or prefix it referenced. */
static void zpool_give(clcpk_zpool *pool, ZSTD_DCtx *d)
{
    if (pool && !ZSTD_isError(ZSTD_DCtx_reset(d, ZSTD_reset_session_and_parameters))) {
        pthread_mutex_lock(&pool->lock);
        if (pool->n < ZPOOL_KEEP) {
            pool->free[pool->n++] = d;
            d = NULL;
        }
        pthread_mutex_unlock(&pool->lock);
    }
    ZSTD_freeDCtx(d);
}

clcpack_status clcpk_unzstd_exact(clcpk_zpool *pool, const uint8_t *src, size_t n, uint8_t *dst,
                                  size_t raw, const clcpk_zdict *dict, const uint8_t *prefix,
                                  size_t prefix_n, char *why, size_t why_cap)
{
    /* Exactly one frame: a skippable frame, a second frame or trailing
     * bytes are refused before anything is decoded. */
    size_t frame = ZSTD_findFrameCompressedSize(src, n);
    if (ZSTD_isError(frame))
        return zstd_failure(frame, raw, why, why_cap);
    if (frame != n) {
        snprintf(why, why_cap, "%zu bytes after the end of the zstd frame", n - frame);
        return CLCPACK_E_FORMAT;
    }
    unsigned long long declared = ZSTD_getFrameContentSize(src, n);
    if (declared == ZSTD_CONTENTSIZE_ERROR) {
        snprintf(why, why_cap, "not a zstd frame this reader decodes (skippable or unknown)");
        return CLCPACK_E_FORMAT;
    }
    if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != raw) {
        snprintf(why, why_cap, "zstd frame declares %llu bytes, the index %zu", declared, raw);
        return CLCPACK_E_FORMAT;
    }
    ZSTD_DCtx *dctx = zpool_take(pool);
    if (!dctx) {
        snprintf(why, why_cap, "zstd cannot start (out of memory)");
        return CLCPACK_E_NOMEM;
    }
    /* One pass into dst, which is the window: the decoder allocates no
     * window buffer, whatever window size the frame asks for. */
    const uint8_t *content = dict && !dict->ddict ? dict->content : prefix;
    size_t content_n = dict && !dict->ddict ? dict->content_n : prefix_n;
    size_t rc;
    if (dict && dict->ddict) {
        rc = ZSTD_decompress_usingDDict(dctx, dst, raw, src, n, dict->ddict);
    } else if (content && !clcpk_zdict_zstd_format(content, content_n)) {
        /* Raw content, which the ZSTD_dct_auto rule of this call reads as
         * such: given as it is, where ZSTD_DCtx_refPrefix would allocate a
         * dictionary object for each frame (0.02 ms of a cold load on this
         * VM). */
        rc = ZSTD_decompress_usingDict(dctx, dst, raw, src, n, content, content_n);
    } else if (content) {
        /* A base entry that happens to start with the dictionary magic
         * number: raw content all the same, as the writer's prefix was. */
        rc = ZSTD_DCtx_refPrefix(dctx, content, content_n);
        if (!ZSTD_isError(rc))
            rc = ZSTD_decompressDCtx(dctx, dst, raw, src, n);
    } else {
        rc = ZSTD_decompressDCtx(dctx, dst, raw, src, n);
    }
    zpool_give(pool, dctx);
    if (ZSTD_isError(rc))
        return zstd_failure(rc, raw, why, why_cap);
    if (rc != raw) {
        snprintf(why, why_cap, "decodes to %zu bytes, declared %zu", rc, raw);
        return CLCPACK_E_FORMAT;
    }
    return CLCPACK_OK;
}

#else /* !CLCPK_HAVE_ZSTD */

/* The message a library built without zstd gives for a zstd blob. */
static clcpack_status no_zstd(char *why, size_t why_cap)
{
    snprintf(why, why_cap,
             "this libclcpack was " CLCPK_NO_ZSTD_HOW ", or write the pack with --codec zlib");
    return CLCPACK_E_VERSION;
}

struct clcpk_zdict {
    int unused;
};

clcpack_status clcpk_zdict_load(const uint8_t *bytes, size_t n, uint8_t *owned,
                                clcpk_zdict **out, char *why, size_t why_cap)
{
    (void)bytes;
    (void)n;
    free(owned);
    *out = NULL;
    return no_zstd(why, why_cap);
}

void clcpk_zdict_free(clcpk_zdict *d) { free(d); }

clcpk_zpool *clcpk_zpool_new(void) { return NULL; }
void clcpk_zpool_free(clcpk_zpool *pool) { (void)pool; }

clcpack_status clcpk_unzstd_exact(clcpk_zpool *pool, const uint8_t *src, size_t n, uint8_t *dst,
                                  size_t raw, const clcpk_zdict *dict, const uint8_t *prefix,
                                  size_t prefix_n, char *why, size_t why_cap)
{
    (void)pool;
    (void)src;
    (void)n;
    (void)dst;
    (void)raw;
    (void)dict;
    (void)prefix;
    (void)prefix_n;
    return no_zstd(why, why_cap);
}
#endif

const char *clcpk_codec_name(uint32_t codec)
{
    switch (codec) {
    case 0: return "stored";
    case 1: return "zlib";
    case 2: return "XOR-delta + zlib";
    case 3: return "zstd";
    case 4: return "zstd with a dictionary";
    case 5: return "zstd with a prefix";
    }
    return "unknown";
}
