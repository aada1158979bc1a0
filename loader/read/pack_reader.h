/*
 * pack_reader.h — the parsed form of an open pack, shared by the files that
 * read it (pack_read.c parses, pack_decode.c decodes blobs, key_match.c
 * looks up keys, program_load.c makes programs). Internal to libclcpack.
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
    /* Key index (key_index.c): slot_head[hash & slot_mask] is the first
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

/* Raw bytes of entry blobs this handle has inflated so far: what the tests
 * check the decode budget and the base cache against. Thread-safe. */
uint64_t clcpk_inflated_bytes(const clcpack *p);

/* Bytes this handle has read from its file so far (header, index, blobs);
 * 0 for a pack in memory. Thread-safe. */
uint64_t clcpk_file_bytes_read(const clcpack *p);

/* Bytes [offset, offset + n) of the pack (pack_io.c): in a pack in memory
 * *view points at them and *owned is NULL; from a file they are read into
 * a malloc'd *owned and *view is *owned (the caller frees *owned). The
 * range was checked against the pack at open. E_IO when the file cannot be
 * read or has shrunk, E_NOMEM; why says which. Thread-safe. */
clcpack_status clcpk_pack_bytes(const clcpack *p, uint64_t offset, size_t n, const uint8_t **view,
                                uint8_t **owned, char *why, size_t why_cap);

/* The same bytes copied into dst. Thread-safe. */
clcpack_status clcpk_pack_read(const clcpack *p, uint64_t offset, size_t n, uint8_t *dst,
                               char *why, size_t why_cap);

/* Reads n bytes at offset `at` of fd into buf, counting them in *counter
 * (may be NULL). E_IO naming path when the read fails or the file ends
 * first ("shrank"). */
clcpack_status clcpk_read_at(clcpk_fd fd, const char *path, uint8_t *buf, size_t n, uint64_t at,
                             _Atomic uint64_t *counter, char *why, size_t why_cap);

/* Dictionary i, loaded (and its CRC-32 checked) the first time it is asked
 * for and kept until clcpack_close. Thread-safe. */
clcpack_status clcpk_dict_get(const clcpack *p, size_t i, const clcpk_zdict **out, char *why,
                              size_t why_cap);

/* How many dictionaries this handle has loaded: each once, at most. */
uint32_t clcpk_dict_loads(const clcpack *p);

/* Frees the loaded dictionaries and their lock (no decode may be running;
 * p->dicts is not freed). */
void clcpk_dicts_free(clcpack *p);

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

/* The key's hash (key_hash.h) as the key index and lookup tables use it. */
uint64_t clcpk_key_index_hash(const clcpack_key *key);

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

/* dev's fingerprint when the cache holds it, else NULL; asks the driver
 * nothing. */
const clcpack_device_info *clcpk_device_cached(const clcpack *p, cl_device_id dev);

/* Keeps a copy of info, dev's fresh fingerprint, in the cache (retaining
 * dev) and returns the cached copy; NULL when dev cannot be retained or
 * the cache is full (then nothing is kept). clcpk_device_fingerprint's
 * second half, on the read side where the cache lives. */
const clcpack_device_info *clcpk_device_cache_keep(const clcpack *p, cl_device_id dev,
                                                   const clcpack_device_info *info);

/* What telling a cubin and PTX apart needs of an NVIDIA device, in three
 * driver calls where the whole fingerprint takes 15: out zeroed but for
 * its vendor ID and compute capability. 1 when dev is an NVIDIA device
 * that answered, else 0 (the caller takes the whole fingerprint). */
int clcpk_device_nvidia_identity(cl_device_id dev, clcpack_device_info *out);

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

/* Entry i's checked bytes for a driver, as cheaply as possible: in a pack
 * in memory, a stored blob (codec 0) at an address aligned to
 * PK_VIEW_ALIGN is checked where it lies and *view points at it (*owned
 * NULL); any other blob, and every blob of a pack file, is decoded (read)
 * into a malloc'd *owned, and *view is *owned; but an entry that is a
 * delta base of others is decoded into the base cache (or found there),
 * *view is its bytes and *held a reference to them, *owned NULL. The
 * caller frees *owned and releases *held (clcpk_decoded_release). Either
 * way *view holds raw_size bytes whose CRC-32 matched. */
#define PK_VIEW_ALIGN 16 /* what malloc gives, for drivers that parse in place */
clcpack_status clcpk_entry_view(const clcpack *p, size_t i, const uint8_t **view,
                                uint8_t **owned, pk_decoded **held, clcpack_error *err);

/* Decodes source i into a new malloc'd buffer of raw_size + 1 bytes, the
 * last one NUL, so it can be handed to clCreateProgramWithSource. */
clcpack_status clcpk_decode_source_alloc(const clcpack *p, size_t i, char **out,
                                      clcpack_error *err);

/* Describes entry i's key, e.g. "sgemm [TS=32 WPT=8] wg 32x4". */
void clcpk_describe_entry_key(const clcpack_entry_info *e, char *buf, size_t cap);

/* Describes a caller's key the same way (defines in the order given). */
void clcpk_describe_key(const clcpack_key *key, char *buf, size_t cap);

/* Entry e's define set and work-group alone, e.g. "[TS=32 WPT=8] wg 32x4". */
void clcpk_describe_entry_variant(const clcpack_entry_info *e, char *buf, size_t cap);

/* 1 when entry e answers to name: its kernel (or program) name, or one of
 * a program entry's kernel names. */
int clcpk_entry_has_name(const clcpack_entry_info *e, const char *name);

/* 1 when entry e answers to the key's kernel name and has exactly its
 * define set and wg. The key must have passed clcpk_check_key. */
int clcpk_entry_matches(const clcpack_entry_info *e, const clcpack_key *key);

/* Every define of the key is in e with the same value (e may have more),
 * and the kernel name and wg are e's. */
int clcpk_key_defines_within(const clcpack_entry_info *e, const clcpack_key *key);

/* CLCPACK_OK when the key is usable (names present, no define twice). */
clcpack_status clcpk_check_key(const clcpack_key *key, clcpack_error *err);

/* The library's own forms of the device functions, on full structs (the
 * library's size of clcpack_device_info, as the pack, the cache and
 * clcpk_device_query hold them): clcpack_device_query,
 * clcpack_device_binary_compatible, clcpack_device_describe_difference. */
clcpack_status clcpk_device_query(cl_device_id dev, clcpack_device_info *out, clcpack_error *err);
int clcpk_device_compatible(const clcpack_device_info *a, const clcpack_device_info *b);
void clcpk_device_difference(const clcpack_device_info *a, const clcpack_device_info *b,
                             char *buf, size_t cap);

/* A short label for a device in messages: "'NAME (driver VERSION)'". */
void clcpk_device_label(const clcpack_device_info *d, char *buf, size_t cap);

#endif /* CLCPACK_PACK_READER_H */
