/*
 * pack_encode.c — turning a writer's contents into pack bytes: the
 * deterministic order of devices, entries and sources, the choice of codec
 * and delta base for each blob, and the header and index of
 * docs/FORMAT.md. With clcpack_writer_set_threads, the ranking and
 * compression tasks run on a task pool (task_pool.h); the choices stay
 * those of one thread, so the bytes do not depend on the thread count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blob_cache.h"
#include "bytes.h"
#include "codec.h"
#include "crc32.h"
#include "errors.h"
#include "key_hash.h"
#include "lookup_write.h"
#include "out_buf.h"
#include "pack_encoder.h"
#include "pack_format.h"

/* Among how many of the nearest earlier entries of its group the
 * DELTA_CANDIDATES (pack_encoder.h) are looked for. */
#define DELTA_LOOK 64
/* zlib level used to rank delta bases (fast; the winner is stored at 9). */
#define RANK_LEVEL 1
/* zstd (format 4; docs/FORMAT.md, "How the writer chooses"): what is
 * stored, what ranks candidates, and the longest prefix chain written. */
#define ZSTD_LEVEL 19
#define ZSTD_RANK_LEVEL 1
/* At most three decodes for any entry: each link is a decode into fresh
 * memory at a cold start. Measured (docs/FORMAT.md, "How the writer
 * chooses"): on the default PoCL pack chains of 4 read an entry in a fresh
 * process in 0.55 ms on average, chains of 3 or 2 with the larger
 * dictionary below and the decode weight in 0.45 ms (1.93 and 1.96 MB);
 * the design-card NVIDIA pack, whose cubins chain along widths and
 * architectures, is 4.75 MB with chains of 3 and 5.23 MB with 2. */
#define ZSTD_CHAIN_MAX 3
/* zstd: a candidate's rank counts ZSTD_CHAIN_PENALTY percent more per link
 * its base's chain has, so that an entry takes a base only when that is
 * clearly smaller than the dictionary alone, and more entries stay roots
 * that later ones may take as bases within the cap; and each byte its
 * base's chain decodes counts as ZSTD_DECODE_WEIGHT thousandths of a
 * stored byte, so that a large base must earn its decode. On the default
 * PoCL pack: penalty 15-25 % gave the smallest packs with chains of 2
 * (0 %: +6 %, 40 %: +4 %); a weight of 12 made chains 1.78 links on
 * average instead of 2.17, at 1.93 MB instead of 1.87 (20: 1.50 links,
 * 2.01 MB). */
#define ZSTD_CHAIN_PENALTY 20
#define ZSTD_DECODE_WEIGHT 12
/* A dictionary per class of blobs: 1/32 of the class's bytes, at least
 * 8 KiB (smaller classes get none) and at most 128 KiB, trained from at
 * least 8 samples of at most 64 MiB in all. With short chains more entries
 * are roots coded with the dictionary alone: 128 KiB made the default PoCL
 * pack 1.93 MB with chains of 1.78 links on average, 64 KiB 1.94 MB with
 * 2.25 (192 KiB: 1.96 MB), at the same cold reads. */
#define DICT_SHARE 32
#define DICT_MIN (8u << 10)
#define DICT_MAX (128u << 10)
#define DICT_MIN_SAMPLES 8
#define DICT_SAMPLE_CAP ((size_t)64 << 20)

/* On the encoder's side, not the adder's (pack_write.c): the encoder reads
 * the spool, and the writer's files then call one way only, add → encode. */
const uint8_t *clcpk_entry_bytes(const clcpack_writer *w, const w_entry *e, uint8_t **spare)
{
    if (e->bin)
        return e->bin;
    uint8_t *buf = realloc(*spare, e->size ? e->size : 1);
    if (!buf)
        return NULL;
    *spare = buf;
    size_t got = 0;
    while (got < e->size) {
        size_t r;
        if (clcpk_os_pread(w->spool_fd, buf + got, e->size - got, e->spool_off + got, &r) != 0 ||
            r == 0)
            return NULL;
        got += r;
    }
    return buf;
}

typedef int (*index_cmp)(const encoder *e, size_t a, size_t b);

/* Stable bottom-up merge sort of indices (qsort has no context argument
 * in C11 and is not stable). */
static void sort_indices(size_t *idx, size_t *tmp, size_t n, index_cmp cmp, const encoder *e)
{
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = cmp(e, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
            while (i < mid)
                tmp[k++] = idx[i++];
            while (j < hi)
                tmp[k++] = idx[j++];
        }
        memcpy(idx, tmp, n * sizeof *idx);
    }
}

static int cmp_device(const encoder *e, size_t a, size_t b)
{
    return clcpk_device_compare(&e->w->devices[a], &e->w->devices[b]);
}

static int cmp_u32(uint32_t a, uint32_t b) { return a < b ? -1 : a > b; }

static int cmp_entry(const encoder *enc, size_t ia, size_t ib)
{
    const w_entry *a = &enc->w->entries[ia], *b = &enc->w->entries[ib];
    int c = strcmp(a->kernel, b->kernel);
    if (c)
        return c;
    size_t n = a->n_defines < b->n_defines ? a->n_defines : b->n_defines;
    for (size_t k = 0; k < n; k++) {
        if ((c = strcmp(a->defines[k].name, b->defines[k].name)) ||
            (c = clcpk_value_compare(a->defines[k].value, b->defines[k].value)))
            return c;
    }
    if ((c = cmp_u32((uint32_t)a->n_defines, (uint32_t)b->n_defines)))
        return c;
    for (int k = 0; k < 3; k++)
        if ((c = cmp_u32(a->wg[k], b->wg[k])))
            return c;
    if ((c = cmp_u32(enc->dev_rank[a->device], enc->dev_rank[b->device])) ||
        (c = cmp_u32((uint32_t)a->kind, (uint32_t)b->kind)) || (c = cmp_u32(a->arch, b->arch)))
        return c;
    return 0;
}

static int cmp_source(const encoder *e, size_t ia, size_t ib)
{
    const w_source *a = &e->w->sources[ia], *b = &e->w->sources[ib];
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    size_t n = a->size < b->size ? a->size : b->size;
    if ((c = memcmp(a->text, b->text, n)))
        return c;
    return a->size < b->size ? -1 : a->size > b->size;
}

/* Whether a delta against an entry of base_size bytes whose blob is bl
 * keeps the chain within the reader's limits (docs/FORMAT.md, "Checks on
 * blobs"): chain length, base size and chain budget. */
static int base_allowed(const blob *bl, size_t base_size, size_t size, uint32_t max_chain)
{
    return bl->chain < max_chain && base_size <= (uint64_t)PK_BASE_MAX_RATIO * size &&
           bl->chain_bytes + size <= (uint64_t)CLCPACK_CHAIN_BUDGET * size;
}

/* Binaries of one variant for two architectures or targets of one kind
 * (cubins of clc-pack --nv-arch, Intel or AMD targets): the same key and
 * device. Cubins for sm_80, sm_86 and sm_89, or sm_100 and sm_120, differ
 * in a few hundred bytes (docs/bench/nvidia-multiarch-size.md); so do
 * Intel binaries of one core family (docs/vendors/). */
static int arch_sibling(const w_entry *a, const w_entry *b)
{
    if ((a->kind != CLCPACK_KIND_CUBIN && a->kind != CLCPACK_KIND_INTEL &&
         a->kind != CLCPACK_KIND_AMDGCN) ||
        a->kind != b->kind || a->device != b->device || a->arch == b->arch ||
        a->n_defines != b->n_defines ||
        memcmp(a->wg, b->wg, sizeof a->wg) != 0 || strcmp(a->kernel, b->kernel) != 0)
        return 0;
    for (size_t k = 0; k < a->n_defines; k++)
        if (strcmp(a->defines[k].name, b->defines[k].name) != 0 ||
            strcmp(a->defines[k].value, b->defines[k].value) != 0)
            return 0;
    return 1;
}

/* Size of src at the fast ranking level, or SIZE_MAX on failure. */
static size_t ranked_size(const uint8_t *src, size_t n, clcpack_status *st)
{
    uint8_t *z;
    size_t zn;
    if ((*st = clcpk_deflate_level(src, n, RANK_LEVEL, &z, &zn)) != CLCPACK_OK)
        return SIZE_MAX;
    free(z);
    return zn;
}

/* The candidates of the entry at pos, in the order they are ranked: the
 * nearest earlier entries of its group, then the cubins of the same variant
 * for the other architectures, which sort just before this one
 * (arch_sibling). Eligibility reads the chains of earlier entries' blobs. */
static size_t list_candidates(const encoder *enc, size_t pos, size_t *cand)
{
    const w_entry *e = &enc->w->entries[enc->ent_order[pos]];
    size_t n = 0, tried = 0, looked = 0;
    size_t j = enc->group_prev[pos], back = pos;
    int siblings = 0;
    for (;;) {
        if (!siblings && (j == SIZE_MAX || tried >= DELTA_CANDIDATES || looked >= DELTA_LOOK)) {
            siblings = 1;
            j = back;
        }
        if (siblings) {
            if (j == 0 || pos - j >= DELTA_SIBLINGS)
                break;
            j--;
            if (!arch_sibling(e, &enc->w->entries[enc->ent_order[j]]))
                break;
        }
        size_t c = j;
        if (!siblings) {
            j = enc->group_prev[j];
            looked++;
        }
        if (!base_allowed(&enc->ent_blobs[c], enc->w->entries[enc->ent_order[c]].size, e->size,
                          enc->zstd ? ZSTD_CHAIN_MAX : CLCPACK_MAX_DELTA_CHAIN))
            continue;
        tried += !siblings;
        cand[n++] = c;
    }
    return n;
}

/* e_bin (the bytes of entry e) XORed with the entry at sorted position
 * base, in s->delta; NULL with *st set when that fails. */
static const uint8_t *delta_of(const encoder *enc, scratch *s, const w_entry *e,
                               const uint8_t *e_bin, size_t base, clcpack_status *st)
{
    const w_entry *b = &enc->w->entries[enc->ent_order[base]];
    if (!s->delta || s->delta_cap < e->size) {
        uint8_t *d = realloc(s->delta, e->size ? e->size : 1);
        if (!d) {
            *st = CLCPACK_E_NOMEM;
            return NULL;
        }
        s->delta = d;
        s->delta_cap = e->size;
    }
    const uint8_t *b_bin = clcpk_entry_bytes(enc->w, b, &s->b);
    if (!b_bin) {
        *st = CLCPACK_E_IO;
        return NULL;
    }
    memcpy(s->delta, e_bin, e->size);
    clcpk_xor_delta(s->delta, e->size, b_bin, b->size);
    return s->delta;
}

/* zstd's half of run_task: t's frame (or its size when ranking) of the
 * entry bytes bin, with its dictionary or its base entry as prefix. */
static void run_zstd_task(const encoder *enc, task *t, scratch *s, const w_entry *e,
                          const uint8_t *bin)
{
    int rank = t->kind == TASK_RANK;
    const clcpk_zcdict *dict = NULL;
    const uint8_t *prefix = NULL;
    size_t prefix_n = 0;
    if (t->dict != CLCPACK_NONE) {
        dict = rank ? enc->dicts[t->dict].rank : enc->dicts[t->dict].final;
    } else if (t->base != SIZE_MAX) {
        const w_entry *b = &enc->w->entries[enc->ent_order[t->base]];
        if (!(prefix = clcpk_entry_bytes(enc->w, b, &s->b))) {
            t->st = CLCPACK_E_IO;
            return;
        }
        prefix_n = b->size;
    }
    t->st = clcpk_zstd_compress(&s->cctx, bin, e->size, rank ? ZSTD_RANK_LEVEL : ZSTD_LEVEL, dict,
                                prefix, prefix_n, &t->data, &t->n);
    if (rank) {
        t->rank = t->st == CLCPACK_OK ? t->n : SIZE_MAX;
        free(t->data);
        t->data = NULL;
    }
}

static void run_task(const encoder *enc, task *t, scratch *s)
{
    t->st = CLCPACK_OK;
    if (t->kind == TASK_HASH) {
        const w_entry *e = &enc->w->entries[enc->ent_order[t->pos]];
        const uint8_t *b = clcpk_entry_bytes(enc->w, e, &s->e);
        if (b)
            clcpk_digest_sha256(b, e->size, enc->ent_hash[t->pos]);
        else
            t->st = CLCPACK_E_IO;
        return;
    }
    if (t->kind == TASK_SOURCE) {
        const w_source *src = &enc->w->sources[enc->src_order[t->pos]];
        if (enc->zstd)
            t->st = clcpk_zstd_compress(&s->cctx, src->text, src->size, ZSTD_LEVEL,
                                        t->dict != CLCPACK_NONE ? enc->dicts[t->dict].final : NULL,
                                        NULL, 0, &t->data, &t->n);
        else
            t->st = clcpk_deflate(src->text, src->size, &t->data, &t->n);
        return;
    }
    const w_entry *e = &enc->w->entries[enc->ent_order[t->pos]];
    const uint8_t *bin = t->bin;
    if (t->kind == TASK_ENTRY && !(bin = clcpk_entry_bytes(enc->w, e, &s->e))) {
        t->st = CLCPACK_E_IO;
        return;
    }
    if (enc->zstd) {
        run_zstd_task(enc, t, s, e, bin);
        return;
    }
    if (t->base != SIZE_MAX && !(bin = delta_of(enc, s, e, bin, t->base, &t->st)))
        return;
    if (t->kind == TASK_RANK)
        t->rank = ranked_size(bin, e->size, &t->st);
    else
        t->st = clcpk_deflate(bin, e->size, &t->data, &t->n);
}

static void free_scratch(scratch *s)
{
    free(s->e);
    free(s->b);
    free(s->delta);
    clcpk_zstd_cctx_free(s->cctx);
}

/* The pool's view of run_task and free_scratch. */
static void run_pooled(void *ctx, tp_task *t, void *state)
{
    run_task(ctx, (task *)t, state);
}

static void free_pooled(void *state)
{
    free_scratch(state);
}

/* Queues t for the encoding threads; without them, runs it now. Ranking
 * tasks go first (task_pool.h). */
static void submit(encoder *enc, task *t)
{
    t->data = NULL;
    t->n = 0;
    if (!enc->pool) {
        run_task(enc, t, &enc->scr);
        t->tp.done = 1;
        return;
    }
    t->tp.urgent = t->kind == TASK_RANK;
    tp_submit(enc->pool, &t->tp);
}

static void await_task(encoder *enc, task *t)
{
    if (enc->pool)
        tp_await(enc->pool, &t->tp);
}

static int task_done(encoder *enc, task *t)
{
    return enc->pool ? tp_is_done(enc->pool, &t->tp) : t->tp.done;
}

static task *slot(const encoder *enc, size_t pos) { return &enc->slots[pos % enc->n_slots]; }

/* Whether entry e is stored whatever it compresses to: the cubin for its
 * device's own architecture in a zlib pack (inflating it took longer than
 * the driver's load) or with CLCPACK_WRITE_STORE_CUBINS, unless
 * CLCPACK_WRITE_COMPRESS_CUBINS. With zstd it is compressed by default: on
 * an H200 decoding it costs 0.11 ms at a cold start (the loader's own work
 * 1.08 times the driver's load, 1.03 stored), and stored it makes the
 * design-card pack 9.0 MB instead of 4.75 (docs/vendors/NVIDIA.md). */
static int stays_stored(const encoder *enc, const w_entry *e)
{
    const clcpack_writer *w = enc->w;
    const clcpack_device_info *dev = &w->devices[e->device];
    int store = (w->flags & CLCPACK_WRITE_STORE_CUBINS) ||
                (!enc->zstd && !(w->flags & CLCPACK_WRITE_COMPRESS_CUBINS));
    return store && e->kind == CLCPACK_KIND_CUBIN &&
           e->arch == dev->nv_cc_major * 10 + dev->nv_cc_minor;
}

/* Trains a dictionary from n samples (the i-th of `size(ctx, i)` bytes at
 * `bytes(ctx, i, scratch)`, SHA-256 `hash(ctx, i)` with a store) and adds
 * it to enc->dicts; *out gets its number, or CLCPACK_NONE when the class is
 * too small for one (DICT_*) or zstd's trainer gives none. Samples over
 * DICT_SAMPLE_CAP in all are thinned out evenly. With a store the
 * dictionary of the same samples is taken from it (training took about as
 * long as the rest of a warm write). */
typedef size_t (*sample_size)(const encoder *enc, size_t i);
typedef const uint8_t *(*sample_bytes)(const encoder *enc, size_t i, uint8_t **buf);
typedef const uint8_t *(*sample_hash)(const encoder *enc, size_t i);

typedef struct sample_set {
    size_t n, stride, n_samples, taken, cap;
    sample_size size;
    sample_bytes bytes;
} sample_set;

/* zstd's trainer over the samples of ss into a malloc'd *dict (*got 0: none). */
static clcpack_status train_samples(encoder *enc, const sample_set *ss, uint8_t **dict, size_t *got)
{
    uint8_t *samples = malloc(ss->taken ? ss->taken : 1), *spare = NULL;
    size_t *sizes = malloc(ss->n_samples * sizeof *sizes);
    *dict = malloc(ss->cap);
    *got = 0;
    clcpack_status st = samples && sizes && *dict ? CLCPACK_OK : CLCPACK_E_NOMEM;
    size_t at = 0, k = 0;
    for (size_t i = 0; st == CLCPACK_OK && i < ss->n; i += ss->stride) {
        const uint8_t *b = ss->bytes(enc, i, &spare);
        if (!b) {
            st = CLCPACK_E_IO;
            break;
        }
        sizes[k] = ss->size(enc, i);
        memcpy(samples + at, b, sizes[k]);
        at += sizes[k++];
    }
    if (st == CLCPACK_OK && ss->n_samples >= DICT_MIN_SAMPLES)
        *got = clcpk_zdict_train(*dict, ss->cap, samples, sizes, (unsigned)ss->n_samples, enc->w->threads);
    free(samples);
    free(sizes);
    free(spare);
    return st;
}

static clcpack_status train_dict(encoder *enc, size_t n, sample_size size, sample_bytes bytes,
                                 sample_hash hash, uint32_t *out)
{
    *out = CLCPACK_NONE;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += size(enc, i);
    if (n < DICT_MIN_SAMPLES || total / DICT_SHARE < DICT_MIN)
        return CLCPACK_OK;
    sample_set ss = {n, (size_t)((total + DICT_SAMPLE_CAP - 1) / DICT_SAMPLE_CAP), 0, 0,
                     total / DICT_SHARE > DICT_MAX ? DICT_MAX : (size_t)(total / DICT_SHARE),
                     size, bytes};
    for (size_t i = 0; i < n; i += ss.stride) {
        ss.taken += size(enc, i);
        ss.n_samples++;
    }
    uint8_t key[CLCPACK_BLOB_KEY_SIZE] = {0}, *dict = NULL;
    char what[48];
    snprintf(what, sizeof what, "dictionary %zu", enc->n_dicts);
    size_t got = 0;
    if (enc->cache) {
        clcpk_sha256 ks;
        clcpk_blob_key_dict_begin(&ks, ss.cap, ss.n_samples);
        for (size_t i = 0; i < n; i += ss.stride)
            clcpk_blob_key_dict_sample(&ks, hash(enc, i), size(enc, i));
        clcpk_blob_key_dict_end(&ks, key);
        clcpk_blob_fetch_dict(enc->w, key, what, ss.cap, &dict, &got);
    }
    clcpack_status st = CLCPACK_OK;
    if (!dict && (st = train_samples(enc, &ss, &dict, &got)) == CLCPACK_OK && got && enc->cache)
        clcpk_blob_store(enc->w, key, what, dict, got);
    if (st != CLCPACK_OK || got == 0) {
        free(dict);
        return st;
    }
    wdict *grown = realloc(enc->dicts, (enc->n_dicts + 1) * sizeof *grown);
    if (!grown) {
        free(dict);
        return CLCPACK_E_NOMEM;
    }
    enc->dicts = grown;
    wdict *d = &enc->dicts[enc->n_dicts];
    *d = (wdict){dict, got, clcpk_zcdict_new(dict, got, ZSTD_RANK_LEVEL),
                 clcpk_zcdict_new(dict, got, ZSTD_LEVEL), CLCPACK_NONE, 0, {0}, NULL};
    enc->n_dicts++;
    if (!d->rank || !d->final)
        return CLCPACK_E_NOMEM;
    if (enc->cache) {
        char why[160];
        clcpk_digest_sha256(dict, got, d->hash);
        if (clcpk_zdict_load(dict, got, NULL, &d->check, why, sizeof why) != CLCPACK_OK)
            return CLCPACK_E_NOMEM;
    }
    *out = (uint32_t)(enc->n_dicts - 1);
    return CLCPACK_OK;
}

static size_t source_size(const encoder *enc, size_t i)
{
    return enc->w->sources[enc->src_order[i]].size;
}

static const uint8_t *source_bytes(const encoder *enc, size_t i, uint8_t **buf)
{
    (void)buf;
    return enc->w->sources[enc->src_order[i]].text;
}

static size_t member_size(const encoder *enc, size_t i)
{
    return enc->w->entries[enc->ent_order[enc->members[i]]].size;
}

static const uint8_t *member_bytes(const encoder *enc, size_t i, uint8_t **buf)
{
    return clcpk_entry_bytes(enc->w, &enc->w->entries[enc->ent_order[enc->members[i]]], buf);
}

static const uint8_t *source_hash(const encoder *enc, size_t i) { return enc->src_hash[i]; }

static const uint8_t *member_hash(const encoder *enc, size_t i)
{
    return enc->ent_hash[enc->members[i]];
}

/* zstd: a dictionary for the sources, and one per class of entries (the
 * same device and kind: binaries one compiler made for one device), in the
 * order the classes first appear; entries stored whatever they compress to
 * take no part. enc->ent_dict and enc->src_dict say which blob may use
 * which. */
static clcpack_status train_dicts(encoder *enc)
{
    const clcpack_writer *w = enc->w;
    clcpack_status st = train_dict(enc, w->n_sources, source_size, source_bytes, source_hash,
                                    &enc->src_dict);
    size_t *members = malloc((w->n_entries ? w->n_entries : 1) * sizeof *members);
    if (!members)
        return CLCPACK_E_NOMEM;
    for (size_t i = 0; i < w->n_entries; i++)
        enc->ent_dict[i] = CLCPACK_NONE;
    unsigned char *done = calloc(w->n_entries ? w->n_entries : 1, 1);
    if (!done)
        st = CLCPACK_E_NOMEM;
    for (size_t i = 0; st == CLCPACK_OK && i < w->n_entries; i++) {
        const w_entry *e = &w->entries[enc->ent_order[i]];
        if (done[i] || stays_stored(enc, e))
            continue;
        size_t n = 0;
        for (size_t j = i; j < w->n_entries; j++) {
            const w_entry *o = &w->entries[enc->ent_order[j]];
            if (!done[j] && o->device == e->device && o->kind == e->kind && !stays_stored(enc, o)) {
                members[n++] = j;
                done[j] = 1;
            }
        }
        uint32_t d;
        enc->members = members;
        st = train_dict(enc, n, member_size, member_bytes, member_hash, &d);
        enc->members = NULL;
        for (size_t k = 0; k < n; k++)
            enc->ent_dict[members[k]] = d;
    }
    free(done);
    free(members);
    return st;
}

/* The store's name for what job t makes (codec and ref as choose_entry_blob
 * and serialize pick them), and t's label in messages. */
static void job_key(const encoder *enc, task *t, char *what, size_t cap)
{
    const uint8_t *ref = NULL;
    uint64_t ref_n = 0;
    uint32_t codec = t->dict != CLCPACK_NONE ? PK_CODEC_ZSTD_DICT : PK_CODEC_ZSTD;
    if (t->dict != CLCPACK_NONE) {
        ref = enc->dicts[t->dict].hash;
        ref_n = enc->dicts[t->dict].n;
    } else if (t->base != SIZE_MAX) {
        codec = PK_CODEC_ZSTD_PREFIX;
        ref = enc->ent_hash[t->base];
        ref_n = enc->w->entries[enc->ent_order[t->base]].size;
    }
    if (t->kind == TASK_SOURCE) {
        const w_source *src = &enc->w->sources[enc->src_order[t->pos]];
        clcpk_blob_key_frame(t->key, codec, ZSTD_LEVEL, enc->src_hash[t->pos], src->size, ref, ref_n);
        snprintf(what, cap, "source %s", src->name);
        return;
    }
    const w_entry *e = &enc->w->entries[enc->ent_order[t->pos]];
    clcpk_blob_key_frame(t->key, codec, ZSTD_LEVEL, enc->ent_hash[t->pos], e->size, ref, ref_n);
    snprintf(what, cap, "entry %zu (%s)", t->pos, e->kernel);
}

/* Takes t's frame of the raw bytes at raw from the store instead of
 * queueing t: 1 (t done), or 0 with t->key set for storing it later. */
static int fetch_job(encoder *enc, task *t, const uint8_t *raw, size_t raw_n)
{
    char what[160];
    job_key(enc, t, what, sizeof what);
    const clcpk_zdict *dict = t->dict != CLCPACK_NONE ? enc->dicts[t->dict].check : NULL;
    const uint8_t *prefix = NULL;
    size_t prefix_n = 0;
    if (t->base != SIZE_MAX) {
        const w_entry *b = &enc->w->entries[enc->ent_order[t->base]];
        if (!(prefix = clcpk_entry_bytes(enc->w, b, &enc->scr.b)))
            return 0;
        prefix_n = b->size;
    }
    if (!clcpk_blob_fetch_frame(enc->w, t->key, what, raw, raw_n, dict, prefix, prefix_n, &t->data,
                                &t->n))
        return 0;
    t->hit = 1;
    t->st = CLCPACK_OK;
    t->tp.done = 1;
    return 1;
}

/* Gives a level-19 frame the encoder made to the store. */
static void store_job(encoder *enc, task *t)
{
    if (!enc->cache || t->hit || !t->data)
        return;
    char what[160];
    job_key(enc, t, what, sizeof what);
    clcpk_blob_store(enc->w, t->key, what, t->data, t->n);
}

/* Picks the entry's codec and base: plain zlib, or the XOR delta against one
 * of its candidates (list_candidates), and submits its level-9 compression.
 * Candidates are ranked at a fast zlib level (level 9 for all of them cost
 * most of a pack's write time), each in a task of its own; the winner is
 * the smallest, ties going to plain zlib, then to the nearer base. With
 * zstd the same with plain zstd, zstd with the class's dictionary, and
 * zstd with each candidate as prefix, ranked at ZSTD_RANK_LEVEL and the
 * winner made at ZSTD_LEVEL (candidate_cost weighing deep chains); ties go
 * to plain, then the dictionary, then the nearer base. */
/* What a ranked candidate costs, in hundredths of a byte: its size at the
 * ranking level, and with zstd ZSTD_CHAIN_PENALTY percent more per link of
 * its base's chain plus ZSTD_DECODE_WEIGHT thousandths of a byte per byte
 * that chain decodes. */
static uint64_t candidate_cost(const encoder *enc, const task *t)
{
    if (t->rank == SIZE_MAX)
        return UINT64_MAX;
    if (!enc->zstd || t->base == SIZE_MAX)
        return (uint64_t)t->rank * 100;
    const blob *b = &enc->ent_blobs[t->base];
    return (uint64_t)t->rank * (100 + ZSTD_CHAIN_PENALTY * b->chain) +
           b->chain_bytes * ZSTD_DECODE_WEIGHT / 10;
}

static clcpack_status choose_entry_blob(encoder *enc, size_t pos)
{
    const w_entry *e = &enc->w->entries[enc->ent_order[pos]];
    task *job = slot(enc, pos);
    *job = (task){.tp.done = 1, .kind = TASK_NONE, .pos = pos};
    if (stays_stored(enc, e)) {
        /* Stored, a cubin is checked in place and handed to the driver
         * (stays_stored says when). Only the cubin for the build device's
         * own architecture: those for other architectures (clc-pack
         * --nv-arch) are compressed like any binary, since they serve
         * devices the pack was not built on. */
        enc->ent_blobs[pos] = (blob){NULL, e->size, PK_CODEC_STORED, CLCPACK_NONE, 1, e->size, 0};
        return CLCPACK_OK;
    }
    const uint8_t *e_bin = clcpk_entry_bytes(enc->w, e, &enc->own);
    if (!e_bin)
        return CLCPACK_E_IO;
    size_t cand[DELTA_CANDIDATES + DELTA_SIBLINGS];
    size_t nc = list_candidates(enc, pos, cand);
    uint32_t dict = enc->zstd ? enc->ent_dict[pos] : CLCPACK_NONE;
    task *r = enc->ranks;
    size_t nr = 0;
    r[nr++] = (task){.kind = TASK_RANK, .pos = pos, .base = SIZE_MAX, .dict = CLCPACK_NONE,
                     .bin = e_bin};
    if (dict != CLCPACK_NONE)
        r[nr++] = (task){.kind = TASK_RANK, .pos = pos, .base = SIZE_MAX, .dict = dict,
                         .bin = e_bin};
    for (size_t k = 0; k < nc; k++)
        r[nr++] = (task){.kind = TASK_RANK, .pos = pos, .base = cand[k], .dict = CLCPACK_NONE,
                         .bin = e_bin};
    for (size_t k = 0; k < nr; k++)
        submit(enc, &r[k]);
    clcpack_status st = CLCPACK_OK;
    size_t best = 0;
    for (size_t k = 0; k < nr; k++) {
        await_task(enc, &r[k]);
        if (st == CLCPACK_OK)
            st = r[k].st;
        /* Strictly smaller: ties keep plain, then the dictionary, then the
         * nearer base. */
        if (candidate_cost(enc, &r[k]) < candidate_cost(enc, &r[best]))
            best = k;
    }
    if (st != CLCPACK_OK)
        return st;

    blob bl = {NULL, 0, enc->zstd ? PK_CODEC_ZSTD : PK_CODEC_ZLIB, CLCPACK_NONE, 1, e->size, 0};
    size_t base = r[best].base;
    if (r[best].dict != CLCPACK_NONE) {
        bl.codec = PK_CODEC_ZSTD_DICT;
        bl.base = r[best].dict;
    } else if (base != SIZE_MAX) {
        bl.codec = enc->zstd ? PK_CODEC_ZSTD_PREFIX : PK_CODEC_XOR_ZLIB;
        bl.base = (uint32_t)base;
        bl.chain = enc->ent_blobs[base].chain + 1;
        bl.chain_bytes = enc->ent_blobs[base].chain_bytes + e->size;
    }
    enc->ent_blobs[pos] = bl;
    *job = (task){.kind = TASK_ENTRY, .pos = pos, .base = base, .dict = r[best].dict};
    if (!enc->cache || !fetch_job(enc, job, e_bin, e->size))
        submit(enc, job);
    return CLCPACK_OK;
}

/* Orders sorted entry positions by group, keeping position order within
 * a group (the sort is stable). */
static int cmp_group(const encoder *enc, size_t pa, size_t pb)
{
    const w_entry *a = &enc->w->entries[enc->ent_order[pa]],
                  *b = &enc->w->entries[enc->ent_order[pb]];
    int c = strcmp(a->kernel, b->kernel);
    if (c)
        return c;
    for (int k = 0; k < 3; k++)
        if ((c = cmp_u32(a->wg[k], b->wg[k])))
            return c;
    if ((c = cmp_u32(a->device, b->device)) || (c = cmp_u32((uint32_t)a->kind, (uint32_t)b->kind)))
        return c;
    return cmp_u32(a->arch, b->arch);
}

/* Links every sorted entry to the previous member of its group, so that
 * choosing delta bases does not scan the entries between them. */
static clcpack_status link_groups(encoder *enc)
{
    size_t n = enc->w->n_entries;
    size_t *by_group = malloc((n ? n : 1) * sizeof *by_group);
    size_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!by_group || !tmp) {
        free(by_group);
        free(tmp);
        return CLCPACK_E_NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        by_group[i] = i;
    sort_indices(by_group, tmp, n, cmp_group, enc);
    for (size_t k = 0; k < n; k++)
        enc->group_prev[by_group[k]] =
            k > 0 && cmp_group(enc, by_group[k - 1], by_group[k]) == 0 ? by_group[k - 1] : SIZE_MAX;
    free(by_group);
    free(tmp);
    return CLCPACK_OK;
}

/* Sorts devices and entries, then numbers sources by first use. */
static clcpack_status order_all(encoder *enc)
{
    const clcpack_writer *w = enc->w;
    size_t most = w->n_devices;
    if (w->n_entries > most)
        most = w->n_entries;
    if (w->n_sources > most)
        most = w->n_sources;
    size_t *tmp = malloc((most ? most : 1) * sizeof *tmp);
    if (!tmp)
        return CLCPACK_E_NOMEM;
    for (size_t i = 0; i < w->n_devices; i++)
        enc->dev_order[i] = i;
    sort_indices(enc->dev_order, tmp, w->n_devices, cmp_device, enc);
    for (size_t i = 0; i < w->n_devices; i++)
        enc->dev_rank[enc->dev_order[i]] = (uint32_t)i;
    for (size_t i = 0; i < w->n_entries; i++)
        enc->ent_order[i] = i;
    sort_indices(enc->ent_order, tmp, w->n_entries, cmp_entry, enc);

    size_t next = 0;
    for (size_t i = 0; i < w->n_sources; i++)
        enc->src_rank[i] = CLCPACK_NONE;
    for (size_t i = 0; i < w->n_entries; i++) {
        uint32_t s = w->entries[enc->ent_order[i]].source;
        if (s != CLCPACK_NONE && enc->src_rank[s] == CLCPACK_NONE) {
            enc->src_rank[s] = (uint32_t)next;
            enc->src_order[next++] = s;
        }
    }
    size_t first_unused = next;
    for (size_t i = 0; i < w->n_sources; i++)
        if (enc->src_rank[i] == CLCPACK_NONE)
            enc->src_order[next++] = i;
    sort_indices(enc->src_order + first_unused, tmp, next - first_unused, cmp_source, enc);
    for (size_t i = first_unused; i < next; i++)
        enc->src_rank[enc->src_order[i]] = (uint32_t)i;
    free(tmp);
    return CLCPACK_OK;
}

static void put_device(out_buf *b, const clcpack_device_info *d)
{
    size_t start = clcpk_rec_begin(b);
    const size_t max = CLCPACK_FP_STR - 1;
    clcpk_buf_str(b, d->platform_name, max);
    clcpk_buf_str(b, d->platform_version, max);
    clcpk_buf_str(b, d->device_name, max);
    clcpk_buf_str(b, d->device_version, max);
    clcpk_buf_str(b, d->driver_version, max);
    clcpk_buf_str(b, d->opencl_c_version, max);
    clcpk_buf_u64(b, d->device_type);
    clcpk_buf_u32(b, d->vendor_id);
    clcpk_buf_u32(b, d->address_bits);
    clcpk_buf_u32(b, d->has_uuid);
    clcpk_buf_bytes(b, d->device_uuid, 16);
    clcpk_buf_bytes(b, d->driver_uuid, 16);
    clcpk_buf_u32(b, d->nv_cc_major);
    clcpk_buf_u32(b, d->nv_cc_minor);
    /* Format 4's fields only where they say something: other packs keep
     * the bytes of earlier versions. */
    if (d->intel_ip_version || d->intel_device_id) {
        clcpk_buf_u32(b, d->intel_ip_version);
        clcpk_buf_u32(b, d->intel_device_id);
    }
    clcpk_rec_end(b, start);
}

/* The number a dictionary has in the pack (unused ones are not written). */
static uint32_t dict_number(const encoder *enc, uint32_t d)
{
    return d == CLCPACK_NONE ? CLCPACK_NONE : enc->dicts[d].out;
}

/* v4: the pack is of format 4, and its source records end in `dict`. */
static void put_source(out_buf *b, const encoder *enc, const w_source *s, const blob *bl, int v4)
{
    size_t start = clcpk_rec_begin(b);
    clcpk_buf_str(b, s->name, SIZE_MAX);
    clcpk_buf_u32(b, bl->codec);
    clcpk_buf_u64(b, bl->offset);
    clcpk_buf_u64(b, bl->n);
    clcpk_buf_u64(b, s->size);
    clcpk_buf_u32(b, s->crc);
    if (v4)
        clcpk_buf_u32(b, bl->codec == PK_CODEC_ZSTD_DICT ? dict_number(enc, bl->base) : CLCPACK_NONE);
    clcpk_rec_end(b, start);
}

static void put_dict(out_buf *b, const wdict *d)
{
    size_t start = clcpk_rec_begin(b);
    clcpk_buf_u32(b, PK_CODEC_STORED);
    clcpk_buf_u64(b, d->offset);
    clcpk_buf_u64(b, d->n);
    clcpk_buf_u64(b, d->n);
    clcpk_buf_u32(b, clcpk_crc32(d->bytes, d->n));
    clcpk_rec_end(b, start);
}

static void put_entry(out_buf *b, const encoder *enc, const w_entry *e, const blob *bl)
{
    size_t start = clcpk_rec_begin(b);
    clcpk_buf_u32(b, enc->dev_rank[e->device]);
    clcpk_buf_u32(b, e->source == CLCPACK_NONE ? CLCPACK_NONE : enc->src_rank[e->source]);
    clcpk_buf_str(b, e->kernel, SIZE_MAX);
    clcpk_buf_str(b, e->family, SIZE_MAX);
    clcpk_buf_str(b, e->options, SIZE_MAX);
    clcpk_buf_u32(b, (uint32_t)e->n_defines);
    for (size_t k = 0; k < e->n_defines; k++) {
        clcpk_buf_str(b, e->defines[k].name, SIZE_MAX);
        clcpk_buf_str(b, e->defines[k].value, SIZE_MAX);
    }
    for (int k = 0; k < 3; k++)
        clcpk_buf_u32(b, e->wg[k]);
    clcpk_buf_u32(b, (uint32_t)e->kind);
    clcpk_buf_u32(b, e->arch);
    clcpk_buf_u32(b, bl->codec);
    clcpk_buf_u32(b, bl->codec == PK_CODEC_ZSTD_DICT ? dict_number(enc, bl->base) : bl->base);
    clcpk_buf_u64(b, bl->offset);
    clcpk_buf_u64(b, bl->n);
    clcpk_buf_u64(b, e->size);
    clcpk_buf_u32(b, e->crc);
    clcpk_buf_u32(b, e->tune_runs);
    clcpk_buf_u32(b, e->tune_width);
    clcpk_buf_u32(b, e->tune_height);
    clcpk_buf_u64(b, e->tune_median_ns);
    /* Format 2 appends the tuning list and format 3 the kernel names and
     * flags after it; without them the record is exactly the version-1
     * record, and a format-3 record has a tuning list, empty or not. */
    int v4 = e->target[0] != '\0';
    int v3 = e->n_knames > 0 || e->flags != 0 || v4;
    if (e->n_tunings || v3) {
        clcpk_buf_u32(b, (uint32_t)e->n_tunings);
        for (size_t k = 0; k < e->n_tunings; k++) {
            const clcpack_tuning *t = &e->tunings[k];
            clcpk_buf_u32(b, t->runtime_value);
            clcpk_buf_u32(b, t->runs);
            clcpk_buf_u32(b, t->width);
            clcpk_buf_u32(b, t->height);
            clcpk_buf_u64(b, t->median_ns);
        }
    }
    if (v3) {
        clcpk_buf_u32(b, (uint32_t)e->n_knames);
        for (size_t k = 0; k < e->n_knames; k++)
            clcpk_buf_str(b, e->knames[k], SIZE_MAX);
        clcpk_buf_u32(b, e->flags);
    }
    if (v4)
        clcpk_buf_str(b, e->target, SIZE_MAX);
    clcpk_rec_end(b, start);
}

/* Takes the level-9 stream of entry h, all entries before it done. A
 * stream not smaller than the raw bytes gives way to them: stored, no base,
 * chain 1 (the chain bytes are kept). The entries chosen since h (up to
 * *next) were chosen while h's stream was being made, reading h's chain as
 * if it kept its base; when it loses it, they are chosen again
 * (*next = h + 1), so every choice is the one made one entry at a time and
 * the bytes do not depend on the number of threads. */
static clcpack_status finish_entry(encoder *enc, size_t h, size_t *next)
{
    task *job = slot(enc, h);
    await_task(enc, job);
    if (job->st != CLCPACK_OK)
        return job->st;
    if (job->kind != TASK_ENTRY)
        return CLCPACK_OK;
    store_job(enc, job);
    blob *bl = &enc->ent_blobs[h];
    bl->data = job->data;
    bl->n = job->n;
    job->data = NULL;
    size_t size = enc->w->entries[enc->ent_order[h]].size;
    if (bl->n < size)
        return CLCPACK_OK;
    int had_base = bl->codec == PK_CODEC_XOR_ZLIB || bl->codec == PK_CODEC_ZSTD_PREFIX;
    free(bl->data);
    bl->data = NULL;
    bl->n = size;
    bl->codec = PK_CODEC_STORED;
    bl->base = CLCPACK_NONE;
    bl->chain = 1;
    if (had_base) {
        for (size_t q = h + 1; q < *next; q++) {
            task *t = slot(enc, q);
            await_task(enc, t);
            free(t->data);
            t->data = NULL;
        }
        *next = h + 1;
    }
    return CLCPACK_OK;
}

/* Puts entry i's blob in the sink. */
static clcpack_status put_entry_blob(encoder *enc, sink *k, size_t i)
{
    blob *bl = &enc->ent_blobs[i];
    /* Stored entries go to the driver straight from the pack's memory:
     * align them as malloc would (docs/FORMAT.md, "Ordering"). */
    if (bl->codec == PK_CODEC_STORED && k->n % PK_STORED_ALIGN)
        clcpk_sink_zeros(k, PK_STORED_ALIGN - k->n % PK_STORED_ALIGN);
    bl->offset = k->n;
    const uint8_t *bytes =
        bl->data ? bl->data : clcpk_entry_bytes(enc->w, &enc->w->entries[enc->ent_order[i]], &enc->own);
    if (!bytes)
        return CLCPACK_E_IO;
    clcpk_sink_put(k, bytes, bl->n);
    free(bl->data);
    bl->data = NULL;
    return k->st;
}

/* Takes source i's level-9 stream (stored when that is not smaller) and
 * puts it in the sink. */
static clcpack_status put_source_blob(encoder *enc, sink *k, size_t i)
{
    const w_source *s = &enc->w->sources[enc->src_order[i]];
    task *job = slot(enc, i);
    await_task(enc, job);
    if (job->st != CLCPACK_OK)
        return job->st;
    store_job(enc, job);
    blob b = {job->data, job->n, PK_CODEC_ZLIB, CLCPACK_NONE, 1, 0, k->n};
    if (enc->zstd) {
        b.codec = enc->src_dict != CLCPACK_NONE ? PK_CODEC_ZSTD_DICT : PK_CODEC_ZSTD;
        b.base = enc->src_dict;
    }
    job->data = NULL;
    if (b.n >= s->size) {
        free(b.data);
        b.data = NULL;
        b.n = s->size;
        b.codec = PK_CODEC_STORED;
        b.base = CLCPACK_NONE;
    }
    clcpk_sink_put(k, b.data ? b.data : s->text, b.n);
    free(b.data);
    b.data = NULL;
    enc->src_blobs[i] = b;
    return k->st;
}

/* Puts the dictionaries some blob uses in the sink, after the entries, and
 * numbers them in training order; returns how many. */
static size_t put_dict_blobs(encoder *enc, sink *k)
{
    for (size_t d = 0; d < enc->n_dicts; d++)
        enc->dicts[d].out = CLCPACK_NONE;
    for (size_t i = 0; i < enc->w->n_sources; i++)
        if (enc->src_blobs[i].codec == PK_CODEC_ZSTD_DICT)
            enc->dicts[enc->src_blobs[i].base].out = 0;
    for (size_t i = 0; i < enc->w->n_entries; i++)
        if (enc->ent_blobs[i].codec == PK_CODEC_ZSTD_DICT)
            enc->dicts[enc->ent_blobs[i].base].out = 0;
    size_t n = 0;
    for (size_t d = 0; d < enc->n_dicts; d++) {
        if (enc->dicts[d].out == CLCPACK_NONE)
            continue;
        enc->dicts[d].out = (uint32_t)n++;
        enc->dicts[d].offset = k->n;
        clcpk_sink_put(k, enc->dicts[d].bytes, enc->dicts[d].n);
    }
    return n;
}

/* The index's records in ib: counts, devices, sources, entries, then the
 * dictionaries; lay and rec_at (entries, then sources) say where. */
static void put_records(const encoder *enc, out_buf *ib, pk_lookup_layout *lay, uint32_t *rec_at,
                        int v4, size_t n_dicts)
{
    const clcpack_writer *w = enc->w;
    size_t start = clcpk_rec_begin(ib);
    clcpk_buf_u32(ib, (uint32_t)w->n_devices);
    clcpk_buf_u32(ib, (uint32_t)w->n_sources);
    clcpk_buf_u32(ib, (uint32_t)w->n_entries);
    if (v4)
        clcpk_buf_u32(ib, (uint32_t)n_dicts);
    clcpk_rec_end(ib, start);
    for (size_t i = 0; i < w->n_devices; i++)
        put_device(ib, &w->devices[enc->dev_order[i]]);
    lay->head_size = ib->n;
    for (size_t i = 0; i < w->n_sources; i++) {
        rec_at[w->n_entries + i] = (uint32_t)ib->n;
        put_source(ib, enc, &w->sources[enc->src_order[i]], &enc->src_blobs[i], v4);
    }
    for (size_t i = 0; i < w->n_entries; i++) {
        rec_at[i] = (uint32_t)ib->n;
        put_entry(ib, enc, &w->entries[enc->ent_order[i]], &enc->ent_blobs[i]);
    }
    lay->dict_at = ib->n;
    for (size_t d = 0; d < enc->n_dicts; d++)
        if (enc->dicts[d].out != CLCPACK_NONE)
            put_dict(ib, &enc->dicts[d]);
    lay->dict_size = ib->n - lay->dict_at;
}

/* The header of an index ib written at index_offset: versions, sizes,
 * flags, the writer's version and the checksums (h's bytes 64 to 127, the
 * lookup fields, are already there in a zstd pack). */
static void fill_header(const encoder *enc, uint8_t *h, size_t header_size, uint64_t index_offset,
                        const out_buf *ib, int v4)
{
    const clcpack_writer *w = enc->w;
    memcpy(h + PK_OFF_MAGIC, PK_MAGIC, PK_MAGIC_SIZE);
    /* Version 2 only where its one addition (the tuning list) is used, so
     * packs without it stay byte-identical to version 1. */
    int has_list = 0, has_v3 = 0, has_v4 = 0, has_kind4 = 0;
    for (size_t i = 0; i < w->n_entries; i++) {
        has_list |= w->entries[i].n_tunings > 0;
        has_v3 |= w->entries[i].n_knames > 0 || w->entries[i].flags != 0;
        has_kind4 |= w->entries[i].kind > CLCPACK_KIND_CUBIN;
    }
    for (size_t i = 0; i < w->n_devices; i++)
        has_v4 |= w->devices[i].intel_ip_version != 0 || w->devices[i].intel_device_id != 0;
    has_v4 |= has_kind4 || v4;
    put_le16(h + PK_OFF_FORMAT_VERSION, enc->zstd   ? PK_FORMAT_VERSION_LOOKUP
                                        : has_v4   ? PK_FORMAT_VERSION_TARGETS
                                        : has_v3   ? PK_FORMAT_VERSION_PROGRAMS
                                        : has_list ? PK_FORMAT_VERSION_TUNING_LIST
                                                   : PK_FORMAT_VERSION);
    /* A version-3 reader refuses an unknown kind and cannot decode zstd:
     * such a pack needs a reader of version 4. The lookup table needs
     * none: older readers skip it. */
    put_le16(h + PK_OFF_MIN_READER, has_kind4 || v4 ? PK_FORMAT_VERSION_ZSTD : 1);
    put_le32(h + PK_OFF_HEADER_SIZE, (uint32_t)header_size);
    put_le64(h + PK_OFF_FILE_SIZE, index_offset + ib->n);
    put_le64(h + PK_OFF_INDEX_OFFSET, index_offset);
    put_le64(h + PK_OFF_INDEX_SIZE, ib->n);
    put_le32(h + PK_OFF_FLAGS, (w->flags & CLCPACK_WRITE_NO_SOURCES) ? PK_FLAG_NO_SOURCES : 0);
    /* Which library wrote it: clc-pack --update reuses entries only from a
     * pack its own version wrote. */
    put_le32(h + PK_OFF_WRITER_VERSION, CLCPACK_VERSION_NUMBER);
    if (header_size >= PK_HEADER_SIZE_LOOKUP) {
        uint32_t hc = clcpk_crc32(h, PK_OFF_CHECKSUM);
        hc = clcpk_crc32_more(hc, h + PK_OFF_RESERVED, PK_OFF_HEADER_CRC - PK_OFF_RESERVED);
        put_le32(h + PK_OFF_HEADER_CRC, hc);
    }
    uint32_t crc = clcpk_crc32(h, PK_OFF_CHECKSUM);
    crc = clcpk_crc32_more(crc, h + PK_OFF_RESERVED, header_size - PK_OFF_RESERVED);
    crc = clcpk_crc32_more(crc, ib->p, ib->n);
    put_le32(h + PK_OFF_CHECKSUM, crc);
}

/* The lookup table (format 5) after the records in ib: a name hash per
 * name each entry answers to, the table built by lookup_write.c, and the
 * header fields naming its directory in hdr (header bytes 64 to 127). */
static clcpack_status put_lookup(const encoder *enc, out_buf *ib, pk_lookup_layout *lay,
                                 const uint32_t *rec_at, uint64_t index_offset, uint8_t *hdr)
{
    const clcpack_writer *w = enc->w;
    size_t n_names = 0;
    for (size_t i = 0; i < w->n_entries; i++)
        n_names += 1 + w->entries[i].n_knames;
    /* Each (entry, name) twice: hashed with the entry's defines (the key
     * buckets) and without (the name buckets). */
    pk_name_hash *keys = malloc(2 * (n_names ? n_names : 1) * sizeof *keys);
    if (!keys)
        return CLCPACK_E_NOMEM;
    pk_name_hash *names = keys + (n_names ? n_names : 1);
    n_names = 0;
    for (size_t i = 0; i < w->n_entries; i++) {
        const w_entry *e = &w->entries[enc->ent_order[i]];
        uint64_t set = 0;
        for (size_t d = 0; d < e->n_defines; d++)
            set += clcpk_key_hash_define(e->defines[d].name, e->defines[d].value);
        for (size_t k = 0; k <= e->n_knames; k++) {
            const char *name = k ? e->knames[k - 1] : e->kernel;
            keys[n_names] = (pk_name_hash){clcpk_key_hash(name, set, e->n_defines, e->wg),
                                           (uint32_t)i};
            names[n_names++] = (pk_name_hash){clcpk_key_hash(name, 0, 0, e->wg), (uint32_t)i};
        }
    }
    lay->index = ib->p;
    lay->index_n = ib->n;
    lay->index_offset = index_offset;
    lay->entry_at = rec_at;
    lay->n_entries = w->n_entries;
    lay->source_at = rec_at + w->n_entries;
    lay->n_sources = w->n_sources;
    uint8_t *table;
    size_t table_n, dir_at;
    uint32_t dir_n, dir_crc;
    clcpack_status st =
        clcpk_lookup_build(lay, keys, names, n_names, &table, &table_n, &dir_at, &dir_n, &dir_crc);
    free(keys);
    if (st != CLCPACK_OK)
        return st;
    put_le64(hdr + PK_OFF_LOOKUP_OFFSET - PK_HEADER_SIZE, index_offset + ib->n + dir_at);
    put_le32(hdr + PK_OFF_LOOKUP_SIZE - PK_HEADER_SIZE, dir_n);
    put_le32(hdr + PK_OFF_LOOKUP_CRC - PK_HEADER_SIZE, dir_crc);
    clcpk_buf_bytes(ib, table, table_n);
    free(table);
    return CLCPACK_OK;
}

/* Chooses every blob and puts it in the sink as soon as it is made, then
 * the index and finally the header (whose checksum covers the index). */
static clcpack_status serialize(encoder *enc, sink *k)
{
    const clcpack_writer *w = enc->w;
    clcpack_status st = CLCPACK_OK;
    /* zstd packs carry the lookup table (format 5), named by a longer
     * header; zlib packs stay as older loaders know them. */
    const size_t header_size = enc->zstd ? PK_HEADER_SIZE_LOOKUP : PK_HEADER_SIZE;
    clcpk_sink_zeros(k, header_size);
    /* Up to n_slots level-9 streams are made ahead of the one written. */
    for (size_t pos = 0, head = 0; k->st == CLCPACK_OK && head < w->n_sources; head++) {
        for (; pos < w->n_sources && pos - head < enc->n_slots; pos++) {
            task *t = slot(enc, pos);
            *t = (task){.kind = TASK_SOURCE, .pos = pos, .base = SIZE_MAX, .dict = enc->src_dict};
            const w_source *src = &w->sources[enc->src_order[pos]];
            if (!enc->cache || !fetch_job(enc, t, src->text, src->size))
                submit(enc, t);
        }
        if ((st = put_source_blob(enc, k, head)) != CLCPACK_OK)
            return st;
    }
    /* Entries are chosen in order, each while the level-9 streams of those
     * before it are still being made (finish_entry says why that gives the
     * same choices); a finished one is written before the next is chosen. */
    for (size_t pos = 0, head = 0; k->st == CLCPACK_OK && head < w->n_entries; head++) {
        while (pos < w->n_entries && pos - head < enc->n_slots &&
               (pos == head || !task_done(enc, slot(enc, head))))
            if ((st = choose_entry_blob(enc, pos++)) != CLCPACK_OK)
                return st;
        if ((st = finish_entry(enc, head, &pos)) != CLCPACK_OK ||
            (st = put_entry_blob(enc, k, head)) != CLCPACK_OK)
            return st;
    }
    if (k->st != CLCPACK_OK)
        return k->st;
    /* Format 4 where a zstd blob or a dictionary is written, so that a
     * pack without one reads with any reader. */
    size_t n_dicts = put_dict_blobs(enc, k);
    int v4 = n_dicts > 0;
    for (size_t i = 0; i < w->n_sources; i++)
        v4 |= enc->src_blobs[i].codec >= PK_CODEC_ZSTD;
    for (size_t i = 0; i < w->n_entries; i++)
        v4 |= enc->ent_blobs[i].codec >= PK_CODEC_ZSTD;
    if (k->st != CLCPACK_OK)
        return k->st;

    out_buf ib = {0};
    uint64_t index_offset = k->n;
    pk_lookup_layout lay = {0};
    uint32_t *rec_at = malloc((w->n_entries + w->n_sources + 1) * sizeof *rec_at);
    if (!rec_at)
        return CLCPACK_E_NOMEM;
    put_records(enc, &ib, &lay, rec_at, v4, n_dicts);
    uint8_t h[PK_HEADER_SIZE_LOOKUP] = {0};
    if (enc->zstd && !ib.failed &&
        (st = put_lookup(enc, &ib, &lay, rec_at, index_offset, h + PK_HEADER_SIZE)) != CLCPACK_OK) {
        free(rec_at);
        free(ib.p);
        return st;
    }
    free(rec_at);
    if (ib.failed) {
        free(ib.p);
        return CLCPACK_E_NOMEM;
    }
    fill_header(enc, h, header_size, index_offset, &ib, v4);
    clcpk_sink_put(k, ib.p, ib.n);
    free(ib.p);
    if (k->st == CLCPACK_OK) {
        if (k->mem)
            memcpy(k->mem->p, h, header_size);
        else
            k->st = clcpk_atomic_write_at(k->file, h, header_size, 0, k->err);
    }
    return k->st;
}

/* With a store: every entry's and source's SHA-256 (the keys name blobs
 * by them), the entries' on the encoding threads. */
static clcpack_status hash_all(encoder *enc)
{
    const clcpack_writer *w = enc->w;
    size_t ne = w->n_entries ? w->n_entries : 1, ns = w->n_sources ? w->n_sources : 1;
    enc->ent_hash = malloc(ne * sizeof *enc->ent_hash);
    enc->src_hash = malloc(ns * sizeof *enc->src_hash);
    task *t = calloc(ne, sizeof *t);
    clcpack_status st = enc->ent_hash && enc->src_hash && t ? CLCPACK_OK : CLCPACK_E_NOMEM;
    for (size_t i = 0; st == CLCPACK_OK && i < w->n_entries; i++) {
        t[i] = (task){.kind = TASK_HASH, .pos = i};
        submit(enc, &t[i]);
    }
    for (size_t i = 0; st == CLCPACK_OK && i < w->n_sources; i++)
        clcpk_digest_sha256(w->sources[enc->src_order[i]].text, w->sources[enc->src_order[i]].size,
                            enc->src_hash[i]);
    for (size_t i = 0; t && st == CLCPACK_OK && i < w->n_entries; i++) {
        await_task(enc, &t[i]);
        st = t[i].st;
    }
    free(t);
    return st;
}

static void free_encoder(encoder *enc)
{
    tp_stop(enc->pool);
    enc->pool = NULL;
    if (enc->slots)
        for (size_t i = 0; i < enc->n_slots; i++)
            free(enc->slots[i].data);
    free(enc->slots);
    free_scratch(&enc->scr);
    free(enc->own);
    if (enc->src_blobs)
        for (size_t i = 0; i < enc->w->n_sources; i++)
            free(enc->src_blobs[i].data);
    if (enc->ent_blobs)
        for (size_t i = 0; i < enc->w->n_entries; i++)
            free(enc->ent_blobs[i].data);
    free(enc->dev_order);
    free(enc->dev_rank);
    free(enc->ent_order);
    free(enc->src_order);
    free(enc->src_rank);
    free(enc->src_blobs);
    free(enc->ent_blobs);
    free(enc->group_prev);
    free(enc->ent_dict);
    free(enc->ent_hash);
    free(enc->src_hash);
    for (size_t d = 0; d < enc->n_dicts; d++) {
        clcpk_zdict_free(enc->dicts[d].check);
        free(enc->dicts[d].bytes);
        clcpk_zcdict_free(enc->dicts[d].rank);
        clcpk_zcdict_free(enc->dicts[d].final);
    }
    free(enc->dicts);
}

/* Orders and encodes everything into the sink. On failure err is set
 * (the sink's own failures set it as they happen). */
static clcpack_status encode(const clcpack_writer *w, sink *k, clcpack_error *err)
{
    encoder enc = {0};
    enc.w = w;
    size_t nd = w->n_devices ? w->n_devices : 1, ns = w->n_sources ? w->n_sources : 1,
           ne = w->n_entries ? w->n_entries : 1;
    enc.dev_order = malloc(nd * sizeof *enc.dev_order);
    enc.dev_rank = malloc(nd * sizeof *enc.dev_rank);
    enc.ent_order = malloc(ne * sizeof *enc.ent_order);
    enc.src_order = malloc(ns * sizeof *enc.src_order);
    enc.src_rank = malloc(ns * sizeof *enc.src_rank);
    enc.src_blobs = calloc(ns, sizeof *enc.src_blobs);
    enc.ent_blobs = calloc(ne, sizeof *enc.ent_blobs);
    enc.group_prev = malloc(ne * sizeof *enc.group_prev);
    enc.ent_dict = malloc(ne * sizeof *enc.ent_dict);
    enc.src_dict = CLCPACK_NONE;
    enc.zstd = w->compression == CLCPACK_COMPRESSION_ZSTD ||
               (w->compression == CLCPACK_COMPRESSION_DEFAULT && clcpk_zstd_available());
    clcpack_status st = CLCPACK_E_NOMEM;
    if (enc.dev_order && enc.dev_rank && enc.ent_order && enc.src_order && enc.src_rank &&
        enc.src_blobs && enc.ent_blobs && enc.group_prev && enc.ent_dict)
        st = order_all(&enc);
    if (st == CLCPACK_OK)
        st = link_groups(&enc);
    /* Fewer threads than asked for (none: the calling thread does every
     * task) when memory or the system's limit says so: the bytes are the
     * same. */
    if (st == CLCPACK_OK)
        enc.pool = tp_start(w->threads, run_pooled, &enc, sizeof(scratch), free_pooled);
    enc.cache = enc.zstd && clcpk_blob_cache_on(w);
    if (st == CLCPACK_OK && enc.cache)
        st = hash_all(&enc);
    if (st == CLCPACK_OK && enc.zstd)
        st = train_dicts(&enc);
    if (st == CLCPACK_OK) {
        /* Twice as many level-9 streams in flight as threads keep them busy
         * while entries are chosen, holding a few entries' bytes each. */
        enc.n_slots = enc.pool ? 2 * tp_threads(enc.pool) : 1;
        enc.slots = calloc(enc.n_slots, sizeof *enc.slots);
        st = enc.slots ? serialize(&enc, k) : CLCPACK_E_NOMEM;
    }
    free_encoder(&enc);
    if (st != CLCPACK_OK && k->st == CLCPACK_OK)
        clcpk_fail(err, st, "encoding a pack of %zu entries: %s", w->n_entries,
                   clcpack_strerror(st));
    return st;
}

clcpack_status clcpk_encode(const clcpack_writer *w, uint8_t **data, size_t *size, clcpack_error *err)
{
    *data = NULL;
    *size = 0;
    out_buf b = {0};
    sink k = {&b, NULL, 0, CLCPACK_OK, err};
    clcpack_status st = encode(w, &k, err);
    if (st != CLCPACK_OK) {
        free(b.p);
        return st;
    }
    *data = b.p;
    *size = b.n;
    return CLCPACK_OK;
}

clcpack_status clcpk_encode_file(const clcpack_writer *w, clcpk_atomic *a, clcpack_error *err)
{
    sink k = {NULL, a, 0, CLCPACK_OK, err};
    clcpack_status st = encode(w, &k, err);
    if (st != CLCPACK_OK) {
        if (k.st == CLCPACK_OK) /* a failed write has removed the file already */
            clcpk_atomic_abort(a);
        return st;
    }
    return clcpk_atomic_commit(a, err);
}
