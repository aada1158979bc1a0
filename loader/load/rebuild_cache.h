/*
 * rebuild_cache.h — the rebuild cache (docs/CACHE.md): binaries that a
 * load rebuilt from a pack's source, kept in a folder keyed by the source
 * entry and the device, so the next process loads them natively. Internal
 * to libclcpack; program_load.c is its one user. Thread-safe: nothing is
 * shared but the files, which are replaced atomically.
 */
#ifndef CLCPACK_REBUILD_CACHE_H
#define CLCPACK_REBUILD_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "clcpack_write.h"

#define PK_CACHE_MAGIC "CLCPKRC1"
#define PK_CACHE_HEADER 32
#define PK_CACHE_KEY_MAX (64u * 1024)
#define PK_CACHE_BINARY_MAX (512ull * 1024 * 1024)
#define PK_CACHE_DEFAULT_MB 256

typedef struct pk_cache {
    char *dir;        /* the folder */
    char *path;       /* <dir>/<hash>.clcbin */
    char *key;        /* the key text */
    size_t key_len;
} pk_cache;

/* Whether the cache is on for a load with these flags, and for entry
 * `entry` of p (one with a source, or a SPIR-V entry) on device `here`: 1 and *c
 * ready (release with clcpk_cache_end), or 0 (off, or out of memory: then
 * why says so when why_cap > 0, and *c needs no release). */
int clcpk_cache_begin(pk_cache *c, const clcpack *p, size_t entry,
                      const clcpack_device_info *here, uint32_t flags, char *why,
                      size_t why_cap);

/* The cached binary when the file is there and passes every check
 * (malloc'd, *size its length); NULL otherwise, with why "" for no file or
 * the reason the file was refused. */
uint8_t *clcpk_cache_read(const pk_cache *c, size_t *size, char *why, size_t cap);

/* Writes the binary for the key atomically, then trims the folder to its
 * bound. 0, or -1 with why. */
int clcpk_cache_store(const pk_cache *c, const uint8_t *bin, size_t size, char *why, size_t cap);

void clcpk_cache_end(pk_cache *c);

/* The binary of prog, a program built for the one device it was created
 * for: what a rebuild stores (malloc'd, *size its length), or NULL when
 * the driver gives none or memory runs out. */
uint8_t *clcpk_cache_program_binary(cl_program prog, size_t *size);

#endif /* CLCPACK_REBUILD_CACHE_H */
