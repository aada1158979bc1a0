/*
 * pack_timings.h — `--timings FILE`: where a pack build's time went
 * (docs/TIMINGS.md). The run records, on the parent's monotonic clock,
 * when each job was handed to which worker slot and when its result came
 * back, with the steps' times the worker's result carries; the variants
 * reused from the old pack and the parent's own steps the same way. At the
 * end the record is written as Chrome's trace events (.json) or as a page
 * that draws them (.html). Nothing here changes what is built or written
 * into the pack.
 */
#ifndef CLC_PACK_TIMINGS_H
#define CLC_PACK_TIMINGS_H

#include <stddef.h>

#include "build_variant.h"
#include "strbuf.h"

struct pack_run;

typedef enum pack_timings_format {
    PACK_TIMINGS_NONE = 0,
    PACK_TIMINGS_HTML = 1,
    PACK_TIMINGS_JSON = 2
} pack_timings_format;

/* How a job ended, as the trace's "outcome" spells it. */
typedef enum pack_timings_outcome {
    PACK_TIMINGS_NOT_RUN = 0,   /* never handed out (the pool stopped) */
    PACK_TIMINGS_BUILT,
    PACK_TIMINGS_FAILED,
    PACK_TIMINGS_LOCAL_HIT,     /* the variant cache's */
    PACK_TIMINGS_REMOTE_HIT,
    PACK_TIMINGS_REUSED         /* copied from the old pack by the parent */
} pack_timings_outcome;

/* The parent's own steps, each one interval. */
typedef enum pack_timings_step {
    PACK_TIMINGS_SETUP = 0,     /* from the clock's start to the reuse of the old pack */
    PACK_TIMINGS_WRITE,         /* encoding and writing the pack */
    PACK_TIMINGS_MERGE,         /* --merge */
    PACK_TIMINGS_N_STEPS
} pack_timings_step;

/* One attempt at a job: seconds from the clock's start; worker 0 is the
 * parent, N the Nth worker slot. */
typedef struct pack_timings_span {
    double start_s, end_s;
    size_t worker;
} pack_timings_span;

typedef struct pack_timings_job {
    pack_timings_span span;          /* the attempt that ended it */
    pack_timings_span retried;       /* a first attempt handed to a fresh worker; attempts 2 */
    char retry_reason[160];
    unsigned attempts;
    pack_timings_outcome outcome;
    double build_s;                  /* the worker's, as in its result */
    double phase_s[BUILD_VARIANT_N_PHASES];
} pack_timings_job;

typedef struct pack_timings {
    pack_timings_format format;      /* NONE: --timings was not given; nothing is recorded */
    const char *path;
    double origin;                   /* progress_now() at the clock's start */
    size_t n_jobs;
    pack_timings_job *jobs;          /* malloc'd, n_jobs of them */
    pack_timings_span steps[PACK_TIMINGS_N_STEPS]; /* end_s 0: the step did not run */
} pack_timings;

/* The format FILE's extension picks: .html or .htm, .json (any case);
 * NONE for any other. */
pack_timings_format pack_timings_format_of(const char *path);

/* The clock starts now; path NULL leaves the record off (every call below
 * then does nothing). */
void pack_timings_start(pack_timings *t, const char *path);
void pack_timings_free(pack_timings *t);

/* Seconds on the record's clock (from its start). */
double pack_timings_now(const pack_timings *t);

/* Job j handed to worker slot w (from 0). */
void pack_timings_dispatched(pack_timings *t, size_t j, size_t w);
/* Job j's result read back: its times, and how it ended. */
void pack_timings_finished(pack_timings *t, size_t j, const build_variant_result *r,
                           pack_timings_outcome how);
/* Job j's attempt failed and goes to a fresh worker (why: its message). */
void pack_timings_retried(pack_timings *t, size_t j, const char *why);
/* Job j copied from the old pack between start_s and now. */
void pack_timings_reused(pack_timings *t, size_t j, double start_s);
/* A step of the parent's between start_s and now. */
void pack_timings_step_done(pack_timings *t, pack_timings_step s, double start_s);

/* pack_timings_trace.c: the record as a trace-event JSON document
 * (docs/TIMINGS.md) appended to out; the labels, devices and totals from
 * run. 0, or -1 out of memory. */
int pack_timings_trace(const struct pack_run *run, strbuf *out);

/* pack_timings_html.c: the page that draws a trace (trace_json, len bytes
 * of pack_timings_trace's text) appended to out. */
void pack_timings_page(const char *trace_json, size_t len, strbuf *out);

/* Before the builds: the file --timings names can be written and is not
 * the pack (-o); room for run's jobs. 0, or the exit status after saying
 * why. */
int pack_timings_setup(struct pack_run *run);
/* The file --timings names, written atomically in its format. 0, or -1
 * after saying why. */
int pack_timings_write(const struct pack_run *run);

#endif /* CLC_PACK_TIMINGS_H */
