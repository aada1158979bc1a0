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
#include <stdio.h>

#include "clcpack.h"

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

#ifdef CLCPK_NO_REBUILD_CACHE
/* A load-only library built without the cache (make LOAD_REBUILD_CACHE=0,
 * loader/README.md): rebuild_cache.c is left out, no load uses the cache
 * nor reads its environment variables, and a load that asked for it with
 * CLCPACK_LOAD_CACHE says so in its report. */
static inline int clcpk_cache_begin(pk_cache *c, const clcpack *p, size_t entry,
                                    const clcpack_device_info *here, uint32_t flags, char *why,
                                    size_t why_cap)
{
    (void)c, (void)p, (void)entry, (void)here;
    if (why_cap)
        snprintf(why, why_cap, "%s",
                 flags & CLCPACK_LOAD_CACHE
                     ? "this library was built without it (LOAD_REBUILD_CACHE=0)"
                     : "");
    return 0;
}
static inline uint8_t *clcpk_cache_read(const pk_cache *c, size_t *size, char *why, size_t cap)
{
    (void)c, (void)size, (void)cap;
    why[0] = '\0';
    return NULL;
}
static inline int clcpk_cache_store(const pk_cache *c, const uint8_t *bin, size_t size, char *why,
                                    size_t cap)
{
    (void)c, (void)bin, (void)size, (void)cap;
    why[0] = '\0';
    return -1;
}
static inline void clcpk_cache_end(pk_cache *c) { (void)c; }
static inline uint8_t *clcpk_cache_program_binary(cl_program prog, size_t *size)
{
    (void)prog, (void)size;
    return NULL;
}
#else
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

#endif /* CLCPK_NO_REBUILD_CACHE */

#endif /* CLCPACK_REBUILD_CACHE_H */
