/*
 * lookup_write.c — the lookup table of a format-5 pack: a row per entry and
 * source record, the key buckets and their list, and the directory that
 * names them (docs/FORMAT.md, "The lookup table"). The bytes depend only
 * on the records and the keys, so the same pack gives the same table.
 */
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "codec.h"
#include "crc32.h"
#include "lookup_write.h"
#include "pack_format.h"

/* Bucket first (names[i].hash holds the bucket by then), then entry: each
 * bucket's items come out in entry order. */
static int cmp_item(const void *a, const void *b)
{
    const pk_name_hash *x = a, *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

static void put_rows(uint8_t *out, const uint8_t *index, const uint32_t *at, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t len = get_le32(index + at[i]);
        put_le32(out + i * PK_LOOKUP_ROW, at[i]);
        put_le32(out + i * PK_LOOKUP_ROW + 4, len);
        put_le32(out + i * PK_LOOKUP_ROW + 8, clcpk_crc32(index + at[i], len));
    }
}

/* One bucket set: the hashes become bucket numbers, sorted, each
 * (bucket, entry) once; *buckets is their number, *n_list the items. */
static clcpack_status make_set(pk_name_hash *items, size_t n, uint64_t *buckets, size_t *n_list)
{
    uint64_t b = 1;
    while (b < n)
        b *= 2;
    if (b > UINT32_MAX || n > UINT32_MAX)
        return CLCPACK_E_LIMIT;
    for (size_t i = 0; i < n; i++)
        items[i].hash &= b - 1;
    qsort(items, n, sizeof *items, cmp_item);
    /* An entry whose names share a bucket is listed there once. */
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || items[k - 1].hash != items[i].hash || items[k - 1].entry != items[i].entry)
            items[k++] = items[i];
    *buckets = b;
    *n_list = k;
    return CLCPACK_OK;
}

/* A set's buckets at bk and its list right after them. */
static void put_set(uint8_t *bk, const pk_name_hash *items, uint64_t buckets, size_t n_list)
{
    uint8_t *list = bk + (size_t)buckets * PK_LOOKUP_BUCKET;
    for (size_t i = 0; i < n_list; i++)
        put_le32(list + 4 * i, items[i].entry);
    for (size_t i = 0, b = 0; b < buckets; b++) {
        size_t first = i;
        while (i < n_list && items[i].hash == b)
            i++;
        uint8_t *slot = bk + b * PK_LOOKUP_BUCKET;
        put_le32(slot, (uint32_t)first);
        put_le32(slot + 4, (uint32_t)(i - first));
        put_le32(slot + 8, clcpk_crc32_more(clcpk_crc32(slot, 8), list + 4 * first, 4 * (i - first)));
    }
}

clcpack_status clcpk_lookup_build(const pk_lookup_layout *lay, pk_name_hash *keys,
                                  pk_name_hash *names, size_t n_names, uint8_t **table,
                                  size_t *table_n, size_t *dir_at, uint32_t *dir_n,
                                  uint32_t *dir_crc)
{
    *table = NULL;
    uint64_t kb, nb;
    size_t kn, nn;
    clcpack_status st = make_set(keys, n_names, &kb, &kn);
    if (st == CLCPACK_OK)
        st = make_set(names, n_names, &nb, &nn);
    if (st != CLCPACK_OK)
        return st;
    size_t rows_e = lay->n_entries * PK_LOOKUP_ROW, rows_s = lay->n_sources * PK_LOOKUP_ROW;
    size_t key_set = (size_t)kb * PK_LOOKUP_BUCKET + kn * 4;
    size_t name_set = (size_t)nb * PK_LOOKUP_BUCKET + nn * 4;
    size_t n = rows_e + rows_s + key_set + name_set + PK_LOOKUP_DIR_MIN;
    uint8_t *t = calloc(1, n);
    if (!t)
        return CLCPACK_E_NOMEM;
    uint8_t *src_rows = t + rows_e, *key_bk = src_rows + rows_s, *name_bk = key_bk + key_set;
    uint8_t *dir = name_bk + name_set;
    put_rows(t, lay->index, lay->entry_at, lay->n_entries);
    put_rows(src_rows, lay->index, lay->source_at, lay->n_sources);
    put_set(key_bk, keys, kb, kn);
    put_set(name_bk, names, nb, nn);
    /* Offsets in the file: the table follows the records written so far. */
    uint64_t at = lay->index_offset + lay->index_n;
    put_le32(dir, PK_LOOKUP_DIR_MIN);
    put_le32(dir + 4, (uint32_t)kb);
    put_le64(dir + 8, lay->index_offset);
    put_le32(dir + 16, (uint32_t)lay->head_size);
    put_le32(dir + 20, clcpk_crc32(lay->index, lay->head_size));
    put_le64(dir + 24, lay->index_offset + lay->dict_at);
    put_le32(dir + 32, (uint32_t)lay->dict_size);
    put_le32(dir + 36, clcpk_crc32(lay->index + lay->dict_at, lay->dict_size));
    put_le64(dir + 40, at);
    put_le64(dir + 48, at + rows_e);
    put_le64(dir + 56, (uint64_t)(key_bk - t) + at);
    put_le64(dir + 64, (uint64_t)(key_bk - t) + at + kb * PK_LOOKUP_BUCKET);
    put_le32(dir + 72, (uint32_t)kn);
    put_le32(dir + 76, (uint32_t)nb);
    put_le64(dir + 80, (uint64_t)(name_bk - t) + at);
    put_le64(dir + 88, (uint64_t)(name_bk - t) + at + nb * PK_LOOKUP_BUCKET);
    put_le32(dir + 96, (uint32_t)nn);
    *table = t;
    *table_n = n;
    *dir_at = (size_t)(dir - t);
    *dir_n = PK_LOOKUP_DIR_MIN;
    *dir_crc = clcpk_crc32(dir, PK_LOOKUP_DIR_MIN);
    return CLCPACK_OK;
}
