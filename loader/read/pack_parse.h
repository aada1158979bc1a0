/*
 * pack_parse.h — the checks of docs/FORMAT.md on a pack's header and index
 * records (pack_parse.c), shared by the two ways of reading an index: whole
 * at open (pack_read.c) and record by record through the lookup table
 * (pack_lookup.c). Internal to libclcpack.
 */
#ifndef CLCPACK_PACK_PARSE_H
#define CLCPACK_PACK_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "bytes.h"
#include "pack_reader.h"

/* The header fields of checks 1 to 7. */
typedef struct pk_header {
    uint16_t format_version, min_reader;
    uint32_t header_size, flags;
    uint64_t file_size, index_offset, index_size;
} pk_header;

/* State of one parse: where the strings, defines and kernel names of the
 * records go, and what is wrong with the record being read (`problem`;
 * the caller adds which record and where). */
typedef struct parse_ctx {
    clcpack *p;
    const pk_header *h;
    uint64_t at0; /* file offset of the first byte of the bytes being parsed */
    char *arena;
    size_t arena_used, arena_cap;
    clcpack_define *defines;
    size_t defines_used, defines_cap;
    const char **knames;
    size_t knames_used, knames_cap;
    uint64_t dict_total;
    /* Reading records one by one: makes entry b (a delta base) parsed
     * before the entry coded against it is checked; returns 0, or -1 with
     * the problem set. NULL when the whole index is parsed in order. */
    int (*need_base)(struct parse_ctx *c, uint32_t b);
    void *need_base_arg;
    clcpack_status problem_status;
    char problem[512];
} parse_ctx;

/* Checks 1 to 7 on the first min(size, PK_HEADER_SIZE) bytes d of a pack
 * of `size` bytes, before the rest of it is read. */
clcpack_status clcpk_check_header_fields(const uint8_t *d, size_t size, pk_header *h,
                                         clcpack_error *err);

/* Check 8: the checksum over the header (its first PK_HEADER_SIZE bytes
 * head, the rest of a longer one at ext) and the whole index. */
clcpack_status clcpk_check_checksum(const uint8_t *head, const uint8_t *ext, const pk_header *h,
                                    const uint8_t *index, clcpack_error *err);

/* The counts record at the start of idx, and the caps of "Counts record":
 * counts[0..3] = devices, sources, entries, dictionaries. */
clcpack_status clcpk_parse_counts(parse_ctx *c, pk_cursor *idx, uint32_t counts[4],
                                  clcpack_error *err);

/* The device, source, entry and dictionary tables for the counts (as
 * clcpk_parse_counts gives them), zeroed; the dictionaries' lock. */
clcpack_status clcpk_alloc_tables(clcpack *p, const uint32_t counts[4], clcpack_error *err);

/* Splits the next record off idx (a cursor over the index from its start:
 * *at gets the record's file offset). 0, or -1 with the problem set. */
int clcpk_next_record(parse_ctx *c, pk_cursor *idx, pk_cursor *rec, uint64_t *at);

/* One record each, the fields after its length: 0, or -1 with the problem
 * set. clcpk_parse_entry reads entry i; its delta base must be parsed
 * (c->need_base makes it so). */
int clcpk_parse_device(parse_ctx *c, pk_cursor *r, clcpack_device_info *d);
int clcpk_parse_source(parse_ctx *c, pk_cursor *r, pk_source *s);
int clcpk_parse_dict(parse_ctx *c, pk_cursor *r, pk_dict *d);
int clcpk_parse_entry(parse_ctx *c, pk_cursor *r, size_t i, pk_entry *pe);

/* err from the problem of record i of kind `what` at file offset `at`. */
clcpack_status clcpk_fail_record(parse_ctx *c, clcpack_error *err, const char *what, size_t i,
                                 uint64_t at);

/* Check 9: parses the whole index into p's tables. With `ready` NULL it
 * allocates them all; otherwise (a pack opened through its lookup table)
 * the devices, dictionaries and the tables exist, ready[0] flags the
 * entries and ready[1] the sources already parsed: those are checked
 * again but kept, the others filled and flagged. */
clcpack_status clcpk_parse_index(clcpack *p, const pk_header *h, const uint8_t *index,
                                 _Atomic uint8_t *const ready[2], clcpack_error *err);

#endif /* CLCPACK_PACK_PARSE_H */
