/* pack_workers.c — a pack build's worker side (pack_run.h): the workers'
 * command line, and the callbacks the worker pool calls as each job
 * starts, ticks, fails and may be retried, and ends; and which jobs must
 * not run at the same time. */
#include "pack_run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "build_variant.h"
#include "cli_report.h"
#include "pack_text.h"
#include "pocl_wg.h"
#include "temp_tree.h"
#include "worker_proto.h"

void pack_job_label(const pack_run *run, size_t job, char *buf, size_t cap)
{
    size_t slot = job / run->in->plan->n, v = job % run->in->plan->n;
    build_job_label(&run->in->plan->jobs[v], buf, cap);
    size_t len = strlen(buf);
    if (slot >= run->slots->n_dev)
        bfmt(buf + len, cap - len, " for %s", offline_targets_chain_name(run->slots->slot_chain[slot]));
    else if (run->slots->n_slots > 1)
        bfmt(buf + len, cap - len, " on device %u", run->slots->devs[slot]->ordinal);
}

/* Jobs that build the same program text with the same options on the same
 * device: sibling kernels of one source file (Convolve_Def and
 * Convolve_Def_Unroll at one width and work-group). A driver with a kernel
 * cache (PoCL) keys them to one cache entry; built at the same time, two
 * workers would race to fill it and the binaries would depend on who won.
 * (pack_run.h) */
size_t *pack_same_program_groups(const pack_run *run)
{
    size_t *group = malloc(run->work->n_jobs * sizeof *group);
    uint64_t *hash = malloc((run->in->plan->n ? run->in->plan->n : 1) * sizeof *hash);
    if (!group || !hash) {
        free(group);
        free(hash);
        return NULL;
    }
    size_t nv = run->in->plan->n;
    for (size_t v = 0; v < nv; v++) {
        const build_job *b = &run->in->plan->jobs[v];
        uint64_t h = 0xcbf29ce484222325ull;
        for (size_t i = 0; i < b->source_size; i++)
            h = (h ^ (unsigned char)b->source[i]) * 0x100000001b3ull;
        for (const char *o = b->options; *o; o++)
            h = (h ^ (unsigned char)*o) * 0x100000001b3ull;
        hash[v] = h;
    }
    for (size_t j = 0; j < run->work->n_jobs; j++) {
        const build_job *v = &run->in->plan->jobs[j % nv];
        group[j] = j;
        for (size_t i = (j / nv) * nv; i < j; i++) {
            const build_job *u = &run->in->plan->jobs[i % nv];
            if (hash[i % nv] == hash[j % nv] && u->source_size == v->source_size &&
                memcmp(u->source, v->source, v->source_size) == 0 &&
                strcmp(u->options, v->options) == 0) {
                group[j] = group[i];
                break;
            }
        }
    }
    free(hash);
    return group;
}

static void on_started(void *ctx, size_t job, size_t worker)
{
    pack_run *run = ctx;
    pack_timings_dispatched(&run->rep->timings, job, worker);
    char label[LABEL_MAX];
    pack_job_label(run, job, label, sizeof label);
    progress_current(&run->rep->prog, label);
    progress_tick(&run->rep->prog);
}

static void on_tick(void *ctx)
{
    pack_run *run = ctx;
    progress_tick(&run->rep->prog);
}

/* Prints the log indented, so it reads as part of the failure above it. */
static void print_indented(const char *text)
{
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(stderr, "    %.*s\n", (int)n, p);
        if (!nl)
            break;
        p = nl + 1;
    }
}

/* The label of an earlier failed job with the same build log, or NULL
 * (and this log is remembered). */
static const char *seen_log(pack_run *run, size_t job, const char *log)
{
    if (!log || !*log)
        return NULL;
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *c = log; *c; c++)
        h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
    /* The logs are kept in a strbuf, as whole pack_run_log records. */
    strbuf *logs = &run->rep->logs;
    const pack_run_log *seen = (const pack_run_log *)logs->data;
    for (size_t i = 0; i < logs->len / sizeof *seen; i++)
        if (seen[i].hash == h)
            return seen[i].label;
    pack_run_log entry = {h, ""};
    pack_job_label(run, job, entry.label, sizeof entry.label);
    sb_put(logs, &entry, sizeof entry);
    /* Out of memory, this log is not remembered (a later job with the
     * same log prints it again, in full), and the records kept stay as
     * they were: the next log is tried again. */
    logs->failed = 0;
    return NULL;
}

static void report_failure(pack_run *run, size_t job, const build_variant_result *r, const char *label)
{
    size_t slot = job / run->in->plan->n;
    const build_job *v = &run->in->plan->jobs[job % run->in->plan->n];
    const char *what = r->status == BUILD_VARIANT_BUILD_FAILED   ? "failed to build"
                       : r->status == BUILD_VARIANT_CHECK_FAILED ? "failed its check"
                                                      : "failed";
    progress_clear(&run->rep->prog);
    cli_error("%s %s: %s", label, what, r->message ? r->message : "no reason given");
    fprintf(stderr, "  device:  %s\n", run->slots->slot_name[slot]);
    fprintf(stderr, "  defines:");
    for (size_t i = 0; i < v->n_defines; i++)
        fprintf(stderr, " %s%s%s", v->defines[i].name, v->defines[i].value[0] ? "=" : "",
                v->defines[i].value);
    fprintf(stderr, "%s\n", v->n_defines ? "" : " (none)");
    fprintf(stderr, "  options: %s\n", v->options);
    if (r->status == BUILD_VARIANT_BUILD_FAILED) {
        /* Many variants often fail the same way: each distinct log once. */
        const char *same = seen_log(run, job, r->log);
        if (same) {
            fprintf(stderr, "  build log: the same as for %s\n", same);
        } else if (r->log && *r->log) {
            fprintf(stderr, "  build log:\n");
            print_indented(r->log);
        } else {
            fprintf(stderr, "  build log: (empty)\n");
        }
    } else if (r->log && *r->log) {
        fprintf(stderr, "  output:\n");
        print_indented(r->log);
    }
    bfmt(run->work->fail_reason[job], sizeof run->work->fail_reason[job], "%s", what);
    run->work->n_failed++;
}

/* What the remote cache did for a job: counted; an object it rejected is
 * one line; a failed request or upload is said once per run (each worker
 * gives up on its own, so the same failure comes from every worker). */
void pack_cache_refused(pack_run *run, const char *cache, const char *label, const char *why,
                        int retry)
{
    if (cli_verbosity < 0)
        return;
    progress_clear(&run->rep->prog);
    fprintf(stderr, "clc-pack: %s cache: %s: %s; %s\n", cache, label, why,
            retry ? "building it in a fresh worker" : "built here");
}

static void remote_outcome(pack_run *run, const build_variant_result *r, const char *label)
{
    int say = cli_verbosity >= 0;
    const char *why = r->remote_note ? r->remote_note : "no reason given";
    switch (r->remote) {
    case BUILD_VARIANT_REMOTE_HIT:
        run->cache->n_hits += r->status == BUILD_VARIANT_OK;
        break;
    case BUILD_VARIANT_REMOTE_MISS:
        run->cache->n_misses++;
        break;
    case BUILD_VARIANT_REMOTE_REJECTED:
    case BUILD_VARIANT_REMOTE_RETRY:
        run->cache->n_rejected++;
        pack_cache_refused(run, "remote", label, why, r->remote == BUILD_VARIANT_REMOTE_RETRY);
        break;
    case BUILD_VARIANT_REMOTE_FAILED:
        run->cache->n_request_errors++;
        if (say && !run->cache->said_request_error) {
            progress_clear(&run->rep->prog);
            fprintf(stderr, "clc-pack: remote cache: %s\n", why);
        }
        run->cache->said_request_error = 1;
        break;
    case BUILD_VARIANT_REMOTE_NONE:
        break;
    }
    if (r->upload == BUILD_VARIANT_UPLOAD_DONE)
        run->cache->n_uploaded++;
    if (r->upload == BUILD_VARIANT_UPLOAD_FAILED) {
        run->cache->n_request_errors++;
        if (say && !run->cache->said_upload_error) {
            progress_clear(&run->rep->prog);
            fprintf(stderr, "clc-pack: remote cache: %s\n",
                    r->upload_note ? r->upload_note : "an upload failed");
        }
        run->cache->said_upload_error = 1;
    }
}

/* A job that failed on a fetched binary is handed to a fresh worker once
 * more, told not to look it up (and to replace what the server has): one
 * whose fetched binary failed after the driver had it (BUILD_VARIANT_REMOTE_RETRY),
 * or whose worker died, which may have been the driver crashing on a
 * fetched binary (worker_pool.h). */
static int on_retry(void *ctx, size_t job, const build_variant_result *r, int died)
{
    pack_run *run = ctx;
    int retry = r->remote == BUILD_VARIANT_REMOTE_RETRY || r->local == BUILD_VARIANT_REMOTE_RETRY;
    if (!(run->cache->remote_lookups || run->cache->local_lookups) || run->work->retried[job] || !(died || retry))
        return 0;
    size_t d = job / run->in->plan->n;
    strbuf again;
    sb_init(&again);
    worker_proto_encode_job(&again, (uint32_t)job, run->slots->slot_wire[d], WORKER_PROTO_JOB_NO_LOOKUP,
                  &run->in->plan->jobs[job % run->in->plan->n]);
    if (again.failed) {
        sb_free(&again);
        return 0;
    }
    sb_free(&run->work->jobs[job]);
    run->work->jobs[job] = again;
    run->work->retried[job] = 1;
    pack_timings_retried(&run->rep->timings, job, r->message);
    char label[LABEL_MAX];
    pack_job_label(run, job, label, sizeof label);
    if (!died) {
        remote_outcome(run, r, label);
        pack_cache_outcome(run, r, label);
    } else if (cli_verbosity >= 0) {
        progress_clear(&run->rep->prog);
        fprintf(stderr,
                "clc-pack: %s: %s; building it once more, in a fresh worker, without the "
                "remote cache\n",
                label, r->message ? r->message : "the worker died");
    }
    return 1;
}

/* -v: the line of a variant that built or came from a cache, with its
 * steps' times and its forms. */
static void say_built(pack_run *run, const char *label, const build_variant_result *r, int cached,
                      int fetched)
{
    progress_clear(&run->rep->prog);
    if (fetched)
        fprintf(stderr, "clc-pack: %s %s from the %s cache, checked in %.2f s:",
                cached ? "took" : "fetched", label, cached ? "local" : "remote", r->build_s);
    else
        fprintf(stderr,
                "clc-pack: built %s in %.2f s (compile %.2f, check %.2f, forms %.2f, "
                "round trip %.2f):",
                label, r->build_s, r->phase_s[BUILD_VARIANT_PHASE_COMPILE],
                r->phase_s[BUILD_VARIANT_PHASE_CHECK], r->phase_s[BUILD_VARIANT_PHASE_FORMS],
                r->phase_s[BUILD_VARIANT_PHASE_ROUNDTRIP]);
    for (size_t f = 0; f < r->n_forms; f++) {
        char kind[32];
        fprintf(stderr, " %s%s%s %zu bytes", pack_text_kind_name(r->forms[f].kind, kind, sizeof kind),
                r->forms[f].target[0] ? "/" : "", r->forms[f].target, r->forms[f].size);
    }
    fputc('\n', stderr);
}

static void on_finished(void *ctx, size_t job, build_variant_result *r)
{
    pack_run *run = ctx;
    size_t slot = job / run->in->plan->n;
    const build_job *v = &run->in->plan->jobs[job % run->in->plan->n];
    char label[LABEL_MAX];
    pack_job_label(run, job, label, sizeof label);
    run->work->build_s += r->build_s;
    remote_outcome(run, r, label);
    pack_cache_outcome(run, r, label);
    int cached = r->local == BUILD_VARIANT_REMOTE_HIT;
    int fetched = r->remote == BUILD_VARIANT_REMOTE_HIT || cached;
    if (r->status == BUILD_VARIANT_OK && r->n_forms == 0) {
        free(r->message);
        r->message = strdup("the worker returned no binary");
        r->status = BUILD_VARIANT_ERROR;
    }

    if (r->status == BUILD_VARIANT_OK) {
        clcpack_error e;
        uint32_t src = CLCPACK_NONE;
        clcpack_status st = clcpack_writer_add_source(run->out->w, v->source_name, v->source,
                                                      v->source_size, &src, &e);
        clcpack_define *defs = calloc(v->n_defines ? v->n_defines : 1, sizeof *defs);
        if (!defs) {
            st = CLCPACK_E_NOMEM;
            bfmt(e.message, sizeof e.message, "out of memory");
        }
        for (size_t i = 0; defs && i < v->n_defines; i++) {
            defs[i].name = v->defines[i].name;
            defs[i].value = v->defines[i].value;
        }
        for (size_t f = 0; f < r->n_forms && st == CLCPACK_OK; f++) {
            clcpack_entry_spec spec;
            memset(&spec, 0, sizeof spec);
            spec.struct_size = sizeof spec;
            spec.kernel = v->entry_name;
            spec.family = v->family;
            spec.options = v->options;
            if (v->program_entry) {
                spec.kernel_names = (const char *const *)r->kernel_names;
                spec.kernel_name_count = r->n_kernel_names;
            }
            spec.flags = v->entry_flags;
            spec.defines = defs;
            spec.define_count = v->n_defines;
            memcpy(spec.wg, v->wg, sizeof spec.wg);
            spec.device = run->slots->dev_index[slot];
            spec.source = src;
            spec.kind = r->forms[f].kind;
            spec.arch = r->forms[f].arch;
            spec.binary = r->forms[f].data;
            spec.binary_size = r->forms[f].size;
            spec.target = r->forms[f].target;
            st = clcpack_writer_add_entry(run->out->w, &spec, &e);
            /* Every form of the variant runs the same code: one timing each. */
            for (size_t t = 0; t < r->n_tunings && st == CLCPACK_OK; t++)
                st = clcpack_writer_add_tuning(run->out->w, &spec, &r->tunings[t], &e);
            for (size_t t = 0; run->in->given_tunings && t < run->in->given_n_tunings[job] &&
                               st == CLCPACK_OK; t++)
                st = clcpack_writer_add_tuning(run->out->w, &spec, &run->in->given_tunings[job][t], &e);
        }
        free(defs);
        if (st != CLCPACK_OK) {
            free(r->message);
            r->message = strdup(e.message);
            r->status = BUILD_VARIANT_ERROR;
        }
    }
    if (r->status == BUILD_VARIANT_OK) {
        run->work->n_ok++;
        run->work->n_checked += build_job_has_check_cmd(v);
        /* A fetched variant's time says nothing of its build's. */
        if (!fetched)
            pack_reuse_times_put(&run->work->times, pack_reuse_time_key(v, &run->slots->dev_info[slot]), r->build_s);
        if (r->note) {
            progress_clear(&run->rep->prog);
            cli_error("warning: %s: %s", label, r->note);
        }
        run->work->n_timed += r->n_tunings > 0;
        if (cli_verbosity > 0)
            say_built(run, label, r, cached, fetched);
    } else {
        report_failure(run, job, r, label);
    }
    pack_timings_finished(&run->rep->timings, job, r,
                          r->status != BUILD_VARIANT_OK ? PACK_TIMINGS_FAILED
                          : cached                      ? PACK_TIMINGS_LOCAL_HIT
                          : fetched                     ? PACK_TIMINGS_REMOTE_HIT
                                                        : PACK_TIMINGS_BUILT);
    progress_step(&run->rep->prog);
}

worker_pool_callbacks pack_worker_callbacks(pack_run *run, jobserver *js)
{
    worker_pool_callbacks cb = {run, on_started, on_finished, on_tick, js, 1, NULL, on_retry, NULL, NULL};
    return cb;
}

/* --tune: the filter widths a width-argument kernel is timed at, every
 * FILTER_WIDTH the pack builds (so it can be compared with those variants
 * at each), increasing, as "3,5,7"; "5" (kernel_run_default_problem's) when the
 * pack builds none. */
static void tune_widths(const build_job_list *plan, char *buf, size_t cap)
{
    int seen[TUNE_OPTIONS_MAX_WIDTHS + 1] = {0};
    for (size_t i = 0; i < plan->n; i++) {
        const char *fw = build_job_define_value(&plan->jobs[i], "FILTER_WIDTH");
        int w = fw ? atoi(fw) : 0;
        if (w >= 1 && w <= TUNE_OPTIONS_MAX_WIDTHS)
            seen[w] = 1;
    }
    size_t len = 0;
    buf[0] = '\0';
    for (int w = 1; w <= TUNE_OPTIONS_MAX_WIDTHS; w++)
        if (seen[w]) {
            bfmt(buf + len, cap - len, "%s%d", len ? "," : "", w);
            len += strlen(buf + len);
        }
    if (!len)
        bfmt(buf, cap, "5");
}

void pack_count_user_cmds(pack_run *run)
{
    for (size_t v = 0; v < run->in->plan->n; v++) {
        run->in->n_check_variants += build_job_has_check_cmd(&run->in->plan->jobs[v]);
        run->in->user_timings |= build_job_has_tune_cmd(&run->in->plan->jobs[v]);
    }
}

/* Whether a device slot's driver is PoCL: its CL_DEVICE_VERSION says so,
 * the test build_variant_target_open makes. */
static int any_pocl(const pack_run *run)
{
    for (size_t i = 0; i < run->slots->n_dev; i++)
        if (strstr(run->slots->devs[i]->version, "PoCL") || strstr(run->slots->devs[i]->version, "pocl"))
            return 1;
    return 0;
}

/* The worker command line: tool --worker --kernels DIR --device P:D... */
char **pack_worker_argv(const pack_run *run, const char *ptxas)
{
    size_t n = 0, cap = 48 + 2 * run->slots->n_dev; /* every option below (37 at most), and the NULL */
    char **argv = calloc(cap, sizeof *argv);
    if (!argv)
        return NULL;
    argv[n++] = strdup("clc-pack");
    argv[n++] = strdup("--worker");
    if (run->in->seed_checks) {
        argv[n++] = strdup("--kernels");
        argv[n++] = strdup(run->a->kernels_dir);
    }
    /* The commands themselves come with each job (build_job.h). */
    if (run->in->n_check_variants || run->in->user_timings) {
        char t[32];
        bfmt(t, sizeof t, "%ld", run->a->check_timeout);
        argv[n++] = strdup("--check-timeout");
        argv[n++] = strdup(t);
    }
    for (size_t i = 0; i < run->slots->n_dev; i++) {
        char slot[32];
        bfmt(slot, sizeof slot, "%u:%u", run->slots->devs[i]->platform_index,
             run->slots->devs[i]->device_index);
        argv[n++] = strdup("--device");
        argv[n++] = strdup(slot);
    }
    if (ptxas && *ptxas) {
        argv[n++] = strdup("--ptxas");
        argv[n++] = strdup(ptxas);
        char archs[8 * NV_FORMS_MAX_ARCHS];
        nv_forms_format_archs(&run->a->nv_archs, archs, sizeof archs);
        argv[n++] = strdup("--nv-arch");
        argv[n++] = strdup(archs);
    }
    /* PoCL's small-grid work-group functions, set once per worker when
     * the plan has one local size (pocl_wg.h; else a helper run makes
     * them for each variant). From the whole plan, so that a --shard
     * part's workers start as one host's do. Only for PoCL: another
     * driver has no use for it, and a line that depends on the plan's
     * local sizes would keep a worker started ahead of the plan
     * (pack_run_standby_start) from being taken. */
    char *spec = any_pocl(run) ? pocl_wg_spec_jobs(run->in->whole->jobs, run->in->whole->n) : NULL;
    if (spec) {
        argv[n++] = strdup("--pocl-wg");
        argv[n++] = spec;
    }
    int added = offline_targets_format_args(&run->slots->offline, argv + n, cap - n - 1);
    if (added < 0) {
        for (size_t j = 0; argv[j]; j++)
            free(argv[j]);
        free(argv);
        return NULL;
    }
    n += (size_t)added;
    if (run->cache->remote_url) {
        char t[32];
        bfmt(t, sizeof t, "%ld", run->cache->remote_timeout);
        argv[n++] = strdup("--remote-cache");
        argv[n++] = strdup(run->cache->remote_url);
        argv[n++] = strdup("--remote-cache-timeout");
        argv[n++] = strdup(t);
        if (run->cache->remote_readonly)
            argv[n++] = strdup("--remote-cache-readonly");
    }
    if (run->work->work_root[0]) {
        argv[n++] = strdup("--work-root");
        argv[n++] = strdup(run->work->work_root);
    }
    if (run->cache->local_dir[0]) {
        argv[n++] = strdup("--local-cache");
        argv[n++] = strdup(run->cache->local_dir);
    }
    if (run->a->no_check)
        argv[n++] = strdup("--no-check");
    if (run->a->no_warmup)
        argv[n++] = strdup("--no-warmup");
    if (run->a->pocl_small_grids)
        argv[n++] = strdup("--pocl-small-grids");
    if (run->a->tune) {
        char size[64], runs[32], widths[4 * TUNE_OPTIONS_MAX_WIDTHS + 8];
        bfmt(size, sizeof size, "%ux%u", run->a->tune_width, run->a->tune_height);
        bfmt(runs, sizeof runs, "%ld", run->a->tune_runs);
        tune_widths(run->in->whole, widths, sizeof widths);
        argv[n++] = strdup("--tune");
        argv[n++] = strdup(size);
        argv[n++] = strdup("--tune-runs");
        argv[n++] = strdup(runs);
        argv[n++] = strdup("--tune-widths");
        argv[n++] = strdup(widths);
    }
    argv[n] = NULL;
    for (size_t i = 0; i < n; i++)
        if (!argv[i]) {
            for (size_t j = 0; j < n; j++)
                free(argv[j]);
            free(argv);
            return NULL;
        }
    return argv;
}

void pack_free_argv(char **argv)
{
    if (!argv)
        return;
    for (size_t i = 0; argv[i]; i++)
        free(argv[i]);
    free(argv);
}

void pack_run_work_free(pack_run_work *work)
{
    if (!work)
        return;
    child_exits_reap(&work->exits); /* first: they work in work_root */
    pack_free_argv(work->wargv);
    if (work->jobs)
        for (size_t j = 0; j < work->n_jobs; j++)
            sb_free(&work->jobs[j]);
    free(work->jobs);
    free(work->groups);
    free(work->order);
    free(work->cost);
    pack_reuse_times_free(&work->times);
    pack_run_standby_stop(work->standby);
    free(work->fail_reason);
    free(work->retried);
    if (work->work_root[0])
        temp_tree_remove(work->work_root);
    if (work->lock_dir[0])
        temp_tree_remove(work->lock_dir);
    free(work);
}

void pack_run_report_free(pack_run_report *rep)
{
    if (!rep)
        return;
    sb_free(&rep->logs);
    pack_timings_free(&rep->timings);
    free(rep);
}
