/*
 * pack_args.h — the options of `clc-pack [pack]` (docs/CLI.md), parsed by
 * cli_opts.h from one table into a pack_args. Value lists are parsed here too, so every
 * usage error (exit status 2) is found before anything is built.
 */
#ifndef CLC_PACK_ARGS_H
#define CLC_PACK_ARGS_H

#include "clcpack_write.h"
#include "direct_jobs.h"
#include "nv_arch_list.h"
#include "plan_shard.h"
#include "variant_plan.h"

#define PACK_ARGS_ERR_MAX 512
#define PACK_ARGS_MAX_JOBS 256
#define PACK_ARGS_MAX_MERGE 16

typedef struct pack_args {
    const char *kernels_dir;    /* --kernels, default "kernels" */
    variant_plan_request req;             /* --kernel, --widths, --wg, -D */
    const char *device;         /* --device, default "default" */
    const char *platform;       /* --platform, or NULL */
    const char *output;         /* -o, or NULL for packs/<device>.clcpack */
    const char *ptxas;          /* --ptxas, or NULL */
    nv_forms_archs nv_archs;         /* --nv-arch, default NV_FORMS_DEFAULT_ARCHS */
    /* Offline targets (docs/vendors/): each on when given; its list NULL
     * for the documented default. */
    int intel_gpu, amd_gpu, spirv;
    const char *intel_list, *amd_list;
    int intel_ir;               /* --intel-ir: keep the SPIR-V ocloc puts in each binary */
    const char *merge[PACK_ARGS_MAX_MERGE]; /* --merge PACK: entries taken into the result */
    size_t n_merge;
    long jobs;                  /* -j, default the number of online cores */
    int keep_going;             /* --keep-going / -k */
    int no_sources;             /* --no-sources */
    int compress_cubins;        /* --compress-cubins */
    int store_cubins;           /* --store-cubins */
    clcpack_compression codec;  /* --codec zlib|zstd, default the library's */
    int no_check;               /* --no-check */
    int no_warmup;              /* --no-warmup */
    int pocl_small_grids;       /* --pocl-grids small (0: all) */
    int tune;                   /* --tune: time every variant (docs/TUNING.md) */
    unsigned tune_width, tune_height; /* --tune-size WxH, default 2048x2048 */
    long tune_runs;             /* --tune-runs N, default 11 */
    int verbosity;              /* -q: -1; each -v: +1 */
    int list_devices;           /* --list-devices */
    int rebuild;                /* --rebuild: build every variant even when -o exists */
    const char *depfile;        /* --depfile FILE / -MF FILE, or NULL */
    int depfile_md;             /* -MD: a dependency file (default <output>.d) */
    const char *depfile_target; /* -MT TARGET: the rule's target (default the output) */
    const char *timings;        /* --timings FILE.html|FILE.json (docs/TIMINGS.md), or NULL */
    int jobs_given;             /* -j was given (else the jobserver's slots) */
    plan_shard shard;             /* --shard K/N; shard.n == 0: the whole plan */
    const char *remote_cache;   /* --remote-cache URL, or NULL (CLC_PACK_REMOTE_CACHE) */
    int remote_readonly;        /* --remote-cache-readonly */
    long remote_timeout;        /* --remote-cache-timeout S, default 10 */
    int no_remote_cache;        /* --no-remote-cache */
    int no_cache;               /* --no-cache: no variant cache (docs/CACHE.md) */
    /* Packing your own kernels: source files as arguments, or --program.
     * The axis options (-D, --wg, --check-cmd, ...) before the first
     * program are every program's (direct_spec.all), those after a
     * program its own. Each list of direct_spec.all is malloc'd argc
     * long and holds all's items and then each program's, in the order
     * given: a program's own lists are slices of it. Strings are argv's. */
    int direct;
    direct_jobs_spec direct_spec;
    direct_axes *scope;         /* where axis options go: &direct_spec.all or a program's own */
    long check_timeout;         /* --check-timeout S (both commands), default 600 */
    int help, version;
    size_t wg_after;            /* -D options before --wg (the axes keep their order) */
} pack_args;

/* argv[0] is the command name ("clc-pack" or "pack"). Returns 0, or -1
 * with err naming the bad option or item. */
int pack_args_parse(int argc, char **argv, pack_args *a, char err[PACK_ARGS_ERR_MAX]);

/* Frees the lists pack_args_parse allocated (a zeroed pack_args is fine). */
void pack_args_free(pack_args *a);

#endif /* CLC_PACK_ARGS_H */
