/*
 * lookup_write.h — building a pack's lookup table (format 5,
 * docs/FORMAT.md "The lookup table") from an index whose records are
 * written. Internal to libclcpack; pack_encode.c calls it.
 */
#ifndef CLCPACK_LOOKUP_WRITE_H
#define CLCPACK_LOOKUP_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "clcpack.h"

/* Where the records lie in the index: offsets from its start. The record
 * lengths are read from the records. */
typedef struct pk_lookup_layout {
    const uint8_t *index; /* the records written so far */
    size_t index_n;
    uint64_t index_offset; /* where the index goes in the file */
    size_t head_size;      /* counts record and device records, from 0 */
    size_t dict_at, dict_size;
    const uint32_t *entry_at; /* n_entries record offsets */
    size_t n_entries;
    const uint32_t *source_at;
    size_t n_sources;
} pk_lookup_layout;

/* One (entry, name) pair: the entry is in the bucket of this key hash. */
typedef struct pk_name_hash {
    uint64_t hash;
    uint32_t entry;
} pk_name_hash;

/* The lookup table's bytes, to be appended to the index right after
 * index_n: rows, the key buckets and their list, the name buckets and
 * theirs, then the directory. keys[i] and names[i] (n_names pairs each,
 * any order) are an entry and the hash of a name it answers to: with its
 * define set (keys) and with none (names, for keys that give only some
 * defines); both arrays are overwritten (hashes become buckets, sorted).
 * *table is malloc'd; *dir_at is the directory's offset in it, *dir_n its
 * size, *dir_crc its CRC-32. CLCPACK_OK or CLCPACK_E_NOMEM
 * (CLCPACK_E_LIMIT past 2^32 items). */
clcpack_status clcpk_lookup_build(const pk_lookup_layout *lay, pk_name_hash *keys,
                                  pk_name_hash *names, size_t n_names, uint8_t **table,
                                  size_t *table_n, size_t *dir_at, uint32_t *dir_n,
                                  uint32_t *dir_crc);

#endif /* CLCPACK_LOOKUP_WRITE_H */
