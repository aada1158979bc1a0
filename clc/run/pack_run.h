/*
 * pack_run.h — one `clc-pack [pack]` run's state, shared by its parts:
 * the steps (cmd_pack.c), the worker side (pack_workers.c: the workers'
 * command line and the callbacks the pool calls as jobs start and end) and
 * the outputs (pack_outputs.c: the output's name, --merge, the depfile,
 * the summary) and --timings (pack_timings.h: where the time went).
 */
#ifndef CLC_PACK_RUN_H
#define CLC_PACK_RUN_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "child_exits.h"
#include "clcpack_write.h"
#include "device_select.h"
#include "jobserver.h"
#include "lcache_space.h"
#include "offline_targets.h"
#include "pack_args.h"
#include "pack_plan.h"
#include "pack_reuse.h"
#include "pack_timings.h"
#include "progress.h"
#include "ptxas_run.h"
#include "strbuf.h"
#include "worker_pool.h"

#define NVIDIA_VENDOR_ID 0x10DEu
#define LABEL_MAX 400
/* Job slots: the devices, then the offline toolchains. */
#define MAX_SLOTS (DEVICE_SELECT_MAX_DEVICES + OFFLINE_TARGETS_N_CHAINS)

/* The run's state, split by the step that owns each part: each part is
 * allocated by pack_run_new and freed by its owner's *_free (pack_run_free
 * calls them all), so no part is a fixed-size static and a run's size does
 * not grow the tool's bss. */

/* What to build: the plan and what the jobs' own commands ask of the run
 * (plan_pack, pack_count_user_cmds). */
typedef struct pack_run_inputs {
    const build_job_list *plan;        /* the variants, each built on every device */
    const build_job_list *whole;       /* the whole plan: plan is its --shard part */
    build_job_list part;               /* --shard: a view of the plan's jobs */
    size_t shard_total;                /* with --shard: the whole plan's variants */
    double shard_share;                /* with --shard: this part's share of the estimated cost */
    int seed_checks;                   /* some job has a seed reference check */
    /* The user's commands, which come with the jobs (a program's own, or
     * a manifest program block's): how many variants of the plan have a
     * check command; whether any job has a tune command. */
    size_t n_check_variants;
    int user_timings;
    /* clc-pack tune: timings measured before the build, per job (NULL
     * for none), stored with each of its entries. */
    const clcpack_tuning *const *given_tunings;
    const size_t *given_n_tunings;
} pack_run_inputs;

/* The devices and the job slots (select_devices, add_devices,
 * add_offline_slots): the devices, then the offline toolchains. Their
 * number is bounded by the device list's own limit
 * (DEVICE_SELECT_MAX_DEVICES) and the toolchains there are. */
typedef struct pack_run_slots {
    size_t n_dev;                           /* devices: slots 0..n_dev */
    const device_select_device *devs[DEVICE_SELECT_MAX_DEVICES];
    size_t n_slots;                         /* devices, then offline toolchains */
    uint32_t slot_wire[MAX_SLOTS];          /* the slot a worker is told */
    char slot_name[MAX_SLOTS][128];
    offline_targets_chain slot_chain[MAX_SLOTS];         /* slots from n_dev on */
    offline_targets_config offline;
    uint32_t dev_index[MAX_SLOTS];          /* in the writer's device table */
    clcpack_device_info dev_info[MAX_SLOTS];
    int any_nvidia;
} pack_run_slots;

/* The jobs and their workers (encode_jobs, order_jobs, run_workers and
 * pack_workers.c's callbacks); pack_run_work_free frees it. */
typedef struct pack_run_work {
    size_t n_jobs;
    strbuf *jobs;                           /* the job frames, re-encoded for a retry */
    unsigned char *retried;                 /* per job: handed out again once */
    char (*fail_reason)[160];               /* per job; "" when it did not fail */
    size_t *groups;                         /* pack_same_program_groups */
    size_t *order;                          /* the jobs to build, longest first */
    size_t n_pending;
    double *cost;                           /* per job: estimated seconds */
    char **wargv;                           /* a worker's command line */
    char work_root[4096];                   /* then: the workers' private folders are in it */
    char lock_dir[4096];                    /* --tune, a tune command on a GPU: the device locks'
                                               folder (device_lock.h), or "" */
    struct pack_run_standby *standby;       /* a first worker started ahead, or NULL:
                                               taken by the pool (pack_run_standby_start) */
    pack_reuse_times times;                 /* build times of earlier runs */
    child_exits exits;                      /* the workers, let go when the builds end and
                                               reaped when the run is freed */
    size_t n_ok, n_failed, n_reused;
    double build_s;                         /* summed over the variants */
    size_t n_timed;                         /* --tune, --tune-cmd: variants with a timing */
    size_t n_checked;                       /* jobs (a variant on a slot) that passed their check command */
} pack_run_work;

/* The pack written: its name, the writer, ptxas (choose_output,
 * setup_writer, write_pack). */
typedef struct pack_run_output {
    char *output;                           /* malloc'd */
    clcpack_writer *w;
    char ptxas[PTXAS_PATH_MAX];             /* "" when no cubins are made */
    int no_ptxas;                           /* --ptxas none */
    char merge_ptxas[PTXAS_PATH_MAX];       /* for the PTX of --merge packs, or "" */
} pack_run_output;

/* A distinct build log printed so far, and the job it was printed for. */
typedef struct pack_run_log {
    uint64_t hash;
    char label[LABEL_MAX];
} pack_run_log;

/* What the user sees as it runs: the progress line, the build logs
 * already printed (grown as failures come), --timings. */
typedef struct pack_run_report {
    progress prog;
    strbuf logs;                            /* pack_run_log records, grown as failures come */
    pack_timings timings;                   /* --timings: off unless given */
} pack_run_report;

/* The caches (pack_cache.c): the remote cache
 * (docs/REMOTE_CACHE.md), its URL or NULL and what it did; the variant
 * cache (docs/CACHE.md), its folder or "" and what it did. */
typedef struct pack_run_caches {
    const char *remote_url;
    char *remote_url_buf;                   /* remote_url, malloc'd */
    int remote_lookups;                     /* workers look variants up (not with --tune, a tune command) */
    int remote_readonly;
    long remote_timeout;
    size_t n_hits, n_misses, n_uploaded, n_rejected, n_request_errors;
    int said_request_error, said_upload_error;
    char local_dir[4096];
    int local_lookups;                      /* workers look variants up (not with --tune, --tune-cmd) */
    uint64_t local_bound;                   /* CLC_PACK_CACHE_SIZE */
    size_t n_local_hits, n_local_misses, n_local_stored, n_local_rejected;
    int said_local_store_error;
    lcache_space_usage local_usage;         /* after the run's eviction */
} pack_run_caches;

typedef struct pack_run {
    const pack_args *a;
    pack_run_inputs *in;
    pack_run_slots *slots;
    pack_run_work *work;
    pack_run_output *out;
    pack_run_report *rep;
    pack_run_caches *cache;
} pack_run;

/* A run of the options a, every part allocated and empty; NULL out of
 * memory. pack_run_free frees it, each part by its owner. */
pack_run *pack_run_new(const pack_args *a);
void pack_run_free(pack_run *run);
/* The owners' frees (pack_workers.c, pack_cache.c). */
void pack_run_work_free(pack_run_work *work);
void pack_run_report_free(pack_run_report *rep);
void pack_cache_free(pack_run_caches *cache);

/* "KERNEL DEFINES wg=.. on DEVICE": job's name in messages. */
void pack_job_label(const pack_run *run, size_t job, char *buf, size_t cap);

/* pack_workers.c: the callbacks the worker pool calls for run's jobs. */
worker_pool_callbacks pack_worker_callbacks(pack_run *run, jobserver *js);
/* Jobs that must not build at the same time, for the pool (worker_pool.h):
 * group[job] (malloc'd; NULL out of memory), equal for such jobs. */
size_t *pack_same_program_groups(const pack_run *run);

/* What the jobs' own check and tune commands (build_job.h) ask of the
 * run: run->in->n_check_variants and run->in->user_timings, from run->in->plan. */
void pack_count_user_cmds(pack_run *run);

/* One line (unless -q) for a variant a cache ("local", "remote") held but
 * its checks refused: why, and that it is built here or, retry, in a
 * fresh worker (pack_workers.c). */
void pack_cache_refused(pack_run *run, const char *cache, const char *label, const char *why,
                        int retry);
/* The worker command line (NULL out of memory); pack_free_argv frees it. */
char **pack_worker_argv(const pack_run *run, const char *ptxas);
void pack_free_argv(char **argv);

/* A plan made elsewhere (clc-pack tune's kept configurations), packed as
 * the direct mode packs its variants: argv holds the pack options (device,
 * -o, -j, -q ...) as `clc-pack` takes them; tunings[j] (n_tunings[j] of
 * them) are job j's timings. The exit status. */
int pack_run_plan(int argc, char **argv, build_job_list *plan, const clcpack_tuning *const *tunings,
                  const size_t *n_tunings, struct pack_run_standby *standby);

/* A pack run's first worker, started before its plan is known: for a
 * plan made elsewhere that takes long to make (clc-pack tune's search),
 * so that the worker's start (an NVIDIA context: over a second) is over
 * when the plan comes. Started with pack_run_plan's argv and a sample
 * plan like the one to come (the same program and options but for their
 * values); pack_run_plan takes it when its own first worker's command
 * line is the same, and stops it otherwise: a standby never changes what
 * is built, only when the first worker is ready. NULL when it cannot be
 * started: nothing is said (the real run says what is wrong). */
typedef struct pack_run_standby pack_run_standby;
pack_run_standby *pack_run_standby_start(int argc, char **argv, build_job_list *sample);
/* A standby no run took: stopped and freed. NULL: nothing. */
void pack_run_standby_stop(pack_run_standby *s);

/* What --help and --version print: the command's own texts, given by the
 * command (clc/cli/), which the run is below. */
typedef struct pack_run_texts {
    void (*usage)(FILE *f);
    void (*version)(FILE *f);
} pack_run_texts;

/* The whole run from a `clc-pack [pack]` command line (pack_args.h):
 * the plan made from the options, then as pack_run_plan. The exit status. */
int pack_run_args(int argc, char **argv, const pack_run_texts *texts);

/* pack_cache.c: the variant cache's bound (CLC_PACK_CACHE_SIZE, else the
 * default; *from says which) and folder: 0, or the exit status of a bad
 * CLC_PACK_CACHE_SIZE (a usage error of cmd, NULL for pack); what a job's
 * worker did with it, counted and said; at the end the bound kept and the
 * counts added; the summary's "local" line; "118.2 MiB". */
int pack_cache_bound(const char *cmd, uint64_t *bound, const char **from);
int pack_cache_setup(pack_run *run, const pack_args *a);
/* The remote cache's URL, lookups, upload and time limit from the options
 * and the environment (docs/REMOTE_CACHE.md). 0, or the exit status. */
int pack_remote_setup(pack_run *run, const pack_args *a);
void pack_cache_outcome(pack_run *run, const build_variant_result *r, const char *label);
void pack_cache_finish(pack_run *run);
void pack_cache_summary(const pack_run *run);
void pack_cache_human_size(uint64_t n, char *out, size_t cap);

/* pack_outputs.c */
int pack_default_output(const pack_run *run, char *out, size_t cap);
void pack_print_summary(const pack_run *run, const char *path, double wall_s, int written);
int pack_write_depfile(const pack_args *a, const build_job_list *plan, const char *output);
int pack_merge_into(const pack_args *a, const char *built, const char *output,
                    const char *merge_ptxas);

#endif /* CLC_PACK_RUN_H */
