/* pack_timings.c — the record of `--timings` (pack_timings.h): the times
 * taken as the run goes, and the file written at its end. */
#include "pack_timings.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bounded_fmt.h"
#include "cli_files.h"
#include "cli_report.h"
#include "file_atomic.h"
#include "pack_run.h"
#include "progress.h"

pack_timings_format pack_timings_format_of(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    if (!dot || strchr(dot, '/'))
        return PACK_TIMINGS_NONE;
    if (strcasecmp(dot, ".html") == 0 || strcasecmp(dot, ".htm") == 0)
        return PACK_TIMINGS_HTML;
    if (strcasecmp(dot, ".json") == 0)
        return PACK_TIMINGS_JSON;
    return PACK_TIMINGS_NONE;
}

void pack_timings_start(pack_timings *t, const char *path)
{
    memset(t, 0, sizeof *t);
    t->origin = progress_now();
    t->path = path;
    t->format = pack_timings_format_of(path);
}

/* Room for n_jobs jobs. 0, or -1 out of memory (the record is then off). */
static int room_for_jobs(pack_timings *t, size_t n_jobs)
{
    if (t->format == PACK_TIMINGS_NONE)
        return 0;
    free(t->jobs);
    t->jobs = calloc(n_jobs ? n_jobs : 1, sizeof *t->jobs);
    if (!t->jobs) {
        t->format = PACK_TIMINGS_NONE;
        t->n_jobs = 0;
        return -1;
    }
    t->n_jobs = n_jobs;
    return 0;
}

void pack_timings_free(pack_timings *t)
{
    free(t->jobs);
    memset(t, 0, sizeof *t);
}

double pack_timings_now(const pack_timings *t) { return progress_now() - t->origin; }

/* Job j's record, or NULL when nothing is recorded. */
static pack_timings_job *job_of(pack_timings *t, size_t j)
{
    return t->format != PACK_TIMINGS_NONE && j < t->n_jobs ? &t->jobs[j] : NULL;
}

void pack_timings_dispatched(pack_timings *t, size_t j, size_t w)
{
    pack_timings_job *tj = job_of(t, j);
    if (!tj)
        return;
    tj->span.start_s = pack_timings_now(t);
    tj->span.end_s = tj->span.start_s;
    tj->span.worker = w + 1;
    tj->attempts++;
}

void pack_timings_finished(pack_timings *t, size_t j, const build_variant_result *r,
                           pack_timings_outcome how)
{
    pack_timings_job *tj = job_of(t, j);
    if (!tj)
        return;
    tj->span.end_s = pack_timings_now(t);
    tj->outcome = how;
    tj->build_s = r->build_s;
    memcpy(tj->phase_s, r->phase_s, sizeof tj->phase_s);
}

void pack_timings_retried(pack_timings *t, size_t j, const char *why)
{
    pack_timings_job *tj = job_of(t, j);
    if (!tj)
        return;
    tj->retried = tj->span;
    tj->retried.end_s = pack_timings_now(t);
    bfmt(tj->retry_reason, sizeof tj->retry_reason, "%s", why ? why : "no reason given");
}

void pack_timings_reused(pack_timings *t, size_t j, double start_s)
{
    pack_timings_job *tj = job_of(t, j);
    if (!tj)
        return;
    tj->span = (pack_timings_span){start_s, pack_timings_now(t), 0};
    tj->attempts = 1;
    tj->outcome = PACK_TIMINGS_REUSED;
}

void pack_timings_step_done(pack_timings *t, pack_timings_step s, double start_s)
{
    if (t->format == PACK_TIMINGS_NONE)
        return;
    t->steps[s] = (pack_timings_span){start_s, pack_timings_now(t), 0};
}

int pack_timings_setup(pack_run *run)
{
    pack_timings *t = &run->rep->timings;
    if (t->format == PACK_TIMINGS_NONE)
        return 0;
    int rc = cli_check_output(NULL, "--timings", t->path, 0);
    if (rc != 0)
        return rc;
    if (strcmp(t->path, run->out->output) == 0)
        return cli_usage_error(NULL, "--timings %s is the pack's own file (-o): name another",
                               t->path);
    if (room_for_jobs(t, run->work->n_jobs) != 0) {
        cli_error("--timings: out of memory for %zu jobs", run->work->n_jobs);
        return EXIT_FAILURE_STATUS;
    }
    return 0;
}

int pack_timings_write(const pack_run *run)
{
    const pack_timings *t = &run->rep->timings;
    if (t->format == PACK_TIMINGS_NONE)
        return 0;
    strbuf trace, page;
    sb_init(&trace);
    sb_init(&page);
    int html = t->format == PACK_TIMINGS_HTML;
    int rc = pack_timings_trace(run, &trace);
    const strbuf *out = &trace;
    if (rc == 0 && html) {
        pack_timings_page((const char *)trace.data, trace.len, &page);
        out = &page;
    }
    clcpack_error e;
    if (rc != 0 || out->failed) {
        cli_error("--timings %s: out of memory", t->path);
        rc = -1;
    } else if (clcpk_write_file_atomic(t->path, out->data, out->len, &e) != CLCPACK_OK) {
        cli_error("--timings: %s", e.message);
        rc = -1;
    } else if (cli_verbosity > 0) {
        fprintf(stderr, "clc-pack: wrote the timings to %s\n", t->path);
    }
    sb_free(&trace);
    sb_free(&page);
    return rc;
}
