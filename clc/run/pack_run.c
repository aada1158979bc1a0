/* pack_run.c — the pack run: build every selected variant for the
 * selected devices in worker processes and write them into one pack. The
 * steps are here; the worker side is pack_workers.c, the outputs and the
 * summary pack_outputs.c (pack_run.h: the run they share). Its users are
 * commands: `clc-pack [pack]` (cmd_pack.c) and `clc-pack tune`, which packs
 * the configurations it keeps (cmd_tune.c). */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_files.h"
#include "cli_report.h"
#include "pack_blobs.h"
#include "pack_run.h"
#include "device_lock.h"
#include "plan_shard.h"
#include "pocl_wg.h"
#include "temp_tree.h"
#include "worker_proto.h"

/* The tools the options name, checked before anything is planned:
 * --ptxas (the commands' placeholders are checked as they are read). 0,
 * or the exit status. */
static int check_tools(pack_run *run, const pack_args *a)
{
    /* --ptxas none: PTX only, as the driver gave it (docs/vendors/NVIDIA.md). */
    run->out->no_ptxas = a->ptxas && strcmp(a->ptxas, "none") == 0;
    if (a->ptxas && !run->out->no_ptxas && ptxas_find(a->ptxas, run->out->ptxas) != 0)
        return cli_usage_error(NULL, "%s", run->out->ptxas);
    return 0;
}

/* The plan (pack_plan.h), its notes printed, and with --shard this
 * runner's part of it. 0, or the exit status. */
static int plan_pack(pack_run *run, const pack_args *a, build_job_list *plan)
{
    pack_plan_request req = {a->direct, &a->direct_spec, a->kernels_dir, &a->req};
    char perr[PACK_PLAN_ERR_MAX];
    int rc = pack_plan_make(&req, plan, &run->in->seed_checks, perr, sizeof perr);
    if (rc == PACK_PLAN_USAGE)
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
    run->in->plan = plan;
    run->in->whole = plan;
    if (!a->shard.n)
        return 0;
    if (plan_shard_take(&a->shard, plan, &run->in->part, &run->in->shard_share) != 0) {
        cli_error("out of memory dividing %zu variants into %u parts", plan->n, a->shard.n);
        return EXIT_FAILURE_STATUS;
    }
    run->in->plan = &run->in->part;
    run->in->shard_total = plan->n;
    if (run->in->part.n == 0 && cli_verbosity >= 0)
        cli_note("--shard %u/%u: no variant of the %zu falls to this part; the pack holds "
                 "no entry",
                 a->shard.k, a->shard.n, plan->n);
    return 0;
}

/* The devices --device and --platform select, and the offline toolchains
 * asked for: one that is missing costs its entries, with one line naming
 * its package; a bad list is a usage error, found before anything is
 * built. 0, or the exit status. */
static int select_devices(pack_run *run, const pack_args *a, device_select_list *devices)
{
    /* --device none: offline targets only, no OpenCL device needed. */
    int no_device = strcmp(a->device, "none") == 0;
    if (no_device && !a->intel_gpu && !a->amd_gpu && !a->spirv)
        return cli_usage_error(NULL, "--device none builds offline targets only: give "
                                     "--intel-gpu, --amd-gpu or --spirv");
    size_t sel[DEVICE_SELECT_MAX_DEVICES];
    char derr[DEVICE_SELECT_ERR_MAX];
    if (!no_device && (device_select_enumerate(devices, derr) != 0 ||
                       device_select(devices, a->device, a->platform, sel, &run->slots->n_dev, derr) != 0)) {
        cli_error("%s", derr);
        return EXIT_FAILURE_STATUS;
    }
    for (size_t i = 0; i < run->slots->n_dev; i++)
        run->slots->devs[i] = &devices->dev[sel[i]];
    const int want_chain[OFFLINE_TARGETS_N_CHAINS] = {a->intel_gpu, a->amd_gpu, a->spirv};
    const char *chain_list[OFFLINE_TARGETS_N_CHAINS] = {a->intel_list, a->amd_list, NULL};
    for (int ch = 0; ch < OFFLINE_TARGETS_N_CHAINS; ch++) {
        if (!want_chain[ch])
            continue;
        char notes[4096] = "", omsg[OFFLINE_TARGETS_MSG_MAX];
        int orc = offline_targets_resolve(&run->slots->offline, (offline_targets_chain)ch, chain_list[ch], notes, sizeof notes,
                             omsg, sizeof omsg);
        for (char *line = strtok(notes, "\n"); line && cli_verbosity >= 0;
             line = strtok(NULL, "\n"))
            cli_note("%s", line);
        if (orc < 0)
            return cli_usage_error(NULL, "%s", omsg);
        if (orc > 0)
            cli_error("warning: %s; the pack is built without %s entries", omsg,
                      offline_targets_chain_name((offline_targets_chain)ch));
    }
    /* Intel binaries leave out the SPIR-V ocloc would put in each of them,
     * unless asked for, or unless it is the only form left a driver could
     * rebuild from: no source and no SPIR-V entry (docs/vendors/INTEL.md). */
    run->slots->offline.intel_exclude_ir =
        !a->intel_ir && !(a->no_sources && !run->slots->offline.on[OFFLINE_TARGETS_SPIRV]);
    if (a->intel_ir && !a->intel_gpu && cli_verbosity >= 0)
        cli_note("--intel-ir without --intel-gpu does nothing");
    return 0;
}

/* The pack's file name, checked before minutes of building: it can be
 * written, and it is none of the files the pack is built from (-o x.cl
 * for x.cl). 0, or the exit status. */
static int choose_output(pack_run *run, const pack_args *a, const build_job_list *plan)
{
    char fallback[DEVICE_SELECT_SLUG_MAX + 32];
    if (!a->output && pack_default_output(run, fallback, sizeof fallback) != 0)
        return EXIT_FAILURE_STATUS;
    run->out->output = strdup(a->output ? a->output : fallback);
    if (!run->out->output) {
        cli_error("out of memory");
        return EXIT_FAILURE_STATUS;
    }
    /* The same check runs again when the pack is written. */
    int orc = cli_check_output(NULL, "-o", run->out->output, 0);
    if (orc != 0)
        return orc;
    struct stat out_st;
    for (size_t i = 0; i < plan->n_read && stat(run->out->output, &out_st) == 0; i++) {
        struct stat in_st;
        if (stat(plan->read[i], &in_st) == 0 && in_st.st_dev == out_st.st_dev &&
            in_st.st_ino == out_st.st_ino)
            return cli_usage_error(NULL, "-o %s is %s, which this pack is built from",
                                   run->out->output, plan->read[i]);
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
    for (size_t i = 0; i < run->slots->n_dev; i++) {
        clcpack_device_info info = {.struct_size = sizeof info};
        uint32_t index;
        if (clcpack_device_query(run->slots->devs[i]->device, &info, &e) != CLCPACK_OK ||
            clcpack_writer_add_device(run->out->w, &info, &index, &e) != CLCPACK_OK) {
            cli_error("device %u (%s): %s", run->slots->devs[i]->ordinal, run->slots->devs[i]->name,
                      e.message);
            return -1;
        }
        size_t k = 0;
        while (k < kept && run->slots->dev_index[k] != index)
            k++;
        if (k < kept) {
            cli_note("device %u is identical to device %u: built once", run->slots->devs[i]->ordinal,
                     run->slots->devs[k]->ordinal);
            continue;
        }
        run->slots->devs[kept] = run->slots->devs[i];
        run->slots->dev_info[kept] = info;
        run->slots->dev_index[kept++] = index;
        if (info.vendor_id == NVIDIA_VENDOR_ID)
            run->slots->any_nvidia = 1;
    }
    run->slots->n_dev = kept;
    for (size_t i = 0; i < kept; i++) {
        run->slots->slot_wire[i] = (uint32_t)i;
        bfmt(run->slots->slot_name[i], sizeof run->slots->slot_name[i], "%s", run->slots->devs[i]->name);
    }
    run->slots->n_slots = kept;
    return 0;
}

/* A slot for each offline toolchain, after the devices'. 0, or -1 after
 * saying why. */
static int add_offline_slots(pack_run *run)
{
    clcpack_error e;
    for (int ch = 0; ch < OFFLINE_TARGETS_N_CHAINS; ch++) {
        if (!run->slots->offline.on[ch])
            continue;
        size_t s = run->slots->n_slots++;
        clcpack_device_info info = {.struct_size = sizeof info};
        offline_targets_device_info(&run->slots->offline, (offline_targets_chain)ch, &info);
        if (clcpack_writer_add_device(run->out->w, &info, &run->slots->dev_index[s], &e) != CLCPACK_OK) {
            cli_error("%s: %s", offline_targets_chain_name((offline_targets_chain)ch), e.message);
            return -1;
        }
        run->slots->dev_info[s] = info;
        run->slots->slot_chain[s] = (offline_targets_chain)ch;
        run->slots->slot_wire[s] = WORKER_PROTO_OFFLINE_SLOT + (uint32_t)ch;
        char *name = run->slots->slot_name[s];
        size_t cap = sizeof run->slots->slot_name[s];
        size_t len = (size_t)snprintf(name, cap, "%s %s:", info.device_name, info.driver_version);
        for (size_t t = 0; t < run->slots->offline.n[ch] && len < cap; t++)
            len += (size_t)snprintf(name + len, cap - len, "%s%s", t ? "," : " ",
                                    run->slots->offline.targets[ch][t].name);
    }
    return 0;
}

/* ptxas for the NVIDIA devices' cubins and for the PTX of --merge packs:
 * --ptxas, else the one found, else PTX only, said once. */
static void find_ptxas(pack_run *run, const pack_args *a)
{
    if (run->slots->any_nvidia && !run->out->ptxas[0] && !run->out->no_ptxas) {
        char where[PTXAS_PATH_MAX];
        if (ptxas_find(NULL, where) == 0)
            bfmt(run->out->ptxas, sizeof run->out->ptxas, "%s", where);
        else
            cli_note("%s: the pack holds PTX only for NVIDIA devices (no cubins); "
                     "--ptxas PATH names one",
                     where);
    }
    if (a->n_merge && !run->out->no_ptxas) {
        if (run->out->ptxas[0])
            bfmt(run->out->merge_ptxas, sizeof run->out->merge_ptxas, "%s", run->out->ptxas);
        else if (ptxas_find(NULL, run->out->merge_ptxas) != 0) {
            cli_note("%s: the PTX of --merge packs is taken as it is (no cubins); --ptxas PATH "
                     "names one", run->out->merge_ptxas);
            run->out->merge_ptxas[0] = '\0';
        }
    }
    if (!run->slots->any_nvidia)
        run->out->ptxas[0] = '\0';
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
    if (clcpack_writer_new(wflags, &run->out->w, &e) != CLCPACK_OK ||
        clcpack_writer_set_compression(run->out->w, a->codec, &e) != CLCPACK_OK) {
        cli_error("%s", e.message);
        return EXIT_FAILURE_STATUS;
    }
    if (add_devices(run) != 0 || add_offline_slots(run) != 0)
        return EXIT_FAILURE_STATUS;
    if (run->slots->n_slots == 0) {
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
    run->work->n_jobs = run->slots->n_slots * run->in->plan->n;
    size_t n = run->work->n_jobs ? run->work->n_jobs : 1;
    run->work->jobs = calloc(n, sizeof *run->work->jobs);
    run->work->fail_reason = calloc(n, sizeof *run->work->fail_reason);
    run->work->retried = calloc(n, 1);
    run->work->order = malloc(n * sizeof *run->work->order);
    run->work->cost = malloc(n * sizeof *run->work->cost);
    if (run->work->jobs && run->work->fail_reason && run->work->retried && run->work->order && run->work->cost)
        run->work->groups = pack_same_program_groups(run);
    if (!run->work->groups) {
        cli_error("out of memory for %zu jobs", run->work->n_jobs);
        return EXIT_FAILURE_STATUS;
    }
    for (size_t d = 0; d < run->slots->n_slots; d++)
        for (size_t v = 0; v < run->in->plan->n; v++) {
            size_t j = d * run->in->plan->n + v;
            sb_init(&run->work->jobs[j]);
            worker_proto_encode_job(&run->work->jobs[j], (uint32_t)j, run->slots->slot_wire[d], 0,
                          &run->in->plan->jobs[v]);
            if (run->work->jobs[j].failed) {
                cli_error("out of memory encoding job %zu", j);
                return EXIT_FAILURE_STATUS;
            }
        }
    return 0;
}

/* The pack the output already is, when its entries may be reused: not
 * with --rebuild or --tune, and only one this version of clc-pack wrote.
 * NULL otherwise. */
static clcpack *open_old_pack(const pack_args *a, const char *output)
{
    clcpack *old = NULL;
    struct stat ost;
    if (a->rebuild || a->tune || stat(output, &ost) != 0 || !S_ISREG(ost.st_mode))
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
    for (size_t j = 0; j < run->work->n_jobs; j++) {
        const build_job *bj = &run->in->plan->jobs[j % run->in->plan->n];
        double t = pack_reuse_times_get(&run->work->times, pack_reuse_time_key(bj, &run->slots->dev_info[j / run->in->plan->n]));
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
    size_t d = j / run->in->plan->n;
    const build_job *bj = &run->in->plan->jobs[j % run->in->plan->n];
    double t0 = pack_timings_now(&run->rep->timings);
    char rerr[CLCPACK_MESSAGE_MAX + 64];
    /* What the workers store on PoCL now. */
    pack_reuse_forms forms = {run->out->ptxas[0] != 0, CLCPACK_KIND_NATIVE, NULL, 0,
                              pocl_wg_forms(run->a->pocl_small_grids)};
    uint32_t archs[OFFLINE_TARGETS_MAX_TARGETS];
    if (d >= run->slots->n_dev) {
        offline_targets_chain ch = run->slots->slot_chain[d];
        forms.kind = offline_targets_chain_kind(ch);
        for (size_t t = 0; t < run->slots->offline.n[ch]; t++)
            archs[t] = run->slots->offline.targets[ch][t].arch;
        forms.archs = archs;
        forms.n_archs = run->slots->offline.n[ch];
    }
    long got = pack_reuse(old, bj, &run->slots->dev_info[d], run->slots->dev_index[d], &forms, run->out->w, rerr,
                        sizeof rerr);
    if (got < 0) {
        cli_error("%s: %s", run->out->output, rerr);
        return -1;
    }
    if (got == 0)
        return 0;
    pack_timings_reused(&run->rep->timings, j, t0);
    run->work->n_reused++;
    run->work->n_ok++;
    if (cli_verbosity > 0) {
        char label[LABEL_MAX];
        pack_job_label(run, j, label, sizeof label);
        fprintf(stderr, "clc-pack: reused %s (%ld entr%s)\n", label, got, got == 1 ? "y" : "ies");
    }
    return 1;
}

/* Entries the old pack already holds are copied, the rest are to be
 * built, longest first (pack_reuse.h). 0, or the exit status. */
static int order_jobs(pack_run *run, const pack_args *a)
{
    pack_timings_step_done(&run->rep->timings, PACK_TIMINGS_SETUP, 0);
    clcpack *old = open_old_pack(a, run->out->output);
    pack_reuse_times_load(&run->work->times);
    double per_byte = seconds_per_byte(run);
    for (size_t j = 0; j < run->work->n_jobs; j++) {
        /* A variant with a check or tune command is built: reused, a
         * failing check would pass unseen. */
        const build_job *v = &run->in->plan->jobs[j % run->in->plan->n];
        int cmd = build_job_has_check_cmd(v) || build_job_has_tune_cmd(v);
        int reused = old && !cmd ? reuse_job(run, old, j) : 0;
        if (reused < 0) {
            clcpack_close(old);
            return EXIT_FAILURE_STATUS;
        }
        if (reused)
            continue;
        const build_job *bj = &run->in->plan->jobs[j % run->in->plan->n];
        double t = pack_reuse_times_get(&run->work->times, pack_reuse_time_key(bj, &run->slots->dev_info[j / run->in->plan->n]));
        run->work->cost[j] = t >= 0 ? t : per_byte * (double)bj->source_size;
        run->work->order[run->work->n_pending++] = j;
    }
    clcpack_close(old);
    pack_reuse_sort_longest_first(run->work->order, run->work->n_pending, run->work->cost);
    if (run->work->n_reused && cli_verbosity >= 0)
        cli_note("%zu of %zu variant(s) reused from %s; building %zu (--rebuild builds all)",
                 run->work->n_reused, run->work->n_jobs, run->out->output, run->work->n_pending);
    return 0;
}

/* How many workers: -j, else make's jobserver's slots (docs/CLI.md, "Under
 * make"), one with --tune or --tune-cmd. Returns the jobserver joined, or NULL. */
static jobserver *choose_parallelism(pack_run *run, pack_args *a)
{
    int cpu = 0;
    for (size_t i = 0; i < run->slots->n_dev; i++)
        cpu |= (run->slots->devs[i]->type & CL_DEVICE_TYPE_CPU) != 0;
    int timed = a->tune || run->in->user_timings;
    if (timed && a->jobs > 1 && cpu) {
        /* On a CPU device the builds would take the very cores the timed
         * kernel runs on: with --tune or --tune-cmd, one variant at a time. */
        cli_note("%s: building and timing one variant at a time on a CPU device (-j 1)",
                 a->tune ? "--tune" : "--tune-cmd");
        a->jobs = 1;
    } else if (timed && a->jobs > 1) {
        /* On a GPU the variants build in parallel and each worker times
         * holding its device's lock (device_lock.h): one timing at a time. */
        if (temp_tree_make(NULL, "clc-pack-lock", run->work->lock_dir, sizeof run->work->lock_dir) != 0) {
            cli_note("%s: no folder for the device lock (%s): -j 1", a->tune ? "--tune" : "--tune-cmd",
                     strerror(errno));
            run->work->lock_dir[0] = '\0';
            a->jobs = 1;
        } else {
            setenv(DEVICE_LOCK_ENV, run->work->lock_dir, 1);
        }
    }
    char jwhy[1200];
    jobserver *js = jobserver_open(jwhy, sizeof jwhy);
    if (!js && jwhy[0])
        cli_note("%s%s", jwhy, a->jobs_given ? "" : "; building with -j 1");
    if (!js && jwhy[0] && !a->jobs_given)
        a->jobs = 1;
    if (js && !a->jobs_given && jobserver_slots(js) > 0)
        a->jobs = jobserver_slots(js) > PACK_ARGS_MAX_JOBS ? PACK_ARGS_MAX_JOBS : jobserver_slots(js);
    return js;
}

/* A plan this large runs for minutes or hours: its size and a guess of
 * its time, before the first build, let a user stop a mistake (a -D list
 * of 1-10000) at once. */
#define PACK_ANNOUNCE_VARIANTS 1000

/* With more than PACK_ANNOUNCE_VARIANTS variants, one note: how many, and
 * the estimated time of those to build on a->jobs workers, from the costs
 * order_jobs gave them (the longest first: the sum over the workers, and
 * never less than the longest one). Quiet with -q. */
static void announce_plan(const pack_run *run, const pack_args *a)
{
    if (run->work->n_jobs <= PACK_ANNOUNCE_VARIANTS || cli_verbosity < 0)
        return;
    double sum = 0, longest = 0;
    for (size_t i = 0; i < run->work->n_pending; i++) {
        double c = run->work->cost[run->work->order[i]];
        sum += c;
        longest = c > longest ? c : longest;
    }
    long workers = a->jobs > 0 ? a->jobs : 1;
    double est = sum / (double)workers;
    char shown[32];
    progress_format_duration(est > longest ? est : longest, shown, sizeof shown);
    cli_note("%zu variants (more than %d), %zu to build: about %s with -j %ld (estimated "
             "from earlier build times, else the program's size)",
             run->work->n_jobs, PACK_ANNOUNCE_VARIANTS, run->work->n_pending, shown, workers);
}

/* Workers that hand fetched binaries to the driver build in folders of
 * their own (build_worker.c), under one removed at the end. 0, or -1
 * after saying why. */
static int make_work_root(pack_run *run)
{
    if (!(run->cache->remote_lookups || run->cache->local_lookups) || run->work->work_root[0])
        return 0;
    if (temp_tree_make(NULL, "clc-pack-run", run->work->work_root, sizeof run->work->work_root) != 0) {
        cli_error("cannot create a temporary folder for the workers: %s", strerror(errno));
        run->work->work_root[0] = '\0';
        return -1;
    }
    return 0;
}

/* A first worker started ahead of its run (pack_run.h): the pool's
 * standby, and the folder its command line names. */
struct pack_run_standby {
    worker_pool_standby *worker;
    char work_root[4096];
};

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
    pack_run_standby *standby = run->work->standby;
    if (standby && standby->work_root[0] && (run->cache->remote_lookups || run->cache->local_lookups)) {
        bfmt(run->work->work_root, sizeof run->work->work_root, "%s", standby->work_root);
        standby->work_root[0] = '\0'; /* the run's now, removed at its end */
    }
    if (make_work_root(run) != 0)
        return -1;
    run->work->wargv = pack_worker_argv(run, run->out->ptxas);
    if (!run->work->wargv) {
        cli_error("out of memory");
        return -1;
    }
    jobserver *js = choose_parallelism(run, a);
    announce_plan(run, a);
    if (cli_verbosity > 0)
        fprintf(stderr, "clc-pack: %zu variant(s) x %zu device(s), -j %ld, into %s\n",
                run->in->plan->n, run->slots->n_slots, a->jobs, run->out->output);
    progress_init(&run->rep->prog, stderr, run->work->n_pending, progress_mode(stderr, cli_verbosity < 0));
    worker_pool_callbacks cb = pack_worker_callbacks(run, js);
    cb.exits = &run->work->exits; /* their teardown overlaps the encoding */
    if (standby) {
        cb.standby = standby->worker; /* the pool's now */
        standby->worker = NULL;
    }
    char perr[512] = "";
    int prc = worker_pool_run_order(exe, run->work->wargv, (size_t)a->jobs, cli_verbosity > 0, run->work->jobs,
                              run->work->groups, run->work->order, run->work->n_pending, &cb, perr, sizeof perr);
    pack_reuse_times_save(&run->work->times);
    jobserver_close(js);
    progress_clear(&run->rep->prog);
    *wall = progress_elapsed(&run->rep->prog);
    if (prc != 0)
        cli_error("%s", perr);
    return prc != 0;
}

/* Whether what was built is to be written: not after a failure without
 * --keep-going, not when nothing was built (a --shard part may be empty). */
static int worth_writing(const pack_run *run, const pack_args *a)
{
    if (run->work->n_failed > 0 && !a->keep_going) {
        cli_error("%zu of %zu variant(s) failed; nothing written (--keep-going writes the rest)",
                  run->work->n_failed, run->work->n_jobs);
        return 0;
    }
    /* A --shard part with no variant (more parts than variants), or none
     * built with --keep-going, still writes its pack: the merge job of a
     * CI matrix can then take every part's file. */
    if (run->work->n_ok == 0 && !(a->shard.n && (run->in->plan->n == 0 || a->keep_going))) {
        cli_error("no variant built; nothing written");
        return 0;
    }
    return 1;
}

/* The pack written (with --merge, merged), the summary printed and the
 * dependency file written. The exit status. */
static int write_pack(pack_run *run, const pack_args *a, build_job_list *plan, double wall)
{
    if (!worth_writing(run, a)) {
        pack_print_summary(run, run->out->output, wall, 0);
        return EXIT_FAILURE_STATUS;
    }
    double t_write = progress_now(), t_step = pack_timings_now(&run->rep->timings);
    clcpack_writer_set_threads(run->out->w, (unsigned)a->jobs);
    /* With --merge the built entries go to a file of their own first, and
     * the output is written once, by the merge. */
    char built[4200];
    bfmt(built, sizeof built, "%s.built.%ld", run->out->output, (long)getpid());
    clcpack_error e;
    pack_blobs blobs; /* the encoder's results kept beside the variant cache */
    pack_blobs_attach(&blobs, run->out->w, run->cache->local_dir);
    clcpack_status wst = clcpack_writer_write_file(run->out->w, a->n_merge ? built : run->out->output, &e);
    pack_blobs_finish(&blobs, run->cache->local_bound);
    if (wst != CLCPACK_OK) {
        cli_error("%s", e.message);
        pack_print_summary(run, run->out->output, wall, 0);
        return EXIT_FAILURE_STATUS;
    }
    if (cli_verbosity > 0)
        fprintf(stderr, "clc-pack: builds took %.1f s, encoding and writing the pack %.1f s\n",
                wall, progress_now() - t_write);
    pack_timings_step_done(&run->rep->timings, PACK_TIMINGS_WRITE, t_step);
    t_step = pack_timings_now(&run->rep->timings);
    int merged = a->n_merge ? pack_merge_into(a, built, run->out->output, run->out->merge_ptxas) : 0;
    if (a->n_merge)
        pack_timings_step_done(&run->rep->timings, PACK_TIMINGS_MERGE, t_step);
    if (merged != 0) {
        pack_print_summary(run, run->out->output, progress_elapsed(&run->rep->prog), 0);
        return EXIT_FAILURE_STATUS;
    }
    pack_print_summary(run, run->out->output, progress_elapsed(&run->rep->prog), 1);
    int status = run->work->n_failed ? EXIT_FAILURE_STATUS : EXIT_OK_STATUS;
    /* The packs --merge took entries from are inputs of this one too. */
    for (size_t i = 0; i < a->n_merge; i++)
        build_job_list_add_read(plan, a->merge[i]);
    if ((a->depfile || a->depfile_md) && pack_write_depfile(a, plan, run->out->output) != 0)
        status = EXIT_FAILURE_STATUS;
    return status;
}

/* The options' answers that stop before a build: --help, --version,
 * --list-devices. 1 with *status set when one was given. */
static int answer_early(const pack_args *a, const pack_run_texts *texts,
                        device_select_list *devices, int *status)
{
    *status = EXIT_OK_STATUS;
    if (a->help)
        texts->usage(stdout);
    else if (a->version)
        texts->version(stdout);
    else if (a->list_devices) {
        char derr[DEVICE_SELECT_ERR_MAX];
        if (device_select_enumerate(devices, derr) != 0) {
            cli_error("%s", derr);
            *status = EXIT_FAILURE_STATUS;
        } else
            device_select_print(stdout, devices);
    } else
        return 0;
    return 1;
}

/* What the workers' command line depends on, for the run and its standby
 * alike: caches, devices, the output (not for a standby: plan NULL), writer. */
static int prepare(pack_run *run, const pack_args *a, device_select_list *devices,
                   const build_job_list *plan)
{
    pack_count_user_cmds(run);
    int status = pack_remote_setup(run, a);
    status = status == 0 ? pack_cache_setup(run, a) : status;
    status = status == 0 ? select_devices(run, a, devices) : status;
    if (status == 0 && plan)
        status = choose_output(run, a, plan);
    if (status == 0)
        status = setup_writer(run, a);
    return status;
}

/* The steps after the plan: prepare, the builds in workers, the pack and
 * its summary. */
static int pack_planned(pack_run *run, pack_args *a, device_select_list *devices,
                        build_job_list *plan)
{
    int status = prepare(run, a, devices, plan);
    status = status == 0 ? encode_jobs(run) : status;
    status = status == 0 ? pack_timings_setup(run) : status;
    status = status == 0 ? order_jobs(run, a) : status;
    if (status == 0) {
        double wall = 0;
        int rc = run_workers(run, a, &wall);
        pack_cache_finish(run);
        if (rc > 0)
            pack_print_summary(run, run->out->output, wall, 0);
        status = rc == 0 ? write_pack(run, a, plan, wall) : EXIT_FAILURE_STATUS;
        if (pack_timings_write(run) != 0)
            status = EXIT_FAILURE_STATUS;
    }
    return status;
}

int pack_run_plan(int argc, char **argv, build_job_list *plan, const clcpack_tuning *const *tunings,
                  const size_t *n_tunings, pack_run_standby *standby)
{
    pack_args *a = calloc(1, sizeof *a); /* holds the value lists: large */
    device_select_list *devices = calloc(1, sizeof *devices);
    char err[PACK_ARGS_ERR_MAX];
    int status = 0;
    if (!a || !devices) {
        cli_error("out of memory");
        status = EXIT_FAILURE_STATUS;
    } else if (pack_args_parse(argc, argv, a, err) != 0)
        status = cli_usage_error(NULL, "%s", err);
    pack_run *run = status == 0 ? pack_run_new(a) : NULL;
    if (status == 0 && !run) {
        cli_error("out of memory");
        status = EXIT_FAILURE_STATUS;
    }
    if (run)
        run->work->standby = standby;
    else
        pack_run_standby_stop(standby);
    if (status == 0) {
        int verbosity = cli_verbosity;
        cli_verbosity = a->verbosity;
        run->in->given_tunings = tunings;
        run->in->given_n_tunings = n_tunings;
        run->in->plan = run->in->whole = plan;
        status = check_tools(run, a);
        if (status == 0)
            status = pack_planned(run, a, devices, plan);
        cli_verbosity = verbosity;
    }
    pack_run_free(run);
    free(devices);
    if (a)
        pack_args_free(a);
    free(a);
    return status;
}

pack_run_standby *pack_run_standby_start(int argc, char **argv, build_job_list *sample)
{
    pack_args *a = calloc(1, sizeof *a);
    device_select_list *devices = calloc(1, sizeof *devices);
    pack_run_standby *s = calloc(1, sizeof *s);
    char err[PACK_ARGS_ERR_MAX], exe[4096], werr[512];
    pack_run *run = NULL;
    int verbosity = cli_verbosity;
    cli_muted++; /* the run itself says what is wrong */
    int ok = a && devices && s && pack_args_parse(argc, argv, a, err) == 0 &&
             (run = pack_run_new(a)) != NULL;
    if (ok) {
        cli_verbosity = a->verbosity;
        run->in->plan = run->in->whole = sample;
        ok = check_tools(run, a) == 0 && prepare(run, a, devices, NULL) == 0 &&
             cli_worker_path(exe, sizeof exe) == 0 && make_work_root(run) == 0;
    }
    char **wargv = ok ? pack_worker_argv(run, run->out->ptxas) : NULL;
    if (wargv)
        s->worker = worker_pool_standby_start(exe, wargv, cli_verbosity > 0, werr, sizeof werr);
    if (s && s->worker) {
        bfmt(s->work_root, sizeof s->work_root, "%s", run->work->work_root);
        run->work->work_root[0] = '\0'; /* the standby's now */
    }
    pack_free_argv(wargv);
    cli_verbosity = verbosity;
    cli_muted--;
    pack_run_free(run);
    free(devices);
    if (a)
        pack_args_free(a);
    free(a);
    if (s && !s->worker) {
        free(s);
        s = NULL;
    }
    return s;
}

void pack_run_standby_stop(pack_run_standby *s)
{
    if (!s)
        return;
    worker_pool_standby_stop(s->worker); /* first: it works in the folder */
    if (s->work_root[0])
        temp_tree_remove(s->work_root);
    free(s);
}

/* Plan, devices and writer, the builds in workers, then the pack and the
 * summary: each a step above, any of which may end the run. */
static int run_args(pack_args *a, const pack_run_texts *texts, device_select_list *devices,
                    build_job_list *plan)
{
    int status;
    if (answer_early(a, texts, devices, &status))
        return status;
    pack_run *run = pack_run_new(a);
    if (!run) {
        cli_error("out of memory");
        return EXIT_FAILURE_STATUS;
    }
    status = check_tools(run, a);
    if (status == 0)
        status = plan_pack(run, a, plan);
    if (status == 0)
        status = pack_planned(run, a, devices, plan);
    pack_run_free(run);
    return status;
}

int pack_run_args(int argc, char **argv, const pack_run_texts *texts)
{
    pack_args *a = calloc(1, sizeof *a); /* holds the value lists: large */
    device_select_list *devices = calloc(1, sizeof *devices);
    build_job_list plan = {0};
    char err[PACK_ARGS_ERR_MAX];
    int status;
    if (!a || !devices) {
        cli_error("out of memory");
        status = EXIT_FAILURE_STATUS;
    } else if (pack_args_parse(argc, argv, a, err) != 0)
        status = cli_usage_error(NULL, "%s", err);
    else {
        cli_verbosity = a->verbosity;
        status = run_args(a, texts, devices, &plan);
    }
    build_job_list_free(&plan);
    free(devices);
    if (a)
        pack_args_free(a);
    free(a);
    return status;
}
