/*
 * test_write_blob_cache.c — the writer's store of encoder results
 * (clcpack_writer_set_blob_cache): a zstd write with an empty store puts
 * every dictionary and frame in it and writes the bytes of a write without
 * one; a second write, at another thread count, takes every result from
 * the store and writes the same bytes; a frame altered in the store (cut,
 * a flipped byte, another key's) and a dictionary of an impossible size
 * are refused through `refused`, encoded again and put back, the bytes
 * unchanged; a zlib write and a store without get or put use none; a NULL
 * writer is refused. No OpenCL.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clcpack_write.h"
#include "synth_pack.h"

/* An in-memory store: keys and their bytes, and what the writer did. */
typedef struct item {
    unsigned char key[CLCPACK_BLOB_KEY_SIZE];
    unsigned char *data;
    size_t n;
    int dict; /* put with a label naming a dictionary */
} item;

typedef struct store {
    item items[1024];
    size_t n, gets, hits, puts, refused, released;
} store;

static item *find(store *s, const unsigned char *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (memcmp(s->items[i].key, key, CLCPACK_BLOB_KEY_SIZE) == 0)
            return &s->items[i];
    return NULL;
}

static int get(void *ctx, const unsigned char *key, const char *what, const void **data,
               size_t *size)
{
    store *s = ctx;
    (void)what;
    s->gets++;
    item *it = find(s, key);
    if (!it)
        return 0;
    s->hits++;
    unsigned char *copy = malloc(it->n ? it->n : 1);
    if (!copy)
        return 0;
    memcpy(copy, it->data, it->n);
    *data = copy;
    *size = it->n;
    return 1;
}

static void release(void *ctx, const void *data)
{
    ((store *)ctx)->released++;
    free((void *)data);
}

static void put(void *ctx, const unsigned char *key, const char *what, const void *data,
                size_t size)
{
    store *s = ctx;
    s->puts++;
    item *it = find(s, key);
    if (!it) {
        if (s->n == sizeof s->items / sizeof s->items[0])
            return;
        it = &s->items[s->n++];
        memcpy(it->key, key, CLCPACK_BLOB_KEY_SIZE);
        it->data = NULL;
    }
    free(it->data);
    it->data = malloc(size ? size : 1);
    memcpy(it->data, data, size);
    it->n = size;
    it->dict = strncmp(what, "dictionary", 10) == 0;
}

static void refused(void *ctx, const unsigned char *key, const char *what, const char *why)
{
    (void)key;
    (void)what;
    (void)why;
    ((store *)ctx)->refused++;
}

static void store_free(store *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->items[i].data);
    memset(s, 0, sizeof *s);
}

/* A pack of c written with the codecs of mode at `threads`, with the
 * store s (NULL: none). */
static unsigned char *write_pack(const synth_corpus *c, clcpack_compression mode, unsigned threads,
                                 store *s, const clcpack_blob_cache *cb, size_t *size)
{
    clcpack_error err;
    clcpack_writer *w = synth_writer(c, 0, &err);
    if (!CHECK(w != NULL, "writer: %s", err.message))
        return NULL;
    clcpack_blob_cache mine = {s, get, release, put, refused};
    CHECK(clcpack_writer_set_compression(w, mode, &err) == CLCPACK_OK, "compression: %s",
          err.message);
    clcpack_writer_set_threads(w, threads);
    if (s || cb)
        CHECK(clcpack_writer_set_blob_cache(w, cb ? cb : &mine) == CLCPACK_OK, "set_blob_cache");
    void *data = NULL;
    *size = 0;
    CHECK(clcpack_writer_write_memory(w, &data, size, &err) == CLCPACK_OK, "write: %s",
          err.message);
    clcpack_writer_free(w);
    return data;
}

static int same(const unsigned char *a, size_t an, const unsigned char *b, size_t bn)
{
    return a && b && an == bn && memcmp(a, b, an) == 0;
}

static void reset_counts(store *s)
{
    s->gets = s->hits = s->puts = s->refused = s->released = 0;
}

/* The first frame and the first dictionary in s. */
static item *first(store *s, int dict)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->items[i].dict == dict)
            return &s->items[i];
    return NULL;
}

static void test_zstd(const synth_corpus *c)
{
    size_t n0, n1, n2, n3;
    unsigned char *plain = write_pack(c, CLCPACK_COMPRESSION_ZSTD, 2, NULL, NULL, &n0);
    static store s;
    unsigned char *cold = write_pack(c, CLCPACK_COMPRESSION_ZSTD, 2, &s, NULL, &n1);
    CHECK(same(plain, n0, cold, n1), "a write with an empty store gives the bytes of one without");
    /* Binaries added twice have one key: the second may be found, or
     * made while the first is still being made and put again. */
    CHECK(s.hits < s.gets && s.puts >= s.n && s.n > 0 && s.hits + s.puts >= s.gets,
          "the empty store: %zu lookups, %zu hits, %zu puts, %zu kept", s.gets, s.hits, s.puts, s.n);
    CHECK(first(&s, 1) != NULL, "a dictionary is among the results put");
    size_t kept = s.n;

    reset_counts(&s);
    unsigned char *warm = write_pack(c, CLCPACK_COMPRESSION_ZSTD, 1, &s, NULL, &n2);
    CHECK(same(plain, n0, warm, n2), "a write from the store, on one thread, gives the same bytes");
    CHECK(s.hits == s.gets && s.puts == 0 && s.refused == 0 && s.released == s.hits && s.n == kept,
          "the warm write takes every result (%zu lookups, %zu hits, %zu puts, %zu refused, "
          "%zu released)", s.gets, s.hits, s.puts, s.refused, s.released);

    /* Alter a frame three ways in turn, and the dictionary's size. */
    item *f = first(&s, 0), *d = first(&s, 1);
    for (int how = 0; f && d && how < 4; how++) {
        if (how == 0)
            f->n /= 2;
        else if (how == 1)
            f->data[f->n / 2] ^= 0x10;
        else if (how == 2) {
            item *o = &s.items[(size_t)(f - s.items) + 1 < s.n ? (size_t)(f - s.items) + 1 : 0];
            item *other = o->dict ? first(&s, 0) : o;
            unsigned char *copy = malloc(other->n);
            memcpy(copy, other->data, other->n);
            free(f->data);
            f->data = copy;
            f->n = other->n;
        } else {
            d->n = 0;
        }
        reset_counts(&s);
        unsigned char *again = write_pack(c, CLCPACK_COMPRESSION_ZSTD, 2, &s, NULL, &n3);
        CHECK(same(plain, n0, again, n3), "with an altered result (%d) the bytes are the same", how);
        CHECK(s.refused == 1 && s.puts == 1, "the altered result (%d) is refused once and put back "
              "(%zu refused, %zu puts)", how, s.refused, s.puts);
        free(again);
    }
    reset_counts(&s);
    unsigned char *after = write_pack(c, CLCPACK_COMPRESSION_ZSTD, 3, &s, NULL, &n3);
    CHECK(same(plain, n0, after, n3) && s.refused == 0 && s.hits == s.gets && s.puts == 0,
          "after the repairs every result is taken again (%zu of %zu lookups)", s.hits, s.gets);
    free(after);
    free(plain);
    free(cold);
    free(warm);
    store_free(&s);
}

static void test_unused(const synth_corpus *c)
{
    static store s;
    size_t n0, n1;
    unsigned char *plain = write_pack(c, CLCPACK_COMPRESSION_ZLIB, 2, NULL, NULL, &n0);
    unsigned char *with = write_pack(c, CLCPACK_COMPRESSION_ZLIB, 2, &s, NULL, &n1);
    CHECK(same(plain, n0, with, n1) && s.gets == 0 && s.puts == 0,
          "a zlib write uses no store (%zu gets, %zu puts)", s.gets, s.puts);
    free(plain);
    free(with);
    if (clcpack_compression_available(CLCPACK_COMPRESSION_ZSTD)) {
        clcpack_blob_cache half = {&s, get, release, NULL, refused};
        unsigned char *z = write_pack(c, CLCPACK_COMPRESSION_ZSTD, 1, NULL, &half, &n1);
        CHECK(z && s.gets == 0, "a store without put is none (%zu gets)", s.gets);
        free(z);
    }
    CHECK(clcpack_writer_set_blob_cache(NULL, NULL) == CLCPACK_E_INVALID_ARG, "a NULL writer");
    store_free(&s);
}

int main(void)
{
    synth_corpus c;
    if (!CHECK(synth_make(&c, 3, 12, 2000, 6000, 1, 0x5eed) == 0, "corpus"))
        return check_summary();
    test_unused(&c);
    if (clcpack_compression_available(CLCPACK_COMPRESSION_ZSTD))
        test_zstd(&c);
    else
        CHECK_SKIP("zstd: this libclcpack was built without zstd");
    synth_free(&c);
    return check_summary();
}
