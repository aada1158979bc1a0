/* cmd_pack.c — `clc-pack [pack]`: build every selected variant for the
 * selected devices in worker processes and write them into one pack. */
#include "commands.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_variant.h"
#include "check_cmd.h"
#include "cli_files.h"
#include "cli_report.h"
#include "clcpack_write.h"
#include "depfile.h"
#include "device_select.h"
#include "jobserver.h"
#include "offline_targets.h"
#include "pack_merge.h"
#include "pack_args.h"
#include "pack_plan.h"
#include "pack_reuse.h"
#include "pack_text.h"
#include "plan_shard.h"
#include "rcache.h"
#include "temp_tree.h"
#include "progress.h"
#include "ptxas_run.h"
#include "worker_pool.h"
#include "worker_proto.h"

#define NVIDIA_VENDOR_ID 0x10DEu
#define LABEL_MAX 400
/* Job slots: the devices, then the offline toolchains. */
#define MAX_SLOTS (DS_MAX_DEVICES + OT_N_CHAINS)

typedef struct pack_run {
    const pack_args *a;
    const bj_list *plan;        /* the variants, each built on every device */
    const bj_list *whole;       /* the whole plan: plan is its --shard part */
    size_t shard_total;         /* with --shard: the whole plan's variants */
    double shard_share;         /* with --shard: this part's share of the estimated cost */
    size_t n_dev;                           /* devices: slots 0..n_dev */
    const ds_device *devs[DS_MAX_DEVICES];
    size_t n_slots;                         /* devices, then offline toolchains */
    uint32_t slot_wire[MAX_SLOTS];          /* the slot a worker is told */
    char slot_name[MAX_SLOTS][128];
    ot_chain slot_chain[MAX_SLOTS];         /* slots from n_dev on */
    ot_config offline;
    uint32_t dev_index[MAX_SLOTS];          /* in the writer's device table */
    clcpack_writer *w;
    progress prog;
    size_t n_jobs;
    char (*fail_reason)[160];               /* per job; "" when it did not fail */
    size_t n_ok, n_failed, n_reused;
    clcpack_device_info dev_info[MAX_SLOTS];
    pr_times times;                         /* build times of earlier runs */
    double build_s;                         /* summed over the variants */
    int seed_checks;                        /* some job has a seed reference check */
    struct {
        uint64_t hash;
        char label[LABEL_MAX];
    } logs[64];                             /* distinct build logs printed so far */
    size_t n_logs;
    size_t n_timed;                         /* --tune, --tune-cmd: variants with a timing */
    /* The remote cache (docs/REMOTE_CACHE.md): its URL or NULL, and what
     * it did. */
    const char *remote_url;
    int remote_lookups;                     /* workers look variants up (not with --tune, --tune-cmd) */
    char work_root[4096];                   /* then: the workers' private folders are in it */
    int remote_readonly;
    long remote_timeout;
    size_t n_hits, n_misses, n_uploaded, n_rejected, n_request_errors;
    int said_request_error, said_upload_error;
    strbuf *jobs;                           /* the job frames, re-encoded for a retry */
    unsigned char *retried;                 /* per job: handed out again once */
    /* Set up by cmd_pack's steps, freed by free_run. */
    char output[4096];
    char ptxas[PTXAS_PATH_MAX];             /* "" when no cubins are made */
    int no_ptxas;                           /* --ptxas none */
    char merge_ptxas[PTXAS_PATH_MAX];       /* for the PTX of --merge packs, or "" */
    int any_nvidia;
    size_t *groups;                         /* same_program_groups */
    size_t *order;                          /* the jobs to build, longest first */
    size_t n_pending;
    double *cost;                           /* per job: estimated seconds */
    char **wargv;                           /* a worker's command line */
    char *remote_url_buf;                   /* remote_url, malloc'd */
    bj_list part;                           /* --shard: a view of the plan's jobs */
} pack_run;

static void job_label(const pack_run *run, size_t job, char *buf, size_t cap)
{
    size_t slot = job / run->plan->n, v = job % run->plan->n;
    bj_label(&run->plan->jobs[v], buf, cap);
    size_t len = strlen(buf);
    if (slot >= run->n_dev)
        bfmt(buf + len, cap - len, " for %s", ot_chain_name(run->slot_chain[slot]));
    else if (run->n_slots > 1)
        bfmt(buf + len, cap - len, " on device %u", run->devs[slot]->ordinal);
}

static void on_started(void *ctx, size_t job)
{
    pack_run *run = ctx;
    char label[LABEL_MAX];
    job_label(run, job, label, sizeof label);
    progress_current(&run->prog, label);
    progress_tick(&run->prog);
}

static void on_tick(void *ctx)
{
    pack_run *run = ctx;
    progress_tick(&run->prog);
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
    for (size_t i = 0; i < run->n_logs; i++)
        if (run->logs[i].hash == h)
            return run->logs[i].label;
    if (run->n_logs < sizeof run->logs / sizeof run->logs[0]) {
        run->logs[run->n_logs].hash = h;
        job_label(run, job, run->logs[run->n_logs].label, sizeof run->logs[0].label);
        run->n_logs++;
    }
    return NULL;
}

static void report_failure(pack_run *run, size_t job, const bv_result *r, const char *label)
{
    size_t slot = job / run->plan->n;
    const build_job *v = &run->plan->jobs[job % run->plan->n];
    const char *what = r->status == BV_BUILD_FAILED   ? "failed to build"
                       : r->status == BV_CHECK_FAILED ? "failed its check"
                                                      : "failed";
    progress_clear(&run->prog);
    cli_error("%s %s: %s", label, what, r->message ? r->message : "no reason given");
    fprintf(stderr, "  device:  %s\n", run->slot_name[slot]);
    fprintf(stderr, "  defines:");
    for (size_t i = 0; i < v->n_defines; i++)
        fprintf(stderr, " %s%s%s", v->defines[i].name, v->defines[i].value[0] ? "=" : "",
                v->defines[i].value);
    fprintf(stderr, "%s\n", v->n_defines ? "" : " (none)");
    fprintf(stderr, "  options: %s\n", v->options);
    if (r->status == BV_BUILD_FAILED) {
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
    bfmt(run->fail_reason[job], sizeof run->fail_reason[job], "%s", what);
    run->n_failed++;
}

/* What the remote cache did for a job: counted; an object it rejected is
 * one line; a failed request or upload is said once per run (each worker
 * gives up on its own, so the same failure comes from every worker). */
static void remote_outcome(pack_run *run, const bv_result *r, const char *label)
{
    int say = cli_verbosity >= 0;
    const char *why = r->remote_note ? r->remote_note : "no reason given";
    switch (r->remote) {
    case BV_REMOTE_HIT:
        run->n_hits += r->status == BV_OK;
        break;
    case BV_REMOTE_MISS:
        run->n_misses++;
        break;
    case BV_REMOTE_REJECTED:
    case BV_REMOTE_RETRY:
        run->n_rejected++;
        if (say) {
            progress_clear(&run->prog);
            fprintf(stderr, "clc-pack: remote cache: %s: %s; %s\n", label, why,
                    r->remote == BV_REMOTE_RETRY ? "building it in a fresh worker"
                                                 : "built here");
        }
        break;
    case BV_REMOTE_FAILED:
        run->n_request_errors++;
        if (say && !run->said_request_error) {
            progress_clear(&run->prog);
            fprintf(stderr, "clc-pack: remote cache: %s\n", why);
        }
        run->said_request_error = 1;
        break;
    case BV_REMOTE_NONE:
        break;
    }
    if (r->upload == BV_UPLOAD_DONE)
        run->n_uploaded++;
    if (r->upload == BV_UPLOAD_FAILED) {
        run->n_request_errors++;
        if (say && !run->said_upload_error) {
            progress_clear(&run->prog);
            fprintf(stderr, "clc-pack: remote cache: %s\n",
                    r->upload_note ? r->upload_note : "an upload failed");
        }
        run->said_upload_error = 1;
    }
}

/* A job that failed on a fetched binary is handed to a fresh worker once
 * more, told not to look it up (and to replace what the server has): one
 * whose fetched binary failed after the driver had it (BV_REMOTE_RETRY),
 * or whose worker died, which may have been the driver crashing on a
 * fetched binary (worker_pool.h). */
static int on_retry(void *ctx, size_t job, const bv_result *r, int died)
{
    pack_run *run = ctx;
    if (!run->remote_lookups || run->retried[job] || !(died || r->remote == BV_REMOTE_RETRY))
        return 0;
    size_t d = job / run->plan->n;
    strbuf again;
    sb_init(&again);
    wp_encode_job(&again, (uint32_t)job, run->slot_wire[d], WP_JOB_NO_LOOKUP,
                  &run->plan->jobs[job % run->plan->n]);
    if (again.failed) {
        sb_free(&again);
        return 0;
    }
    sb_free(&run->jobs[job]);
    run->jobs[job] = again;
    run->retried[job] = 1;
    char label[LABEL_MAX];
    job_label(run, job, label, sizeof label);
    if (!died) {
        remote_outcome(run, r, label);
    } else if (cli_verbosity >= 0) {
        progress_clear(&run->prog);
        fprintf(stderr,
                "clc-pack: %s: %s; building it once more, in a fresh worker, without the "
                "remote cache\n",
                label, r->message ? r->message : "the worker died");
    }
    return 1;
}

static void on_finished(void *ctx, size_t job, bv_result *r)
{
    pack_run *run = ctx;
    size_t slot = job / run->plan->n;
    const build_job *v = &run->plan->jobs[job % run->plan->n];
    char label[LABEL_MAX];
    job_label(run, job, label, sizeof label);
    run->build_s += r->build_s;
    remote_outcome(run, r, label);
    int fetched = r->remote == BV_REMOTE_HIT;
    if (r->status == BV_OK && r->n_forms == 0) {
        free(r->message);
        r->message = strdup("the worker returned no binary");
        r->status = BV_ERROR;
    }

    if (r->status == BV_OK) {
        clcpack_error e;
        uint32_t src = CLCPACK_NONE;
        clcpack_status st = clcpack_writer_add_source(run->w, v->source_name, v->source,
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
            spec.device = run->dev_index[slot];
            spec.source = src;
            spec.kind = r->forms[f].kind;
            spec.arch = r->forms[f].arch;
            spec.binary = r->forms[f].data;
            spec.binary_size = r->forms[f].size;
            spec.target = r->forms[f].target;
            st = clcpack_writer_add_entry(run->w, &spec, &e);
            /* Every form of the variant runs the same code: one timing each. */
            for (size_t t = 0; t < r->n_tunings && st == CLCPACK_OK; t++)
                st = clcpack_writer_add_tuning(run->w, &spec, &r->tunings[t], &e);
        }
        free(defs);
        if (st != CLCPACK_OK) {
            free(r->message);
            r->message = strdup(e.message);
            r->status = BV_ERROR;
        }
    }
    if (r->status == BV_OK) {
        run->n_ok++;
        /* A fetched variant's time says nothing of its build's. */
        if (!fetched)
            pr_times_put(&run->times, pr_time_key(v, &run->dev_info[slot]), r->build_s);
        if (r->note) {
            progress_clear(&run->prog);
            cli_error("warning: %s: %s", label, r->note);
        }
        run->n_timed += r->n_tunings > 0;
        if (cli_verbosity > 0) {
            progress_clear(&run->prog);
            if (fetched)
                fprintf(stderr, "clc-pack: fetched %s from the remote cache, checked in %.2f s:",
                        label, r->build_s);
            else
                fprintf(stderr,
                        "clc-pack: built %s in %.2f s (compile %.2f, check %.2f, forms %.2f, "
                        "round trip %.2f):",
                        label, r->build_s, r->phase_s[BV_PHASE_COMPILE],
                        r->phase_s[BV_PHASE_CHECK], r->phase_s[BV_PHASE_FORMS],
                        r->phase_s[BV_PHASE_ROUNDTRIP]);
            for (size_t f = 0; f < r->n_forms; f++) {
                char kind[32];
                fprintf(stderr, " %s%s%s %zu bytes", pt_kind_name(r->forms[f].kind, kind, sizeof kind),
                        r->forms[f].target[0] ? "/" : "", r->forms[f].target, r->forms[f].size);
            }
            fputc('\n', stderr);
        }
    } else {
        report_failure(run, job, r, label);
    }
    progress_step(&run->prog);
}

/* Jobs that build the same program text with the same options on the same
 * device: sibling kernels of one source file (Convolve_Def and
 * Convolve_Def_Unroll at one width and work-group). A driver with a kernel
 * cache (PoCL) keys them to one cache entry; built at the same time, two
 * workers would race to fill it and the binaries would depend on who won.
 * Returns group[job] (malloc'd), equal for such jobs. */
static size_t *same_program_groups(const pack_run *run)
{
    size_t *group = malloc(run->n_jobs * sizeof *group);
    uint64_t *hash = malloc((run->plan->n ? run->plan->n : 1) * sizeof *hash);
    if (!group || !hash) {
        free(group);
        free(hash);
        return NULL;
    }
    size_t nv = run->plan->n;
    for (size_t v = 0; v < nv; v++) {
        const build_job *b = &run->plan->jobs[v];
        uint64_t h = 0xcbf29ce484222325ull;
        for (size_t i = 0; i < b->source_size; i++)
            h = (h ^ (unsigned char)b->source[i]) * 0x100000001b3ull;
        for (const char *o = b->options; *o; o++)
            h = (h ^ (unsigned char)*o) * 0x100000001b3ull;
        hash[v] = h;
    }
    for (size_t j = 0; j < run->n_jobs; j++) {
        const build_job *v = &run->plan->jobs[j % nv];
        group[j] = j;
        for (size_t i = (j / nv) * nv; i < j; i++) {
            const build_job *u = &run->plan->jobs[i % nv];
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

/* packs/<slug>.clcpack; creates packs/ when missing. */
static int default_output(const pack_run *run, char *out, size_t cap)
{
    char slug[DS_SLUG_MAX];
    if (run->n_dev == 1)
        ds_slug(run->devs[0]->name, slug);
    else
        bfmt(slug, sizeof slug, run->n_dev ? "all-devices" : "offline");
    if (mkdir("packs", 0777) != 0 && errno != EEXIST) {
        cli_error("cannot create the folder packs: %s", strerror(errno));
        return -1;
    }
    bfmt(out, cap, "packs/%s.clcpack", slug);
    return 0;
}

static void format_bytes(uint64_t n, char *buf, size_t cap)
{
    if (n < 10 * 1024)
        bfmt(buf, cap, "%llu bytes", (unsigned long long)n);
    else if (n < 10ull * 1024 * 1024)
        bfmt(buf, cap, "%llu bytes (%.1f KiB)", (unsigned long long)n, (double)n / 1024);
    else
        bfmt(buf, cap, "%llu bytes (%.1f MiB)", (unsigned long long)n,
             (double)n / (1024.0 * 1024.0));
}

/* Reads the written pack back: the summary reports what is in the file. */
static void print_summary(const pack_run *run, const char *path, double wall_s, int written)
{
    if (cli_verbosity < 0)
        return;
    uint64_t raw_bin = 0, raw_src = 0, file_size = 0;
    size_t n_entries = 0, by_kind[CLCPACK_KIND_SPIRV + 1] = {0}; /* reused ones count too */
    char sha[2 * CLCPACK_SHA256_SIZE + 1] = "";
    if (written) {
        clcpack *p = NULL;
        clcpack_error e;
        if (clcpack_open_file(path, &p, &e) != CLCPACK_OK) {
            cli_error("reading the pack back failed: %s", e.message);
        } else {
            n_entries = clcpack_entry_count(p);
            for (size_t i = 0; i < n_entries; i++) {
                clcpack_entry_info ei = {.struct_size = sizeof ei};
                if (clcpack_get_entry(p, i, &ei) == CLCPACK_OK) {
                    raw_bin += ei.raw_size;
                    if ((unsigned)ei.kind <= CLCPACK_KIND_SPIRV)
                        by_kind[ei.kind]++;
                }
            }
            for (size_t i = 0; i < clcpack_source_count(p); i++) {
                clcpack_source_info si = {.struct_size = sizeof si};
                if (clcpack_get_source(p, i, &si) == CLCPACK_OK)
                    raw_src += si.raw_size;
            }
            uint8_t digest[CLCPACK_SHA256_SIZE];
            if (clcpack_pack_sha256(p, digest) == CLCPACK_OK)
                for (size_t k = 0; k < sizeof digest; k++)
                    snprintf(sha + 2 * k, 3, "%02x", digest[k]);
            clcpack_close(p);
        }
        struct stat st;
        if (stat(path, &st) == 0)
            file_size = (uint64_t)st.st_size;
    }
    char wall[32], b1[64], b2[64], b3[64], b4[64];
    progress_format_duration(wall_s, wall, sizeof wall);
    size_t total = run->n_jobs;
    if (written)
        printf("wrote %s\n", path);
    else
        printf("nothing written\n");
    printf("  variants  %zu built, %zu failed", run->n_ok - run->n_reused - run->n_hits,
           run->n_failed);
    if (run->n_reused)
        printf(", %zu reused from the old pack", run->n_reused);
    if (run->n_hits)
        printf(", %zu fetched from the remote cache", run->n_hits);
    printf(", of %zu\n", total);
    if (run->remote_url)
        printf("  remote    %zu hits, %zu misses, %zu uploaded, %zu rejected, %zu request "
               "errors (%s%s)\n",
               run->n_hits, run->n_misses, run->n_uploaded, run->n_rejected,
               run->n_request_errors, run->remote_url, run->remote_readonly ? ", read-only" : "");
    if (run->a->shard.n)
        printf("  shard     %u/%u: %zu of %zu variants (%.1f %% of the estimated cost)\n",
               run->a->shard.k, run->a->shard.n, run->plan->n, run->shard_total,
               100.0 * run->shard_share);
    printf("  devices   %zu:", run->n_slots);
    for (size_t i = 0; i < run->n_slots; i++)
        printf("%s %s", i ? "," : "", run->slot_name[i]);
    printf("\n");
    if (written) {
        printf("  entries   %zu (native %zu, ptx %zu, cubin %zu", n_entries,
               by_kind[CLCPACK_KIND_NATIVE], by_kind[CLCPACK_KIND_PTX], by_kind[CLCPACK_KIND_CUBIN]);
        if (by_kind[CLCPACK_KIND_INTEL] || by_kind[CLCPACK_KIND_AMDGCN] ||
            by_kind[CLCPACK_KIND_SPIRV])
            printf(", intel %zu, amdgcn %zu, spirv %zu", by_kind[CLCPACK_KIND_INTEL],
                   by_kind[CLCPACK_KIND_AMDGCN], by_kind[CLCPACK_KIND_SPIRV]);
        printf(")\n");
        format_bytes(raw_bin + raw_src, b1, sizeof b1);
        format_bytes(raw_bin, b2, sizeof b2);
        format_bytes(raw_src, b3, sizeof b3);
        printf("  raw       %s: binaries %s, sources %s\n", b1, b2, b3);
        format_bytes(file_size, b4, sizeof b4);
        printf("  pack      %s, ratio %.1f:1\n", b4,
               file_size ? (double)(raw_bin + raw_src) / (double)file_size : 0.0);
        if (sha[0])
            printf("  sha256    %s\n", sha);
    }
    printf("  time      %s wall (%.1f s), -j %ld, %.1f s of builds\n", wall, wall_s, run->a->jobs,
           run->build_s);
    if (run->a->tune)
        printf("  tuning    %zu of %zu variants timed at %ux%u, median of %ld runs\n",
               run->n_timed, run->n_ok, run->a->tune_width, run->a->tune_height,
               run->a->tune_runs);
    else if (run->a->tune_cmd)
        printf("  tuning    %zu of %zu variants timed by --tune-cmd\n", run->n_timed, run->n_ok);
    if (run->n_failed) {
        printf("  failed:\n");
        for (size_t j = 0; j < run->n_jobs; j++) {
            if (!run->fail_reason[j][0])
                continue;
            char label[LABEL_MAX];
            job_label(run, j, label, sizeof label);
            printf("    %s (%s)\n", label, run->fail_reason[j]);
        }
    }
    fflush(stdout);
}

/* -MD / --depfile: the pack depends on every file its jobs were made from
 * (the manifest, each source and every file it includes: plan->read). */
static int write_depfile(const pack_args *a, const bj_list *plan, const char *output)
{
    char path[4200];
    if (a->depfile)
        bfmt(path, sizeof path, "%s", a->depfile);
    else
        bfmt(path, sizeof path, "%s.d", output);
    if (plan->read_failed) {
        cli_error("%s: out of memory listing the files read", path);
        return -1;
    }
    df_list deps;
    df_init(&deps);
    for (size_t i = 0; i < plan->n_read; i++)
        df_add(&deps, plan->read[i]);
    char werr[4400];
    const char *target = a->depfile_target ? a->depfile_target : output;
    int rc = df_write(&deps, target, path, werr, sizeof werr);
    if (rc != 0)
        cli_error("%s", werr);
    df_free(&deps);
    return rc;
}

/* --tune: the filter widths a width-argument kernel is timed at, every
 * FILTER_WIDTH the pack builds (so it can be compared with those variants
 * at each), increasing, as "3,5,7"; "5" (kr_default_problem's) when the
 * pack builds none. */
static void tune_widths(const bj_list *plan, char *buf, size_t cap)
{
    int seen[TV_MAX_WIDTHS + 1] = {0};
    for (size_t i = 0; i < plan->n; i++) {
        const char *fw = bj_define_value(&plan->jobs[i], "FILTER_WIDTH");
        int w = fw ? atoi(fw) : 0;
        if (w >= 1 && w <= TV_MAX_WIDTHS)
            seen[w] = 1;
    }
    size_t len = 0;
    buf[0] = '\0';
    for (int w = 1; w <= TV_MAX_WIDTHS; w++)
        if (seen[w]) {
            bfmt(buf + len, cap - len, "%s%d", len ? "," : "", w);
            len += strlen(buf + len);
        }
    if (!len)
        bfmt(buf, cap, "5");
}

/* The worker command line: tool --worker --kernels DIR --device P:D... */
static char **worker_argv(const pack_run *run, const char *ptxas)
{
    size_t n = 0, cap = 48 + 2 * run->n_dev; /* every option below (35 at most), and the NULL */
    char **argv = calloc(cap, sizeof *argv);
    if (!argv)
        return NULL;
    argv[n++] = strdup("clc-pack");
    argv[n++] = strdup("--worker");
    if (run->seed_checks) {
        argv[n++] = strdup("--kernels");
        argv[n++] = strdup(run->a->kernels_dir);
    }
    if (run->a->check_cmd || run->a->tune_cmd) {
        char t[32];
        bfmt(t, sizeof t, "%ld", run->a->check_timeout);
        if (run->a->check_cmd) {
            argv[n++] = strdup("--check-cmd");
            argv[n++] = strdup(run->a->check_cmd);
        }
        if (run->a->tune_cmd) {
            argv[n++] = strdup("--tune-cmd");
            argv[n++] = strdup(run->a->tune_cmd);
        }
        argv[n++] = strdup("--check-timeout");
        argv[n++] = strdup(t);
    }
    for (size_t i = 0; i < run->n_dev; i++) {
        char slot[32];
        bfmt(slot, sizeof slot, "%u:%u", run->devs[i]->platform_index,
             run->devs[i]->device_index);
        argv[n++] = strdup("--device");
        argv[n++] = strdup(slot);
    }
    if (ptxas && *ptxas) {
        argv[n++] = strdup("--ptxas");
        argv[n++] = strdup(ptxas);
        char archs[8 * NVF_MAX_ARCHS];
        nvf_format_archs(&run->a->nv_archs, archs, sizeof archs);
        argv[n++] = strdup("--nv-arch");
        argv[n++] = strdup(archs);
    }
    /* PoCL's work-group functions for the jobs without a check hook, set
     * once per worker (bv_pocl_wg_spec); harmless on other drivers. From
     * the whole plan, so that a --shard part's workers start as one
     * host's do. */
    char *spec = bv_pocl_wg_spec(run->whole->jobs, run->whole->n);
    if (spec) {
        argv[n++] = strdup("--pocl-wg");
        argv[n++] = spec;
    }
    int added = ot_format_args(&run->offline, argv + n, cap - n - 1);
    if (added < 0) {
        for (size_t j = 0; argv[j]; j++)
            free(argv[j]);
        free(argv);
        return NULL;
    }
    n += (size_t)added;
    if (run->remote_url) {
        char t[32];
        bfmt(t, sizeof t, "%ld", run->remote_timeout);
        argv[n++] = strdup("--remote-cache");
        argv[n++] = strdup(run->remote_url);
        argv[n++] = strdup("--remote-cache-timeout");
        argv[n++] = strdup(t);
        if (run->remote_readonly)
            argv[n++] = strdup("--remote-cache-readonly");
    }
    if (run->work_root[0]) {
        argv[n++] = strdup("--work-root");
        argv[n++] = strdup(run->work_root);
    }
    if (run->a->no_check)
        argv[n++] = strdup("--no-check");
    if (run->a->no_warmup)
        argv[n++] = strdup("--no-warmup");
    if (run->a->tune) {
        char size[64], runs[32], widths[4 * TV_MAX_WIDTHS + 8];
        bfmt(size, sizeof size, "%ux%u", run->a->tune_width, run->a->tune_height);
        bfmt(runs, sizeof runs, "%ld", run->a->tune_runs);
        tune_widths(run->whole, widths, sizeof widths);
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

static void free_argv(char **argv)
{
    if (!argv)
        return;
    for (size_t i = 0; argv[i]; i++)
        free(argv[i]);
    free(argv);
}

/* --merge: the built pack (at built, removed here) and every --merge pack,
 * its PTX entries first given cubins for --nv-arch when ptxas is known
 * (as `clc-pack retarget` does), merged into output. 0, or -1 after a
 * message (output untouched). */
static int merge_into(const pack_args *a, const char *built, const char *output,
                      const char *ptxas)
{
    const char *inputs[1 + PA_MAX_MERGE];
    char temp[PA_MAX_MERGE][4200];
    size_t n = 0;
    int rc = 0;
    inputs[n++] = built;
    for (size_t i = 0; i < a->n_merge && rc == 0; i++) {
        temp[i][0] = '\0';
        inputs[n++] = a->merge[i];
        clcpack *p = NULL;
        clcpack_error e;
        if (clcpack_open_file(a->merge[i], &p, &e) != CLCPACK_OK) {
            cli_error("--merge %s: %s", a->merge[i], e.message);
            rc = -1;
            break;
        }
        int has_ptx = 0;
        for (size_t k = 0; k < clcpack_entry_count(p); k++) {
            clcpack_entry_info ei = {.struct_size = sizeof ei};
            has_ptx |= clcpack_get_entry(p, k, &ei) == CLCPACK_OK && ei.kind == CLCPACK_KIND_PTX;
        }
        clcpack_close(p);
        if (!has_ptx || !ptxas[0])
            continue;
        bfmt(temp[i], sizeof temp[i], "%s.merge%zu.%ld", output, i, (long)getpid());
        uint32_t cubins = (a->compress_cubins ? CLCPACK_WRITE_COMPRESS_CUBINS : 0) |
                          (a->store_cubins ? CLCPACK_WRITE_STORE_CUBINS : 0);
        if (retarget_file(a->merge[i], temp[i], &a->nv_archs, ptxas, cubins, a->codec,
                          a->jobs) != EXIT_OK_STATUS)
            rc = -1;
        else
            inputs[n - 1] = temp[i];
    }
    if (rc == 0) {
        merge_args m;
        memset(&m, 0, sizeof m);
        m.output = output;
        m.compress_cubins = a->compress_cubins;
        m.store_cubins = a->store_cubins;
        m.codec = a->codec;
        m.inputs = inputs;
        m.n_inputs = n;
        m.threads = (unsigned)a->jobs;
        merge_stats st;
        rc = merge_packs(&m, &st) == EXIT_OK_STATUS ? 0 : -1;
    }
    unlink(built);
    for (size_t i = 0; i < a->n_merge; i++)
        if (i < n - 1 && temp[i][0])
            unlink(temp[i]);
    return rc;
}

/* Whether an environment variable says yes (1, yes, true, on). */
static int env_true(const char *name)
{
    const char *v = getenv(name);
    return v && (strcmp(v, "1") == 0 || strcasecmp(v, "yes") == 0 ||
                 strcasecmp(v, "true") == 0 || strcasecmp(v, "on") == 0);
}

/* The remote cache's URL (docs/REMOTE_CACHE.md): --remote-cache, else
 * CLC_PACK_REMOTE_CACHE, none with --no-remote-cache or an empty value,
 * its trailing '/' dropped, into *url (malloc'd, or NULL). A URL that
 * cannot be used is a usage error (its status returned); a clc-pack
 * without libcurl, or credentials that cannot be read, a note. */
static int remote_settings(const pack_args *a, char **url)
{
    *url = NULL;
    const char *from = "--remote-cache", *u = a->remote_cache;
    if (!u) {
        from = "CLC_PACK_REMOTE_CACHE";
        u = getenv(from);
    }
    if (a->no_remote_cache || !u || !*u)
        return 0;
    char err[600];
    if (rch_check_url(u, err, sizeof err) != 0)
        return cli_usage_error(NULL, "%s: %s", from, err);
    if (!rch_available()) {
        cli_note("%s: this clc-pack was built without libcurl (make CURL=0): no remote cache; "
                 "building every variant here",
                 from);
        return 0;
    }
    char bearer[RC_CRED_MAX], userpwd[RC_CRED_MAX], note[RC_MSG_MAX];
    rc_credentials(bearer, userpwd, note);
    memset(bearer, 0, sizeof bearer);
    memset(userpwd, 0, sizeof userpwd);
    if (note[0])
        cli_note("remote cache: %s", note);
    *url = strdup(u);
    if (!*url) {
        cli_error("out of memory");
        return EXIT_FAILURE_STATUS;
    }
    size_t n = strlen(*url);
    while (n > 0 && (*url)[n - 1] == '/')
        (*url)[--n] = '\0';
    return 0;
}

/* The tools the options name, checked before anything is planned:
 * --ptxas, --check-cmd, --tune-cmd. 0, or the exit status. */
static int check_tools(pack_run *run, const pack_args *a)
{
    /* --ptxas none: PTX only, as the driver gave it (docs/vendors/NVIDIA.md). */
    run->no_ptxas = a->ptxas && strcmp(a->ptxas, "none") == 0;
    if (a->ptxas && !run->no_ptxas && ptxas_find(a->ptxas, run->ptxas) != 0)
        return cli_usage_error(NULL, "%s", run->ptxas);
    char cerr[CC_MSG_MAX];
    if ((a->check_cmd && cc_validate("--check-cmd", a->check_cmd, cerr) != 0) ||
        (a->tune_cmd && cc_validate("--tune-cmd", a->tune_cmd, cerr) != 0))
        return cli_usage_error(NULL, "%s", cerr);
    return 0;
}

/* The plan (pack_plan.h), its notes printed, and with --shard this
 * runner's part of it. 0, or the exit status. */
static int plan_pack(pack_run *run, const pack_args *a, bj_list *plan)
{
    pp_request req = {a->direct, &a->direct_spec, a->kernels_dir, &a->req};
    char perr[PP_ERR_MAX];
    int rc = pp_make(&req, plan, &run->seed_checks, perr, sizeof perr);
    if (rc == PP_USAGE)
        return cli_usage_error(NULL, "%s", perr);
    if (rc != 0) {
        cli_error("%s", perr);
        return EXIT_FAILURE_STATUS;
    }
    /* One "note: ..." line each, with the tool's name like every message. */
    for (const char *n = plan->notes; n && *n && cli_verbosity >= 0;) {
        size_t len = strcspn(n, "\n");
        fprintf(stderr, "clc-pack: %.*s\n", (int)len, n);
        n += len + (n[len] == '\n');
    }
    run->plan = plan;
    run->whole = plan;
    if (!a->shard.n)
        return 0;
    if (ps_take(&a->shard, plan, &run->part, &run->shard_share) != 0) {
        cli_error("out of memory dividing %zu variants into %u parts", plan->n, a->shard.n);
        return EXIT_FAILURE_STATUS;
    }
    run->plan = &run->part;
    run->shard_total = plan->n;
    if (run->part.n == 0 && cli_verbosity >= 0)
        cli_note("--shard %u/%u: no variant of the %zu falls to this part; the pack holds "
                 "no entry",
                 a->shard.k, a->shard.n, plan->n);
    return 0;
}

/* The remote cache's settings (docs/REMOTE_CACHE.md). 0, or the exit status. */
static int setup_remote(pack_run *run, const pack_args *a)
{
    int rc = remote_settings(a, &run->remote_url_buf);
    if (rc != 0)
        return rc;
    run->remote_url = run->remote_url_buf;
    run->remote_lookups = run->remote_url && !a->tune && !a->tune_cmd; /* timings are taken while building */
    run->remote_readonly = a->remote_readonly || env_true("CLC_PACK_REMOTE_CACHE_READONLY");
    run->remote_timeout = a->remote_timeout;
    return 0;
}

/* The devices --device and --platform select, and the offline toolchains
 * asked for: one that is missing costs its entries, with one line naming
 * its package; a bad list is a usage error, found before anything is
 * built. 0, or the exit status. */
static int select_devices(pack_run *run, const pack_args *a, ds_list *devices)
{
    /* --device none: offline targets only, no OpenCL device needed. */
    int no_device = strcmp(a->device, "none") == 0;
    if (no_device && !a->intel_gpu && !a->amd_gpu && !a->spirv)
        return cli_usage_error(NULL, "--device none builds offline targets only: give "
                                     "--intel-gpu, --amd-gpu or --spirv");
    size_t sel[DS_MAX_DEVICES];
    char derr[DS_ERR_MAX];
    if (!no_device && (ds_enumerate(devices, derr) != 0 ||
                       ds_select(devices, a->device, a->platform, sel, &run->n_dev, derr) != 0)) {
        cli_error("%s", derr);
        return EXIT_FAILURE_STATUS;
    }
    for (size_t i = 0; i < run->n_dev; i++)
        run->devs[i] = &devices->dev[sel[i]];
    const int want_chain[OT_N_CHAINS] = {a->intel_gpu, a->amd_gpu, a->spirv};
    const char *chain_list[OT_N_CHAINS] = {a->intel_list, a->amd_list, NULL};
    for (int ch = 0; ch < OT_N_CHAINS; ch++) {
        if (!want_chain[ch])
            continue;
        char notes[4096] = "", omsg[OT_MSG_MAX];
        int orc = ot_resolve(&run->offline, (ot_chain)ch, chain_list[ch], notes, sizeof notes,
                             omsg, sizeof omsg);
        for (char *line = strtok(notes, "\n"); line && cli_verbosity >= 0;
             line = strtok(NULL, "\n"))
            cli_note("%s", line);
        if (orc < 0)
            return cli_usage_error(NULL, "%s", omsg);
        if (orc > 0)
            cli_error("warning: %s; the pack is built without %s entries", omsg,
                      ot_chain_name((ot_chain)ch));
    }
    /* Intel binaries leave out the SPIR-V ocloc would put in each of them,
     * unless asked for, or unless it is the only form left a driver could
     * rebuild from: no source and no SPIR-V entry (docs/vendors/INTEL.md). */
    run->offline.intel_exclude_ir =
        !a->intel_ir && !(a->no_sources && !run->offline.on[OT_SPIRV]);
    if (a->intel_ir && !a->intel_gpu && cli_verbosity >= 0)
        cli_note("--intel-ir without --intel-gpu does nothing");
    return 0;
}

/* The pack's file name, checked before minutes of building: it can be
 * written, and it is none of the files the pack is built from (-o x.cl
 * for x.cl). 0, or the exit status. */
static int choose_output(pack_run *run, const pack_args *a, const bj_list *plan)
{
    if (a->output)
        bfmt(run->output, sizeof run->output, "%s", a->output);
    else if (default_output(run, run->output, sizeof run->output) != 0)
        return EXIT_FAILURE_STATUS;
    /* The same check runs again when the pack is written. */
    int orc = cli_check_output(NULL, "-o", run->output, 0);
    if (orc != 0)
        return orc;
    struct stat out_st;
    for (size_t i = 0; i < plan->n_read && stat(run->output, &out_st) == 0; i++) {
        struct stat in_st;
        if (stat(plan->read[i], &in_st) == 0 && in_st.st_dev == out_st.st_dev &&
            in_st.st_ino == out_st.st_ino)
            return cli_usage_error(NULL, "-o %s is %s, which this pack is built from",
                                   run->output, plan->read[i]);
    }
    return 0;
}

/* The selected devices into the writer's device table, identical ones
 * (same model, same driver) kept once: they share one set of entries.
 * 0, or -1 after saying why. */
static int add_devices(pack_run *run)
{
    clcpack_error e;
    size_t kept = 0;
    for (size_t i = 0; i < run->n_dev; i++) {
        clcpack_device_info info = {.struct_size = sizeof info};
        uint32_t index;
        if (clcpack_device_query(run->devs[i]->device, &info, &e) != CLCPACK_OK ||
            clcpack_writer_add_device(run->w, &info, &index, &e) != CLCPACK_OK) {
            cli_error("device %u (%s): %s", run->devs[i]->ordinal, run->devs[i]->name,
                      e.message);
            return -1;
        }
        size_t k = 0;
        while (k < kept && run->dev_index[k] != index)
            k++;
        if (k < kept) {
            cli_note("device %u is identical to device %u: built once", run->devs[i]->ordinal,
                     run->devs[k]->ordinal);
            continue;
        }
        run->devs[kept] = run->devs[i];
        run->dev_info[kept] = info;
        run->dev_index[kept++] = index;
        if (info.vendor_id == NVIDIA_VENDOR_ID)
            run->any_nvidia = 1;
    }
    run->n_dev = kept;
    for (size_t i = 0; i < kept; i++) {
        run->slot_wire[i] = (uint32_t)i;
        bfmt(run->slot_name[i], sizeof run->slot_name[i], "%s", run->devs[i]->name);
    }
    run->n_slots = kept;
    return 0;
}

/* A slot for each offline toolchain, after the devices'. 0, or -1 after
 * saying why. */
static int add_offline_slots(pack_run *run)
{
    clcpack_error e;
    for (int ch = 0; ch < OT_N_CHAINS; ch++) {
        if (!run->offline.on[ch])
            continue;
        size_t s = run->n_slots++;
        clcpack_device_info info = {.struct_size = sizeof info};
        ot_device_info(&run->offline, (ot_chain)ch, &info);
        if (clcpack_writer_add_device(run->w, &info, &run->dev_index[s], &e) != CLCPACK_OK) {
            cli_error("%s: %s", ot_chain_name((ot_chain)ch), e.message);
            return -1;
        }
        run->dev_info[s] = info;
        run->slot_chain[s] = (ot_chain)ch;
        run->slot_wire[s] = WP_OFFLINE_SLOT + (uint32_t)ch;
        char *name = run->slot_name[s];
        size_t cap = sizeof run->slot_name[s];
        size_t len = (size_t)snprintf(name, cap, "%s %s:", info.device_name, info.driver_version);
        for (size_t t = 0; t < run->offline.n[ch] && len < cap; t++)
            len += (size_t)snprintf(name + len, cap - len, "%s%s", t ? "," : " ",
                                    run->offline.targets[ch][t].name);
    }
    return 0;
}

/* ptxas for the NVIDIA devices' cubins and for the PTX of --merge packs:
 * --ptxas, else the one found, else PTX only, said once. */
static void find_ptxas(pack_run *run, const pack_args *a)
{
    if (run->any_nvidia && !run->ptxas[0] && !run->no_ptxas) {
        char where[PTXAS_PATH_MAX];
        if (ptxas_find(NULL, where) == 0)
            bfmt(run->ptxas, sizeof run->ptxas, "%s", where);
        else
            cli_note("%s: the pack holds PTX only for NVIDIA devices (no cubins); "
                     "--ptxas PATH names one",
                     where);
    }
    if (a->n_merge && !run->no_ptxas) {
        if (run->ptxas[0])
            bfmt(run->merge_ptxas, sizeof run->merge_ptxas, "%s", run->ptxas);
        else if (ptxas_find(NULL, run->merge_ptxas) != 0) {
            cli_note("%s: the PTX of --merge packs is taken as it is (no cubins); --ptxas PATH "
                     "names one", run->merge_ptxas);
            run->merge_ptxas[0] = '\0';
        }
    }
    if (!run->any_nvidia)
        run->ptxas[0] = '\0';
}

/* The writer and its device table: the devices, then the offline
 * toolchains, one job slot each. 0, or the exit status. */
static int setup_writer(pack_run *run, const pack_args *a)
{
    clcpack_error e;
    /* Binaries wait in the writer's spool file, not in memory, so a pack
     * of many gigabytes costs memory for its largest binary and its index. */
    uint32_t wflags = (a->no_sources ? CLCPACK_WRITE_NO_SOURCES : 0) |
                      (a->compress_cubins ? CLCPACK_WRITE_COMPRESS_CUBINS : 0) |
                      (a->store_cubins ? CLCPACK_WRITE_STORE_CUBINS : 0) | CLCPACK_WRITE_SPOOL;
    if (clcpack_writer_new(wflags, &run->w, &e) != CLCPACK_OK ||
        clcpack_writer_set_compression(run->w, a->codec, &e) != CLCPACK_OK) {
        cli_error("%s", e.message);
        return EXIT_FAILURE_STATUS;
    }
    if (add_devices(run) != 0 || add_offline_slots(run) != 0)
        return EXIT_FAILURE_STATUS;
    if (run->n_slots == 0) {
        cli_error("nothing to build: no device and no offline toolchain");
        return EXIT_FAILURE_STATUS;
    }
    find_ptxas(run, a);
    return 0;
}

/* Every job's frame (each variant on each slot), and the groups of jobs
 * building the same program. 0, or the exit status. */
static int encode_jobs(pack_run *run)
{
    run->n_jobs = run->n_slots * run->plan->n;
    size_t n = run->n_jobs ? run->n_jobs : 1;
    run->jobs = calloc(n, sizeof *run->jobs);
    run->fail_reason = calloc(n, sizeof *run->fail_reason);
    run->retried = calloc(n, 1);
    run->order = malloc(n * sizeof *run->order);
    run->cost = malloc(n * sizeof *run->cost);
    if (run->jobs && run->fail_reason && run->retried && run->order && run->cost)
        run->groups = same_program_groups(run);
    if (!run->groups) {
        cli_error("out of memory for %zu jobs", run->n_jobs);
        return EXIT_FAILURE_STATUS;
    }
    for (size_t d = 0; d < run->n_slots; d++)
        for (size_t v = 0; v < run->plan->n; v++) {
            size_t j = d * run->plan->n + v;
            sb_init(&run->jobs[j]);
            wp_encode_job(&run->jobs[j], (uint32_t)j, run->slot_wire[d], 0,
                          &run->plan->jobs[v]);
            if (run->jobs[j].failed) {
                cli_error("out of memory encoding job %zu", j);
                return EXIT_FAILURE_STATUS;
            }
        }
    return 0;
}

/* The pack the output already is, when its entries may be reused: not
 * with --rebuild, --tune or --tune-cmd, and only one this version of clc-pack wrote.
 * NULL otherwise. */
static clcpack *open_old_pack(const pack_args *a, const char *output)
{
    clcpack *old = NULL;
    struct stat ost;
    if (a->rebuild || a->tune || a->tune_cmd || stat(output, &ost) != 0 ||
        !S_ISREG(ost.st_mode))
        return NULL;
    clcpack_error oe;
    if (clcpack_open_file(output, &old, &oe) != CLCPACK_OK) {
        cli_note("%s is not a pack clc-pack can read (%s): building every variant", output,
                 oe.message);
        return NULL;
    }
    if (clcpack_writer_version(old) != clcpack_version()) {
        cli_note("%s was written by another version of clc-pack: building every variant", output);
        clcpack_close(old);
        return NULL;
    }
    return old;
}

/* Seconds per byte of program text, from the build times of earlier runs
 * of these jobs; a guess when there are none. */
static double seconds_per_byte(const pack_run *run)
{
    double s_sum = 0, b_sum = 0;
    for (size_t j = 0; j < run->n_jobs; j++) {
        const build_job *bj = &run->plan->jobs[j % run->plan->n];
        double t = pr_times_get(&run->times, pr_time_key(bj, &run->dev_info[j / run->plan->n]));
        if (t >= 0) {
            s_sum += t;
            b_sum += (double)bj->source_size;
        }
    }
    return s_sum > 0 && b_sum > 0 ? s_sum / b_sum : 2e-6;
}

/* Job j's entries copied from the old pack into the writer: 1 when they
 * were, 0 when it is to be built, -1 after saying why the pack is bad. */
static int reuse_job(pack_run *run, clcpack *old, size_t j)
{
    size_t d = j / run->plan->n;
    const build_job *bj = &run->plan->jobs[j % run->plan->n];
    char rerr[CLCPACK_MESSAGE_MAX + 64];
    pr_forms forms = {run->ptxas[0] != 0, CLCPACK_KIND_NATIVE, NULL, 0};
    uint32_t archs[OT_MAX_TARGETS];
    if (d >= run->n_dev) {
        ot_chain ch = run->slot_chain[d];
        forms.kind = ot_chain_kind(ch);
        for (size_t t = 0; t < run->offline.n[ch]; t++)
            archs[t] = run->offline.targets[ch][t].arch;
        forms.archs = archs;
        forms.n_archs = run->offline.n[ch];
    }
    long got = pr_reuse(old, bj, &run->dev_info[d], run->dev_index[d], &forms, run->w, rerr,
                        sizeof rerr);
    if (got < 0) {
        cli_error("%s: %s", run->output, rerr);
        return -1;
    }
    if (got == 0)
        return 0;
    run->n_reused++;
    run->n_ok++;
    if (cli_verbosity > 0) {
        char label[LABEL_MAX];
        job_label(run, j, label, sizeof label);
        fprintf(stderr, "clc-pack: reused %s (%ld entr%s)\n", label, got, got == 1 ? "y" : "ies");
    }
    return 1;
}

/* Entries the old pack already holds are copied, the rest are to be
 * built, longest first (pack_reuse.h). 0, or the exit status. */
static int order_jobs(pack_run *run, const pack_args *a)
{
    clcpack *old = open_old_pack(a, run->output);
    pr_times_load(&run->times);
    double per_byte = seconds_per_byte(run);
    for (size_t j = 0; j < run->n_jobs; j++) {
        int reused = old ? reuse_job(run, old, j) : 0;
        if (reused < 0) {
            clcpack_close(old);
            return EXIT_FAILURE_STATUS;
        }
        if (reused)
            continue;
        const build_job *bj = &run->plan->jobs[j % run->plan->n];
        double t = pr_times_get(&run->times, pr_time_key(bj, &run->dev_info[j / run->plan->n]));
        run->cost[j] = t >= 0 ? t : per_byte * (double)bj->source_size;
        run->order[run->n_pending++] = j;
    }
    clcpack_close(old);
    pr_sort_longest_first(run->order, run->n_pending, run->cost);
    if (run->n_reused && cli_verbosity >= 0)
        cli_note("%zu of %zu variant(s) reused from %s; building %zu (--rebuild builds all)",
                 run->n_reused, run->n_jobs, run->output, run->n_pending);
    return 0;
}

/* How many workers: -j, else make's jobserver's slots (docs/CLI.md, "Under
 * make"), one with --tune or --tune-cmd. Returns the jobserver joined, or NULL. */
static jobserver *choose_parallelism(pack_args *a)
{
    if ((a->tune || a->tune_cmd) && a->jobs > 1) {
        /* Timings taken while other variants build are distorted (on a CPU
         * device the builds take the very cores the kernel runs on): with
         * --tune or --tune-cmd, one variant at a time. */
        cli_note("%s: building and timing one variant at a time (-j 1)",
                 a->tune ? "--tune" : "--tune-cmd");
        a->jobs = 1;
    }
    char jwhy[1200];
    jobserver *js = js_open(jwhy, sizeof jwhy);
    if (!js && jwhy[0])
        cli_note("%s%s", jwhy, a->jobs_given ? "" : "; building with -j 1");
    if (!js && jwhy[0] && !a->jobs_given)
        a->jobs = 1;
    if (js && !a->jobs_given && js_slots(js) > 0)
        a->jobs = js_slots(js) > PA_MAX_JOBS ? PA_MAX_JOBS : js_slots(js);
    return js;
}

/* The jobs to build, in worker processes, *wall the seconds it took. 0;
 * -1 when the workers could not be started, 1 when the pool failed (each
 * said). */
static int run_workers(pack_run *run, pack_args *a, double *wall)
{
    char exe[4096];
    if (cli_worker_path(exe, sizeof exe) != 0) {
        cli_error("cannot find the clc-pack executable to start workers (argv[0] is %s)",
                  cli_argv0);
        return -1;
    }
    /* Workers that hand fetched binaries to the driver build in folders of
     * their own (build_worker.c), under one removed at the end. */
    if (run->remote_lookups &&
        tt_make(NULL, "clc-pack-run", run->work_root, sizeof run->work_root) != 0) {
        cli_error("cannot create a temporary folder for the workers: %s", strerror(errno));
        run->work_root[0] = '\0';
        return -1;
    }
    run->wargv = worker_argv(run, run->ptxas);
    if (!run->wargv) {
        cli_error("out of memory");
        return -1;
    }
    jobserver *js = choose_parallelism(a);
    if (cli_verbosity > 0)
        fprintf(stderr, "clc-pack: %zu variant(s) x %zu device(s), -j %ld, into %s\n",
                run->plan->n, run->n_slots, a->jobs, run->output);
    progress_init(&run->prog, stderr, run->n_pending, progress_mode(stderr, cli_verbosity < 0));
    wpool_callbacks cb = {run, on_started, on_finished, on_tick, js, 1, NULL, on_retry};
    char perr[512] = "";
    int prc = wpool_run_order(exe, run->wargv, (size_t)a->jobs, cli_verbosity > 0, run->jobs,
                              run->groups, run->order, run->n_pending, &cb, perr, sizeof perr);
    pr_times_save(&run->times);
    js_close(js);
    progress_clear(&run->prog);
    *wall = progress_elapsed(&run->prog);
    if (prc != 0)
        cli_error("%s", perr);
    return prc != 0;
}

/* Whether what was built is to be written: not after a failure without
 * --keep-going, not when nothing was built (a --shard part may be empty). */
static int worth_writing(const pack_run *run, const pack_args *a)
{
    if (run->n_failed > 0 && !a->keep_going) {
        cli_error("%zu of %zu variant(s) failed; nothing written (--keep-going writes the rest)",
                  run->n_failed, run->n_jobs);
        return 0;
    }
    /* A --shard part with no variant (more parts than variants), or none
     * built with --keep-going, still writes its pack: the merge job of a
     * CI matrix can then take every part's file. */
    if (run->n_ok == 0 && !(a->shard.n && (run->plan->n == 0 || a->keep_going))) {
        cli_error("no variant built; nothing written");
        return 0;
    }
    return 1;
}

/* The pack written (with --merge, merged), the summary printed and the
 * dependency file written. The exit status. */
static int write_pack(pack_run *run, const pack_args *a, bj_list *plan, double wall)
{
    if (!worth_writing(run, a)) {
        print_summary(run, run->output, wall, 0);
        return EXIT_FAILURE_STATUS;
    }
    double t_write = progress_now();
    clcpack_writer_set_threads(run->w, (unsigned)a->jobs);
    /* With --merge the built entries go to a file of their own first, and
     * the output is written once, by the merge. */
    char built[4200];
    bfmt(built, sizeof built, "%s.built.%ld", run->output, (long)getpid());
    clcpack_error e;
    if (clcpack_writer_write_file(run->w, a->n_merge ? built : run->output, &e) != CLCPACK_OK) {
        cli_error("%s", e.message);
        print_summary(run, run->output, wall, 0);
        return EXIT_FAILURE_STATUS;
    }
    if (cli_verbosity > 0)
        fprintf(stderr, "clc-pack: builds took %.1f s, encoding and writing the pack %.1f s\n",
                wall, progress_now() - t_write);
    if (a->n_merge && merge_into(a, built, run->output, run->merge_ptxas) != 0) {
        print_summary(run, run->output, progress_elapsed(&run->prog), 0);
        return EXIT_FAILURE_STATUS;
    }
    print_summary(run, run->output, progress_elapsed(&run->prog), 1);
    int status = run->n_failed ? EXIT_FAILURE_STATUS : EXIT_OK_STATUS;
    /* The packs --merge took entries from are inputs of this one too. */
    for (size_t i = 0; i < a->n_merge; i++)
        bj_list_add_read(plan, a->merge[i]);
    if ((a->depfile || a->depfile_md) && write_depfile(a, plan, run->output) != 0)
        status = EXIT_FAILURE_STATUS;
    return status;
}

static void free_run(pack_run *run)
{
    free_argv(run->wargv);
    if (run->jobs)
        for (size_t j = 0; j < run->n_jobs; j++)
            sb_free(&run->jobs[j]);
    free(run->jobs);
    free(run->groups);
    free(run->order);
    free(run->cost);
    pr_times_free(&run->times);
    free(run->fail_reason);
    free(run->retried);
    free(run->remote_url_buf);
    if (run->work_root[0])
        tt_remove(run->work_root);
    clcpack_writer_free(run->w);
    free(run->part.jobs); /* a view: the jobs are the plan's */
    memset(run, 0, sizeof *run);
}

/* The options' answers that stop before a build: --help, --version,
 * --list-devices. 1 with *status set when one was given. */
static int answer_early(const pack_args *a, ds_list *devices, int *status)
{
    *status = EXIT_OK_STATUS;
    if (a->help)
        usage_pack(stdout);
    else if (a->version)
        print_version(stdout);
    else if (a->list_devices) {
        char derr[DS_ERR_MAX];
        if (ds_enumerate(devices, derr) != 0) {
            cli_error("%s", derr);
            *status = EXIT_FAILURE_STATUS;
        } else
            ds_print(stdout, devices);
    } else
        return 0;
    return 1;
}

/* Plan, devices and writer, the builds in workers, then the pack and the
 * summary: each a step above, any of which may end the command. */
int cmd_pack(int argc, char **argv)
{
    static pack_args a; /* holds the value lists: too large for the stack */
    static ds_list devices;
    static bj_list plan;
    static pack_run run;
    char err[PA_ERR_MAX];
    /* A bare clc-pack where there is no kernels folder: a newcomer's first
     * try, answered with how to start rather than a missing manifest. */
    if (argc <= 1 && access("kernels/manifest.txt", F_OK) != 0) {
        usage_short(stderr);
        return EXIT_USAGE_STATUS;
    }
    if (pack_args_parse(argc, argv, &a, err) != 0)
        return cli_usage_error(NULL, "%s", err);
    cli_verbosity = a.verbosity;
    int status;
    if (answer_early(&a, &devices, &status))
        return status;
    memset(&run, 0, sizeof run);
    run.a = &a;
    bj_list_free(&plan);
    status = check_tools(&run, &a);
    if (status == 0)
        status = plan_pack(&run, &a, &plan);
    if (status == 0)
        status = setup_remote(&run, &a);
    if (status == 0)
        status = select_devices(&run, &a, &devices);
    if (status == 0)
        status = choose_output(&run, &a, &plan);
    if (status == 0)
        status = setup_writer(&run, &a);
    if (status == 0)
        status = encode_jobs(&run);
    if (status == 0)
        status = order_jobs(&run, &a);
    if (status == 0) {
        double wall = 0;
        int rc = run_workers(&run, &a, &wall);
        if (rc > 0)
            print_summary(&run, run.output, wall, 0);
        status = rc == 0 ? write_pack(&run, &a, &plan, wall) : EXIT_FAILURE_STATUS;
    }
    free_run(&run);
    bj_list_free(&plan);
    return status;
}
