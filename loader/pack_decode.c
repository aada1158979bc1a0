/*
 * pack_decode.c — turning a blob back into the bytes it stands for, and
 * checking them against their CRC-32 before anyone else sees them.
 *
 * Every decode re-checks the CRC: the pack may be memory the application
 * embedded, and a byte flipped in the payload must cost only that entry.
 * Delta chains were capped at open, so recursion here is at most
 * CLCPACK_MAX_DELTA_CHAIN deep.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "errors.h"
#include "pack_format.h"
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

/* Decodes a codec 0 or 1 blob, or the zlib half of codec 2. */
static clcpack_status unpack(uint32_t codec, const uint8_t *blob, size_t stored, uint8_t *dst,
                             size_t raw, char *why, size_t why_cap)
{
    if (codec == PK_CODEC_STORED) {
        memcpy(dst, blob, raw);
        return CLCPACK_OK;
    }
    return clcpk_inflate_exact(blob, stored, dst, raw, why, why_cap);
}

clcpack_status clcpk_decode_entry(const clcpack *p, size_t i, uint8_t *dst, clcpack_error *err)
{
    const pk_entry *e = &p->entries[i];
    size_t raw = (size_t)e->info.raw_size;
    char label[600], why[256];
    uint8_t *base = NULL;
    size_t base_n = 0;

    if (e->info.codec == PK_CODEC_XOR_ZLIB) {
        base_n = (size_t)p->entries[e->info.base].info.raw_size;
        base = malloc(base_n);
        if (!base) {
            entry_label(p, i, label, sizeof label);
            return clcpk_fail(err, CLCPACK_E_NOMEM, "%s: out of memory for its delta base", label);
        }
        clcpack_error inner;
        clcpack_status st = clcpk_decode_entry(p, e->info.base, base, &inner);
        if (st != CLCPACK_OK) {
            free(base);
            entry_label(p, i, label, sizeof label);
            return clcpk_fail(err, st, "%s: its delta base failed: %s", label, inner.message);
        }
    }
    clcpack_status st = unpack(e->info.codec, p->data + e->offset, (size_t)e->info.stored_size,
                               dst, raw, why, sizeof why);
    if (st == CLCPACK_OK && base)
        clcpk_xor_delta(dst, raw, base, base_n);
    free(base);
    if (st != CLCPACK_OK) {
        entry_label(p, i, label, sizeof label);
        return clcpk_fail(err, st, "%s, blob at offset %llu: %s", label,
                       (unsigned long long)e->offset, why);
    }
    return check_entry_crc(p, i, dst, err);
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
                                uint8_t **owned, clcpack_error *err)
{
    const pk_entry *e = &p->entries[i];
    const uint8_t *at = p->data + e->offset;
    *view = NULL;
    *owned = NULL;
    if (e->info.codec == PK_CODEC_STORED && (uintptr_t)at % PK_VIEW_ALIGN == 0) {
        clcpack_status st = check_entry_crc(p, i, at, err);
        if (st == CLCPACK_OK)
            *view = at;
        return st;
    }
    clcpack_status st = clcpk_decode_entry_alloc(p, i, owned, err);
    *view = *owned;
    return st;
}

static clcpack_status decode_source(const clcpack *p, size_t i, uint8_t *dst, clcpack_error *err)
{
    const pk_source *s = &p->sources[i];
    size_t raw = (size_t)s->info.raw_size;
    char why[256];
    clcpack_status st = unpack(s->codec, p->data + s->offset, (size_t)s->info.stored_size, dst,
                               raw, why, sizeof why);
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
    if (!size_query(p->sources[source].info.raw_size, buf, cap, size, "source", source, &st, err))
        return st;
    return decode_source(p, source, buf, err);
}
