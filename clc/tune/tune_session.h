/*
 * tune_session.h — one tuning run: the strategy's configurations built in
 * parallel by build workers and timed, one at a time, by the device's one
 * timing worker (tune_worker.h), each checked against the reference before
 * its time counts; a configuration that fails to build, breaks the
 * device's or the kernel's limits, crashes or hangs its worker, or gives a
 * wrong output is recorded with its T4 invalidity and the run goes on.
 *
 * On a CPU device (PoCL) the builds would take the very cores the timed
 * kernel runs on: there a batch is built first, then timed with no build
 * running. On a GPU the builds of the next configurations run while one is
 * timed.
 *
 * Nothing here prints; progress goes to the caller's callback.
 */
#ifndef CLC_TUNE_SESSION_H
#define CLC_TUNE_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "t1_spec.h"
#include "tune_procs.h"
#include "tune_proto.h"
#include "tune_space.h"

#define TUNE_SESSION_ERR_MAX 2048

/* One configuration's outcome: a T4 result. */
typedef struct tune_result {
    uint64_t raw;
    tune_verdict verdict;
    double timestamp;      /* seconds since the epoch, when it was done */
    double compile_s, load_s, validation_s, framework_s;
    double error;          /* the comparison's worst measure */
    uint32_t n_runs;
    double *runs_ns;       /* malloc'd */
    double median_ns;      /* INFINITY unless correct */
    char *message;         /* malloc'd; NULL when correct */
    int resumed;           /* from an earlier run's results, not run now */
} tune_result;

typedef struct tune_results {
    tune_result *r;
    size_t n, cap;
    double wall_s;
    size_t n_built, n_timed;
    double build_s;        /* the builds, summed */
    double time_s;         /* the timing worker's work (load, check, runs), summed */
    double timer_setup_s;  /* the timing worker's start (device, arguments) */
    double builder_setup_s; /* the slowest build worker's start */
    size_t n_builders;     /* build workers started */
    size_t n_timer_built;  /* builds the timing worker did while it had nothing to time */
} tune_results;

void tune_results_free(tune_results *rs);
/* Appends a copy of r (its runs and message copied). 0, or -1. */
int tune_results_add(tune_results *rs, const tune_result *r);
/* The fastest correct result, or NULL. */
const tune_result *tune_results_best(const tune_results *rs);

typedef struct tune_session_options {
    const char *exe;       /* the clc-pack to start as workers */
    unsigned platform_index, device_index;
    int cpu_device;        /* builds and timings never overlap */
    size_t jobs;           /* build workers */
    const char *strategy;  /* NULL: the spec's Search.Name */
    t1_budget_kind budget_kind; /* T1_BUDGET_NONE: the spec's Budget */
    double budget_value;
    uint64_t seed;
    unsigned runs;         /* timed launches per configuration */
    double tolerance;      /* the default check's */
    double build_timeout_s, run_timeout_s;
    const char *reference; /* "NAME=V,..." or NULL: the configuration whose outputs are
                              the reference when the spec gives none */
    const char *workdir;   /* a private folder for the workers */
    int show_worker_output;
    const tune_results *previous; /* results of an earlier run to resume from, or NULL */
    /* Kernel Tuner's simulation mode: no worker, no device; each
     * configuration's outcome is the one these results hold (an
     * exhaustive run's), or runtime "not in the simulation's results".
     * NULL: a real run. */
    const tune_results *simulate;
    void *ctx;
    /* After each configuration is done (r), with how many are done of how
     * many the budget allows (0: no bound known). May be NULL. */
    void (*done)(void *ctx, const tune_result *r, size_t n_done, size_t n_planned);
    /* Where the workers go when the search ends, ending while the caller
     * goes on (the pack of the kept configurations), for it to reap
     * (child_exits_reap); NULL: they are waited for before the return. */
    child_exits *exits;
} tune_session_options;

/* Runs the search; out gets every configuration tried, the previous
 * results first. 0, or -1 with err when the run could not go on (no
 * worker could start, the --reference configuration failed). */
int tune_session_run(const tune_session_options *o, const t1_spec *s, const tune_space *sp,
                     tune_results *out, char err[TUNE_SESSION_ERR_MAX]);

/* How many build workers the builds left need (at most max): a worker is
 * worth starting while the builds left would take it longer than its own
 * start. per_build: a build's seconds so far; builder_setup_s: the slowest
 * build worker's start so far (0: none known yet); timer_setup_s: the
 * timing worker's start (0: not known), the estimate until a build worker
 * has one. */
size_t tune_session_builders_wanted(size_t left, double per_build, double builder_setup_s,
                                    double timer_setup_s, size_t max);

#endif /* CLC_TUNE_SESSION_H */
