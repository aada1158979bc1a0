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
#define ZDICT_STATIC_LINKING_ONLY /* ZDICT_optimizeTrainFromBuffer_fastCover */
#include <zdict.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "task_pool.h"

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

/* What ZDICT_trainFromBuffer does, one trial at a time: fastCover with d
 * 8 and zstd's default level, segment sizes k from 50 to 2000 in 4 steps
 * (50, 537, 1024, 1511, 1998), each trained on the first 75 % of the
 * samples and scored on the rest; the lowest score, the first on a tie,
 * wins. Trials run on threads of their own here, where zstd's own
 * optimizer runs them one after another (it takes a tie by whichever
 * finishes first when threaded): on an NVIDIA pack's cubins the
 * trainer was most of the encoding after the last build. Each trial's
 * dictionary and score are zstd's, so the winner, and the bytes, are
 * the same at any number of threads as ZDICT_trainFromBuffer's. */
#define TRAIN_D 8
#define TRAIN_K_FROM 50
#define TRAIN_K_TO 2000
#define TRAIN_K_STEPS 4
#define TRAIN_SPLIT 0.75
#define TRAIN_TRIALS 5

typedef struct trial {
    tp_task tp; /* first: the pool's part */
    unsigned k;
    const uint8_t *samples;
    const size_t *sizes;
    unsigned n;
    uint8_t *dict; /* cap bytes, its own */
    size_t cap, got;
    size_t score;  /* the dictionary's size and the test samples' compressed sizes */
} trial;

/* zstd's score of a trial's dictionary (cover.c's total compressed size):
 * the dictionary's bytes plus each test sample compressed with it at the
 * trainer's level. SIZE_MAX when it cannot be had. */
static size_t score_of(const trial *t, unsigned n_train)
{
    size_t at = 0, biggest = 0;
    for (unsigned i = 0; i < t->n; i++) {
        if (i >= n_train && t->sizes[i] > biggest)
            biggest = t->sizes[i];
        at += i < n_train ? t->sizes[i] : 0;
    }
    size_t cap = ZSTD_compressBound(biggest), total = t->got;
    void *dst = malloc(cap ? cap : 1);
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    ZSTD_CDict *cdict = ZSTD_createCDict(t->dict, t->got, ZSTD_CLEVEL_DEFAULT);
    for (unsigned i = n_train; dst && cctx && cdict && i < t->n; i++) {
        size_t z = ZSTD_compress_usingCDict(cctx, dst, cap, t->samples + at, t->sizes[i], cdict);
        if (ZSTD_isError(z)) {
            total = SIZE_MAX;
            break;
        }
        total += z;
        at += t->sizes[i];
    }
    if (!dst || !cctx || !cdict)
        total = SIZE_MAX;
    ZSTD_freeCDict(cdict);
    ZSTD_freeCCtx(cctx);
    free(dst);
    return total;
}

static void run_trial(void *ctx, tp_task *task, void *state)
{
    (void)ctx;
    (void)state;
    trial *t = (trial *)task;
    ZDICT_fastCover_params_t p;
    memset(&p, 0, sizeof p);
    p.k = t->k;
    p.d = TRAIN_D;
    p.splitPoint = TRAIN_SPLIT;
    p.nbThreads = 1;
    p.zParams.compressionLevel = ZSTD_CLEVEL_DEFAULT;
    size_t rc = t->dict ? ZDICT_optimizeTrainFromBuffer_fastCover(t->dict, t->cap, t->samples,
                                                                   t->sizes, t->n, &p)
                        : 0;
    t->got = ZDICT_isError(rc) ? 0 : rc;
    /* The test samples are those past the training ones (fastcover.c). */
    t->score = t->got ? score_of(t, (unsigned)((double)t->n * TRAIN_SPLIT)) : SIZE_MAX;
}

size_t clcpk_zdict_train(uint8_t *dict, size_t cap, const uint8_t *samples, const size_t *sizes,
                         unsigned n, unsigned threads)
{
    trial trials[TRAIN_TRIALS];
    size_t nt = 0;
    const unsigned step = (TRAIN_K_TO - TRAIN_K_FROM) / TRAIN_K_STEPS;
    for (unsigned k = TRAIN_K_FROM; k <= TRAIN_K_TO && nt < TRAIN_TRIALS; k += step) {
        trials[nt] = (trial){.k = k, .samples = samples, .sizes = sizes, .n = n, .cap = cap,
                             .dict = malloc(cap ? cap : 1), .score = SIZE_MAX};
        nt++;
    }
    tp_pool *pool = tp_start(threads < nt ? threads : (unsigned)nt, run_trial, NULL, 0, NULL);
    for (size_t i = 0; i < nt; i++) {
        if (pool)
            tp_submit(pool, &trials[i].tp);
        else
            run_trial(NULL, &trials[i].tp, NULL);
    }
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < nt; i++) {
        if (pool)
            tp_await(pool, &trials[i].tp);
        if (trials[i].score != SIZE_MAX && (best == SIZE_MAX || trials[i].score < trials[best].score))
            best = i;
    }
    tp_stop(pool);
    size_t rc = 0;
    if (best != SIZE_MAX) {
        rc = trials[best].got;
        memcpy(dict, trials[best].dict, rc);
    }
    for (size_t i = 0; i < nt; i++)
        free(trials[i].dict);
    if (rc == 0)
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
                         unsigned n, unsigned threads)
{
    (void)dict;
    (void)cap;
    (void)samples;
    (void)sizes;
    (void)n;
    (void)threads;
    return 0;
}
#endif
