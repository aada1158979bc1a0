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

clcpack_status clcpk_lookup_build(const pk_lookup_layout *lay, pk_name_hash *names,
                                  size_t n_names, uint8_t **table, size_t *table_n,
                                  size_t *dir_at, uint32_t *dir_n, uint32_t *dir_crc)
{
    *table = NULL;
    uint64_t buckets = 1;
    while (buckets < n_names)
        buckets *= 2;
    if (buckets > UINT32_MAX || n_names > UINT32_MAX)
        return CLCPACK_E_LIMIT;
    for (size_t i = 0; i < n_names; i++)
        names[i].hash &= buckets - 1;
    qsort(names, n_names, sizeof *names, cmp_item);
    /* An entry whose names share a bucket is listed there once. */
    size_t n_list = 0;
    for (size_t i = 0; i < n_names; i++)
        if (n_list == 0 || names[n_list - 1].hash != names[i].hash ||
            names[n_list - 1].entry != names[i].entry)
            names[n_list++] = names[i];

    size_t rows_e = lay->n_entries * PK_LOOKUP_ROW, rows_s = lay->n_sources * PK_LOOKUP_ROW;
    size_t bucket_bytes = (size_t)buckets * PK_LOOKUP_BUCKET, list_bytes = n_list * 4;
    size_t n = rows_e + rows_s + bucket_bytes + list_bytes + PK_LOOKUP_DIR_MIN;
    uint8_t *t = calloc(1, n);
    if (!t)
        return CLCPACK_E_NOMEM;
    uint8_t *ent_rows = t, *src_rows = t + rows_e, *bk = src_rows + rows_s;
    uint8_t *list = bk + bucket_bytes, *dir = list + list_bytes;
    put_rows(ent_rows, lay->index, lay->entry_at, lay->n_entries);
    put_rows(src_rows, lay->index, lay->source_at, lay->n_sources);
    for (size_t i = 0; i < n_list; i++)
        put_le32(list + 4 * i, names[i].entry);
    for (size_t i = 0, b = 0; b < buckets; b++) {
        size_t first = i;
        while (i < n_list && names[i].hash == b)
            i++;
        uint8_t *slot = bk + b * PK_LOOKUP_BUCKET;
        put_le32(slot, (uint32_t)first);
        put_le32(slot + 4, (uint32_t)(i - first));
        put_le32(slot + 8, clcpk_crc32_more(clcpk_crc32(slot, 8), list + 4 * first, 4 * (i - first)));
    }
    /* Offsets in the file: the table follows the records written so far. */
    uint64_t at = lay->index_offset + lay->index_n;
    put_le32(dir, PK_LOOKUP_DIR_MIN);
    put_le32(dir + 4, (uint32_t)buckets);
    put_le64(dir + 8, lay->index_offset);
    put_le32(dir + 16, (uint32_t)lay->head_size);
    put_le32(dir + 20, clcpk_crc32(lay->index, lay->head_size));
    put_le64(dir + 24, lay->index_offset + lay->dict_at);
    put_le32(dir + 32, (uint32_t)lay->dict_size);
    put_le32(dir + 36, clcpk_crc32(lay->index + lay->dict_at, lay->dict_size));
    put_le64(dir + 40, at);
    put_le64(dir + 48, at + rows_e);
    put_le64(dir + 56, at + rows_e + rows_s);
    put_le64(dir + 64, at + rows_e + rows_s + bucket_bytes);
    put_le32(dir + 72, (uint32_t)n_list);
    *table = t;
    *table_n = n;
    *dir_at = (size_t)(dir - t);
    *dir_n = PK_LOOKUP_DIR_MIN;
    *dir_crc = clcpk_crc32(dir, PK_LOOKUP_DIR_MIN);
    return CLCPACK_OK;
}
