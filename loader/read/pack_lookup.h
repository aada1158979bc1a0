/*
 * pack_lookup.h — reading a pack file through its lookup table (format 5,
 * docs/FORMAT.md "The lookup table"; pack_lookup.c): an open that reads
 * the header, directory, devices and dictionaries alone, and loads that
 * read their key's records alone. Every reader of records asks these
 * functions first whether what it reads is parsed.
 *
 * A load-only library may leave the table's reading out (make
 * LOAD_LOOKUP_TABLE=0, loader/README.md): pack_lookup.c is not compiled,
 * and a pack file is opened as a pack of formats 1 to 4 is, its whole
 * index read and parsed at open (the table sits beside the records, so
 * every format-5 pack reads the same). The open then costs in proportion
 * to the entries (docs/BENCH.md); the stand-ins below say that every
 * record is parsed.
 */
#ifndef CLCPACK_PACK_LOOKUP_H
#define CLCPACK_PACK_LOOKUP_H

#include "pack_parse.h"
#include "pack_reader.h"

#ifdef CLCPK_NO_LOOKUP_TABLE
/* 1 when p was opened through its lookup table (p->lazy is set): never. */
static inline int clcpk_lookup_opened(const clcpack *p)
{
    (void)p;
    return 0;
}
static inline int clcpk_has_lookup(const pk_header *h, const uint8_t *head)
{
    (void)h, (void)head;
    return 0;
}
static inline clcpack_status clcpk_lookup_open(clcpack *p, const pk_header *h,
                                               const uint8_t *head, clcpack_error *err)
{
    (void)p, (void)h, (void)head, (void)err;
    return CLCPACK_E_FORMAT;
}
static inline void clcpk_lazy_free(clcpack *p) { (void)p; }
static inline int clcpk_index_partial(const clcpack *p)
{
    (void)p;
    return 0;
}
static inline clcpack_status clcpk_index_all(const clcpack *p, clcpack_error *err)
{
    (void)p, (void)err;
    return CLCPACK_OK;
}
static inline clcpack_status clcpk_entry_ready(const clcpack *p, size_t i, clcpack_error *err)
{
    (void)p, (void)i, (void)err;
    return CLCPACK_OK;
}
static inline clcpack_status clcpk_source_ready(const clcpack *p, size_t i, clcpack_error *err)
{
    (void)p, (void)i, (void)err;
    return CLCPACK_OK;
}
/* Asked only of a pack whose index is partial: never, here. */
static inline clcpack_status clcpk_lookup_find(const clcpack *p, const clcpack_key *key,
                                               size_t *indices, size_t cap, size_t *count,
                                               clcpack_error *err)
{
    (void)p, (void)key, (void)indices, (void)cap, (void)err;
    *count = 0;
    return CLCPACK_E_NOT_FOUND;
}
static inline clcpack_status clcpk_lookup_named(const clcpack *p, const char *name,
                                                const uint32_t wg[3], size_t **out,
                                                size_t *count, clcpack_error *err)
{
    (void)p, (void)name, (void)wg, (void)err;
    *out = NULL;
    *count = 0;
    return CLCPACK_OK;
}
static inline clcpack_status clcpk_lookup_record(const clcpack *p, int sources, size_t i,
                                                 uint64_t *rec_at, clcpack_error *err)
{
    (void)p, (void)sources, (void)i, (void)err;
    *rec_at = 0;
    return CLCPACK_OK;
}
static inline uint32_t clcpk_lookup_bucket_count(const clcpack *p, int names)
{
    (void)p, (void)names;
    return 0;
}
static inline clcpack_status clcpk_lookup_bucket(const clcpack *p, int names, uint32_t b,
                                                 uint32_t **items, uint32_t *n,
                                                 clcpack_error *err)
{
    (void)p, (void)names, (void)b, (void)err;
    *items = NULL;
    *n = 0;
    return CLCPACK_OK;
}
#else
/* 1 when p was opened through its lookup table (p->lazy is set). */
static inline int clcpk_lookup_opened(const clcpack *p) { return p->lazy != NULL; }

/* Opens p (its file read on demand, p->fd set) through its lookup table
 * (pack_lookup.c): h passed checks 1 to 7, head holds the header's first
 * PK_HEADER_SIZE_LOOKUP bytes. Reads the directory, devices and
 * dictionaries, nothing else. On failure p is left for clcpack_close. */
clcpack_status clcpk_lookup_open(clcpack *p, const pk_header *h, const uint8_t *head,
                                 clcpack_error *err);

/* 1 when h names a lookup table (format 5, a long enough header, a
 * directory offset in head, the header's first PK_HEADER_SIZE_LOOKUP
 * bytes). */
int clcpk_has_lookup(const pk_header *h, const uint8_t *head);

/* Entry i (< n_entries) parsed, with its delta bases and its source: at
 * once in a pack parsed whole; read through the lookup table the first
 * time otherwise. On error err names the record and why. Thread-safe. */
clcpack_status clcpk_entry_ready(const clcpack *p, size_t i, clcpack_error *err);

/* Source i (< n_sources) parsed, as clcpk_entry_ready. */
clcpack_status clcpk_source_ready(const clcpack *p, size_t i, clcpack_error *err);

/* Every table parsed and the key index built: what a call that walks all
 * entries makes sure of first. A pack opened through its lookup table
 * reads its whole index then, once, and checks the header's checksum.
 * Thread-safe. */
clcpack_status clcpk_index_all(const clcpack *p, clcpack_error *err);

/* A pack opened through its lookup table whose whole index is not read:
 * clcpack_find asks the lookup table (clcpk_lookup_find) rather than the
 * key index. */
int clcpk_index_partial(const clcpack *p);

/* The entries with exactly the key, from the key's bucket of the lookup
 * table, each parsed: as clcpack_find (ascending, *count may pass cap).
 * Thread-safe. */
clcpack_status clcpk_lookup_find(const clcpack *p, const clcpack_key *key, size_t *indices,
                                 size_t cap, size_t *count, clcpack_error *err);

/* The entries answering to name with work-group wg, from the name bucket
 * of the lookup table, each parsed, ascending, in a malloc'd *out the
 * caller frees: what a key giving only some of its defines is matched
 * against without reading the whole index. Thread-safe. */
clcpack_status clcpk_lookup_named(const clcpack *p, const char *name, const uint32_t wg[3],
                                  size_t **out, size_t *count, clcpack_error *err);

/* For lookup_check.c, through the code a load runs: record i's lookup row
 * and record read and checked (bounds, length, CRC-32; sources: a source
 * row, else an entry row), *rec_at the record's file offset; the bucket
 * count of the key (names 0) or name (names 1) buckets, 0 without a
 * lookup table; bucket b of a set read and checked (range, CRC-32, order,
 * items below entry_count, each item's entry parsed) into a malloc'd
 * *items of *n the caller frees. */
clcpack_status clcpk_lookup_record(const clcpack *p, int sources, size_t i, uint64_t *rec_at,
                                   clcpack_error *err);
uint32_t clcpk_lookup_bucket_count(const clcpack *p, int names);
clcpack_status clcpk_lookup_bucket(const clcpack *p, int names, uint32_t b, uint32_t **items,
                                   uint32_t *n, clcpack_error *err);

/* Frees what the lookup table's reading holds (pack_lookup.c). */
void clcpk_lazy_free(clcpack *p);
#endif /* CLCPK_NO_LOOKUP_TABLE */

#endif /* CLCPACK_PACK_LOOKUP_H */
