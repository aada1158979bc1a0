/* blob_cache.c — keys and checked lookups of the encoder's store (blob_cache.h). */
#include "blob_cache.h"

#include <stdlib.h>
#include <string.h>

#include "bytes.h"

#if defined(CLCPK_HAVE_ZSTD)
#include <zstd.h>
#define ZSTD_VERSION_NOW ZSTD_versionNumber()
#else
#define ZSTD_VERSION_NOW 0u
#endif

int clcpk_blob_cache_on(const clcpack_writer *w) { return w->cache.get != NULL; }

/* What every key starts with: which kind of result, the encoder's epoch,
 * this library's version and zstd's (another zstd may make other bytes
 * from the same input at the same level). */
static void key_head(clcpk_sha256 *s, const char *kind)
{
    uint8_t v[12];
    put_le32(v, CLCPK_BLOB_KEY_EPOCH);
    put_le32(v + 4, CLCPACK_VERSION_NUMBER);
    put_le32(v + 8, (uint32_t)ZSTD_VERSION_NOW);
    clcpk_sha256_init(s);
    clcpk_sha256_update(s, kind, strlen(kind) + 1);
    clcpk_sha256_update(s, v, sizeof v);
}

static void put_sized(clcpk_sha256 *s, const uint8_t hash[32], uint64_t n)
{
    uint8_t le[8];
    put_le64(le, n);
    clcpk_sha256_update(s, le, sizeof le);
    clcpk_sha256_update(s, hash, 32);
}

void clcpk_blob_key_frame(uint8_t key[CLCPACK_BLOB_KEY_SIZE], uint32_t codec, int level,
                          const uint8_t raw[32], uint64_t raw_n, const uint8_t *ref, uint64_t ref_n)
{
    clcpk_sha256 s;
    key_head(&s, "frame");
    uint8_t v[9];
    put_le32(v, codec);
    put_le32(v + 4, (uint32_t)level);
    v[8] = ref != NULL;
    clcpk_sha256_update(&s, v, sizeof v);
    put_sized(&s, raw, raw_n);
    if (ref)
        put_sized(&s, ref, ref_n);
    clcpk_sha256_final(&s, key);
}

void clcpk_blob_key_dict_begin(clcpk_sha256 *s, size_t cap, size_t n)
{
    key_head(s, "dictionary");
    uint8_t v[16];
    put_le64(v, cap);
    put_le64(v + 8, n);
    clcpk_sha256_update(s, v, sizeof v);
}

void clcpk_blob_key_dict_sample(clcpk_sha256 *s, const uint8_t hash[32], uint64_t size)
{
    put_sized(s, hash, size);
}

void clcpk_blob_key_dict_end(clcpk_sha256 *s, uint8_t key[CLCPACK_BLOB_KEY_SIZE])
{
    clcpk_sha256_final(s, key);
}

/* The store's bytes for key, copied into library memory: 1, or 0. */
static int fetch(const clcpack_writer *w, const uint8_t *key, const char *what, uint8_t **out,
                 size_t *n)
{
    const clcpack_blob_cache *c = &w->cache;
    const void *data = NULL;
    size_t size = 0;
    *out = NULL;
    *n = 0;
    if (!c->get(c->ctx, key, what, &data, &size))
        return 0;
    uint8_t *copy = data ? malloc(size ? size : 1) : NULL;
    if (copy)
        memcpy(copy, data, size);
    if (c->release)
        c->release(c->ctx, data);
    if (!copy)
        return 0;
    *out = copy;
    *n = size;
    return 1;
}

static void refuse(const clcpack_writer *w, const uint8_t *key, const char *what, const char *why)
{
    if (w->cache.refused)
        w->cache.refused(w->cache.ctx, key, what, why);
}

int clcpk_blob_fetch_dict(const clcpack_writer *w, const uint8_t *key, const char *what,
                          size_t cap, uint8_t **out, size_t *n)
{
    if (!fetch(w, key, what, out, n))
        return 0;
    if (*n == 0 || *n > cap) {
        refuse(w, key, what, "a dictionary of that size cannot come from these samples");
        free(*out);
        *out = NULL;
        return 0;
    }
    return 1;
}

int clcpk_blob_fetch_frame(const clcpack_writer *w, const uint8_t *key, const char *what,
                           const uint8_t *raw, size_t raw_n, const clcpk_zdict *dict,
                           const uint8_t *prefix, size_t prefix_n, uint8_t **out, size_t *n)
{
    if (!fetch(w, key, what, out, n))
        return 0;
    /* The frame's bytes are trusted only once they decode to the raw
     * bytes: whatever the store holds, the pack stays right. */
    char why[160] = "out of memory checking it";
    uint8_t *back = malloc(raw_n ? raw_n : 1);
    clcpack_status st = back ? clcpk_unzstd_exact(NULL, *out, *n, back, raw_n, dict, prefix,
                                                  prefix_n, why, sizeof why)
                             : CLCPACK_E_NOMEM;
    int same = st == CLCPACK_OK && memcmp(back, raw, raw_n) == 0;
    free(back);
    if (same)
        return 1;
    if (st == CLCPACK_OK)
        memcpy(why, "the frame decodes to other bytes", sizeof "the frame decodes to other bytes");
    refuse(w, key, what, why);
    free(*out);
    *out = NULL;
    return 0;
}

void clcpk_blob_store(const clcpack_writer *w, const uint8_t *key, const char *what,
                      const void *data, size_t n)
{
    w->cache.put(w->cache.ctx, key, what, data, n);
}
