/*
 * base_cache.c — the decoded delta bases an open pack keeps.
 *
 * Decoding an entry at chain length n inflates n blobs. Entries that are
 * read one after another share their bases: the variants of one kernel an
 * application loads, and every entry in turn for verify, list --check or
 * merge. Keeping the last few decoded bases makes the next entry of the
 * chain cost one inflate, and a pass over the whole pack linear.
 *
 * Only entries some delta refers to are kept, at most BASE_CACHE_SLOTS of
 * them and BASE_CACHE_BYTES in all, the least recently used leaving first.
 * A kept entry is shared by reference count, so a decode can go on using a
 * base another thread's put has just evicted. One mutex guards the slots
 * and the counts; it is never held while inflating.
 */
#include <pthread.h>
#include <stdlib.h>

#include "base_cache.h"
#include "pack_reader.h"

#define BASE_CACHE_SLOTS 64
#define BASE_CACHE_BYTES ((size_t)64 << 20)

typedef struct slot {
    size_t entry;
    pk_decoded *d;  /* NULL: free slot */
    uint64_t used;  /* stamp of the last get or put */
} slot;

struct pk_base_cache {
    pthread_mutex_t lock;
    size_t bytes;
    uint64_t clock;
    slot slots[BASE_CACHE_SLOTS];
};

pk_decoded *clcpk_decoded_new(size_t n)
{
    pk_decoded *d = malloc(sizeof *d + (n ? n : 1));
    if (d) {
        d->refs = 1;
        d->n = n;
    }
    return d;
}

/* Drops a reference with the lock held; 1 when d is to be freed. */
static int unref(pk_decoded *d) { return --d->refs == 0; }

void clcpk_decoded_release(const clcpack *p, pk_decoded *d)
{
    if (!d)
        return;
    struct pk_base_cache *c = p->base_cache;
    pthread_mutex_lock(&c->lock);
    int last = unref(d);
    pthread_mutex_unlock(&c->lock);
    if (last)
        free(d);
}

clcpack_status clcpk_base_cache_new(clcpack *p)
{
    struct pk_base_cache *c = calloc(1, sizeof *c);
    if (!c)
        return CLCPACK_E_NOMEM;
    if (pthread_mutex_init(&c->lock, NULL) != 0) {
        free(c);
        return CLCPACK_E_NOMEM;
    }
    p->base_cache = c;
    return CLCPACK_OK;
}

void clcpk_base_cache_free(clcpack *p)
{
    struct pk_base_cache *c = p->base_cache;
    if (!c)
        return;
    for (size_t k = 0; k < BASE_CACHE_SLOTS; k++)
        if (c->slots[k].d && unref(c->slots[k].d))
            free(c->slots[k].d);
    pthread_mutex_destroy(&c->lock);
    free(c);
    p->base_cache = NULL;
}

pk_decoded *clcpk_base_cache_get(const clcpack *p, size_t i)
{
    struct pk_base_cache *c = p->base_cache;
    if (!c || !p->entries[i].is_base)
        return NULL;
    pk_decoded *d = NULL;
    pthread_mutex_lock(&c->lock);
    for (size_t k = 0; k < BASE_CACHE_SLOTS; k++)
        if (c->slots[k].d && c->slots[k].entry == i) {
            d = c->slots[k].d;
            d->refs++;
            c->slots[k].used = ++c->clock;
            break;
        }
    pthread_mutex_unlock(&c->lock);
    return d;
}

void clcpk_base_cache_put(const clcpack *p, size_t i, pk_decoded *d)
{
    struct pk_base_cache *c = p->base_cache;
    if (!c || !p->entries[i].is_base || d->n > BASE_CACHE_BYTES / 4)
        return;
    pk_decoded *evicted[BASE_CACHE_SLOTS];
    size_t n_evicted = 0;
    pthread_mutex_lock(&c->lock);
    size_t k, free_slot = BASE_CACHE_SLOTS;
    for (k = 0; k < BASE_CACHE_SLOTS; k++) {
        if (c->slots[k].d && c->slots[k].entry == i)
            break; /* another thread decoded it too: keep the one there */
        if (!c->slots[k].d && free_slot == BASE_CACHE_SLOTS)
            free_slot = k;
    }
    if (k == BASE_CACHE_SLOTS) {
        /* Evict the least recently used until a slot and the bytes are free. */
        while (free_slot == BASE_CACHE_SLOTS || c->bytes + d->n > BASE_CACHE_BYTES) {
            size_t old = BASE_CACHE_SLOTS;
            for (size_t j = 0; j < BASE_CACHE_SLOTS; j++)
                if (c->slots[j].d && (old == BASE_CACHE_SLOTS || c->slots[j].used < c->slots[old].used))
                    old = j;
            if (old == BASE_CACHE_SLOTS)
                break;
            c->bytes -= c->slots[old].d->n;
            if (unref(c->slots[old].d))
                evicted[n_evicted++] = c->slots[old].d;
            c->slots[old].d = NULL;
            free_slot = old;
        }
        d->refs++;
        c->slots[free_slot] = (slot){i, d, ++c->clock};
        c->bytes += d->n;
    }
    pthread_mutex_unlock(&c->lock);
    for (size_t j = 0; j < n_evicted; j++)
        free(evicted[j]);
}
