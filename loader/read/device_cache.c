/*
 * device_cache.c — each device's fingerprint, queried once per open pack.
 *
 * A fingerprint takes 11 clGetDeviceInfo/clGetPlatformInfo calls on PoCL
 * (counted by test_loader_pocl) and 15 on NVIDIA's driver, 0.045 ms on an
 * H100 host: 2 % of a cubin's cold load. A device's fingerprint cannot
 * change while the process runs, so the first load on a device queries it
 * and later loads reuse it. (A load whose key holds only cubins and PTX
 * asks an NVIDIA device for 3 values instead, and caches nothing:
 * program_load.c, fingerprint.)
 *
 * A cl_device_id is only a pointer: a released sub-device's address could be
 * handed out again for another device. The cache therefore retains every
 * device it keeps (clRetainDevice; a no-op for root devices) until
 * clcpack_close, so no other device can take its address meanwhile. A device
 * that cannot be retained (an OpenCL 1.1 platform) is queried every time.
 *
 * The cache is the one part of an open pack that changes after open: a
 * mutex guards it, and is never held across a driver call.
 *
 * The cache lives with the open pack (read/: made at open, freed at close);
 * the query that fills it is the loader's (load/device_fp.c,
 * clcpk_device_fingerprint), so reading a pack calls no load code.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "device_cache.h"
#include "pack_reader.h"

#define FP_CACHE_SLOTS 8 /* more devices than this are queried every time */

struct pk_fp_cache {
    pthread_mutex_t lock;
    size_t n;
    cl_device_id dev[FP_CACHE_SLOTS];
    clcpack_device_info info[FP_CACHE_SLOTS];
};

clcpack_status clcpk_device_cache_new(clcpack *p)
{
    struct pk_fp_cache *c = calloc(1, sizeof *c);
    if (!c)
        return CLCPACK_E_NOMEM;
    if (pthread_mutex_init(&c->lock, NULL) != 0) {
        free(c);
        return CLCPACK_E_NOMEM;
    }
    p->fp_cache = c;
    return CLCPACK_OK;
}

void clcpk_device_cache_free(clcpack *p)
{
    struct pk_fp_cache *c = p->fp_cache;
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        clReleaseDevice(c->dev[i]);
    pthread_mutex_destroy(&c->lock);
    free(c);
    p->fp_cache = NULL;
}

/* dev's cached fingerprint or NULL; the caller holds the lock. */
static const clcpack_device_info *find_locked(const struct pk_fp_cache *c, cl_device_id dev)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->dev[i] == dev)
            return &c->info[i];
    return NULL;
}

const clcpack_device_info *clcpk_device_cached(const clcpack *p, cl_device_id dev)
{
    struct pk_fp_cache *c = p->fp_cache;
    pthread_mutex_lock(&c->lock);
    const clcpack_device_info *hit = find_locked(c, dev);
    pthread_mutex_unlock(&c->lock);
    return hit;
}

const clcpack_device_info *clcpk_device_cache_keep(const clcpack *p, cl_device_id dev,
                                                   const clcpack_device_info *info)
{
    struct pk_fp_cache *c = p->fp_cache;
    if (clRetainDevice(dev) != CL_SUCCESS)
        return NULL;
    pthread_mutex_lock(&c->lock);
    /* Another thread may have added it since the lookup. */
    const clcpack_device_info *hit = find_locked(c, dev);
    int keep = !hit && c->n < FP_CACHE_SLOTS;
    if (keep) {
        c->dev[c->n] = dev;
        memcpy(&c->info[c->n], info, sizeof *info);
        hit = &c->info[c->n];
        c->n++;
    }
    pthread_mutex_unlock(&c->lock);
    if (!keep)
        clReleaseDevice(dev);
    return hit;
}
