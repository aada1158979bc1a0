/*
 * load_worker.h — the process in which `verify --load` and `warm` load a
 * pack's keys through libclcpack, one worker per device, so that a driver
 * that crashes costs one key, not the command.
 *
 *   clc-pack --load-worker --pack PACK --device P:D [--no-cubin] [--warm]
 *            [--pocl-wg SPEC] [--check [--kernels DIR]]
 *
 * P:D are the device's platform and device indices (clc/run/device_select.h).
 * The options are read and the device found by clc/main/worker_main.c, as
 * for the build worker; the loading and checking are here.
 * Each load job (worker_proto.h) names an entry; its key is loaded with the
 * rebuild cache off (verify: the pack is checked), or on with --warm
 * (warm: a key rebuilt from source goes into the cache; SIGINT and SIGTERM
 * are ignored, so the build under way completes when warm is interrupted;
 * --pocl-wg sets POCL_BINARY_SPECIALIZE_WG first, pocl_wg_spec_sizes).
 * The result: status BUILD_VARIANT_OK, BUILD_VARIANT_CHECK_FAILED or BUILD_VARIANT_ERROR; message the line
 * to print or the error; note the load report's why; the load path's name
 * ("native", "source", "cache", ...) as its one kernel name.
 */
#ifndef CLC_LOAD_WORKER_H
#define CLC_LOAD_WORKER_H

#include <stddef.h>
#include <stdint.h>

#include "check_hook.h"

#define LOAD_WORKER_SLOT_MAX 32
/* A setup error: the device list's message (DEVICE_SELECT_ERR_MAX) and
 * the worker's prefix. */
#define LOAD_WORKER_ERR_MAX (2048 + 64)

/* The worker's argv for the device at platform and device indices
 * (platform, device) of pack: its first six items, into argv[0..6) (slot
 * holds the P:D text they point to); the caller appends the options and
 * the NULL. Returns 6. */
size_t load_worker_argv(char *argv[], const char *pack, unsigned platform, unsigned device,
                        char slot[LOAD_WORKER_SLOT_MAX]);

/* The composition's side of --check (clc/main/worker_main.c, which reads
 * the manifest): entry e as a build job for the hook, its kernel, defines,
 * work-group and options. 0, or 1 when the entry has no reference check (a
 * program entry, or a kernel the manifest gives no family), -1 when out of
 * memory; j is to be freed (build_job_free) in every case. */
typedef int (*load_worker_entry_job)(void *self, const clcpack_entry_info *e, build_job *j);

/* What the worker is told (clc/main/worker_main.c reads the options, finds
 * the device and reads the manifest). A setup that fails answers every
 * job with its error, in this order: bad arguments, the pack, the device,
 * the context, the manifest. */
typedef struct load_worker_config {
    const char *pack;           /* NULL: bad arguments */
    int args_ok;                /* the device slot parsed */
    cl_device_id dev;           /* the device, or NULL with device_error */
    const char *device_error;   /* "" when dev was found */
    const char *manifest_error; /* "" when the manifest was read (or not needed) */
    int check;                  /* --check: each entry through hook */
    uint32_t load_flags;        /* --no-cubin: CLCPACK_LOAD_NO_CUBIN; --warm: CLCPACK_LOAD_CACHE */
    const check_hook *hook;
    load_worker_entry_job entry_job;
    void *entry_self;
} load_worker_config;

/* Serves load jobs from stdin until the parent closes it: 0, or 1 when
 * the job pipe broke. */
int load_worker_serve(const load_worker_config *c);

#endif /* CLC_LOAD_WORKER_H */
