/*
 * rcache_key.h — the remote cache's key of a variant on a device
 * (docs/REMOTE_CACHE.md, "The key"): a text of `NAME LEN:VALUE` lines
 * covering every input that decides the bytes a build stores, and its
 * SHA-256 as 64 lowercase hex digits. A pure function of its arguments;
 * nothing here prints or touches the network.
 */
#ifndef CLC_RCACHE_KEY_H
#define CLC_RCACHE_KEY_H

#include <stddef.h>

#include "build_job.h"
#include "clcpack.h"

/* Raised whenever a change to clc-pack changes the bytes it makes for the
 * same inputs without a change of its version number: old entries then
 * miss instead of being served to the new tool. */
#define RCACHE_KEY_EPOCH 2 /* 2: PoCL binaries hold every grid and offset form (pocl_wg.h) */
#define RCACHE_KEY_HEX_SIZE 65 /* 64 hex digits and the NUL */

/* What a build on one device makes of the driver's binary. */
typedef struct rcache_key_target {
    const clcpack_device_info *dev; /* the device's fingerprint */
    const char *forms;              /* "native", "ptx" or "ptx+cubin" */
    const char *ptxas;              /* ptx+cubin: ptxas's identity, else "" */
    const char *nv_arch;            /* ptx+cubin: the --nv-arch list "75,80", else "" */
    int warmup;                     /* 0 with --no-warmup */
    int pocl_small_grids;           /* 1 with --pocl-grids small */
    /* An offline toolchain's job (offline_targets.h): the tools' identity
     * (offline_key.h) and the targets, "name@arch,...". NULL for a
     * device's job, whose key text then has no such lines (device keys
     * are what they were). */
    const char *toolchain;
    const char *targets;
} rcache_key_target;

/* The key text of job on t, malloc'd (NUL-terminated; *len its length
 * without the NUL), or NULL when out of memory. */
char *rcache_key_text(const rcache_key_target *t, const build_job *job, size_t *len);

/* The SHA-256 of size bytes as 64 lowercase hex digits. */
void rcache_key_sha256_hex(const void *data, size_t size, char hex[RCACHE_KEY_HEX_SIZE]);

/* Whether s is exactly 64 lowercase hex digits. */
int rcache_key_is_hex_digest(const char *s, size_t len);

#endif /* CLC_RCACHE_KEY_H */
