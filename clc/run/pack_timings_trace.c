/* pack_timings_trace.c — the record of `--timings` as Chrome's trace
 * events (docs/TIMINGS.md, "The trace"), built with jansson, the kept JSON
 * library: labels and device names are the user's bytes, which jansson
 * escapes (and refuses when they are not UTF-8: those are then left out of
 * the label rather than the file). */
#include "pack_timings.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "pack_run.h"

/* The trace's names of the steps, in the order a worker runs them. */
static const struct {
    build_variant_phase phase;
    const char *name, *field;
} steps_in_order[BUILD_VARIANT_N_PHASES] = {
    {BUILD_VARIANT_PHASE_COMPILE, "compile", "compile_us"},
    {BUILD_VARIANT_PHASE_CHECK, "check", "check_us"},
    {BUILD_VARIANT_PHASE_FORMS, "forms", "forms_us"},
    {BUILD_VARIANT_PHASE_ROUNDTRIP, "round trip", "roundtrip_us"},
};

static const char *const outcome_names[] = {"not run", "built", "failed", "local cache",
                                            "remote cache", "reused"};

static const char *const step_names[PACK_TIMINGS_N_STEPS] = {"set up", "encode and write",
                                                             "merge"};

static json_int_t us(double s) { return (json_int_t)llround(s * 1e6); }

/* A string jansson takes: text not valid UTF-8 becomes "?" (a label is
 * for reading, the pack keeps the exact bytes). */
static json_t *text(const char *s)
{
    json_t *v = json_string(s);
    return v ? v : json_string("?");
}

/* Adds one event; takes args (may be NULL). 0, or -1. */
static int add_event(json_t *events, const char *name, const char *cat, const char *ph,
                     double start_s, double dur_s, size_t tid, json_t *args)
{
    json_t *e = json_object();
    if (!e || json_array_append_new(events, e) != 0) {
        json_decref(args);
        return -1;
    }
    int bad = json_object_set_new(e, "name", text(name));
    if (cat)
        bad |= json_object_set_new(e, "cat", json_string(cat));
    bad |= json_object_set_new(e, "ph", json_string(ph));
    if (strcmp(ph, "X") == 0) {
        bad |= json_object_set_new(e, "ts", json_integer(us(start_s)));
        bad |= json_object_set_new(e, "dur", json_integer(us(dur_s)));
    }
    bad |= json_object_set_new(e, "pid", json_integer((json_int_t)getpid()));
    bad |= json_object_set_new(e, "tid", json_integer((json_int_t)tid));
    if (args)
        bad |= json_object_set_new(e, "args", args);
    return bad ? -1 : 0;
}

/* A lane's name and place (metadata events). */
static int add_lane(json_t *events, size_t tid, const char *name)
{
    json_t *sort = json_pack("{sI}", "sort_index", (json_int_t)tid);
    return add_event(events, "thread_name", NULL, "M", 0, 0, tid, json_pack("{ss}", "name", name)) |
           add_event(events, "thread_sort_index", NULL, "M", 0, 0, tid, sort);
}

/* Job j's variant event and its steps' events. */
static int add_job(json_t *events, const pack_run *run, size_t j)
{
    const pack_timings_job *tj = &run->rep->timings.jobs[j];
    char label[LABEL_MAX];
    pack_job_label(run, j, label, sizeof label);
    const pack_timings_span *s = &tj->span;
    json_t *args = json_pack("{sIsosssI}", "job", (json_int_t)j, "device",
                             text(run->slots->slot_name[j / run->in->plan->n]), "outcome",
                             outcome_names[tj->outcome], "attempts", (json_int_t)tj->attempts);
    int bad = !args;
    if (args && tj->outcome != PACK_TIMINGS_REUSED) {
        bad |= json_object_set_new(args, "build_us", json_integer(us(tj->build_s)));
        for (size_t k = 0; k < BUILD_VARIANT_N_PHASES; k++)
            bad |= json_object_set_new(args, steps_in_order[k].field,
                                       json_integer(us(tj->phase_s[steps_in_order[k].phase])));
    }
    bad |= add_event(events, label, "variant", "X", s->start_s, s->end_s - s->start_s, s->worker,
                     args);
    /* The worker's steps, from the bar's start in the order it runs them,
     * never past the bar's end. */
    double at = s->start_s;
    for (size_t k = 0; tj->outcome != PACK_TIMINGS_REUSED && k < BUILD_VARIANT_N_PHASES; k++) {
        double d = tj->phase_s[steps_in_order[k].phase];
        if (d > s->end_s - at)
            d = s->end_s - at;
        if (us(d) <= 0)
            continue;
        bad |= add_event(events, steps_in_order[k].name, "phase", "X", at, d, s->worker,
                         json_pack("{sI}", "job", (json_int_t)j));
        at += d;
    }
    if (tj->attempts > 1) {
        const pack_timings_span *r = &tj->retried;
        bad |= add_event(events, label, "retried", "X", r->start_s, r->end_s - r->start_s,
                         r->worker, json_pack("{sIso}", "job", (json_int_t)j, "reason",
                                              text(tj->retry_reason)));
    }
    return bad ? -1 : 0;
}

/* The lanes' busy and idle time over the workers' span. */
static json_t *worker_totals(const pack_timings *t, size_t n_lanes, double from, double to)
{
    json_t *list = json_array();
    for (size_t w = 1; list && w <= n_lanes; w++) {
        double busy = 0;
        size_t n = 0;
        for (size_t j = 0; j < t->n_jobs; j++) {
            const pack_timings_span *s = &t->jobs[j].span;
            if (t->jobs[j].outcome != PACK_TIMINGS_NOT_RUN && s->worker == w) {
                busy += s->end_s - s->start_s;
                n++;
            }
            if (t->jobs[j].attempts > 1 && t->jobs[j].retried.worker == w)
                busy += t->jobs[j].retried.end_s - t->jobs[j].retried.start_s;
        }
        double idle = to - from - busy;
        json_array_append_new(list, json_pack("{sIsIsIsI}", "tid", (json_int_t)w, "variants",
                                              (json_int_t)n, "busy_us", us(busy), "idle_us",
                                              us(idle > 0 ? idle : 0)));
    }
    return list;
}

/* key: n, an integer; 1 when it could not be set. */
static int put_int(json_t *o, const char *key, json_int_t n)
{
    return json_object_set_new(o, key, json_integer(n)) != 0;
}

/* The totals (otherData); n_lanes the worker slots. */
static json_t *totals(const pack_run *run, size_t n_lanes)
{
    const pack_timings *t = &run->rep->timings;
    double from = -1, to = 0, end = 0;
    size_t by[PACK_TIMINGS_REUSED + 1] = {0};
    for (size_t j = 0; j < t->n_jobs; j++) {
        const pack_timings_job *tj = &t->jobs[j];
        by[tj->outcome]++;
        end = tj->span.end_s > end ? tj->span.end_s : end;
        if (tj->outcome == PACK_TIMINGS_NOT_RUN || tj->outcome == PACK_TIMINGS_REUSED)
            continue;
        double first = tj->attempts > 1 ? tj->retried.start_s : tj->span.start_s;
        from = from < 0 || first < from ? first : from;
        to = tj->span.end_s > to ? tj->span.end_s : to;
    }
    if (from < 0)
        from = to = 0;
    for (int s = 0; s < PACK_TIMINGS_N_STEPS; s++)
        end = t->steps[s].end_s > end ? t->steps[s].end_s : end;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cores = cores > 0 ? cores : 1;
    double write_s = t->steps[PACK_TIMINGS_WRITE].end_s - t->steps[PACK_TIMINGS_WRITE].start_s +
                     t->steps[PACK_TIMINGS_MERGE].end_s - t->steps[PACK_TIMINGS_MERGE].start_s;
    json_t *o = json_pack("{ssso}", "format", "clc-pack timings 1", "output", text(run->out->output));
    if (!o)
        return NULL;
    int bad = put_int(o, "variants", (json_int_t)t->n_jobs);
    bad |= put_int(o, "built", (json_int_t)by[PACK_TIMINGS_BUILT]);
    bad |= put_int(o, "failed", (json_int_t)by[PACK_TIMINGS_FAILED]);
    bad |= put_int(o, "local_hits", (json_int_t)by[PACK_TIMINGS_LOCAL_HIT]);
    bad |= put_int(o, "remote_hits", (json_int_t)by[PACK_TIMINGS_REMOTE_HIT]);
    bad |= put_int(o, "reused", (json_int_t)by[PACK_TIMINGS_REUSED]);
    bad |= put_int(o, "jobs", (json_int_t)run->a->jobs);
    bad |= put_int(o, "cores", (json_int_t)cores);
    bad |= put_int(o, "wall_us", us(end));
    bad |= put_int(o, "builds_us", us(run->work->build_s));
    bad |= put_int(o, "cpu_limit_us", us(run->work->build_s / (double)cores));
    bad |= put_int(o, "write_us", us(write_s));
    bad |= put_int(o, "workers_start_us", us(from));
    bad |= put_int(o, "workers_end_us", us(to));
    json_t *workers = worker_totals(t, n_lanes, from, to);
    bad |= !workers || json_object_set_new(o, "workers", workers) != 0;
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* The worker slots the pool started: -j, no more than there were jobs
 * to hand out, and every slot a job ran on. */
static size_t lanes(const pack_run *run)
{
    size_t n = (size_t)(run->a->jobs > 0 ? run->a->jobs : 1);
    n = n < run->work->n_pending ? n : run->work->n_pending;
    for (size_t j = 0; j < run->rep->timings.n_jobs; j++)
        if (run->rep->timings.jobs[j].span.worker > n)
            n = run->rep->timings.jobs[j].span.worker;
    return n;
}

/* Every event: the lanes, the parent's steps, the jobs. */
static int add_events(json_t *events, const pack_run *run, size_t n_lanes)
{
    const pack_timings *t = &run->rep->timings;
    char name[4200];
    bfmt(name, sizeof name, "clc-pack %s", run->out->output);
    int bad = add_event(events, "process_name", NULL, "M", 0, 0, 0,
                        json_pack("{so}", "name", text(name)));
    bad |= add_lane(events, 0, "clc-pack");
    for (size_t w = 1; w <= n_lanes; w++) {
        char lane[32];
        bfmt(lane, sizeof lane, "worker %zu", w);
        bad |= add_lane(events, w, lane);
    }
    for (int s = 0; s < PACK_TIMINGS_N_STEPS; s++)
        if (t->steps[s].end_s > 0)
            bad |= add_event(events, step_names[s], "step", "X", t->steps[s].start_s,
                             t->steps[s].end_s - t->steps[s].start_s, 0, NULL);
    for (size_t j = 0; j < t->n_jobs && !bad; j++)
        if (t->jobs[j].outcome != PACK_TIMINGS_NOT_RUN)
            bad |= add_job(events, run, j);
    return bad ? -1 : 0;
}

/* v as compact JSON appended to out. 0, or -1. */
static int put_json(strbuf *out, const json_t *v)
{
    char *textual = v ? json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    if (!textual)
        return -1;
    sb_puts(out, textual);
    free(textual);
    return 0;
}

int pack_timings_trace(const pack_run *run, strbuf *out)
{
    size_t n_lanes = lanes(run);
    json_t *events = json_array();
    json_t *other = totals(run, n_lanes);
    int bad = !events || !other || add_events(events, run, n_lanes) != 0;
    /* One event a line, each written by jansson: a diff or a grep of two
     * traces reads event by event. */
    sb_puts(out, "{\"traceEvents\": [\n");
    for (size_t i = 0; !bad && i < json_array_size(events); i++) {
        bad |= put_json(out, json_array_get(events, i));
        sb_puts(out, i + 1 < json_array_size(events) ? ",\n" : "\n");
    }
    sb_puts(out, "],\n\"displayTimeUnit\": \"ms\",\n\"otherData\": ");
    bad = bad || put_json(out, other);
    sb_puts(out, "}\n");
    json_decref(events);
    json_decref(other);
    return bad || out->failed ? -1 : 0;
}
