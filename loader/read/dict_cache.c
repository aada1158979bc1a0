/*
 * dict_cache.c — the dictionaries of an open pack (format 4): each is read,
 * decoded, checked against its CRC-32 and handed to zstd the first time a
 * blob needs it, then kept until clcpack_close, so that every later blob
 * coded with it costs only its own decode. One lock guards the loading;
 * a loaded dictionary is published with an atomic pointer and read
 * without the lock, shared by every thread decoding at once (zstd's
 * decoding dictionaries are read-only).
 */
#include <stdio.h>
#include <stdlib.h>

#include "codec.h"
#include "crc32.h"
#include "dict_cache.h"
#include "pack_format.h"
#include "pack_io.h"
#include "pack_reader.h"

/* Reads, decodes and checks dictionary i, then loads it into zstd. */
static clcpack_status load(const clcpack *p, size_t i, clcpk_zdict **out, char *why,
                           size_t why_cap)
{
    const pk_dict *d = &p->dicts[i];
    const clcpack_dictionary_info *in = &d->info;
    char inner[256];
    const uint8_t *view;
    uint8_t *owned = NULL, *raw_buf = NULL;
    clcpack_status st = clcpk_pack_bytes(p, d->offset, (size_t)in->stored_size, &view, &owned,
                                         inner, sizeof inner);
    const uint8_t *raw = view;
    if (st == CLCPACK_OK && in->codec == PK_CODEC_ZSTD) {
        raw_buf = malloc((size_t)in->raw_size);
        st = raw_buf ? clcpk_unzstd_exact(p->zpool, view, (size_t)in->stored_size, raw_buf,
                                          (size_t)in->raw_size, NULL, NULL, 0, inner, sizeof inner)
                     : CLCPACK_E_NOMEM;
        if (!raw_buf)
            snprintf(inner, sizeof inner, "out of memory for %llu bytes",
                     (unsigned long long)in->raw_size);
        raw = raw_buf;
    }
    if (st == CLCPACK_OK) {
        uint32_t crc = clcpk_crc32(raw, (size_t)in->raw_size);
        if (crc != in->raw_crc32) {
            st = CLCPACK_E_CHECKSUM;
            snprintf(inner, sizeof inner,
                     "checksum mismatch: 0x%08x in the index, 0x%08x decoded (the payload is "
                     "damaged)",
                     in->raw_crc32, crc);
        }
    }
    if (st == CLCPACK_OK) {
        /* The dictionary takes over the buffer its bytes are in: the
         * decoded one, else the one read (none for a pack in memory, whose
         * bytes outlive it). */
        if (raw_buf) {
            free(owned);
            owned = raw_buf;
            raw_buf = NULL;
        }
        st = clcpk_zdict_load(raw, (size_t)in->raw_size, owned, out, inner, sizeof inner);
        owned = NULL;
    }
    if (st != CLCPACK_OK)
        snprintf(why, why_cap, "dictionary %zu, blob at offset %llu: %s", i,
                 (unsigned long long)d->offset, inner);
    free(raw_buf);
    free(owned);
    return st;
}

clcpack_status clcpk_dict_get(const clcpack *p, size_t i, const clcpk_zdict **out, char *why,
                              size_t why_cap)
{
    pk_dict *d = &((clcpack *)p)->dicts[i];
    clcpk_zdict *z = atomic_load_explicit(&d->loaded, memory_order_acquire);
    clcpack_status st = CLCPACK_OK;
    if (!z) {
        pthread_mutex_t *lock = &((clcpack *)p)->dict_lock;
        pthread_mutex_lock(lock);
        z = atomic_load_explicit(&d->loaded, memory_order_acquire);
        if (!z && (st = load(p, i, &z, why, why_cap)) == CLCPACK_OK) {
            atomic_store_explicit(&d->loaded, z, memory_order_release);
            atomic_fetch_add_explicit(&((clcpack *)p)->dict_loads, 1, memory_order_relaxed);
        }
        pthread_mutex_unlock(lock);
    }
    *out = z;
    return st;
}

uint32_t clcpk_dict_loads(const clcpack *p)
{
    return atomic_load_explicit(&((clcpack *)p)->dict_loads, memory_order_relaxed);
}

void clcpk_dicts_free(clcpack *p)
{
    if (!p->dicts)
        return;
    for (size_t i = 0; i < p->n_dicts; i++)
        clcpk_zdict_free(atomic_load_explicit(&p->dicts[i].loaded, memory_order_relaxed));
    pthread_mutex_destroy(&p->dict_lock);
}
