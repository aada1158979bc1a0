/*
 * load_worker.h — the process in which `verify --load` and `warm` load a
 * pack's keys through libclcpack, one worker per device, so that a driver
 * that crashes costs one key, not the command.
 *
 *   clc-pack --load-worker --pack PACK --device P:D [--no-cubin] [--warm]
 *            [--pocl-wg SPEC] [--check [--kernels DIR]]
 *
 * P:D are the device's platform and device indices (device_select.h).
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

#include "check_hook.h"
#include "device_select.h"
#include "manifest.h"

#define LOAD_WORKER_SLOT_MAX 32

/* The worker's argv for device d of pack: its first six items, into
 * argv[0..6) (slot holds the P:D text they point to); the caller appends
 * the options and the NULL. Returns 6. */
size_t load_worker_argv(char *argv[], const char *pack, const device_select_device *d,
                        char slot[LOAD_WORKER_SLOT_MAX]);

/* Fills *h with the checks of manifest m's kernels (seed_hook_init for the
 * bundled kernels; the program's entry hands it in). */
typedef void (*load_worker_hook_init)(check_hook *h, const manifest_file *m);

/* argv[1] is "--load-worker". With --check, each entry is checked through
 * the hook hook_init makes. Returns the process's exit status. */
int load_worker_main(int argc, char **argv, load_worker_hook_init hook_init);

#endif /* CLC_LOAD_WORKER_H */
