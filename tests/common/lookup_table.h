/*
 * lookup_table.h — a pack's lookup table (format 5) written from
 * docs/FORMAT.md ("The lookup table") alone, not with the library's
 * writer: packs the tests lay out by hand get one, and a reader finding
 * its keys through it checks the document as much as the library.
 */
#ifndef TESTS_LOOKUP_TABLE_H
#define TESTS_LOOKUP_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* One name an entry answers to, with the entry's defines and wg. */
typedef struct lt_name {
    const char *name;
    const char *const *def_names, *const *def_values; /* n_defines each */
    size_t n_defines;
    uint32_t wg[3];
    uint32_t entry;
} lt_name;

/* The key hash H of docs/FORMAT.md. */
uint64_t lt_key_hash(const char *name, const char *const *def_names,
                     const char *const *def_values, size_t n_defines, const uint32_t wg[3]);

/* Appends the lookup table to an index of index_n bytes at `index` (whose
 * first head_n bytes are the counts and device records, and whose
 * dictionary records are [dict_at, dict_at + dict_n)), for entry and source
 * records at entry_at / source_at (offsets from the index's start), to go
 * in the file at index_offset. *out (malloc'd, *out_n bytes) is the whole
 * new index; hdr gets header bytes 64 to 127 but header_crc32, which needs
 * the first 64 (lt_seal_header). 0, or -1 out of memory. */
int lt_append(const uint8_t *index, size_t index_n, uint64_t index_offset, size_t head_n,
              size_t dict_at, size_t dict_n, const uint32_t *entry_at, size_t n_entries,
              const uint32_t *source_at, size_t n_sources, lt_name *names, size_t n_names,
              uint8_t **out, size_t *out_n, uint8_t hdr[64]);

/* header_crc32 of a 128-byte header (bytes [0,44) and [48,124)) into
 * bytes 124 to 127. */
void lt_seal_header(uint8_t h[128]);

#endif /* TESTS_LOOKUP_TABLE_H */
