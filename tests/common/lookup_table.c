/*
 * lookup_table.c — see lookup_table.h. Every number here is the document's.
 */
#include "lookup_table.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "bytes.h"

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h;
}

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

uint64_t lt_key_hash(const char *name, const char *const *def_names,
                     const char *const *def_values, size_t n_defines, const uint32_t wg[3])
{
    const uint64_t O = 0xcbf29ce484222325ull, P = 0x100000001b3ull;
    uint64_t set = 0;
    for (size_t i = 0; i < n_defines; i++)
        set += mix(fnv((fnv(O, def_names[i]) ^ 0x3d) * P, def_values[i] ? def_values[i] : ""));
    uint64_t h = fnv(O, name);
    h = (h ^ set) * P;
    h = (h ^ (uint64_t)n_defines) * P;
    for (int k = 0; k < 3; k++)
        h = (h ^ wg[k]) * P;
    return mix(h);
}

static void le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void le64(uint8_t *p, uint64_t v)
{
    le32(p, (uint32_t)v);
    le32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t crc(const void *p, size_t n) { return (uint32_t)crc32(0, p, (uInt)n); }

typedef struct item {
    uint32_t bucket, entry;
} item;

static int cmp_item(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->bucket != y->bucket)
        return x->bucket < y->bucket ? -1 : 1;
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* One bucket set (docs/FORMAT.md): each name's bucket by its hash, with
 * (defines) or without the defines, sorted, once per (bucket, entry).
 * *items malloc'd, *buckets their number; -1 out of memory. */
static int make_set(const lt_name *names, size_t n_names, int defines, item **items,
                    uint32_t *buckets, size_t *n_list)
{
    uint32_t b = 1;
    while (b < n_names)
        b *= 2;
    item *it = malloc((n_names ? n_names : 1) * sizeof *it);
    if (!it)
        return -1;
    for (size_t i = 0; i < n_names; i++) {
        const lt_name *n = &names[i];
        it[i].bucket = (uint32_t)(lt_key_hash(n->name, n->def_names, n->def_values,
                                              defines ? n->n_defines : 0, n->wg) & (b - 1));
        it[i].entry = n->entry;
    }
    qsort(it, n_names, sizeof *it, cmp_item);
    size_t k = 0;
    for (size_t i = 0; i < n_names; i++)
        if (k == 0 || it[k - 1].bucket != it[i].bucket || it[k - 1].entry != it[i].entry)
            it[k++] = it[i];
    *items = it;
    *buckets = b;
    *n_list = k;
    return 0;
}

/* A set's buckets at slots, its list right after. */
static void put_set(uint8_t *slots, const item *it, uint32_t buckets, size_t n_list)
{
    uint8_t *list = slots + 12 * (size_t)buckets;
    for (size_t i = 0; i < n_list; i++)
        le32(list + 4 * i, it[i].entry);
    for (uint32_t b = 0, i = 0; b < buckets; b++) {
        uint32_t first = i;
        while (i < n_list && it[i].bucket == b)
            i++;
        uint8_t *s = slots + 12 * (size_t)b;
        le32(s, first);
        le32(s + 4, i - first);
        uLong c = crc32(0, s, 8);
        c = crc32(c, list + 4 * (size_t)first, 4 * (i - first));
        le32(s + 8, (uint32_t)c);
    }
}

int lt_append(const uint8_t *index, size_t index_n, uint64_t index_offset, size_t head_n,
              size_t dict_at, size_t dict_n, const uint32_t *entry_at, size_t n_entries,
              const uint32_t *source_at, size_t n_sources, lt_name *names, size_t n_names,
              uint8_t **out, size_t *out_n, uint8_t hdr[64])
{
    item *keys = NULL, *byname = NULL;
    uint32_t kb = 0, nb = 0;
    size_t kn = 0, nn = 0;
    if (make_set(names, n_names, 1, &keys, &kb, &kn) != 0 ||
        make_set(names, n_names, 0, &byname, &nb, &nn) != 0) {
        free(keys);
        return -1;
    }
    size_t rows_e = 12 * n_entries, rows_s = 12 * n_sources;
    size_t key_set = 12 * (size_t)kb + 4 * kn, name_set = 12 * (size_t)nb + 4 * nn;
    size_t total = index_n + rows_e + rows_s + key_set + name_set + 100;
    uint8_t *t = calloc(1, total);
    if (!t) {
        free(keys);
        free(byname);
        return -1;
    }
    memcpy(t, index, index_n);
    uint8_t *p = t + index_n;
    const uint32_t *at[2] = {entry_at, source_at};
    size_t cnt[2] = {n_entries, n_sources};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < cnt[k]; i++, p += 12) {
            uint32_t len = get_le32(index + at[k][i]);
            le32(p, at[k][i]);
            le32(p + 4, len);
            le32(p + 8, crc(index + at[k][i], len));
        }
    uint8_t *key_slots = p, *name_slots = p + key_set, *dir = name_slots + name_set;
    put_set(key_slots, keys, kb, kn);
    put_set(name_slots, byname, nb, nn);
    uint64_t base = index_offset;
    le32(dir, 100);
    le32(dir + 4, kb);
    le64(dir + 8, index_offset);
    le32(dir + 16, (uint32_t)head_n);
    le32(dir + 20, crc(index, head_n));
    le64(dir + 24, index_offset + dict_at);
    le32(dir + 32, (uint32_t)dict_n);
    le32(dir + 36, crc(index + dict_at, dict_n));
    le64(dir + 40, base + index_n);
    le64(dir + 48, base + index_n + rows_e);
    le64(dir + 56, base + (uint64_t)(key_slots - t));
    le64(dir + 64, base + (uint64_t)(key_slots - t) + 12 * (uint64_t)kb);
    le32(dir + 72, (uint32_t)kn);
    le32(dir + 76, nb);
    le64(dir + 80, base + (uint64_t)(name_slots - t));
    le64(dir + 88, base + (uint64_t)(name_slots - t) + 12 * (uint64_t)nb);
    le32(dir + 96, (uint32_t)nn);
    memset(hdr, 0, 64);
    le64(hdr, index_offset + (uint64_t)(dir - t));
    le32(hdr + 8, 100);
    le32(hdr + 12, crc(dir, 100));
    free(keys);
    free(byname);
    *out = t;
    *out_n = total;
    return 0;
}

void lt_seal_header(uint8_t h[128])
{
    uLong c = crc32(0, h, 44);
    c = crc32(c, h + 48, 124 - 48);
    le32(h + 124, (uint32_t)c);
}
