/* worker_main.c — the build worker process (worker_main.h). */
#include "worker_main.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_worker.h"
#include "load_worker.h"
#include "cli_opts.h"
#include "cli_report.h"
#include "device_select.h"
#include "manifest.h"
#include "nv_arch_list.h"
#include "pocl_wg.h"
#include "seed_hook.h"
#include "tool_run.h"
#include "worker_pool.h"

typedef struct worker_args {
    build_worker *w; /* slots, architectures and offline targets go straight in */
    int worker, no_check, no_warmup, remote_readonly, small_grids;
    const char *kernels, *pocl_wg, *remote_url, *work_root, *local_cache;
    long check_timeout, tune_runs, remote_timeout;
} worker_args;

/* --device P:D: the next slot. */
static int opt_device(void *args, cli_optctx *c)
{
    build_worker *w = ((worker_args *)args)->w;
    char *end;
    unsigned long p = strtoul(c->arg, &end, 10), d = 0;
    int ok = end != c->arg && *end == ':';
    if (ok) {
        const char *at = end + 1;
        d = strtoul(at, &end, 10);
        ok = end != at && *end == '\0' && p <= 1000 && d <= 1000;
    }
    if (!ok)
        return cli_opt_fail(c, 1, "expected PLATFORM:DEVICE");
    if (w->n_slots >= BUILD_WORKER_MAX_SLOTS)
        return cli_opt_fail(c, 1, "more than %d devices", BUILD_WORKER_MAX_SLOTS);
    w->plat[w->n_slots] = (unsigned)p;
    w->dev[w->n_slots++] = (unsigned)d;
    return 0;
}

static int opt_ptxas(void *args, cli_optctx *c)
{
    build_worker *w = ((worker_args *)args)->w;
    /* Absolute: the worker changes folder before it runs ptxas. */
    if (!realpath(c->arg, w->ptxas))
        bfmt(w->ptxas, sizeof w->ptxas, "%s", c->arg);
    return 0;
}

static int opt_nv_arch(void *args, cli_optctx *c)
{
    char err[NV_FORMS_ERR_MAX];
    if (nv_arch_list_parse(c->arg, &((worker_args *)args)->w->nv_archs, err) != 0)
        return cli_opt_fail(c, 1, "%s", err);
    return 0;
}

static int opt_offline(void *args, cli_optctx *c)
{
    if (offline_targets_parse_arg(&((worker_args *)args)->w->offline, c->opt->name, c->arg) != 0)
        return cli_opt_fail(c, 1, "not a list of targets");
    return 0;
}

static int opt_tune(void *args, cli_optctx *c)
{
    tune_options *t = &((worker_args *)args)->w->opts.tune;
    if (sscanf(c->arg, "%ux%u", &t->width, &t->height) != 2)
        return cli_opt_fail(c, 1, "expected WIDTHxHEIGHT");
    t->enabled = 1;
    return 0;
}

/* "3,5,7": the filter widths width-argument kernels are timed at. */
static int opt_tune_widths(void *args, cli_optctx *c)
{
    tune_options *o = &((worker_args *)args)->w->opts.tune;
    o->n_widths = 0;
    for (const char *s = c->arg; *s;) {
        char *end;
        unsigned long v = strtoul(s, &end, 10);
        if (end == s || v == 0 || v > 1000 || o->n_widths >= TUNE_OPTIONS_MAX_WIDTHS ||
            (*end != ',' && *end != '\0'))
            return cli_opt_fail(c, 1, "expected up to %d widths from 1 to 1000", TUNE_OPTIONS_MAX_WIDTHS);
        o->widths[o->n_widths++] = (uint32_t)v;
        s = *end ? end + 1 : end;
    }
    return o->n_widths ? 0 : cli_opt_fail(c, 1, "no width");
}

static const cli_opt worker_opts[] = {
    OPT_FLAG("worker", 0, worker_args, worker, "this mode (argv[1])"),
    OPT_STR("kernels", 0, worker_args, kernels, "DIR", "the kernels folder"),
    OPT_CALL("device", 0, opt_device, "P:D", "the device slot"),
    OPT_CALL("ptxas", 0, opt_ptxas, "PATH", "ptxas for cubins"),
    OPT_CALL("nv-arch", 0, opt_nv_arch, "LIST", "sm numbers to retarget to"),
    OPT_FLAG("no-check", 0, worker_args, no_check, "no reference check"),
    OPT_FLAG("no-warmup", 0, worker_args, no_warmup, "no launch"),
    OPT_CALL("tune", 0, opt_tune, "WxH", "time each variant at this size"),
    OPT_CALL("tune-widths", 0, opt_tune_widths, "LIST", "the widths timed"),
    OPT_LONG("tune-runs", 0, worker_args, tune_runs, "a number of runs", 1, 1000000, "N",
             "timed runs per variant"),
    OPT_LONG("check-timeout", 0, worker_args, check_timeout, "seconds", 1, 86400, "S",
             "the time limit of a job's check and tune commands"),
    OPT_STR("pocl-wg", 0, worker_args, pocl_wg, "LIST", "PoCL work-group functions"),
    OPT_FLAG("pocl-small-grids", 0, worker_args, small_grids, "--pocl-grids small"),
    OPT_CALL("ot-intel", 0, opt_offline, "TARGETS", "Intel offline targets"),
    OPT_CALL("ot-amd", 0, opt_offline, "TARGETS", "AMD offline targets"),
    OPT_CALL("ot-spirv", 0, opt_offline, "TARGETS", "SPIR-V targets"),
    OPT_STR("remote-cache", 0, worker_args, remote_url, "URL", "the remote cache"),
    OPT_LONG("remote-cache-timeout", 0, worker_args, remote_timeout, "seconds", 1, 600, "S",
             "each request's time limit"),
    OPT_FLAG("remote-cache-readonly", 0, worker_args, remote_readonly, "never upload"),
    OPT_STR("work-root", 0, worker_args, work_root, "DIR", "the folder to work in"),
    OPT_STR("local-cache", 0, worker_args, local_cache, "DIR", "the variant cache's folder"),
};

/* The engine's device lookup, over the devices the machine has. */
static int find_device(void *self, unsigned platform, unsigned device, cl_device_id *dev,
                       unsigned *ordinal, char err[BUILD_WORKER_ERR_MAX])
{
    const device_select_device *d;
    char derr[DEVICE_SELECT_ERR_MAX];
    if (device_select_find_by_index(self, platform, device, &d, derr) != 0) {
        bfmt(err, BUILD_WORKER_ERR_MAX, "%s", derr);
        return -1;
    }
    *dev = d->device;
    *ordinal = d->ordinal;
    return 0;
}

/* What one build worker process holds for its life: large, so on the
 * heap (worker_main). */
typedef struct worker_state {
    build_worker w;
    manifest_file manifest;
    device_select_list devices;
    check_hook hook;
    char self[PATH_MAX]; /* this executable, the PoCL helper */
} worker_state;

/* The options into w (self: where this executable's path goes); 0, or the
 * exit status of a bad command line. */
static int parse_worker_args(int argc, char **argv, build_worker *w, char self[PATH_MAX],
                             const char **kernels)
{
    worker_args a = {w, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL,
                     w->opts.check_timeout_s, w->opts.tune.runs, w->remote_config.timeout_s};
    static const cli_optspec spec = {"worker", worker_opts,
                                     sizeof worker_opts / sizeof worker_opts[0], 0, 0};
    char err[512];
    int first;
    if (cli_opts_parse(&spec, argc, argv, &a, &first, err, sizeof err) != 0 || first != argc) {
        fprintf(stderr, "clc-pack: worker: %s (--worker is internal to clc-pack)\n",
                first != argc ? "unexpected arguments" : err);
        return EXIT_USAGE_STATUS;
    }
    w->opts.check = !a.no_check;
    w->opts.warmup = !a.no_warmup;
    w->opts.check_timeout_s = (int)a.check_timeout;
    w->opts.tune.runs = (int)a.tune_runs;
    w->pocl_wg = a.pocl_wg;
    /* On PoCL each variant gets its large-grid work-group functions from
     * a run of this same program as a helper (pocl_wg.h). */
    if (worker_pool_self_exe(argv[0], self, PATH_MAX) == 0)
        w->opts.pocl_helper = self;
    w->opts.pocl_small_in_env = a.pocl_wg != NULL;
    w->opts.pocl_small_grids = a.small_grids;
    w->remote_config.url = a.remote_url;
    w->remote_config.timeout_s = (int)a.remote_timeout;
    w->remote_config.readonly = a.remote_readonly;
    w->work_root = a.work_root;
    w->local_dir = a.local_cache;
    *kernels = a.kernels;
    return 0;
}

static int worker_serve(worker_state *st, int argc, char **argv);

int worker_main(int argc, char **argv)
{
    worker_state *st = calloc(1, sizeof *st);
    if (!st) {
        fprintf(stderr, "clc-pack: worker: out of memory\n");
        return EXIT_FAILURE_STATUS;
    }
    int rc = worker_serve(st, argc, argv);
    free(st);
    return rc;
}

static int worker_serve(worker_state *st, int argc, char **argv)
{
    build_worker *w = &st->w;
    build_worker_init(w);
    const char *kernels = NULL;
    int rc = parse_worker_args(argc, argv, w, st->self, &kernels);
    if (rc != 0)
        return rc;
    build_worker_open_remote(w);
    /* In this order: the manifest's folder may be relative to where the
     * worker started, and the devices are enumerated once PoCL's variables
     * are set (build_worker_enter_work_dir). */
    char err[BUILD_WORKER_ERR_MAX], derr[DEVICE_SELECT_ERR_MAX], merr[MANIFEST_ERR_MAX];
    if (kernels && manifest_load(kernels, &st->manifest, merr) != 0)
        bfmt(w->setup_error, sizeof w->setup_error, "worker: %s", merr);
    else if (build_worker_enter_work_dir(w, err, sizeof err) != 0)
        bfmt(w->setup_error, sizeof w->setup_error, "%s", err);
    else if (device_select_enumerate(&st->devices, derr) != 0)
        bfmt(w->setup_error, sizeof w->setup_error, "worker: %s", derr);
    if (kernels) {
        seed_hook_init(&st->hook, &st->manifest);
        w->hook = &st->hook;
    }
    w->find_device = find_device;
    w->find_self = &st->devices;
    return build_worker_serve(w);
}

typedef struct fill_args {
    int fill;
    const char *slot, *spec, *dir;
} fill_args;

static const cli_opt fill_opts[] = {
    OPT_FLAG("pocl-wg-fill", 0, fill_args, fill, "this mode (argv[1])"),
    OPT_STR("device", 0, fill_args, slot, "P:D", "the device"),
    OPT_STR("spec", 0, fill_args, spec, "LIST", "POCL_BINARY_SPECIALIZE_WG"),
    OPT_STR("dir", 0, fill_args, dir, "DIR", "the program's text and options"),
};

/* The whole file path (at most 256 MiB) as a NUL-terminated string. */
static char *read_text(const char *path, size_t *size)
{
    unsigned char *data = NULL;
    if (tool_read_file(path, (size_t)256 << 20, &data, size) != 0)
        return NULL;
    char *text = realloc(data, *size + 1);
    if (!text) {
        free(data);
        return NULL;
    }
    text[*size] = '\0';
    return text;
}

int worker_main_pocl_fill(int argc, char **argv)
{
    fill_args a = {0, NULL, NULL, NULL};
    static const cli_optspec spec = {"pocl-wg-fill", fill_opts,
                                     sizeof fill_opts / sizeof fill_opts[0], 0, 0};
    char err[POCL_WG_ERR_MAX];
    int first;
    unsigned p = 0, d = 0;
    if (cli_opts_parse(&spec, argc, argv, &a, &first, err, sizeof err) != 0 || first != argc ||
        !a.slot || !a.spec || !a.dir || sscanf(a.slot, "%u:%u", &p, &d) != 2) {
        fprintf(stderr, "clc-pack: pocl-wg-fill: %s (--pocl-wg-fill is internal to clc-pack)\n",
                first != argc || !a.slot || !a.spec || !a.dir ? "expected --device, --spec, --dir"
                                                              : err);
        return EXIT_USAGE_STATUS;
    }
    /* Before the first OpenCL call: PoCL reads it once. */
    setenv("POCL_BINARY_SPECIALIZE_WG", a.spec, 1);
    char path[PATH_MAX + 32];
    size_t n_src = 0, n_opt = 0;
    bfmt(path, sizeof path, "%s/" POCL_WG_SOURCE_FILE, a.dir);
    char *source = read_text(path, &n_src);
    bfmt(path, sizeof path, "%s/" POCL_WG_OPTIONS_FILE, a.dir);
    char *options = read_text(path, &n_opt);
    device_select_list *devices = calloc(1, sizeof *devices); /* large: on the heap */
    const device_select_device *dev = NULL;
    char derr[DEVICE_SELECT_ERR_MAX] = "cannot read the program's files";
    int rc = EXIT_FAILURE_STATUS;
    if (source && options && devices && device_select_enumerate(devices, derr) == 0 &&
        device_select_find_by_index(devices, p, d, &dev, derr) == 0) {
        if (pocl_wg_fill_here(dev->device, source, n_src, options, err) == 0)
            rc = EXIT_OK_STATUS;
        else
            fprintf(stderr, "clc-pack: pocl-wg-fill: %s\n", err);
    } else {
        fprintf(stderr, "clc-pack: pocl-wg-fill: %s\n", derr);
    }
    free(devices);
    free(source);
    free(options);
    return rc;
}

/* ---- the load worker (clc/worker/load_worker.h) ---------------------- */

typedef struct load_args {
    int load_worker, check, no_cubin, warm;
    const char *pack, *slot, *kernels, *pocl_wg; /* kernels NULL: no manifest */
} load_args;

static const cli_opt load_opts[] = {
    OPT_FLAG("load-worker", 0, load_args, load_worker, "this mode (argv[1])"),
    OPT_FLAG("check", 0, load_args, check, "run each loaded program against the reference"),
    OPT_FLAG("no-cubin", 0, load_args, no_cubin, "skip cubins"),
    OPT_FLAG("warm", 0, load_args, warm, "fill the rebuild cache (clc-pack warm)"),
    OPT_STR("pack", 0, load_args, pack, "PACK", "the pack to load"),
    OPT_STR("device", 0, load_args, slot, "P:D", "the device slot"),
    OPT_STR("kernels", 0, load_args, kernels, "DIR", "the kernels folder for --check"),
    OPT_STR("pocl-wg", 0, load_args, pocl_wg, "LIST", "PoCL work-group functions to warm"),
};

/* What one load worker process holds for its life: large (the manifest),
 * so on the heap (worker_main_load). */
typedef struct load_state {
    manifest_file manifest;
    check_hook hook;
    device_select_list devices;
    char device_error[DEVICE_SELECT_ERR_MAX];
    char manifest_error[MANIFEST_ERR_MAX];
} load_state;

/* An entry as a build job, for the seeds' check hook: its kernel, defines,
 * work-group and options, checked by the manifest kernel of its name
 * (load_worker_entry_job). */
static int entry_job(void *self, const clcpack_entry_info *e, build_job *j)
{
    const manifest_file *m = self;
    memset(j, 0, sizeof *j);
    const manifest_kernel *k = e->kernel_name_count ? NULL : manifest_find(m, e->kernel);
    if (!k || !k->family)
        return 1;
    const char **names = calloc(e->define_count + 1, sizeof *names);
    const char **values = calloc(e->define_count + 1, sizeof *values);
    int rc = names && values ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < e->define_count; i++) {
        names[i] = e->defines[i].name;
        values[i] = e->defines[i].value;
    }
    j->entry_name = strdup(e->kernel);
    j->check = strdup(e->kernel);
    j->options = strdup(e->options);
    memcpy(j->wg, e->wg, sizeof j->wg);
    if (rc != 0 || !j->entry_name || !j->check || !j->options ||
        build_job_set_defines(j, names, values, e->define_count) != 0)
        rc = -1;
    free(names);
    free(values);
    return rc;
}

/* The device of slot "P:D" into c (or its error), the manifest and the
 * seeds' hook. */
static void load_setup(load_state *st, const load_args *a, load_worker_config *c)
{
    unsigned pi, di;
    const device_select_device *d;
    c->args_ok = a->slot && sscanf(a->slot, "%u:%u", &pi, &di) == 2;
    c->device_error = st->device_error;
    c->manifest_error = st->manifest_error;
    if (c->args_ok && device_select_enumerate(&st->devices, st->device_error) == 0 &&
        device_select_find_by_index(&st->devices, pi, di, &d, st->device_error) == 0)
        c->dev = d->device;
    if (a->check && a->kernels && manifest_load(a->kernels, &st->manifest, st->manifest_error) != 0)
        c->manifest_error = st->manifest_error;
    else
        st->manifest_error[0] = '\0';
    seed_hook_init(&st->hook, &st->manifest);
    c->hook = &st->hook;
    c->entry_job = entry_job;
    c->entry_self = &st->manifest;
}

int worker_main_load(int argc, char **argv)
{
    load_args a = {0, 0, 0, 0, NULL, NULL, NULL, NULL};
    static const cli_optspec spec = {"load worker", load_opts, sizeof load_opts / sizeof load_opts[0],
                                     0, 0};
    char err[512];
    int first = argc;
    if (cli_opts_parse(&spec, argc, argv, &a, &first, err, sizeof err) != 0 || first != argc) {
        fprintf(stderr, "clc-pack: load worker: %s (--load-worker is internal to clc-pack)\n",
                first != argc ? "unexpected arguments" : err);
        return EXIT_USAGE_STATUS;
    }
    load_worker_config c = {a.pack, 0, NULL, "", "", a.check,
                            (a.no_cubin ? CLCPACK_LOAD_NO_CUBIN : 0) |
                                (a.warm ? CLCPACK_LOAD_CACHE : 0),
                            NULL, NULL, NULL};
    /* warm's workers finish the build they are on when the user interrupts
     * warm (the signal reaches the whole process group); they end when warm
     * closes their job pipe. */
    if (c.load_flags & CLCPACK_LOAD_CACHE) {
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
    }
    /* Before the first OpenCL call: PoCL reads it once (pocl_wg.h). */
    if (a.pocl_wg)
        setenv("POCL_BINARY_SPECIALIZE_WG", a.pocl_wg, 1);
    load_state *st = calloc(1, sizeof *st);
    if (!st) {
        fprintf(stderr, "clc-pack: load worker: out of memory\n");
        return EXIT_FAILURE_STATUS;
    }
    load_setup(st, &a, &c);
    int status = load_worker_serve(&c) ? EXIT_FAILURE_STATUS : EXIT_OK_STATUS;
    free(st);
    return status;
}
