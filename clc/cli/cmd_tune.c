/* cmd_tune.c — `clc-pack tune SPEC.json`: tune any OpenCL program from a
 * T1 spec (docs/TUNING.md, "Tuning any program from a T1 spec"). The
 * tuner (clc/tune/) searches the space and times every configuration it
 * tries on the device; this command reads the options, reports, writes the
 * T4 results, and packs the fastest correct configurations with their
 * timings the way the direct mode packs variants (pack_run_plan). */
#include "commands.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "build_job.h"
#include "cli_files.h"
#include "cli_opts.h"
#include "cli_report.h"
#include "device_select.h"
#include "pack_run.h"
#include "path.h"
#include "t1_spec.h"
#include "t4_results.h"
#include "temp_tree.h"
#include "tune_data.h"
#include "tune_session.h"
#include "tune_space.h"
#include "worker_pool.h"

typedef struct tune_args {
    const char *output, *t4, *device, *platform, *strategy, *budget, *reference, *keep, *simulate;
    const char *tolerance, *timings;
    long jobs, runs, seed, timeout;
    int verbosity, no_pack, fresh;
} tune_args;

static const cli_opt tune_opts[] = {
    OPT_NAME("output", 'o', tune_args, output, "file name", "PACK",
             "the pack of the fastest configurations (default: the spec's\n"
             "name with .clcpack, in this folder)"),
    OPT_NAME("t4", 0, tune_args, t4, "file name", "FILE",
             "the T4 results (default: PACK.t4.json); a run resumes from it"),
    OPT_STR("device", 0, tune_args, device, "SPEC",
            "the device, as for pack (default: the spec's Device.Name,\n"
            "else the default device)"),
    OPT_STR("platform", 0, tune_args, platform, "NAME", "only platforms whose name contains NAME"),
    OPT_LONG("jobs", 'j', tune_args, jobs, "a number of build workers", 1, 256, "N",
             "build workers (default: the online cores)"),
    OPT_STR("strategy", 0, tune_args, strategy, "NAME",
            "FullSearch, Random or GeneticAlgorithm (default: the spec's\n"
            "Search.Name, else FullSearch)"),
    OPT_STR("budget", 0, tune_args, budget, "N|Ns",
            "try at most N configurations, or tune for N seconds\n"
            "(default: the spec's Budget)"),
    OPT_LONG("seed", 0, tune_args, seed, "a seed", 0, 2147483647, "N",
             "the seed of Random and GeneticAlgorithm (default 1)"),
    OPT_LONG("runs", 0, tune_args, runs, "a number of runs", 1, 1000, "N",
             "timed launches per configuration; the median counts (default 7)"),
    OPT_STR("reference", 0, tune_args, reference, "NAME=V,...",
            "the configuration whose outputs are the reference when the\n"
            "spec has no ReferenceArguments (default: the first valid one)"),
    OPT_STR("tolerance", 0, tune_args, tolerance, "T",
            "the default check's tolerance (default 1e-4)"),
    OPT_LONG("timeout", 0, tune_args, timeout, "a number of seconds", 1, 86400, "S",
             "a configuration that takes longer is stopped (default 60)"),
    OPT_STR("keep", 0, tune_args, keep, "best|N|all",
            "which correct configurations the pack holds (default best)"),
    OPT_FLAG("no-pack", 0, tune_args, no_pack, "only the T4 results: write no pack"),
    OPT_NAME("timings", 0, tune_args, timings, "file name", "FILE",
             "where the packing of the kept configurations spent its time:\n"
             "FILE.html or FILE.json, as pack --timings writes them"),
    OPT_FLAG("fresh", 0, tune_args, fresh, "do not resume from earlier results"),
    OPT_NAME("simulate", 0, tune_args, simulate, "file name", "T4FILE",
             "no device: each configuration's outcome is the one T4FILE\n"
             "holds (an exhaustive run's), to compare strategies; no pack"),
    OPT_QUIET(tune_args, verbosity, "print only errors and the result"),
    OPT_VERBOSE(tune_args, verbosity, "a line per configuration"),
    OPT_HELP,
};

const cli_optspec tune_optspec = {"tune", tune_opts, sizeof tune_opts / sizeof tune_opts[0], 0, 24};

/* --budget N or Ns. 0, or the exit status. */
static int parse_budget(const char *text, t1_budget_kind *kind, double *value)
{
    char *end;
    double v = strtod(text, &end);
    int secs = end[0] == 's' && end[1] == '\0';
    if (end == text || !(v > 0) || !isfinite(v) || (!secs && (*end || v != floor(v))))
        return cli_usage_error("tune", "tune: --budget %s: expected a number of configurations "
                               "(N) or of seconds (Ns)", text);
    *kind = secs ? T1_BUDGET_SECONDS : T1_BUDGET_COUNT;
    *value = v;
    return 0;
}

static int parse_keep(const char *text, size_t *keep)
{
    if (!text || strcmp(text, "best") == 0) {
        *keep = 1;
        return 0;
    }
    if (strcmp(text, "all") == 0) {
        *keep = SIZE_MAX;
        return 0;
    }
    char *end;
    long n = strtol(text, &end, 10);
    if (*end || n < 1)
        return cli_usage_error("tune", "tune: --keep %s: expected best, all or a number of "
                               "configurations", text);
    *keep = (size_t)n;
    return 0;
}

/* What the progress callback knows. */
typedef struct report {
    const tune_space *sp;
    int verbosity;
    int tty;
    double best;
} report;

static void on_done(void *ctx, const tune_result *r, size_t n_done, size_t n_planned)
{
    report *rp = ctx;
    if (r->verdict == TUNE_CORRECT && r->median_ns < rp->best)
        rp->best = r->median_ns;
    if (rp->verbosity > 0) {
        char *label = tune_space_label(rp->sp, r->raw);
        if (r->verdict == TUNE_CORRECT)
            fprintf(stderr, "clc-pack: tune: %zu: %s %.4f ms\n", n_done, label ? label : "?",
                    r->median_ns * 1e-6);
        else
            fprintf(stderr, "clc-pack: tune: %zu: %s %s: %s\n", n_done, label ? label : "?",
                    tune_verdict_name(r->verdict), r->message ? r->message : "");
        free(label);
    } else if (rp->tty && rp->verbosity == 0) {
        fprintf(stderr, "\rclc-pack: tune: %zu of %zu, fastest %.4f ms   ", n_done, n_planned,
                isfinite(rp->best) ? rp->best * 1e-6 : 0.0);
    }
}

static int by_median(const void *a, const void *b)
{
    const tune_result *x = *(const tune_result *const *)a, *y = *(const tune_result *const *)b;
    return x->median_ns < y->median_ns ? -1 : x->median_ns > y->median_ns;
}

/* The correct results, fastest first (malloc'd array of pointers). */
static const tune_result **ranked(const tune_results *rs, size_t *n)
{
    const tune_result **v = malloc((rs->n ? rs->n : 1) * sizeof *v);
    *n = 0;
    if (!v)
        return NULL;
    for (size_t i = 0; i < rs->n; i++)
        if (rs->r[i].verdict == TUNE_CORRECT)
            v[(*n)++] = &rs->r[i];
    qsort(v, *n, sizeof *v, by_median);
    return v;
}

static void print_summary(const t1_spec *s, const tune_space *sp, const tune_results *rs,
                          const tune_result *const *rank, size_t n_rank, const char *dev,
                          const char *strategy)
{
    size_t counts[TUNE_TIMEOUT + 1] = {0}, resumed = 0;
    for (size_t i = 0; i < rs->n; i++) {
        counts[rs->r[i].verdict]++;
        resumed += rs->r[i].resumed;
    }
    printf("tune %s: kernel %s on %s, %s\n", s->path, s->kernel_name, dev, strategy);
    printf("  space      %zu valid configurations of %llu\n", sp->n_valid,
           (unsigned long long)sp->n_raw);
    printf("  tried      %zu (%zu from earlier results): correct %zu, compile %zu, constraints %zu, "
           "runtime %zu, correctness %zu, timeout %zu\n",
           rs->n, resumed, counts[TUNE_CORRECT], counts[TUNE_COMPILE], counts[TUNE_CONSTRAINTS],
           counts[TUNE_RUNTIME], counts[TUNE_CORRECTNESS], counts[TUNE_TIMEOUT]);
    for (size_t i = 0; i < n_rank && i < 5; i++) {
        char *label = tune_space_label(sp, rank[i]->raw);
        printf("  %-10s %-44s %10.4f ms  %+7.1f%%\n", i == 0 ? "fastest" : "", label ? label : "?",
               rank[i]->median_ns * 1e-6,
               100.0 * (rank[i]->median_ns / rank[0]->median_ns - 1));
        free(label);
    }
    if (!n_rank)
        printf("  fastest    none: no configuration was correct\n");
}

/* The kept configurations as build jobs, each with its timing. */
static int plan_of(const t1_spec *s, const tune_space *sp, const tune_result *const *rank,
                   size_t n, build_job_list *plan, clcpack_tuning **tun, size_t **n_tun)
{
    *tun = calloc(n ? n : 1, sizeof **tun);
    *n_tun = calloc(n ? n : 1, sizeof **n_tun);
    if (!*tun || !*n_tun)
        return -1;
    const char *names[T1_SPEC_PARAMS_MAX], *values[T1_SPEC_PARAMS_MAX];
    for (size_t i = 0; i < n; i++) {
        build_job *j = build_job_list_add(plan);
        if (!j)
            return -1;
        uint32_t idx[T1_SPEC_PARAMS_MAX];
        tune_space_decode(sp, rank[i]->raw, idx);
        for (size_t k = 0; k < s->n_params; k++) {
            names[k] = s->params[k].name;
            values[k] = s->params[k].texts[idx[k]];
        }
        size_t g[3], l[3];
        char e[600];
        if (tune_space_launch(sp, rank[i]->raw, g, l, e, sizeof e) != 0)
            return -1;
        j->entry_name = strdup(s->kernel_name);
        j->family = strdup("");
        j->source_name = strdup(clcpk_base_name(s->kernel_file));
        j->source = malloc(s->source_size + 1);
        if (j->source)
            memcpy(j->source, s->source, s->source_size + 1);
        j->source_size = s->source_size;
        j->options = tune_space_options(sp, rank[i]->raw);
        j->kernels = calloc(1, sizeof *j->kernels);
        if (j->kernels)
            j->kernels[0] = strdup(s->kernel_name);
        j->n_kernels = 1;
        j->check = strdup("");
        for (unsigned d = 0; d < 3; d++)
            j->wg[d] = d < s->dims && s->local[d] ? (uint32_t)l[d] : 0;
        if (!j->entry_name || !j->family || !j->source_name || !j->source || !j->options ||
            !j->kernels || !j->kernels[0] || !j->check ||
            build_job_set_defines(j, names, values, s->n_params) != 0)
            return -1;
        clcpack_tuning t = {0, (uint32_t)(s->n_problem ? (size_t)s->problem[0] : g[0]),
                            (uint32_t)(s->n_problem > 1 ? (size_t)s->problem[1] : g[1]), rank[i]->n_runs,
                            (uint64_t)llround(rank[i]->median_ns)};
        (*tun)[i] = t;
        (*n_tun)[i] = 1;
    }
    return 0;
}

/* The pack step's command line, as `clc-pack` takes it (argv: room for
 * 16; the strings stay bfmt'd in texts). Its argc. */
typedef struct pack_argv_texts {
    char ordinal[16], jobs[16];
} pack_argv_texts;

static int pack_argv(const tune_args *a, const device_select_device *dev, const char *output,
                     pack_argv_texts *texts, char *argv[16])
{
    bfmt(texts->ordinal, sizeof texts->ordinal, "%u", dev->ordinal);
    bfmt(texts->jobs, sizeof texts->jobs, "%ld", a->jobs);
    int argc = 0;
    argv[argc++] = (char *)"pack";
    argv[argc++] = (char *)"--device";
    argv[argc++] = texts->ordinal;
    argv[argc++] = (char *)"-o";
    argv[argc++] = (char *)output;
    argv[argc++] = (char *)"-j";
    argv[argc++] = texts->jobs;
    if (a->verbosity <= 0)
        argv[argc++] = (char *)"-q";
    if (a->timings) {
        argv[argc++] = (char *)"--timings";
        argv[argc++] = (char *)a->timings;
    }
    argv[argc] = NULL;
    return argc;
}

/* The pack's first worker, started before the search (pack_run.h): on a
 * GPU its start is a context of its own, over a second on an NVIDIA one,
 * which then overlaps the search instead of following it. Its sample plan
 * is the space's first valid configuration: the kept ones differ from it
 * only in the values of their defines. Not on a CPU device, whose cores
 * the search's builds and timings use, and whose context costs little.
 * NULL when not started. */
static pack_run_standby *pack_standby(const tune_args *a, const t1_spec *s, const tune_space *sp,
                                      const device_select_device *dev, const char *output)
{
    if ((dev->type & CL_DEVICE_TYPE_CPU) || !sp->n_valid)
        return NULL;
    tune_result first = {.raw = sp->valid[0], .n_runs = 1, .median_ns = 1};
    const tune_result *rank[1] = {&first};
    build_job_list plan = {0};
    clcpack_tuning *tun = NULL;
    size_t *n_tun = NULL;
    pack_run_standby *standby = NULL;
    if (plan_of(s, sp, rank, 1, &plan, &tun, &n_tun) == 0) {
        pack_argv_texts texts;
        char *argv[16];
        int argc = pack_argv(a, dev, output, &texts, argv);
        standby = pack_run_standby_start(argc, argv, &plan);
    }
    free(tun);
    free(n_tun);
    build_job_list_free(&plan);
    return standby;
}

static int pack_kept(const tune_args *a, const t1_spec *s, const tune_space *sp,
                     const tune_result *const *rank, size_t n_rank, size_t keep,
                     const device_select_device *dev, const char *output,
                     pack_run_standby *standby)
{
    size_t n = n_rank < keep ? n_rank : keep;
    build_job_list plan = {0};
    clcpack_tuning *tun = NULL;
    size_t *n_tun = NULL;
    int status = EXIT_FAILURE_STATUS;
    const clcpack_tuning **tp = NULL;
    if (plan_of(s, sp, rank, n, &plan, &tun, &n_tun) != 0) {
        cli_error("out of memory planning the pack");
        goto out;
    }
    build_job_list_add_read(&plan, s->path);
    build_job_list_add_read(&plan, s->kernel_file);
    tp = calloc(n ? n : 1, sizeof *tp);
    if (!tp) {
        cli_error("out of memory planning the pack");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        tp[i] = &tun[i];
    pack_argv_texts texts;
    char *argv[16];
    int argc = pack_argv(a, dev, output, &texts, argv);
    status = pack_run_plan(argc, argv, &plan, tp, n_tun, standby);
    standby = NULL; /* the run's now */
out:
    pack_run_standby_stop(standby);
    free(tp);
    free(tun);
    free(n_tun);
    build_job_list_free(&plan);
    return status;
}

static int pick_device(const tune_args *a, const t1_spec *s, device_select_device *out)
{
    device_select_list *devices = calloc(1, sizeof *devices); /* large: on the heap */
    char derr[DEVICE_SELECT_ERR_MAX];
    size_t sel[DEVICE_SELECT_MAX_DEVICES], n_sel = 0;
    const char *spec = a->device ? a->device : s->device_name ? s->device_name : "default";
    int rc = -1;
    if (!devices)
        cli_error("out of memory");
    else if (device_select_enumerate(devices, derr) != 0 ||
             device_select(devices, spec, a->platform, sel, &n_sel, derr) != 0)
        cli_error("%s", derr);
    else if (n_sel != 1)
        cli_usage_error("tune", "tune: --device %s selects %zu devices; tune one at a time", spec,
                        n_sel);
    else {
        *out = devices->dev[sel[0]];
        rc = 0;
    }
    free(devices);
    return rc;
}

/* The pack's default name: the spec's, .json replaced by .clcpack. */
static void default_output(const char *spec, char *out, size_t cap)
{
    const char *base = clcpk_base_name(spec);
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".json") == 0)
        len -= 5;
    bfmt(out, cap, "%.*s.clcpack", (int)len, base);
}

/* One tune command's state, shared by its steps below. */
typedef struct tune_run {
    const tune_args *a;
    const char *spec_path;
    t1_spec s;
    tune_space sp;
    tune_results rs, prev, sim;
    size_t keep;
    t1_budget_kind bk;
    double bv, tol;
    char output[4096], t4[4200], workdir[4096], exe[4096];
    char dev_name[DEVICE_SELECT_NAME_MAX + 32];
    device_select_device dev;
    pack_run_standby *standby; /* the pack's first worker, started early */
    child_exits exits;       /* the search's workers, ending while the pack is made */
} tune_run;

/* The strategy's name as the report and the results give it. */
static const char *strategy_of(const tune_run *t)
{
    return t->a->strategy ? t->a->strategy : t->s.search ? t->s.search : "FullSearch";
}

/* The options that need more than the table's checks. 0, or the exit status. */
static int check_options(tune_run *t)
{
    const tune_args *a = t->a;
    t->keep = 1;
    if (parse_keep(a->keep, &t->keep) != 0 ||
        (a->budget && parse_budget(a->budget, &t->bk, &t->bv) != 0))
        return EXIT_USAGE_STATUS;
    t->tol = TUNE_DATA_DEFAULT_TOLERANCE;
    if (a->tolerance) {
        char *end;
        t->tol = strtod(a->tolerance, &end);
        if (*end || !(t->tol >= 0) || !isfinite(t->tol))
            return cli_usage_error("tune", "tune: --tolerance %s: expected a number of 0 or more",
                                   a->tolerance);
    }
    if (a->timings && (a->no_pack || a->simulate))
        return cli_usage_error("tune", "tune: --timings times the packing of the kept "
                                       "configurations: it takes no %s",
                               a->no_pack ? "--no-pack" : "--simulate");
    if (a->output)
        bfmt(t->output, sizeof t->output, "%s", a->output);
    else
        default_output(t->spec_path, t->output, sizeof t->output);
    bfmt(t->t4, sizeof t->t4, "%s%s", a->t4 ? a->t4 : t->output, a->t4 ? "" : ".t4.json");
    int orc = a->no_pack || a->simulate ? 0 : cli_check_output("tune", "-o", t->output, 0);
    if (orc == 0)
        orc = cli_check_output("tune", "--t4", t->t4, 0);
    return orc;
}

/* The spec read and its space walked. 0, or the exit status. */
static int read_spec(tune_run *t)
{
    char err[T1_SPEC_ERR_MAX > TUNE_SPACE_ERR_MAX ? T1_SPEC_ERR_MAX : TUNE_SPACE_ERR_MAX];
    if (t1_spec_read(t->spec_path, &t->s, err) != 0) {
        cli_error("%s", err);
        return EXIT_FAILURE_STATUS;
    }
    double t0 = progress_now();
    if (tune_space_build(&t->sp, &t->s, err) != 0) {
        cli_error("%s: %s", t->spec_path, err);
        return EXIT_FAILURE_STATUS;
    }
    if (t->a->verbosity >= 0)
        fprintf(stderr, "clc-pack: tune: %zu valid configurations of %llu, enumerated in %.3f s\n",
                t->sp.n_valid, (unsigned long long)t->sp.n_raw, progress_now() - t0);
    return 0;
}

/* The device, or for --simulate the results that stand for it; then the
 * earlier results to resume from. 0, or the exit status. */
static int find_device_and_results(tune_run *t)
{
    const tune_args *a = t->a;
    char err[T4_ERR_MAX];
    const char *why = NULL;
    if (a->simulate) {
        if (t4_results_read(a->simulate, &t->sp, NULL, &t->sim, &why, err) != 1) {
            cli_error("--simulate %s: %s", a->simulate, why ? why : err);
            return EXIT_FAILURE_STATUS;
        }
        bfmt(t->dev_name, sizeof t->dev_name, "the results of %s (simulated)", a->simulate);
        return 0;
    }
    if (pick_device(a, &t->s, &t->dev) != 0)
        return EXIT_FAILURE_STATUS;
    bfmt(t->dev_name, sizeof t->dev_name, "%s", t->dev.name);
    if (a->fresh)
        return 0;
    int r = t4_results_read(t->t4, &t->sp, t->dev.name, &t->prev, &why, err);
    if (r < 0) {
        cli_error("%s", err);
        return EXIT_FAILURE_STATUS;
    }
    if (r > 0 && a->verbosity >= 0)
        fprintf(stderr, "clc-pack: tune: resuming from %s (%zu configurations tried before)\n",
                t->t4, t->prev.n);
    else if (why && strcmp(why, "no earlier results") != 0 && a->verbosity >= 0)
        cli_note("not resuming from %s: %s", t->t4, why);
    return 0;
}

/* The search (tune_session.h), and its T4 results written. 0, or the
 * exit status. */
static int search(tune_run *t)
{
    const tune_args *a = t->a;
    if (!a->simulate && (worker_pool_self_exe(cli_argv0, t->exe, sizeof t->exe) != 0 ||
                         temp_tree_make(NULL, "clc-pack-tune", t->workdir, sizeof t->workdir) != 0)) {
        cli_error("cannot prepare the tune workers (%s)", t->exe);
        t->workdir[0] = '\0';
        return EXIT_FAILURE_STATUS;
    }
    report rp = {&t->sp, a->verbosity, isatty(2), INFINITY};
    tune_session_options o = {
        .exe = t->exe, .platform_index = t->dev.platform_index,
        .device_index = t->dev.device_index, .cpu_device = (t->dev.type & CL_DEVICE_TYPE_CPU) != 0,
        .jobs = (size_t)a->jobs, .strategy = a->strategy, .budget_kind = t->bk,
        .budget_value = t->bv, .seed = (uint64_t)a->seed, .runs = (unsigned)a->runs,
        .tolerance = t->tol, .build_timeout_s = (double)a->timeout * 5,
        .run_timeout_s = (double)a->timeout, .reference = a->reference, .workdir = t->workdir,
        .show_worker_output = a->verbosity > 1, .previous = a->fresh ? NULL : &t->prev,
        .simulate = a->simulate ? &t->sim : NULL, .ctx = &rp, .done = on_done,
        .exits = &t->exits,
    };
    if (!a->no_pack && !a->simulate)
        t->standby = pack_standby(a, &t->s, &t->sp, &t->dev, t->output);
    char err[TUNE_SESSION_ERR_MAX];
    int rc = tune_session_run(&o, &t->s, &t->sp, &t->rs, err);
    if (rp.tty && a->verbosity == 0)
        fprintf(stderr, "\r%60s\r", "");
    t4_run_info info = {t->dev_name, strategy_of(t), t->rs.wall_s};
    char terr[T4_ERR_MAX];
    if (t->rs.n && (!a->simulate || a->t4) && t4_results_write(t->t4, &t->sp, &t->rs, &info, terr) != 0)
        cli_error("%s", terr);
    if (rc != 0) {
        cli_error("%s: %s", t->spec_path, err);
        return EXIT_FAILURE_STATUS;
    }
    return 0;
}

/* The report, and the pack of the kept configurations. The exit status. */
static int report_and_pack(tune_run *t)
{
    const tune_args *a = t->a;
    size_t n_rank = 0;
    const tune_result **rank = ranked(&t->rs, &n_rank);
    if (!rank)
        return EXIT_FAILURE_STATUS;
    print_summary(&t->s, &t->sp, &t->rs, rank, n_rank, t->dev_name, strategy_of(t));
    if (!a->simulate || a->t4)
        printf("  results    %s\n", t->t4);
    if (!a->simulate)
        printf("  wall       %.2f s: builds %.2f s summed over %zu workers (each ready after at "
               "most %.2f s) and the timing worker (%zu builds while it had nothing to time), "
               "timing %.2f s (its worker ready after %.2f s)\n",
               t->rs.wall_s, t->rs.build_s, t->rs.n_builders, t->rs.builder_setup_s,
               t->rs.n_timer_built, t->rs.time_s, t->rs.timer_setup_s);
    fflush(stdout);
    int status = EXIT_FAILURE_STATUS;
    size_t n = n_rank < t->keep ? n_rank : t->keep;
    if (!n_rank) {
        cli_error("%s: no configuration was correct: nothing to pack", t->spec_path);
    } else if (a->no_pack || a->simulate) {
        status = EXIT_OK_STATUS;
    } else {
        status = pack_kept(a, &t->s, &t->sp, rank, n_rank, t->keep, &t->dev, t->output,
                           t->standby);
        t->standby = NULL;
        if (status == EXIT_OK_STATUS)
            printf("  pack       %s (%zu configuration%s)\n", t->output, n, n == 1 ? "" : "s");
    }
    free(rank);
    return status;
}

static int run_tuning(const tune_args *a, const char *spec_path)
{
    tune_run *t = calloc(1, sizeof *t); /* large: on the heap */
    if (!t) {
        cli_error("out of memory");
        return EXIT_FAILURE_STATUS;
    }
    t->a = a;
    t->spec_path = spec_path;
    int status = check_options(t);
    if (status == 0)
        status = read_spec(t);
    if (status == 0)
        status = find_device_and_results(t);
    if (status == 0)
        status = search(t);
    if (status == 0)
        status = report_and_pack(t);
    pack_run_standby_stop(t->standby);
    child_exits_reap(&t->exits); /* before their folder goes */
    if (t->workdir[0])
        temp_tree_remove(t->workdir);
    tune_results_free(&t->rs);
    tune_results_free(&t->prev);
    tune_results_free(&t->sim);
    tune_space_free(&t->sp);
    t1_spec_free(&t->s);
    free(t);
    return status;
}

int cmd_tune(int argc, char **argv)
{
    tune_args ta;
    memset(&ta, 0, sizeof ta);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    ta.jobs = cores > 0 ? (cores > 256 ? 256 : cores) : 1;
    ta.runs = 7;
    ta.seed = 1;
    ta.timeout = 60;
    int operand;
    int rc = cli_opts_run(&tune_optspec, usage_tune, argc, argv, &ta, &operand);
    if (rc != CLI_OPTS_GO)
        return rc;
    if (operand != argc - 1)
        return cli_usage_error("tune", "tune: expected one T1 spec (SPEC.json), got %d arguments",
                               argc - operand);
    cli_verbosity = ta.verbosity;
    return run_tuning(&ta, argv[operand]);
}
