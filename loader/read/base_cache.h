/*
 * base_cache.h — the functions of base_cache.c: decoded delta bases kept
 * between decodes, so an entry's chain is not decoded again for each entry
 * built on it. Internal to libclcpack.
 */
#ifndef CLCPACK_BASE_CACHE_H
#define CLCPACK_BASE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "pack_reader.h"

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

#endif /* CLCPACK_BASE_CACHE_H */
