/*
 * lookup_check.c — clcpack_check_index: every structure a reader trusts,
 * checked with the code a load runs, so that a pack this accepts never
 * fails a load for a reason it could have seen.
 *
 * Why: a load through a format-5 pack's lookup table reads rows, buckets
 * and lists that reading every record (what `clc-pack verify` did) never
 * touches, and a reader does not check that the table agrees with the
 * records (docs/FORMAT.md). A damaged list item passed verify and then
 * failed the load of its key. So this reads the whole index (the header's
 * checksum over it, every record's invariants, delta chains, dictionaries)
 * and then, through the lookup table as a load does, every row, every
 * bucket of both sets with its list, and checks that the table agrees
 * with the records: each row names its own record, each entry is in the
 * key and name buckets of every name it answers to and in no other.
 */
#include <stdlib.h>

#include "bytes.h"
#include "clcpack_inspect.h"
#include "errors.h"
#include "key_hash.h"
#include "pack_format.h"
#include "pack_lookup.h"
#include "pack_reader.h"

/* The offset (from the index's start) of the first source record: past
 * the counts record and the device records, whose lengths the whole
 * index's parse has checked. */
static uint64_t first_source_at(const clcpack *p)
{
    uint64_t at = 0;
    for (size_t i = 0; i <= p->n_devices; i++)
        at += get_le32(p->index_buf + at);
    return at;
}

/* Every source row, then every entry row, names its own record. */
static clcpack_status check_rows(const clcpack *p, uint64_t index_offset, clcpack_error *err)
{
    uint64_t want = first_source_at(p);
    for (int k = 0; k < 2; k++) {
        size_t n = k == 0 ? p->n_sources : p->n_entries;
        for (size_t i = 0; i < n; i++) {
            uint64_t at = 0;
            clcpack_status st = clcpk_lookup_record(p, k == 0, i, &at, err);
            if (st != CLCPACK_OK)
                return st;
            if (at != index_offset + want)
                return clcpk_fail(err, CLCPACK_E_FORMAT,
                                  "%s %zu's lookup row names the record at offset %llu, not its "
                                  "own at %llu (the lookup table is damaged)",
                                  k == 0 ? "source" : "entry", i, (unsigned long long)at,
                                  (unsigned long long)(index_offset + want));
            want += get_le32(p->index_buf + want);
        }
    }
    return CLCPACK_OK;
}

/* The bucket of set `names` that name of entry e belongs in. */
static uint32_t bucket_of(const clcpack_entry_info *e, const char *name, int names,
                          uint32_t count)
{
    uint64_t set = 0;
    for (size_t d = 0; !names && d < e->define_count; d++)
        set += clcpk_key_hash_define(e->defines[d].name, e->defines[d].value);
    uint64_t h = clcpk_key_hash(name, set, names ? 0 : e->define_count, e->wg);
    return (uint32_t)(h & (count - 1));
}

/* Whether entry e answers to a name of bucket b. */
static int belongs(const clcpack_entry_info *e, int names, uint32_t b, uint32_t count)
{
    for (size_t k = 0; k <= e->kernel_name_count; k++)
        if (bucket_of(e, k ? e->kernel_names[k - 1] : e->kernel, names, count) == b)
            return 1;
    return 0;
}

/* One set: every bucket read as a load reads it, each item an entry of
 * that bucket, and each (entry, name) pair found in its bucket. */
static clcpack_status check_set(const clcpack *p, int names, clcpack_error *err)
{
    const char *set = names ? "name" : "key";
    uint32_t count = clcpk_lookup_bucket_count(p, names);
    uint32_t **items = calloc(count, sizeof *items), *n = calloc(count, sizeof *n);
    clcpack_status st = items && n ? CLCPACK_OK
                                   : clcpk_fail(err, CLCPACK_E_NOMEM,
                                                "out of memory for %u lookup buckets", count);
    for (uint32_t b = 0; st == CLCPACK_OK && b < count; b++) {
        st = clcpk_lookup_bucket(p, names, b, &items[b], &n[b], err);
        for (uint32_t k = 0; st == CLCPACK_OK && k < n[b]; k++)
            if (!belongs(&p->entries[items[b][k]].info, names, b, count))
                st = clcpk_fail(err, CLCPACK_E_FORMAT,
                                "lookup %s bucket %u: item %u is entry %u, which answers to no "
                                "name of this bucket (the lookup table is damaged)",
                                set, b, k, items[b][k]);
    }
    for (size_t i = 0; st == CLCPACK_OK && i < p->n_entries; i++) {
        const clcpack_entry_info *e = &p->entries[i].info;
        for (size_t k = 0; st == CLCPACK_OK && k <= e->kernel_name_count; k++) {
            const char *name = k ? e->kernel_names[k - 1] : e->kernel;
            uint32_t b = bucket_of(e, name, names, count), j = 0;
            while (j < n[b] && items[b][j] != i)
                j++;
            if (j == n[b])
                st = clcpk_fail(err, CLCPACK_E_FORMAT,
                                "entry %zu (%s) is not in lookup %s bucket %u, so a load of its "
                                "key would not find it (the lookup table is damaged)",
                                i, name, set, b);
        }
    }
    for (uint32_t b = 0; items && b < count; b++)
        free(items[b]);
    free(items);
    free(n);
    return st;
}

clcpack_status clcpack_check_index(const clcpack *p, clcpack_error *err)
{
    if (!p)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_check_index: pack is NULL");
    clcpack_status st = clcpk_index_all(p, err);
    if (st != CLCPACK_OK || !clcpk_lookup_opened(p))
        return st;
    uint64_t index_offset = get_le64(p->header + PK_OFF_INDEX_OFFSET);
    if ((st = check_rows(p, index_offset, err)) != CLCPACK_OK)
        return st;
    if ((st = check_set(p, 0, err)) != CLCPACK_OK)
        return st;
    return check_set(p, 1, err);
}
