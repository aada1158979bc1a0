/*
 * pack_writer.h — what a clcpack_writer holds between the add calls and
 * the encoding (pack_write.c adds, pack_encode.c orders and encodes,
 * loader/common/file_atomic.c puts the bytes on disk). Internal to libclcpack; a
 * reader-only build leaves these three files out.
 */
#ifndef CLCPACK_PACK_WRITER_H
#define CLCPACK_PACK_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "clcpack_write.h"
#include "file_atomic.h"

typedef struct w_define {
    char *name;
    char *value;
} w_define;

typedef struct w_source {
    char *name;       /* the name that sorts first among identical texts */
    uint8_t *text;
    size_t size;
    uint32_t crc;
} w_source;

typedef struct w_entry {
    char *kernel, *family, *options;
    w_define *defines; /* sorted by name (strcmp), names distinct */
    size_t n_defines;
    uint32_t wg[3];
    uint32_t device;   /* index in add order */
    uint32_t source;   /* index in add order, or CLCPACK_NONE */
    clcpack_binary_kind kind;
    uint32_t arch;
    uint8_t *bin;      /* NULL when the binary is in the spool */
    uint64_t spool_off; /* where in the spool (CLCPACK_WRITE_SPOOL) */
    size_t size;
    uint32_t crc;
    uint32_t tune_runs, tune_width, tune_height;
    uint64_t tune_median_ns;
    clcpack_tuning *tunings; /* the tuning list, by increasing run-time value */
    size_t n_tunings;
    char **knames;     /* a program's kernels, sorted, distinct (format 3) */
    size_t n_knames;
    uint32_t flags;    /* CLCPACK_ENTRY_* (format 3) */
    char *target;      /* the offline target (format 4); "" for kinds 0-2 */
} w_entry;

struct clcpack_writer {
    uint32_t flags;
    clcpack_device_info *devices;
    size_t n_devices, cap_devices;
    w_source *sources;
    size_t n_sources, cap_sources;
    w_entry *entries;
    size_t n_entries, cap_entries;
    /* Hash tables of entry and source indices (open addressing, slot
     * CLCPACK_NONE empty), so adding n entries costs about n lookups. */
    uint32_t *ent_slots, *src_slots;
    size_t ent_mask, src_mask; /* slots - 1; 0 before the first add */
    clcpk_fd spool_fd;   /* CLCPACK_WRITE_SPOOL: the unnamed binaries file, else CLCPK_NO_FD */
    uint64_t spool_size;
    unsigned threads;    /* encoding threads (clcpack_writer_set_threads); 0 or 1: the caller's */
    clcpack_compression compression; /* clcpack_writer_set_compression */
    clcpack_blob_cache cache; /* clcpack_writer_set_blob_cache; get NULL: none */
};

/* Entry e's binary: e->bin, or read from the spool into *scratch (grown
 * to fit, the caller frees it). NULL when the spool cannot be read.
 * Thread-safe for distinct scratch pointers (pread). */
const uint8_t *clcpk_entry_bytes(const clcpack_writer *w, const w_entry *e, uint8_t **scratch);

/* Orders and encodes everything added so far into a malloc'd pack. */
clcpack_status clcpk_encode(const clcpack_writer *w, uint8_t **data, size_t *size,
                         clcpack_error *err);


/* Encodes the writer's contents straight into a, blob by blob, so that the
 * encoded payload is never held whole in memory. a is committed on
 * success and aborted on failure. */
clcpack_status clcpk_encode_file(const clcpack_writer *w, clcpk_atomic *a, clcpack_error *err);

/* Three-way comparison of two fingerprints in the order of docs/FORMAT.md. */
int clcpk_device_compare(const clcpack_device_info *a, const clcpack_device_info *b);

/* Three-way comparison of define values: decimal integers as numbers. */
int clcpk_value_compare(const char *a, const char *b);

#endif /* CLCPACK_PACK_WRITER_H */
