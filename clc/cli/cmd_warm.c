/*
 * cmd_warm.c — `clc-pack warm PACK [--device SPEC] [--platform NAME]
 * [--cache-dir DIR] [--nice N]`: builds into the rebuild cache every key
 * the pack has no binary for on each local device, so that the
 * application's first start loads natively (docs/CACHE.md, "Warm-up").
 *
 * The keys of a device are loaded one after the other through the library,
 * the cache on, in a load worker (load_worker.h): the library decides, as
 * it will for the application, whether a pack binary serves the device,
 * whether the cache already holds the key, or whether to build it from
 * source, and stores what it builds. warm only counts and reports; a
 * driver that crashes costs one key. SIGINT and SIGTERM stop it between
 * keys (worker_pool_callbacks.stop); the worker, which ignores them, finishes the
 * key under way.
 */
#include "commands.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_variant.h"
#include "cli_files.h"
#include "cli_opts.h"
#include "cli_report.h"
#include "clcpack.h"
#include "device_select.h"
#include "entry_key.h"
#include "load_worker.h"
#include "make_dirs.h"
#include "pack_text.h"
#include "pocl_wg.h"
#include "progress.h"
#include "strbuf.h"
#include "worker_pool.h"
#include "worker_proto.h"

#define LABEL_MAX 640
#define DEFAULT_NICE 10
/* parse_args: --help was printed (exit 0). */
#define ARGS_HELP (-1)

typedef struct warm_args {
    const char *path;
    const char *device;      /* NULL: every device */
    const char *platform;
    const char *cache_dir;   /* NULL: the library's folder */
    long nice;
} warm_args;

/* What became of a key on a device. */
enum { WARM_NATIVE, WARM_WARM, WARM_BUILT, WARM_PTX, WARM_FAILED, WARM_OUTCOMES };

typedef struct warm_run {
    const clcpack *p;
    const device_select_device *dev;
    const size_t *entry;     /* job -> the first entry of its key */
    size_t counts[WARM_OUTCOMES];
    size_t finished;
    progress *prog;
} warm_run;

/* The signal that stops the run (0: none). */
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    if (stop_signal) {
        /* A second one: stop now (the worker still finishes its build). */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    stop_signal = sig;
}

static int should_stop(void *ctx)
{
    (void)ctx;
    return stop_signal != 0;
}

static void key_label(const warm_run *run, size_t job, char *buf, size_t cap)
{
    clcpack_entry_info ei = {.struct_size = sizeof ei};
    char key[LABEL_MAX];
    if (clcpack_get_entry(run->p, run->entry[job], &ei) == CLCPACK_OK)
        pack_text_key_label(&ei, key, sizeof key);
    else
        bfmt(key, sizeof key, "?");
    bfmt(buf, cap, "entry %zu %s", run->entry[job], key);
}

static void on_started(void *ctx, size_t job, size_t worker)
{
    (void)worker;
    warm_run *run = ctx;
    char label[LABEL_MAX + 64], line[LABEL_MAX + 200];
    key_label(run, job, label, sizeof label);
    bfmt(line, sizeof line, "device %u: %s", run->dev->ordinal, label);
    progress_current(run->prog, line);
    progress_tick(run->prog);
}

static void on_tick(void *ctx)
{
    progress_tick(((warm_run *)ctx)->prog);
}

/* The "cache: ..." item of a load report's why (";"-separated), or "". */
static void cache_item(const char *why, const char *prefix, char *out, size_t cap)
{
    out[0] = '\0';
    const char *p = why ? strstr(why, prefix) : NULL;
    if (!p)
        return;
    size_t n = strcspn(p, ";");
    bfmt(out, cap, "%.*s", (int)n, p);
}

static void on_finished(void *ctx, size_t job, build_variant_result *r)
{
    warm_run *run = ctx;
    const char *path = r->n_kernel_names ? r->kernel_names[0] : "";
    char label[LABEL_MAX + 64], why[600] = "";
    key_label(run, job, label, sizeof label);
    int outcome = WARM_FAILED;
    if (r->status == BUILD_VARIANT_ERROR) {
        if (r->signal)
            bfmt(why, sizeof why, "the driver crashed (signal %d, %s) building it", r->signal,
                 strsignal(r->signal));
        else
            bfmt(why, sizeof why, "%s", r->message ? r->message : "no reason given");
    } else if (!strcmp(path, "native") || !strcmp(path, "cubin") || !strcmp(path, "target")) {
        outcome = WARM_NATIVE;
    } else if (!strcmp(path, "cache")) {
        outcome = WARM_WARM;
    } else if (!strcmp(path, "ptx")) {
        outcome = WARM_PTX;
    } else if (r->note && strstr(r->note, "cache: stored")) {
        outcome = WARM_BUILT;
    } else {
        /* Built, but not kept: the application would build it again. */
        char item[400];
        cache_item(r->note, "cache: not stored", item, sizeof item);
        if (!item[0])
            cache_item(r->note, "cache: off", item, sizeof item);
        bfmt(why, sizeof why, "loaded from %s but not stored in the cache%s%s",
             path[0] ? path : "?", item[0] ? " (" : "", item);
        if (item[0])
            bfmt(why + strlen(why), sizeof why - strlen(why), ")");
    }
    run->counts[outcome]++;
    run->finished++;
    static const char *const names[WARM_OUTCOMES] = {"native", "already warm", "built", "ptx",
                                                      "failed"};
    if (outcome == WARM_FAILED) {
        progress_clear(run->prog);
        cli_error("device %u (%s): %s: %s", run->dev->ordinal, run->dev->name, label, why);
        if (cli_verbosity > 0 && r->note)
            fprintf(stderr, "  tried: %s\n", r->note);
    } else if (cli_verbosity > 0) {
        progress_clear(run->prog);
        printf("  %s: %s\n", label, names[outcome]);
        if (cli_verbosity > 1 && r->note)
            printf("    %s\n", r->note);
        fflush(stdout);
    }
    progress_step(run->prog);
}

/* The first entry of each distinct key, in pack order. */
static size_t pack_keys(const clcpack *p, size_t *first)
{
    size_t ne = clcpack_entry_count(p), n = 0;
    for (size_t i = 0; i < ne; i++) {
        clcpack_entry_info ei = {.struct_size = sizeof ei}, ek = {.struct_size = sizeof ek};
        if (clcpack_get_entry(p, i, &ei) != CLCPACK_OK)
            continue;
        size_t k = 0;
        while (k < n && !(clcpack_get_entry(p, first[k], &ek) == CLCPACK_OK &&
                          clcpk_same_key(&ei, &ek)))
            k++;
        if (k == n)
            first[n++] = i;
    }
    return n;
}

/* POCL_BINARY_SPECIALIZE_WG for the keys' local sizes (pocl_wg_spec_sizes). */
static char *keys_wg_spec(const clcpack *p, const size_t *first, size_t n)
{
    uint32_t (*sizes)[3] = calloc(n ? n : 1, sizeof *sizes);
    if (!sizes)
        return NULL;
    for (size_t k = 0; k < n; k++) {
        clcpack_entry_info ei = {.struct_size = sizeof ei};
        if (clcpack_get_entry(p, first[k], &ei) == CLCPACK_OK)
            memcpy(sizes[k], ei.wg, sizeof sizes[k]);
    }
    char *spec = pocl_wg_spec_sizes((const uint32_t(*)[3])sizes, n, POCL_WG_SMALL);
    free(sizes);
    return spec;
}

/* The folder the workers store into, made and checked; CLCPACK_CACHE_DIR
 * set to it for them. 0, or -1 after printing why. */
static int prepare_folder(const warm_args *wa, char *dir, size_t cap)
{
    if (wa->cache_dir) {
        bfmt(dir, cap, "%s", wa->cache_dir);
    } else {
        clcpack_error e;
        if (clcpack_cache_folder(dir, cap, NULL, &e) != CLCPACK_OK) {
            cli_error("%s; --cache-dir DIR names one", e.message);
            return -1;
        }
    }
    /* A folder a post-install script makes serves every user (0755); the
     * user's own cache stays private (0700), as the library makes it. */
    struct stat st;
    mode_t mode = wa->cache_dir ? 0755 : 0700;
    if (clcpk_make_dirs(dir, mode, mode) != 0 || stat(dir, &st) != 0) {
        cli_error("cannot create the cache folder '%s': %s", dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        cli_error("the cache folder '%s' is not a folder", dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        cli_error("cannot write the cache folder '%s': %s", dir, strerror(errno));
        return -1;
    }
    if (setenv("CLCPACK_CACHE_DIR", dir, 1) != 0) {
        cli_error("out of memory");
        return -1;
    }
    return 0;
}

/* Warms the keys on one device; the run's counts say how it went. 0, or -1
 * when no worker could run (printed). */
static int warm_device(const warm_args *wa, const clcpack *p, const device_select_device *d,
                       const size_t *first, size_t n_keys, const char *wg_spec, progress *prog,
                       size_t counts[WARM_OUTCOMES], size_t *left)
{
    strbuf *jobs = calloc(n_keys ? n_keys : 1, sizeof *jobs);
    if (!jobs) {
        cli_error("out of memory");
        return -1;
    }
    for (size_t k = 0; k < n_keys; k++) {
        sb_init(&jobs[k]);
        worker_proto_encode_load_job(&jobs[k], (uint32_t)k, (uint32_t)first[k]);
    }
    char exe[4096], slot[LOAD_WORKER_SLOT_MAX], err[512];
    char *argv[12];
    size_t na = load_worker_argv(argv, wa->path, d->platform_index, d->device_index, slot);
    argv[na++] = (char *)"--warm";
    if (wg_spec) {
        argv[na++] = (char *)"--pocl-wg";
        argv[na++] = (char *)wg_spec;
    }
    argv[na] = NULL;
    warm_run run;
    memset(&run, 0, sizeof run);
    run.p = p;
    run.dev = d;
    run.entry = first;
    run.prog = prog;
    worker_pool_callbacks cb = {&run, on_started, on_finished, on_tick, NULL, 0, should_stop, NULL, NULL, NULL};
    double t0 = progress_now();
    int rc = 0;
    if (cli_worker_path(exe, sizeof exe) != 0) {
        cli_error("cannot find the clc-pack executable to start a load worker");
        rc = -1;
    } else if (worker_pool_run(exe, argv, 1, cli_verbosity > 1, jobs, NULL, n_keys, &cb, err,
                         sizeof err) != 0) {
        progress_clear(prog);
        cli_error("device %u (%s): %s", d->ordinal, d->name, err);
        rc = -1;
    }
    progress_clear(prog);
    /* Keys not done: not started (an interrupt) or never answered. */
    *left += n_keys - run.finished;
    if (rc != 0)
        run.counts[WARM_FAILED] += n_keys - run.finished;
    if (cli_verbosity >= 0) {
        printf("device %u: %s: %zu key%s:", d->ordinal, d->name, n_keys, n_keys == 1 ? "" : "s");
        static const char *const names[WARM_OUTCOMES] = {"native", "already warm", "built",
                                                          "ptx", "failed"};
        static const int order[WARM_OUTCOMES] = {WARM_BUILT, WARM_WARM, WARM_NATIVE, WARM_PTX,
                                                 WARM_FAILED};
        const char *sep = " ";
        for (int o = 0; o < WARM_OUTCOMES; o++)
            if (run.counts[order[o]]) {
                printf("%s%zu %s", sep, run.counts[order[o]], names[order[o]]);
                sep = ", ";
            }
        if (run.finished < n_keys)
            printf("%s%zu not done", sep, n_keys - run.finished);
        printf(" (%.1f s)\n", progress_now() - t0);
        fflush(stdout);
    }
    for (int o = 0; o < WARM_OUTCOMES; o++)
        counts[o] += run.counts[o];
    for (size_t k = 0; k < n_keys; k++)
        sb_free(&jobs[k]);
    free(jobs);
    return rc;
}

/* The devices to warm: 0 with *n_sel (0: this machine has none at all),
 * or -1 after printing why. */
static int pick_devices(const warm_args *wa, device_select_list *all, size_t sel[DEVICE_SELECT_MAX_DEVICES],
                        size_t *n_sel)
{
    char err[DEVICE_SELECT_ERR_MAX];
    *n_sel = 0;
    cl_uint np = 0;
    cl_int rc = clGetPlatformIDs(0, NULL, &np);
    /* -1001: CL_PLATFORM_NOT_FOUND_KHR, no driver installed. */
    if (rc == -1001 || (rc == CL_SUCCESS && np == 0))
        return 0;
    if (device_select_enumerate(all, err) != 0) {
        cli_error("%s", err);
        return -1;
    }
    if (all->n == 0)
        return 0;
    if (device_select(all, wa->device ? wa->device : "all", wa->platform, sel, n_sel, err) != 0) {
        cli_error("%s", err);
        return -1;
    }
    return 0;
}

/* 0, ARGS_HELP, or the exit status of a usage error (printed). */
static const cli_opt warm_opts[] = {
    OPT_STR("device", 0, warm_args, device, "SPEC",
            "the devices to warm (as for pack; default: every device)"),
    OPT_STR("platform", 0, warm_args, platform, "NAME", "only platforms whose name contains NAME"),
    OPT_NAME("cache-dir", 0, warm_args, cache_dir, "folder name", "DIR",
             "the cache folder (the application loads with\n"
             "CLCPACK_CACHE_DIR=DIR); made with mode 0755 when missing.\n"
             "Default: the library's ($CLCPACK_CACHE_DIR,\n"
             "$XDG_CACHE_HOME/clcpack, $HOME/.cache/clcpack)"),
    OPT_LONG("nice", 0, warm_args, nice, "a niceness", 0, 19, "N",
             "N steps below the current priority, 0..19 (default 10)"),
    OPT_QUIET_CLI("only errors"),
    OPT_VERBOSE_CLI("a line per key"),
    OPT_HELP,
};

const cli_optspec warm_optspec = {"warm", warm_opts, sizeof warm_opts / sizeof warm_opts[0], 0, 19};

static int parse_args(int argc, char **argv, warm_args *wa)
{
    memset(wa, 0, sizeof *wa);
    wa->nice = DEFAULT_NICE;
    int operand;
    int rc = cli_opts_run(&warm_optspec, usage_warm, argc, argv, wa, &operand);
    if (rc != CLI_OPTS_GO)
        return rc == EXIT_OK_STATUS ? ARGS_HELP : rc;
    if (operand != argc - 1)
        return cli_usage_error("warm", "warm: expected one pack file, got %d arguments",
                               argc - operand);
    wa->path = argv[operand];
    return 0;
}

int cmd_warm(int argc, char **argv)
{
    warm_args wa;
    int rc = parse_args(argc, argv, &wa);
    if (rc == ARGS_HELP)
        return EXIT_OK_STATUS;
    if (rc != 0)
        return rc;
    clcpack *p = cli_open_pack(wa.path);
    if (!p)
        return EXIT_FAILURE_STATUS;
    size_t ne = clcpack_entry_count(p);
    size_t *first = calloc(ne ? ne : 1, sizeof *first);
    if (!first) {
        cli_error("out of memory");
        clcpack_close(p);
        return EXIT_FAILURE_STATUS;
    }
    size_t n_keys = pack_keys(p, first);
    device_select_list *all = calloc(1, sizeof *all); /* large: on the heap */
    size_t sel[DEVICE_SELECT_MAX_DEVICES], n_sel = 0;
    char dir[4096];
    int status = EXIT_OK_STATUS;
    if (!all) {
        cli_error("out of memory");
        status = EXIT_FAILURE_STATUS;
    } else if (pick_devices(&wa, all, sel, &n_sel) != 0) {
        status = EXIT_FAILURE_STATUS;
    } else if (n_sel == 0) {
        cli_note("nothing to warm: this machine has no OpenCL device");
    } else if (n_keys == 0) {
        cli_note("nothing to warm: %s has no entries", wa.path);
    } else if (prepare_folder(&wa, dir, sizeof dir) != 0) {
        status = EXIT_FAILURE_STATUS;
    } else {
        /* Below normal priority, for this process and the workers it starts. */
        errno = 0;
        if (wa.nice && nice((int)wa.nice) == -1 && errno != 0 && cli_verbosity > 0)
            cli_note("could not lower the priority: %s", strerror(errno));
        struct sigaction sa, old_int, old_term;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal; /* no SA_RESTART: the pool's poll wakes */
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        if (cli_verbosity >= 0) {
            printf("warm: cache folder %s\n", dir);
            fflush(stdout);
        }
        char *wg_spec = keys_wg_spec(p, first, n_keys);
        progress prog;
        progress_init(&prog, stderr, n_keys * n_sel, progress_mode(stderr, cli_verbosity < 0));
        size_t counts[WARM_OUTCOMES] = {0}, left = 0;
        for (size_t i = 0; i < n_sel; i++) {
            if (stop_signal) {
                left += n_keys;
                continue;
            }
            if (warm_device(&wa, p, &all->dev[sel[i]], first, n_keys, wg_spec, &prog, counts,
                            &left) != 0)
                status = EXIT_FAILURE_STATUS;
        }
        free(wg_spec);
        size_t total = n_keys * n_sel;
        if (cli_verbosity >= 0)
            printf("warm: %zu key%s on %zu device%s: %zu built, %zu already warm, %zu native, "
                   "%zu ptx, %zu failed\n",
                   total, total == 1 ? "" : "s", n_sel, n_sel == 1 ? "" : "s",
                   counts[WARM_BUILT], counts[WARM_WARM], counts[WARM_NATIVE], counts[WARM_PTX],
                   counts[WARM_FAILED]);
        fflush(stdout);
        if (counts[WARM_FAILED])
            status = EXIT_FAILURE_STATUS;
        if (stop_signal) {
            cli_error("interrupted (%s): %zu of %zu keys not done; run clc-pack warm again to "
                      "finish (what was built is kept)",
                      stop_signal == SIGINT ? "SIGINT" : "SIGTERM", left, total);
            status = 128 + stop_signal;
        }
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
    }
    free(all);
    free(first);
    clcpack_close(p);
    return status;
}
