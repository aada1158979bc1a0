/*
 * build_variant.h — building one variant (build_job.h) for one device the
 * way a pack stores it: from its program text with its exact build
 * options; the kernels it must hold looked for; its check hook run when its
 * job names one; on PoCL, every work-group function PoCL keys its local
 * size on put into the binary (by helper processes, or the small-grid ones
 * by name in this process's POCL_BINARY_SPECIALIZE_WG: pocl_wg.h), so that
 * no first launch at that local size after loading compiles anything; then
 * its
 * CL_PROGRAM_BINARIES taken, made canonical, loaded back and compared with
 * the source build (roundtrip.h), and the user's --check-cmd run on it. On
 * NVIDIA the binary is PTX: stored without its NUL and, when ptxas is
 * known, also in its most portable form and assembled into a cubin for the
 * device and each --nv-arch (nv_forms.h).
 *
 * Used by clc-pack's worker processes (one build_variant_target per device and
 * process) and by the benchmarks. Nothing here prints.
 */
#ifndef CLC_BUILD_VARIANT_H
#define CLC_BUILD_VARIANT_H

#include <stddef.h>
#include <stdint.h>

#include "build_job.h"
#include "check_cmd.h"
#include "check_hook.h"
#include "clcpack.h"
#include "tune_options.h"
#include "nv_forms.h"
#include "spare_slots.h"

/* PTX and a cubin per architecture (nv_forms.h), or a binary per offline
 * target (offline_targets.h, at most 32). */
#define BUILD_VARIANT_MAX_FORMS 40
#define BUILD_VARIANT_PATH_MAX 4096

/* A device opened for building: context and in-order queue. */
typedef struct build_variant_target {
    cl_device_id device;
    cl_context ctx;
    cl_command_queue queue;
    int is_nvidia;
    int is_pocl;                   /* PoCL: binaries are cache-folder snapshots */
    uint32_t cc_major, cc_minor;   /* NVIDIA compute capability, else 0.0 */
    char ptxas[BUILD_VARIANT_PATH_MAX];       /* "" when cubins are not made */
    char ordinal[16];              /* the device's --list-devices number, for {device} */
    char slot[24];                 /* "P:D", its platform and device index, for PoCL's
                                      helper (pocl_wg.h); "" when not known */
    nv_forms_archs nv_archs;            /* cubins besides the device's own (--nv-arch);
                                      set after build_variant_target_open, empty by default */
    spare_slots spare;             /* slots idle workers lend for ptxas; set after
                                      build_variant_target_open, none by default */
} build_variant_target;

/* Opens dev: build_variant_target_identify, then build_variant_target_context.
 * ptxas may be NULL or "" (no cubins). 0, or -1 with err. */
int build_variant_target_open(cl_device_id dev, const char *ptxas, build_variant_target *t, char *err, size_t cap);

/* Fills t for dev (vendor, compute capability, PoCL, ptxas) with no
 * context: what a variant's cache key needs. A build or a load needs
 * build_variant_target_context first. */
void build_variant_target_identify(cl_device_id dev, const char *ptxas, build_variant_target *t);

/* t's context and queue, made on the first call (an NVIDIA context takes
 * tenths of a second, serialised between processes). 0, or -1 with err. */
int build_variant_target_context(build_variant_target *t, char *err, size_t cap);

void build_variant_target_close(build_variant_target *t);

typedef enum build_variant_status {
    BUILD_VARIANT_OK = 0,
    BUILD_VARIANT_BUILD_FAILED = 1,   /* clBuildProgram refused the source: see log */
    BUILD_VARIANT_CHECK_FAILED = 2,   /* built, but a check failed: message (and log: its output) */
    BUILD_VARIANT_ERROR = 3           /* anything else: source, OpenCL call, worker */
} build_variant_status;

/* The steps of one build whose wall times a result carries (-v prints
 * them: they show what a long variant spends its time on). */
typedef enum build_variant_phase {
    BUILD_VARIANT_PHASE_COMPILE = 0,  /* clCreateProgramWithSource + clBuildProgram */
    BUILD_VARIANT_PHASE_CHECK = 1,    /* the check hook's launch and reference */
    BUILD_VARIANT_PHASE_FORMS = 2,    /* taking the binary; ptxas for every cubin */
    BUILD_VARIANT_PHASE_ROUNDTRIP = 3,/* loading each form back, --check-cmd, --tune-cmd */
    BUILD_VARIANT_N_PHASES = 4
} build_variant_phase;

/* What the remote cache did for a job (docs/REMOTE_CACHE.md). */
typedef enum build_variant_remote {
    BUILD_VARIANT_REMOTE_NONE = 0,     /* not asked */
    BUILD_VARIANT_REMOTE_HIT = 1,      /* taken from the cache, checked here */
    BUILD_VARIANT_REMOTE_MISS = 2,     /* not there: built */
    BUILD_VARIANT_REMOTE_REJECTED = 3, /* there, but wrong (remote_note says why): built */
    BUILD_VARIANT_REMOTE_FAILED = 4,   /* the request failed (remote_note): built; the worker
                               stopped asking */
    BUILD_VARIANT_REMOTE_RETRY = 5     /* there, but it failed the checks after the driver had
                               it (remote_note): not built; build it in a fresh
                               worker (status BUILD_VARIANT_ERROR) */
} build_variant_remote;

typedef enum build_variant_upload {
    BUILD_VARIANT_UPLOAD_NONE = 0,     /* nothing uploaded (read-only, not built, off) */
    BUILD_VARIANT_UPLOAD_DONE = 1,     /* uploaded */
    BUILD_VARIANT_UPLOAD_FAILED = 2    /* the upload failed (remote_note): the worker stopped
                               uploading */
} build_variant_upload;

/* One stored form of the program. */
typedef struct build_variant_form {
    clcpack_binary_kind kind;
    uint32_t arch;
    unsigned char *data;   /* malloc'd */
    size_t size;
    char target[CLCPACK_TARGET_MAX + 1]; /* offline kinds: the entry's target; else "" */
} build_variant_form;

typedef struct build_variant_result {
    build_variant_status status;
    char *message;         /* one line, what failed; malloc'd or NULL */
    char *log;             /* CL_PROGRAM_BUILD_LOG on a build failure, the check
                              command's output when it failed; malloc'd or NULL */
    char *note;            /* a non-fatal problem (ptxas failed: PTX only); malloc'd or NULL */
    size_t n_forms;
    build_variant_form forms[BUILD_VARIANT_MAX_FORMS];
    size_t n_kernel_names; /* CL_PROGRAM_KERNEL_NAMES, sorted */
    char **kernel_names;
    double build_s;        /* wall time of the whole step, for -v */
    double phase_s[BUILD_VARIANT_N_PHASES]; /* where that time went (build_variant_phase), for -v */
    size_t n_tunings;      /* --tune, --tune-cmd: the timings taken */
    clcpack_tuning tunings[TUNE_OPTIONS_MAX_WIDTHS];
    int signal;            /* worker_pool.c: the signal that killed the worker
                              running the job, else 0 (never sent on the wire) */
    build_variant_remote remote;      /* the remote cache's lookup */
    build_variant_upload upload;      /* and upload */
    char *remote_note;     /* why a lookup failed or its object was refused;
                              malloc'd or NULL */
    char *upload_note;     /* why the upload failed; malloc'd or NULL */
    build_variant_remote local;       /* the variant cache's lookup (docs/CACHE.md): none,
                                         hit, miss, rejected or retry, as the remote's */
    int local_stored;      /* written to the variant cache */
    char *local_note;      /* why its entry was refused, or why a store failed;
                              malloc'd or NULL */
} build_variant_result;

typedef struct build_variant_options {
    int check;             /* the hook compares with its reference (1) or only launches (0) */
    int warmup;            /* 0: no launch at all (only for benchmarks) */
    double tol;            /* the hook's tolerance */
    int roundtrip;         /* load each form back and compare (default 1) */
    tune_options tune;       /* --tune: time the variant after taking its binary */
    int check_timeout_s;   /* the time limit of the job's check and tune commands */
    const char *work_dir;  /* where the check command's binary files go (absolute
                              in a worker: {binary} is its path) */
    const check_cmd_place *user_place; /* where either runs and the environment it gets
                                   back (check_cmd.h); NULL: here, as it is */
    const char *pocl_helper; /* clc-pack's own path: on PoCL, runs of it as a helper give
                                each binary every work-group function of its local
                                size (pocl_wg.h); NULL: none, the binary holds the
                                forms this process made */
    int pocl_small_in_env;   /* this process's POCL_BINARY_SPECIALIZE_WG names the
                                small-grid forms of every job's local size
                                (pocl_wg_spec_jobs): one helper run a job, not two */
    int pocl_small_grids;    /* --pocl-grids small: no large-grid forms */
} build_variant_options;

/* The options clc-pack uses. */
void build_variant_default_options(build_variant_options *o);

/* Builds job on t; hook may be NULL (then a job that names a check is an
 * error). Always fills *r (free with build_variant_result_free); r->status says how it
 * went. */
void build_variant_build(build_variant_target *t, const build_job *job, const build_variant_options *o, const check_hook *hook,
              build_variant_result *r);

/* build_variant_build, and *signature (malloc'd; NULL when the build failed) the
 * source build's kernel signature (roundtrip_signature): what the remote cache's
 * record keeps for the checks of a reader (build_variant_adopt). */
void build_variant_build_signed(build_variant_target *t, const build_job *job, const build_variant_options *o,
                     const check_hook *hook, build_variant_result *r, char **signature);

/* A variant taken from elsewhere (the remote cache) instead of built: its
 * forms (moved into r; *n_forms is then 0), the kernel signature of the
 * source build that made them (roundtrip_signature) and the kernel names get
 * the checks build_variant_build gives a binary before it is stored — on PoCL the
 * binary must be in canonical form before the driver sees it; each form
 * this device can load made into a program and compared with the
 * signature, the kernels the job asks for held, its work-group fitting
 * the device and every kernel, --check-cmd run on it — and r is filled as
 * build_variant_build fills it (status BUILD_VARIANT_OK, or what failed). The seed check is not
 * run again: it ran where the variant was built. Returns 0 when all
 * passed, 1 when a check failed before the driver saw the binary, 2 when
 * after (the driver may have kept something of it, e.g. in PoCL's kernel
 * cache, that a build in this process could then pick up). */
int build_variant_adopt(build_variant_target *t, const build_job *job, const build_variant_options *o, const char *signature,
             char *const *names, size_t n_names, const char *note, build_variant_form *forms,
             size_t *n_forms, build_variant_result *r);

/* A variant from this machine's variant cache, whose entry was stored
 * only after every check of build_variant_adopt passed on a device and
 * driver its key names: r filled as build_variant_adopt fills it, with the
 * checks that need no device (on PoCL, the binary's canonical form) and
 * no load (no context needed). 0 when they passed, 1 when not. */
int build_variant_adopt_unloaded(const build_variant_target *t, const build_job *job,
                                 const build_variant_options *o, char *const *names,
                                 size_t n_names, const char *note, build_variant_form *forms,
                                 size_t *n_forms, build_variant_result *r);

void build_variant_result_free(build_variant_result *r);

#endif /* CLC_BUILD_VARIANT_H */
