/*
 * pack_decode.c — turning a blob back into the bytes it stands for, and
 * checking them against their CRC-32 before anyone else sees them.
 *
 * Every decode re-checks the CRC: the pack may be memory the application
 * embedded or a file read again at each decode, and a byte flipped in the
 * payload must cost only that entry. Chains (XOR deltas, zstd prefixes)
 * and their total size were capped at open (at most
 * CLCPACK_MAX_DELTA_CHAIN links, CLCPACK_CHAIN_BUDGET times the entry's raw
 * size); bytes kept in the base cache (base_cache.c) and dictionaries
 * (dict_cache.c) were checked when they were decoded and live in the
 * library's own memory.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base_cache.h"
#include "codec.h"
#include "crc32.h"
#include "dict_cache.h"
#include "errors.h"
#include "key_hash.h"
#include "pack_decode.h"
#include "pack_format.h"
#include "pack_io.h"
#include "pack_lookup.h"
#include "pack_reader.h"

static void entry_label(const clcpack *p, size_t i, char *buf, size_t cap)
{
    char key[512];
    clcpk_describe_entry_key(&p->entries[i].info, key, sizeof key);
    snprintf(buf, cap, "entry %zu (%s)", i, key);
}

/* CLCPACK_OK when the decoded bytes of entry i match its CRC-32. */
static clcpack_status check_entry_crc(const clcpack *p, size_t i, const uint8_t *bytes,
                                      clcpack_error *err)
{
    const pk_entry *e = &p->entries[i];
    uint32_t crc = clcpk_crc32(bytes, (size_t)e->info.raw_size);
    if (crc == e->info.raw_crc32)
        return CLCPACK_OK;
    char label[600];
    entry_label(p, i, label, sizeof label);
    return clcpk_fail(err, CLCPACK_E_CHECKSUM,
                      "%s, blob at offset %llu: checksum mismatch: 0x%08x in the index, 0x%08x "
                      "decoded (the payload is damaged)",
                      label, (unsigned long long)e->offset, e->info.raw_crc32, crc);
}

/* A chain link: its base is an entry decoded first. */
static int has_entry_base(uint32_t codec)
{
    return codec == PK_CODEC_XOR_ZLIB || codec == PK_CODEC_ZSTD_PREFIX;
}

/* Decodes the blob of `stored` bytes at `offset` into dst (raw bytes): a
 * codec 0, 1, 3 or 4 blob, the zlib half of codec 2 (the caller xors), or
 * codec 5 against its decoded base. dict is codec 4's dictionary. */
static clcpack_status unpack(const clcpack *p, uint32_t codec, uint32_t dict, uint64_t offset,
                             size_t stored, const pk_decoded *base, uint8_t *dst, size_t raw,
                             char *why, size_t why_cap)
{
    if (codec == PK_CODEC_STORED)
        return clcpk_pack_read(p, offset, raw, dst, why, why_cap);
    if (codec >= PK_CODEC_ZSTD && !clcpk_zstd_available()) {
        snprintf(why, why_cap,
                 "codec %u (%s): this libclcpack was " CLCPK_NO_ZSTD_HOW
                 ", or write the pack with --codec zlib",
                 (unsigned)codec, clcpk_codec_name(codec));
        return CLCPACK_E_VERSION;
    }
    const clcpk_zdict *zd = NULL;
    clcpack_status st = CLCPACK_OK;
    if (codec == PK_CODEC_ZSTD_DICT && (st = clcpk_dict_get(p, dict, &zd, why, why_cap)) != CLCPACK_OK)
        return st;
    const uint8_t *src;
    uint8_t *owned;
    if ((st = clcpk_pack_bytes(p, offset, stored, &src, &owned, why, why_cap)) != CLCPACK_OK)
        return st;
    if (codec == PK_CODEC_ZLIB || codec == PK_CODEC_XOR_ZLIB)
        st = clcpk_inflate_exact(src, stored, dst, raw, why, why_cap);
    else if (codec == PK_CODEC_ZSTD_PREFIX)
        st = clcpk_unzstd_exact(p->zpool, src, stored, dst, raw, NULL, base->bytes, base->n, why,
                                why_cap);
    else
        st = clcpk_unzstd_exact(p->zpool, src, stored, dst, raw, zd, NULL, 0, why, why_cap);
    free(owned);
    return st;
}

/* One link of a chain: inflates entry i's own blob into dst, xors it with
 * its base's bytes when it is a delta, and checks its CRC-32. */
static clcpack_status decode_step(const clcpack *p, size_t i, const pk_decoded *base,
                                  uint8_t *dst, clcpack_error *err)
{
    const pk_entry *e = &p->entries[i];
    size_t raw = (size_t)e->info.raw_size;
    char label[600], why[700];
    if (e->info.codec != PK_CODEC_STORED)
        atomic_fetch_add_explicit(&((clcpack *)p)->inflated, raw, memory_order_relaxed);
    clcpack_status st = unpack(p, e->info.codec, e->info.base, e->offset,
                               (size_t)e->info.stored_size, base, dst, raw, why, sizeof why);
    if (st != CLCPACK_OK) {
        entry_label(p, i, label, sizeof label);
        return clcpk_fail(err, st, "%s, blob at offset %llu: %s", label,
                          (unsigned long long)e->offset, why);
    }
    if (e->info.codec == PK_CODEC_XOR_ZLIB)
        clcpk_xor_delta(dst, raw, base->bytes, base->n);
    return check_entry_crc(p, i, dst, err);
}

/* Decodes a chain from its root (or from the nearest base the cache holds)
 * to entry i, in order, so that at most two decoded links are held at once
 * besides dst: the work and memory are bounded by the chain budget checked
 * at open. Every decoded base is offered to the cache. */
static clcpack_status decode_chain(const clcpack *p, size_t i, uint8_t *dst, clcpack_error *err)
{
    pk_decoded *have = clcpk_base_cache_get(p, i);
    if (have) {
        memcpy(dst, have->bytes, have->n);
        clcpk_decoded_release(p, have);
        return CLCPACK_OK;
    }
    /* chain[0] is i, chain[k] the base of chain[k-1]; it stops at a root
     * or before a base the cache holds (then in `have`). */
    size_t chain[CLCPACK_MAX_DELTA_CHAIN];
    size_t n = 0;
    chain[n++] = i;
    while (has_entry_base(p->entries[chain[n - 1]].info.codec)) {
        size_t b = p->entries[chain[n - 1]].info.base;
        if ((have = clcpk_base_cache_get(p, b)) != NULL)
            break;
        if (n == CLCPACK_MAX_DELTA_CHAIN) /* checked at open; never here */
            return clcpk_fail(err, CLCPACK_E_FORMAT, "entry %zu: delta chain too long", i);
        chain[n++] = b;
    }
    clcpack_status st = CLCPACK_OK;
    clcpack_error inner;
    size_t k = n;
    while (k-- > 0) {
        size_t j = chain[k];
        pk_decoded *made = NULL;
        uint8_t *target = dst;
        if (k > 0) {
            made = clcpk_decoded_new((size_t)p->entries[j].info.raw_size);
            if (!made) {
                st = clcpk_fail(&inner, CLCPACK_E_NOMEM, "out of memory for entry %zu", j);
                break;
            }
            target = made->bytes;
        }
        st = decode_step(p, j, have, target, k > 0 ? &inner : err);
        clcpk_decoded_release(p, have);
        have = made;
        if (st != CLCPACK_OK)
            break;
        if (made)
            clcpk_base_cache_put(p, j, made);
    }
    clcpk_decoded_release(p, have);
    if (st != CLCPACK_OK && k > 0) {
        char label[600];
        entry_label(p, i, label, sizeof label);
        return clcpk_fail(err, st, "%s: its base entry failed: %s", label, inner.message);
    }
    return st;
}

clcpack_status clcpk_decode_entry(const clcpack *p, size_t i, uint8_t *dst, clcpack_error *err)
{
    const pk_entry *e = &p->entries[i];
    size_t raw = (size_t)e->info.raw_size;
    clcpack_status st = decode_chain(p, i, dst, err);
    if (st == CLCPACK_OK && e->is_base) {
        /* The entry itself is a base of later ones (the next variant read,
         * or the next entry verified): keep a copy. */
        pk_decoded *copy = clcpk_decoded_new(raw);
        if (copy) {
            memcpy(copy->bytes, dst, raw);
            clcpk_base_cache_put(p, i, copy);
            clcpk_decoded_release(p, copy);
        }
    }
    return st;
}

uint64_t clcpk_inflated_bytes(const clcpack *p)
{
    return atomic_load_explicit(&((clcpack *)p)->inflated, memory_order_relaxed);
}

clcpack_status clcpk_decode_entry_alloc(const clcpack *p, size_t i, uint8_t **out,
                                     clcpack_error *err)
{
    *out = NULL;
    size_t raw = (size_t)p->entries[i].info.raw_size;
    uint8_t *buf = malloc(raw);
    if (!buf)
        return clcpk_fail(err, CLCPACK_E_NOMEM, "entry %zu: out of memory for %zu bytes", i, raw);
    clcpack_status st = clcpk_decode_entry(p, i, buf, err);
    if (st != CLCPACK_OK) {
        free(buf);
        return st;
    }
    *out = buf;
    return CLCPACK_OK;
}

clcpack_status clcpk_entry_view(const clcpack *p, size_t i, const uint8_t **view,
                                uint8_t **owned, pk_decoded **held, clcpack_error *err)
{
    const pk_entry *e = &p->entries[i];
    *view = NULL;
    *owned = NULL;
    *held = NULL;
    /* In memory, a stored entry may go to the driver from where it lies. */
    const uint8_t *at = p->data ? p->data + e->offset : NULL;
    if (at && e->info.codec == PK_CODEC_STORED && (uintptr_t)at % PK_VIEW_ALIGN == 0) {
        clcpack_status st = check_entry_crc(p, i, at, err);
        if (st == CLCPACK_OK)
            *view = at;
        return st;
    }
    if (e->is_base) {
        /* Later entries are coded against this one: the driver reads the
         * base cache's copy, decoded there (or found there), instead of
         * one of its own copied into the cache. */
        pk_decoded *d = clcpk_base_cache_get(p, i);
        if (!d) {
            size_t raw = (size_t)e->info.raw_size;
            if (!(d = clcpk_decoded_new(raw)))
                return clcpk_fail(err, CLCPACK_E_NOMEM, "entry %zu: out of memory for %zu bytes",
                                  i, raw);
            clcpack_status st = decode_chain(p, i, d->bytes, err);
            if (st != CLCPACK_OK) {
                clcpk_decoded_release(p, d);
                return st;
            }
            clcpk_base_cache_put(p, i, d);
        }
        *view = d->bytes;
        *held = d;
        return CLCPACK_OK;
    }
    clcpack_status st = clcpk_decode_entry_alloc(p, i, owned, err);
    *view = *owned;
    return st;
}

static clcpack_status decode_source(const clcpack *p, size_t i, uint8_t *dst, clcpack_error *err)
{
    const pk_source *s = &p->sources[i];
    size_t raw = (size_t)s->info.raw_size;
    char why[700];
    clcpack_status st = unpack(p, s->codec, s->dict, s->offset, (size_t)s->info.stored_size, NULL,
                               dst, raw, why, sizeof why);
    if (st != CLCPACK_OK)
        return clcpk_fail(err, st, "source %zu ('%s'), blob at offset %llu: %s", i, s->info.name,
                       (unsigned long long)s->offset, why);
    uint32_t crc = clcpk_crc32(dst, raw);
    if (crc != s->info.raw_crc32)
        return clcpk_fail(err, CLCPACK_E_CHECKSUM,
                       "source %zu ('%s'), blob at offset %llu: checksum mismatch: 0x%08x in the "
                       "index, 0x%08x decoded (the payload is damaged)",
                       i, s->info.name, (unsigned long long)s->offset, s->info.raw_crc32, crc);
    return CLCPACK_OK;
}

clcpack_status clcpk_decode_source_alloc(const clcpack *p, size_t i, char **out, clcpack_error *err)
{
    *out = NULL;
    size_t raw = (size_t)p->sources[i].info.raw_size;
    uint8_t *buf = malloc(raw + 1);
    if (!buf)
        return clcpk_fail(err, CLCPACK_E_NOMEM, "source %zu: out of memory for %zu bytes", i, raw);
    clcpack_status st = decode_source(p, i, buf, err);
    if (st != CLCPACK_OK) {
        free(buf);
        return st;
    }
    buf[raw] = '\0';
    *out = (char *)buf;
    return CLCPACK_OK;
}

/* The two-call size query shared by read_binary and read_source: returns 1
 * when the caller should decode into buf, else 0 with the answer in *st. */
static int size_query(uint64_t raw, void *buf, size_t cap, size_t *size, const char *what,
                      size_t i, clcpack_status *st, clcpack_error *err)
{
    if (size)
        *size = (size_t)raw;
    *st = CLCPACK_OK;
    if (!buf) {
        if (!size)
            *st = clcpk_fail(err, CLCPACK_E_INVALID_ARG, "%s %zu: buf and size are both NULL", what,
                          i);
        return 0;
    }
    if (cap < raw) {
        *st = clcpk_fail(err, CLCPACK_E_BUFFER, "%s %zu: needs %llu bytes, the buffer has %zu", what,
                      i, (unsigned long long)raw, cap);
        return 0;
    }
    return 1;
}

clcpack_status clcpack_read_binary(const clcpack *p, size_t entry, void *buf, size_t cap,
                                   size_t *size, clcpack_error *err)
{
    if (!p)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_read_binary: pack is NULL");
    if (entry >= p->n_entries)
        return clcpk_fail(err, CLCPACK_E_NOT_FOUND, "entry %zu: the pack has %zu entries", entry,
                       p->n_entries);
    clcpack_status st;
    if ((st = clcpk_entry_ready(p, entry, err)) != CLCPACK_OK)
        return st;
    if (!size_query(p->entries[entry].info.raw_size, buf, cap, size, "entry", entry, &st, err))
        return st;
    return clcpk_decode_entry(p, entry, buf, err);
}

clcpack_status clcpack_read_source(const clcpack *p, size_t source, void *buf, size_t cap,
                                   size_t *size, clcpack_error *err)
{
    if (!p)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_read_source: pack is NULL");
    if (source >= p->n_sources)
        return clcpk_fail(err, CLCPACK_E_NOT_FOUND, "source %zu: the pack has %zu sources", source,
                       p->n_sources);
    clcpack_status st;
    if ((st = clcpk_source_ready(p, source, err)) != CLCPACK_OK)
        return st;
    if (!size_query(p->sources[source].info.raw_size, buf, cap, size, "source", source, &st, err))
        return st;
    return decode_source(p, source, buf, err);
}
