/*
 * pack_reuse.h — incremental packs and the build order (docs/CLI.md,
 * "Incremental packs and build order").
 *
 * Reuse: when the output pack exists (and --rebuild was not given), a job
 * whose entries the old pack already holds — the same name, defines and
 * work-group, for a device of the identical fingerprint, built from the same
 * source text with the same options, family and default mark, by a library
 * of this version, with the forms this run would make (a cubin only when
 * ptxas is there; on PoCL the work-group functions it stores), holding
 * every kernel the job asks for (--kernel) — is not built again: its
 * entries are copied into the new pack. A job whose old entries lack an
 * asked kernel is built, so that the build's check says so as it would
 * with a new -o. Entries no longer asked for are dropped. Builds are
 * deterministic, so the result is byte-identical to a full build.
 *
 * Order: the jobs left are handed out longest first, so that no worker
 * waits alone at the end for a long build that started late. A build's
 * time is the one an earlier run measured for the same program, options
 * and device (a cache of build times in clc-pack's cache folder), else an
 * estimate from the size of its program text (an unrolled kernel's text
 * grows with what it unrolls).
 */
#ifndef CLC_PACK_REUSE_H
#define CLC_PACK_REUSE_H

#include <stddef.h>
#include <stdint.h>

#include "build_job.h"
#include "clcpack_write.h"

/* What a job would make: on a device, native or PTX (with cubins when
 * want_cubin); for an offline toolchain (its synthetic device record, of
 * the same toolchain version), an entry of `kind` for each arch of
 * archs[0..n_archs). */
typedef struct pack_reuse_forms {
    int want_cubin;
    clcpack_binary_kind kind;   /* CLCPACK_KIND_NATIVE: a device's job */
    const uint32_t *archs;
    size_t n_archs;
    unsigned pocl_forms;        /* the PoCL work-group functions of its local size a
                                   native PoCL binary must hold, and no other
                                   (loader/common/pocl_binary.h: bits 1u << form); an older
                                   clc-pack's lacks some */
} pack_reuse_forms;

/* Copies into w the entries of `old` that serve job j on the device whose
 * fingerprint is `dev` (written as index dev_index), when every condition
 * above holds and they are the forms f says this run would make. Returns
 * the number of entries copied (0: build the job), or -1 with err on a
 * writer error. */
long pack_reuse(const clcpack *old, const build_job *j, const clcpack_device_info *dev,
              uint32_t dev_index, const pack_reuse_forms *f, clcpack_writer *w, char *err, size_t cap);

/* A key for a job's build time on a device: FNV-1a over the program text,
 * options and the device's name and driver. */
uint64_t pack_reuse_time_key(const build_job *j, const clcpack_device_info *dev);

/* The build-time cache ($XDG_CACHE_HOME/clc-pack/build-times, else
 * ~/.cache/clc-pack/build-times): key and seconds per line. */
typedef struct pack_reuse_times {
    size_t n, cap;
    uint64_t *keys;
    double *seconds;
} pack_reuse_times;

void pack_reuse_times_load(pack_reuse_times *t);
/* Records a measured time (replacing an older one). */
void pack_reuse_times_put(pack_reuse_times *t, uint64_t key, double seconds);
/* Writes the cache atomically; errors are ignored (it is only a hint). */
void pack_reuse_times_save(const pack_reuse_times *t);
void pack_reuse_times_free(pack_reuse_times *t);
/* The recorded seconds, or a negative value when none. */
double pack_reuse_times_get(const pack_reuse_times *t, uint64_t key);

/* Sorts order[0..n) by decreasing cost[order[i]] (ties: increasing id). */
void pack_reuse_sort_longest_first(size_t *order, size_t n, const double *cost);

#endif /* CLC_PACK_REUSE_H */
