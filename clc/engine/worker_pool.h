/*
 * worker_pool.h — runs jobs in worker processes (the build workers of
 * worker_main.h, the load workers of `verify --load`) and hands each result
 * back as it arrives, in any order.
 *
 * Workers are started with posix_spawn (never a bare fork: the caller has
 * OpenCL driver threads running) as `exe worker_argv...`; each gets one job
 * at a time, so the work spreads evenly. A worker that dies mid-job turns
 * that job into a BUILD_VARIANT_ERROR result naming the signal or exit status (the
 * signal also in r->signal), and a fresh worker takes its place.
 * Single-threaded; the callbacks run on the caller's thread.
 */
#ifndef CLC_WORKER_POOL_H
#define CLC_WORKER_POOL_H

#include <stddef.h>

#include "build_variant.h"
#include "wire.h"

typedef struct worker_pool_callbacks {
    void *ctx;
    /* A job was handed to the worker in slot worker (0 to the number of
     * workers less one; a worker that dies is replaced in its slot). May
     * be NULL. */
    void (*started)(void *ctx, size_t job, size_t worker);
    /* A job is done; r is freed after the call. */
    void (*finished)(void *ctx, size_t job, build_variant_result *r);
    /* Called a few times a second while waiting. May be NULL. */
    void (*tick)(void *ctx);
    /* make's jobserver (jobserver.h), or NULL: then a job runs on a
     * second or further worker only while a token is held for it; tokens
     * go back as soon as fewer jobs run. */
    struct jobserver *slots;
    /* Idle workers lend their cores to busy ones once no job is left,
     * and the slots of n_workers no worker holds (fewer jobs than that)
     * are lent from the start (spare_slots.h; never with slots): for
     * build workers, whose ptxas runs can use them. 0: the workers get no
     * spare-slot pipe. */
    int lend_idle;
    /* Asked before each job is handed out and while waiting: non-zero
     * stops the run (an interrupt): no further job starts, the running
     * ones finish and get their finished call, and worker_pool_run returns 0;
     * the jobs never started get no call. May be NULL. */
    int (*stop)(void *ctx);
    /* A job failed (r->status is not BUILD_VARIANT_OK; died: its worker died running
     * it, and r says how): return 1 to hand the job out once more, to a
     * fresh worker (the one that ran it is ended, with whatever the
     * failure left in it; the caller may first change jobs[job]; finished
     * is then not called for this result), 0 to have it finished with r.
     * May be NULL. */
    int (*retry)(void *ctx, size_t job, const build_variant_result *r, int died);
    /* A worker started before the run (worker_pool_standby_start), or
     * NULL. It takes the first worker's slot when it was started with this
     * run's exe, argv and show_output, and its spare-slot pipe becomes the
     * run's; otherwise it is stopped.
     * The run owns it either way: the caller forgets it. */
    struct worker_pool_standby *standby;
    /* Where the workers go at the end of the run, let go and not waited
     * for (their drivers' teardown overlaps what the caller does next),
     * for the caller's child_exits_reap; NULL: waited for before the
     * return. */
    struct child_exits *exits;
} worker_pool_callbacks;

/* A worker process started ahead of its run, so that its start (an
 * OpenCL driver's initialisation, a device's context: over a second on
 * an NVIDIA GPU) overlaps what the caller does meanwhile. */
typedef struct worker_pool_standby worker_pool_standby;

/* Starts exe worker_argv now, as worker_pool_run would (show_output the
 * same), with a spare-slot pipe of its own that nothing is lent on until
 * a run takes it. NULL with err when it cannot. */
worker_pool_standby *worker_pool_standby_start(const char *exe, char *const worker_argv[],
                                               int show_output, char *err, size_t cap);

/* Ends a standby worker no run took (it sees the end of its jobs and
 * exits) and frees it. NULL: nothing. */
void worker_pool_standby_stop(worker_pool_standby *s);

/* The absolute path of the running program (for re-executing it), from
 * /proc/self/exe, else argv0 resolved through PATH. 0, or -1. */
int worker_pool_self_exe(const char *argv0, char *out, size_t cap);

/* Runs jobs[0..n_jobs) (each a whole job frame, its id its index) on up to
 * n_workers workers started as exe with argv worker_argv (NULL-terminated,
 * worker_argv[0] being the program name shown by ps). The workers' stdout
 * and stderr (driver chatter: compilers that print as they go) go to our
 * stderr when show_output, else to /dev/null; what matters comes back in
 * the results. group may be NULL; else jobs with the same group[i] never
 * run at the same time (jobs that share a driver cache entry: see
 * cmd_pack.c). Returns 0 once every job has had its finished call; -1 with
 * err when no worker can be started (jobs not run then get no call). */
int worker_pool_run(const char *exe, char *const worker_argv[], size_t n_workers, int show_output,
              const strbuf *jobs, const size_t *group, size_t n_jobs,
              const worker_pool_callbacks *cb, char *err, size_t cap);

/* The same for the n_jobs job ids order[0..n_jobs) (indices into jobs and
 * group), handed out in that order: the longest builds first keep every
 * worker busy to the end. order NULL: 0..n_jobs-1. */
int worker_pool_run_order(const char *exe, char *const worker_argv[], size_t n_workers,
                    int show_output, const strbuf *jobs, const size_t *group,
                    const size_t *order, size_t n_jobs, const worker_pool_callbacks *cb, char *err,
                    size_t cap);

#endif /* CLC_WORKER_POOL_H */
