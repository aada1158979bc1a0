/*
 * device_cache.h — the functions of device_cache.c: the fingerprints of
 * the devices a pack was loaded for, kept until clcpack_close. Internal to
 * libclcpack.
 */
#ifndef CLCPACK_DEVICE_CACHE_H
#define CLCPACK_DEVICE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "pack_reader.h"

/* dev's fingerprint when the cache holds it, else NULL; asks the driver
 * nothing. */
const clcpack_device_info *clcpk_device_cached(const clcpack *p, cl_device_id dev);

/* Keeps a copy of info, dev's fresh fingerprint, in the cache (retaining
 * dev) and returns the cached copy; NULL when dev cannot be retained or
 * the cache is full (then nothing is kept). clcpk_device_fingerprint's
 * second half, on the read side where the cache lives. */
const clcpack_device_info *clcpk_device_cache_keep(const clcpack *p, cl_device_id dev,
                                                   const clcpack_device_info *info);

/* Frees the fingerprint cache and releases the devices it retained. */
void clcpk_device_cache_free(clcpack *p);

/* Creates the (empty) fingerprint cache at open. CLCPACK_OK or E_NOMEM. */
clcpack_status clcpk_device_cache_new(clcpack *p);

#endif /* CLCPACK_DEVICE_CACHE_H */
