/*
 * pack_reader.h — the parsed form of an open pack: the structs alone,
 * shared by the files that read it (pack_read.c parses, pack_decode.c
 * decodes blobs, key_hash.c indexes and compares keys, program_load.c
 * makes programs). Each file's functions are declared in its own header,
 * named after it (pack_io.h, pack_decode.h, key_hash.h, ...). Internal to
 * libclcpack.
 *
 * Everything here is filled once and never changed after, which is what
 * makes every read-only call safe from many threads at once: by
 * clcpack_open_* for a pack parsed whole; for a file opened through its
 * lookup table (pack_lookup.c), the devices and dictionaries at open and
 * each entry and source record the first time it is needed, under the
 * lookup's lock, published by its ready flag.
 */
#ifndef CLCPACK_PACK_READER_H
#define CLCPACK_PACK_READER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "clcpack_inspect.h"
#include "codec.h"
#include "pack_format.h"
#include "platform.h"

typedef struct pk_source {
    clcpack_source_info info;
    uint32_t codec;
    uint64_t offset;
    uint32_t dict;     /* codec 4: its dictionary, else CLCPACK_NONE */
} pk_source;

/* A dictionary (format 4), loaded the first time a blob needs it. */
typedef struct pk_dict {
    clcpack_dictionary_info info;
    uint64_t offset;
    _Atomic(clcpk_zdict *) loaded; /* NULL until loaded; set once, under dict_lock */
} pk_dict;

typedef struct pk_entry {
    clcpack_entry_info info;
    const char *family; /* the writer's group label ("" for none;
                           clcpack_get_entry_family) */
    uint64_t offset;
    uint32_t chain;    /* entries decoded to get this one (1 = no delta) */
    uint64_t chain_bytes; /* raw sizes along the chain, this entry's included */
    _Atomic int is_base; /* some entry is a delta against this one */
    const uint8_t *tunings; /* the tuning list's records in the index, or NULL */
    uint32_t n_tunings;
} pk_entry;

struct clcpack {
    /* Where the bytes are (pack_io.c): a pack in memory (data, never
     * modified), or a file read on demand (fd, data NULL). */
    const uint8_t *data; /* the whole pack in memory, or NULL */
    uint64_t size;       /* the pack's size */
    void *owned;         /* data when the library read the file whole (pinned) */
    clcpk_fd fd;         /* a pack file read on demand, else CLCPK_NO_FD */
    char *path;          /* its path, for messages */
    uint8_t *index_buf;  /* a file pack's index, read at open */
    uint8_t header[PK_HEADER_SIZE];
    uint32_t flags;      /* header flags */
    size_t n_devices, n_sources, n_entries, n_dicts;
    clcpack_device_info *devices;
    pk_source *sources;
    pk_entry *entries;
    pk_dict *dicts;
    pthread_mutex_t dict_lock; /* loading dictionaries; initialised when n_dicts > 0 */
    char *strings;       /* NUL-terminated copies of every str in the index */
    clcpack_define *defines; /* every entry's defines, back to back */
    const char **knames; /* every program entry's kernel names, back to back */
    /* Key index (key_hash.c): slot_head[hash & slot_mask] is the first
     * node of that slot, node_next[n] the next one, CLCPACK_NONE ends;
     * node_entry[n] is the node's entry. An entry has a node per name it
     * answers to (its kernel, and a program's kernel names). */
    uint32_t *slot_head;
    uint32_t *node_entry;
    uint32_t *node_next;
    size_t slot_mask;
    /* A file opened through its lookup table (format 5): NULL when every
     * table was parsed at open, or once the whole index has been
     * (then slot_head is set). */
    struct pk_lazy *lazy;
    clcpk_zpool *zpool; /* zstd decoding contexts (codec.h); NULL: one per decode */
    struct pk_fp_cache *fp_cache; /* device fingerprints (device_cache.c) */
    struct pk_base_cache *base_cache; /* decoded delta bases (base_cache.c) */
    _Atomic uint64_t inflated; /* raw bytes of the entry blobs decoded so far */
    _Atomic uint64_t file_read; /* bytes read from a pack file so far, index included */
    _Atomic uint32_t dict_loads; /* dictionaries loaded so far */
};

#endif /* CLCPACK_PACK_READER_H */
