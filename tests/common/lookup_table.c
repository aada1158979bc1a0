/*
 * lookup_table.c — see lookup_table.h. Every number here is the document's.
 */
#include "lookup_table.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

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

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
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

int lt_append(const uint8_t *index, size_t index_n, uint64_t index_offset, size_t head_n,
              size_t dict_at, size_t dict_n, const uint32_t *entry_at, size_t n_entries,
              const uint32_t *source_at, size_t n_sources, lt_name *names, size_t n_names,
              uint8_t **out, size_t *out_n, uint8_t hdr[64])
{
    uint32_t buckets = 1;
    while (buckets < n_names)
        buckets *= 2;
    item *it = malloc((n_names ? n_names : 1) * sizeof *it);
    if (!it)
        return -1;
    for (size_t i = 0; i < n_names; i++) {
        const lt_name *n = &names[i];
        it[i].bucket = (uint32_t)(lt_key_hash(n->name, n->def_names, n->def_values, n->n_defines,
                                              n->wg) & (buckets - 1));
        it[i].entry = n->entry;
    }
    qsort(it, n_names, sizeof *it, cmp_item);
    size_t n_list = 0;
    for (size_t i = 0; i < n_names; i++) /* once per bucket */
        if (n_list == 0 || it[n_list - 1].bucket != it[i].bucket ||
            it[n_list - 1].entry != it[i].entry)
            it[n_list++] = it[i];
    size_t rows_e = 12 * n_entries, rows_s = 12 * n_sources, bk = 12 * (size_t)buckets;
    size_t total = index_n + rows_e + rows_s + bk + 4 * n_list + 76;
    uint8_t *t = calloc(1, total);
    if (!t) {
        free(it);
        return -1;
    }
    memcpy(t, index, index_n);
    uint8_t *p = t + index_n;
    const uint32_t *at[2] = {entry_at, source_at};
    size_t cnt[2] = {n_entries, n_sources};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < cnt[k]; i++, p += 12) {
            uint32_t len = rd32(index + at[k][i]);
            le32(p, at[k][i]);
            le32(p + 4, len);
            le32(p + 8, crc(index + at[k][i], len));
        }
    uint8_t *slots = p, *list = p + bk;
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
    uint8_t *dir = list + 4 * n_list;
    uint64_t base = index_offset + index_n;
    le32(dir, 76);
    le32(dir + 4, buckets);
    le64(dir + 8, index_offset);
    le32(dir + 16, (uint32_t)head_n);
    le32(dir + 20, crc(index, head_n));
    le64(dir + 24, index_offset + dict_at);
    le32(dir + 32, (uint32_t)dict_n);
    le32(dir + 36, crc(index + dict_at, dict_n));
    le64(dir + 40, base);
    le64(dir + 48, base + rows_e);
    le64(dir + 56, base + rows_e + rows_s);
    le64(dir + 64, base + rows_e + rows_s + bk);
    le32(dir + 72, (uint32_t)n_list);
    memset(hdr, 0, 64);
    le64(hdr, index_offset + (uint64_t)(dir - t));
    le32(hdr + 8, 76);
    le32(hdr + 12, crc(dir, 76));
    free(it);
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
