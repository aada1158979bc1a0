/*
 * pack_reader.h — the parsed form of an open pack, shared by the files that
 * read it (pack_read.c parses, pack_decode.c decodes blobs, key_match.c
 * looks up keys, program_load.c makes programs). Internal to libclcpack.
 *
 * Everything here is filled once by clcpack_open_* and never changed after,
 * which is what makes every read-only call safe from many threads at once.
 */
#ifndef CLCPACK_PACK_READER_H
#define CLCPACK_PACK_READER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "clcpack.h"

typedef struct pk_source {
    clcpack_source_info info;
    uint32_t codec;
    uint64_t offset;
} pk_source;

typedef struct pk_entry {
    clcpack_entry_info info;
    uint64_t offset;
    uint32_t chain;    /* entries decoded to get this one (1 = no delta) */
    uint64_t chain_bytes; /* raw sizes along the chain, this entry's included */
    int is_base;       /* some entry is a delta against this one */
    const uint8_t *tunings; /* the tuning list's records in the index, or NULL */
    uint32_t n_tunings;
} pk_entry;

struct clcpack {
    const uint8_t *data; /* the whole pack, never modified */
    size_t size;
    void *owned;         /* data when the library read the file, else NULL */
    void *map;           /* data when the library mapped the file, else NULL */
    uint32_t flags;      /* header flags */
    size_t n_devices, n_sources, n_entries;
    clcpack_device_info *devices;
    pk_source *sources;
    pk_entry *entries;
    char *strings;       /* NUL-terminated copies of every str in the index */
    clcpack_define *defines; /* every entry's defines, back to back */
    const char **knames; /* every program entry's kernel names, back to back */
    /* Key index (key_index.c): slot_head[hash & slot_mask] is the first
     * node of that slot, node_next[n] the next one, CLCPACK_NONE ends;
     * node_entry[n] is the node's entry. An entry has a node per name it
     * answers to (its kernel, and a program's kernel names). */
    uint32_t *slot_head;
    uint32_t *node_entry;
    uint32_t *node_next;
    size_t slot_mask;
    struct pk_fp_cache *fp_cache; /* device fingerprints (device_cache.c) */
    struct pk_base_cache *base_cache; /* decoded delta bases (base_cache.c) */
    _Atomic uint64_t inflated; /* raw bytes of the entry blobs decoded so far */
};

/* Raw bytes of entry blobs this handle has inflated so far: what the tests
 * check the decode budget and the base cache against. Thread-safe. */
uint64_t clcpk_inflated_bytes(const clcpack *p);

/* Decoded, CRC-checked bytes of one entry, shared by reference count
 * between the base cache and the decodes using them. */
typedef struct pk_decoded {
    size_t refs; /* changed only under the cache's lock */
    size_t n;
    uint8_t bytes[];
} pk_decoded;

/* A new pk_decoded of n bytes with one reference, or NULL. */
pk_decoded *clcpk_decoded_new(size_t n);

/* Drops one reference to d (NULL is a no-op); frees it at zero. */
void clcpk_decoded_release(const clcpack *p, pk_decoded *d);

/* Creates the (empty) base cache at open. CLCPACK_OK or E_NOMEM. */
clcpack_status clcpk_base_cache_new(clcpack *p);

/* Frees the base cache (no decode may be running). */
void clcpk_base_cache_free(clcpack *p);

/* The cached bytes of entry i with a new reference, or NULL. Thread-safe. */
pk_decoded *clcpk_base_cache_get(const clcpack *p, size_t i);

/* Offers entry i's decoded bytes to the cache, which takes its own
 * reference when it keeps them (the caller's stays the caller's). */
void clcpk_base_cache_put(const clcpack *p, size_t i, pk_decoded *d);

/* Builds the key index of an open pack. CLCPACK_OK or CLCPACK_E_NOMEM. */
clcpack_status clcpk_key_index_build(clcpack *p);

/* The first node of the key's slot (CLCPACK_NONE for none); the next are
 * p->node_next[n], each for entry p->node_entry[n], in ascending entry
 * order (an entry may come twice in a row). Candidates still have to be
 * compared with clcpk_entry_matches. The key must have passed
 * clcpk_check_key. */
uint32_t clcpk_key_index_first(const clcpack *p, const clcpack_key *key);

/* The fingerprint of dev, queried once per pack and device and then kept
 * (the library retains the device until clcpack_close, so the handle cannot
 * be reused for another device meanwhile). *out points into the cache,
 * valid until clcpack_close, or at `scratch` filled by a fresh query when
 * the device could not be kept. Safe from many threads. */
clcpack_status clcpk_device_fingerprint(const clcpack *p, cl_device_id dev,
                                        clcpack_device_info *scratch,
                                        const clcpack_device_info **out, clcpack_error *err);

/* Frees the fingerprint cache and releases the devices it retained. */
void clcpk_device_cache_free(clcpack *p);

/* Creates the (empty) fingerprint cache at open. CLCPACK_OK or E_NOMEM. */
clcpack_status clcpk_device_cache_new(clcpack *p);

/* Decodes entry i into dst (exactly its raw_size bytes) and checks its
 * CRC-32 (and its delta bases'). On error err says which entry and why. */
clcpack_status clcpk_decode_entry(const clcpack *p, size_t i, uint8_t *dst, clcpack_error *err);

/* Decodes entry i into a new malloc'd buffer (raw_size bytes). */
clcpack_status clcpk_decode_entry_alloc(const clcpack *p, size_t i, uint8_t **out,
                                     clcpack_error *err);

/* Entry i's checked bytes for a driver, as cheaply as possible: a stored
 * blob (codec 0) at an address aligned to PK_VIEW_ALIGN is checked where it
 * lies in the pack and *view points at it (*owned NULL); any other blob is
 * decoded into a malloc'd *owned, and *view is *owned. The caller frees
 * *owned. Either way *view holds raw_size bytes whose CRC-32 matched. */
#define PK_VIEW_ALIGN 16 /* what malloc gives, for drivers that parse in place */
clcpack_status clcpk_entry_view(const clcpack *p, size_t i, const uint8_t **view,
                                uint8_t **owned, clcpack_error *err);

/* Decodes source i into a new malloc'd buffer of raw_size + 1 bytes, the
 * last one NUL, so it can be handed to clCreateProgramWithSource. */
clcpack_status clcpk_decode_source_alloc(const clcpack *p, size_t i, char **out,
                                      clcpack_error *err);

/* Describes entry i's key, e.g. "sgemm [TS=32 WPT=8] wg 32x4". */
void clcpk_describe_entry_key(const clcpack_entry_info *e, char *buf, size_t cap);

/* Describes a caller's key the same way (defines in the order given). */
void clcpk_describe_key(const clcpack_key *key, char *buf, size_t cap);

/* 1 when entry e answers to name: its kernel (or program) name, or one of
 * a program entry's kernel names. */
int clcpk_entry_has_name(const clcpack_entry_info *e, const char *name);

/* 1 when entry e answers to the key's kernel name and has exactly its
 * define set and wg. The key must have passed clcpk_check_key. */
int clcpk_entry_matches(const clcpack_entry_info *e, const clcpack_key *key);

/* CLCPACK_OK when the key is usable (names present, no define twice). */
clcpack_status clcpk_check_key(const clcpack_key *key, clcpack_error *err);

/* A short label for a device in messages: "'NAME (driver VERSION)'". */
void clcpk_device_label(const clcpack_device_info *d, char *buf, size_t cap);

#endif /* CLCPACK_PACK_READER_H */
