/* worker_main.c — the build worker process (worker_main.h). */
#include "worker_main.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "build_variant.h"
#include "device_select.h"
#include "make_dirs.h"
#include "manifest.h"
#include "offline_targets.h"
#include "ptxas_run.h"
#include "rcache.h"
#include "rcache_key.h"
#include "seed_hook.h"
#include "temp_tree.h"
#include "worker_proto.h"

#define MAX_SLOTS DS_MAX_DEVICES

typedef struct worker_state {
    const char *kernels;     /* the seeds' kernels folder, or NULL: no seed checks */
    char ptxas[PATH_MAX];
    char work_dir[PATH_MAX]; /* private: PoCL's cache, the check command's files */
    char temp_dir[PATH_MAX]; /* work_dir when it is a temporary folder, else "" */
    check_hook hook;
    int have_hook;
    nvf_archs nv_archs;
    ot_config offline;     /* --ot-*: the offline toolchains' targets */
    const char *pocl_wg;   /* --pocl-wg: POCL_BINARY_SPECIALIZE_WG, or NULL */
    spare_slots spare;
    bv_options opts;
    size_t n_slots;
    unsigned plat[MAX_SLOTS], dev[MAX_SLOTS];
    int opened[MAX_SLOTS];
    bv_target targets[MAX_SLOTS];
    ds_list devices;
    mf_manifest manifest;
    /* The remote cache (docs/REMOTE_CACHE.md), or NULL. */
    rcache *remote;
    clcpack_device_info dev_info[MAX_SLOTS]; /* each slot's fingerprint, for the key */
    int have_info[MAX_SLOTS];
    char ptxas_id[256];      /* ptxas's identity, once asked */
    int ptxas_id_asked;
    const char *work_root;   /* --work-root: a private folder is made in it */
    /* A setup failure every job is answered with. */
    char setup_error[DS_ERR_MAX + 64];
} worker_state;

static int parse_slot(const char *s, unsigned *p, unsigned *d)
{
    char *end;
    unsigned long a = strtoul(s, &end, 10);
    if (end == s || *end != ':')
        return -1;
    const char *b_at = end + 1;
    unsigned long b = strtoul(b_at, &end, 10);
    if (end == b_at || *end != '\0' || a > 1000 || b > 1000)
        return -1;
    *p = (unsigned)a;
    *d = (unsigned)b;
    return 0;
}

/* "3,5,7": the filter widths width-argument kernels are timed at. */
static int parse_widths(const char *s, tv_options *o)
{
    o->n_widths = 0;
    while (*s) {
        char *end;
        unsigned long v = strtoul(s, &end, 10);
        if (end == s || v == 0 || v > 1000 || o->n_widths >= TV_MAX_WIDTHS ||
            (*end != ',' && *end != '\0'))
            return -1;
        o->widths[o->n_widths++] = (uint32_t)v;
        s = *end ? end + 1 : end;
    }
    return o->n_widths ? 0 : -1;
}

/* The remote cache's key text of job on slot (rcache_key.h), malloc'd, or
 * NULL (no fingerprint, no memory: then the cache is not used for it). */
static char *key_text(worker_state *w, uint32_t slot, const build_job *job, size_t *len)
{
    bv_target *t = &w->targets[slot];
    if (!w->have_info[slot]) {
        clcpack_error e;
        w->dev_info[slot].struct_size = sizeof w->dev_info[slot];
        if (clcpack_device_query(t->device, &w->dev_info[slot], &e) != CLCPACK_OK)
            return NULL;
        w->have_info[slot] = 1;
    }
    rck_target kt = {&w->dev_info[slot], "native", "", "", w->opts.warmup};
    char archs[8 * NVF_MAX_ARCHS] = "";
    if (t->is_nvidia && t->ptxas[0]) {
        if (!w->ptxas_id_asked) {
            w->ptxas_id_asked = 1;
            if (ptxas_version(t->ptxas, w->ptxas_id, sizeof w->ptxas_id) != 0)
                w->ptxas_id[0] = '\0';
        }
        if (!w->ptxas_id[0])
            return NULL; /* an assembler we cannot name: no key */
        nvf_format_archs(&w->nv_archs, archs, sizeof archs);
        kt.forms = "ptx+cubin";
        kt.ptxas = w->ptxas_id;
        kt.nv_arch = archs;
    } else if (t->is_nvidia) {
        kt.forms = "ptx";
    }
    return rck_text(&kt, job, len);
}

/* Looks the job up in the remote cache. On a hit whose forms pass the
 * device's checks, fills r from it: 1. On a hit that failed them after
 * the driver had the binary, fills r with BV_REMOTE_RETRY: the job is to
 * be built by a fresh worker (what the driver kept of the binary, in
 * PoCL's kernel cache, would be picked up by a build here; the pool ends
 * this worker, and its private folder with it): 1. Otherwise 0, with *why
 * (a rejected object, a failed request) for the result of the build that
 * follows. */
static int fetch_job(worker_state *w, uint32_t slot, const build_job *job, const char *key,
                     const char *text, size_t len, bv_result *r, bv_remote *found, char **why)
{
    rcr_record rec;
    char msg[RC_MSG_MAX];
    *found = rc_lookup(w->remote, key, text, len, &rec, msg);
    if (*found != BV_REMOTE_HIT) {
        if (msg[0])
            *why = strdup(msg);
        return 0;
    }
    int checked = bv_adopt(&w->targets[slot], job, &w->opts, rec.signature, rec.kernel_names,
                           rec.n_kernel_names, rec.note, rec.forms, &rec.n_forms, r);
    rcr_free(&rec);
    if (checked == 0)
        return 1;
    char line[RC_MSG_MAX];
    bfmt(line, sizeof line, "the fetched variant failed its check: %s",
         r->message ? r->message : "no reason given");
    bv_result_free(r);
    *why = strdup(line);
    *found = BV_REMOTE_REJECTED;
    if (checked == 1)
        return 0;
    r->status = BV_ERROR;
    r->message = strdup("a fetched binary failed on the device: to be built in a fresh worker");
    *found = BV_REMOTE_RETRY;
    return 1;
}

/* After a local build: the record of r for the remote cache. */
static bv_upload store_job(worker_state *w, const char *key, const char *text, size_t len,
                           const bv_result *r, const char *signature, int replace, char **why)
{
    rcr_record rec;
    memset(&rec, 0, sizeof rec);
    rec.key_text = (char *)text;
    rec.key_len = len;
    rec.signature = (char *)signature;
    rec.n_kernel_names = r->n_kernel_names;
    rec.kernel_names = r->kernel_names;
    rec.note = r->note ? r->note : (char *)"";
    rec.n_forms = r->n_forms;
    memcpy(rec.forms, r->forms, r->n_forms * sizeof *r->forms);
    char msg[RC_MSG_MAX];
    bv_upload up = rc_store(w->remote, key, &rec, replace, msg);
    if (up == BV_UPLOAD_FAILED)
        *why = strdup(msg);
    return up;
}

/* Builds one job into r, opening its device on first use. */
static void run_job(worker_state *w, uint32_t slot, uint32_t flags, const build_job *job,
                    bv_result *r)
{
    memset(r, 0, sizeof *r);
    char err[DS_ERR_MAX];
    /* An offline toolchain's slot: no device, no driver (a machine
     * without OpenCL builds these too). */
    if (slot >= WORKER_OFFLINE_SLOT && slot < WORKER_OFFLINE_SLOT + OT_N_CHAINS) {
        ot_chain ch = (ot_chain)(slot - WORKER_OFFLINE_SLOT);
        if (!w->offline.on[ch]) {
            r->status = BV_ERROR;
            r->message = strdup("job for an offline toolchain the worker was not given");
            return;
        }
        ot_build(&w->offline, ch, job, &w->spare, r);
        return;
    }
    if (w->setup_error[0]) {
        r->status = BV_ERROR;
        r->message = strdup(w->setup_error);
        return;
    }
    if (slot >= w->n_slots) {
        r->status = BV_ERROR;
        r->message = strdup("job for an unknown device slot");
        return;
    }
    if (!w->opened[slot]) {
        const ds_device *d;
        if (ds_find_by_index(&w->devices, w->plat[slot], w->dev[slot], &d, err) != 0 ||
            bv_target_open(d->device, w->ptxas, &w->targets[slot], err, sizeof err) != 0) {
            r->status = BV_ERROR;
            r->message = strdup(err);
            return;
        }
        bfmt(w->targets[slot].ordinal, sizeof w->targets[slot].ordinal, "%u", d->ordinal);
        w->targets[slot].nv_archs = w->nv_archs;
        w->targets[slot].spare = w->spare;
        w->opened[slot] = 1;
    }
    /* The remote cache first (not with --tune: timings are taken while
     * building; not when told so: the job is built and uploaded in place
     * of what the server has). */
    char *text = NULL, key[RCK_HEX_SIZE] = "", *why = NULL;
    size_t len = 0;
    bv_remote found = BV_REMOTE_NONE;
    int fetched = 0;
    if (w->remote && (rc_lookups_on(w->remote) || rc_uploads_on(w->remote)))
        text = key_text(w, slot, job, &len);
    if (text) {
        rck_sha256_hex(text, len, key);
        if (!w->opts.tune.enabled && !(flags & WP_JOB_NO_LOOKUP))
            fetched = fetch_job(w, slot, job, key, text, len, r, &found, &why);
    }
    if (!fetched) {
        char *signature = NULL;
        bv_build_signed(&w->targets[slot], job, &w->opts, w->have_hook ? &w->hook : NULL, r,
                        text ? &signature : NULL);
        bv_upload up = BV_UPLOAD_NONE;
        char *up_why = NULL;
        if (text && r->status == BV_OK && signature)
            up = store_job(w, key, text, len, r, signature,
                           found == BV_REMOTE_REJECTED || (flags & WP_JOB_NO_LOOKUP), &up_why);
        free(signature);
        r->upload = up;
        r->upload_note = up_why;
    }
    r->remote = found;
    r->remote_note = why;
    free(text);
    /* PoCL compiles every program of a process in one LLVM context that
     * lives while any OpenCL context does, and the bitcode it stores
     * depends on what that LLVM context compiled before (the IR is the
     * same, the encoding is not): with the OpenCL context released after
     * each job, every program starts from a fresh one and the binary is a
     * function of the program alone, whatever ran before in this worker. */
    /* After a failed job the context may be broken too (a kernel that
     * faulted on an NVIDIA GPU leaves its context unusable, and every later
     * build in it fails): the next job opens a fresh one. */
    if (w->targets[slot].is_pocl || r->status != BV_OK) {
        bv_target_close(&w->targets[slot]);
        w->opened[slot] = 0;
    }
}

/* The worker's folder, its current folder from here on: clc-pack's own
 * cache folder ($XDG_CACHE_HOME/clc-pack, else ~/.cache/clc-pack), or a
 * temporary folder removed at exit when there is none. PoCL writes the path
 * of its cache folder into the binaries it makes, so its cache is
 * "pocl-cache" relative to this folder: the same text on every machine and
 * in every run, whatever POCL_CACHE_DIR the user has. The cache is on
 * (without it PoCL names its temporary files at random; those names are
 * scrubbed too, pocl_binary_canon.h) and kept between runs, so a second
 * pack of the same programs compiles little.
 * With --work-root (the remote cache looks variants up), the folder is
 * this worker's own, made in that root and removed at exit: a fetched
 * binary reaches the driver, and whatever PoCL keeps of one that is wrong
 * must not reach another worker's build, nor a later run's. */
static int enter_work_dir(worker_state *w, char *err, size_t cap)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    w->work_dir[0] = '\0';
    if (w->work_root) {
        if (tt_make(w->work_root, "worker", w->temp_dir, sizeof w->temp_dir) != 0 ||
            chdir(w->temp_dir) != 0) {
            bfmt(err, cap, "worker: cannot create a folder in %s: %s", w->work_root,
                 strerror(errno));
            w->temp_dir[0] = '\0';
            return -1;
        }
        bfmt(w->work_dir, sizeof w->work_dir, "%s", w->temp_dir);
    } else if (xdg && xdg[0] == '/')
        bfmt(w->work_dir, sizeof w->work_dir, "%s/clc-pack", xdg);
    else if (home && home[0] == '/')
        bfmt(w->work_dir, sizeof w->work_dir, "%s/.cache/clc-pack", home);
    if (w->work_dir[0] && (make_dirs(w->work_dir, 0700) != 0 || chdir(w->work_dir) != 0))
        w->work_dir[0] = '\0';
    if (!w->work_dir[0]) {
        if (tt_make(NULL, "clc-pack-worker", w->temp_dir, sizeof w->temp_dir) != 0 ||
            chdir(w->temp_dir) != 0) {
            bfmt(err, cap, "worker: cannot create a temporary folder: %s", strerror(errno));
            w->temp_dir[0] = '\0';
            return -1;
        }
        bfmt(w->work_dir, sizeof w->work_dir, "%s", w->temp_dir);
    }
    setenv("POCL_CACHE_DIR", "pocl-cache", 1);
    setenv("POCL_KERNEL_CACHE", "1", 1);
    /* Before the first build: PoCL reads it once (bv_pocl_wg_spec). */
    if (w->pocl_wg)
        setenv("POCL_BINARY_SPECIALIZE_WG", w->pocl_wg, 1);
    else
        unsetenv("POCL_BINARY_SPECIALIZE_WG");
    w->opts.work_dir = w->work_dir;
    return 0;
}

int worker_main(int argc, char **argv)
{
    static worker_state w; /* large (the manifest); one per process */
    memset(&w, 0, sizeof w);
    spare_inherit(&w.spare);
    bv_default_options(&w.opts);
    static const struct option longopts[] = {
        {"worker", no_argument, NULL, 'W'},   {"kernels", required_argument, NULL, 'K'},
        {"device", required_argument, NULL, 'd'}, {"ptxas", required_argument, NULL, 'P'},
        {"no-check", no_argument, NULL, 'N'}, {"no-warmup", no_argument, NULL, 'R'},
        {"tune", required_argument, NULL, 'T'}, {"tune-widths", required_argument, NULL, 'F'},
        {"tune-runs", required_argument, NULL, 'U'},
        {"check-cmd", required_argument, NULL, 'C'},
        {"tune-cmd", required_argument, NULL, 'M'},
        {"check-timeout", required_argument, NULL, 'L'},
        {"tune-runs", required_argument, NULL, 'U'}, {"nv-arch", required_argument, NULL, 'A'},
        {"pocl-wg", required_argument, NULL, 'G'},
        {"ot-intel", required_argument, NULL, 'O'}, {"ot-amd", required_argument, NULL, 'O'},
        {"ot-spirv", required_argument, NULL, 'O'},
        {"remote-cache", required_argument, NULL, 'X'},
        {"remote-cache-timeout", required_argument, NULL, 'Y'},
        {"remote-cache-readonly", no_argument, NULL, 'Z'},
        {"work-root", required_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    rc_config rcc = {NULL, 10, 0};
    int c, li = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, &li)) != -1) {
        switch (c) {
        case 'W':
            break;
        case 'O':
            if (ot_parse_arg(&w.offline, longopts[li].name, optarg) != 0) {
                fprintf(stderr, "clc-pack: worker: bad --%s '%s'\n", longopts[li].name, optarg);
                return 2;
            }
            break;
        case 'K':
            w.kernels = optarg;
            break;
        case 'P':
            /* Absolute: the worker changes folder before it runs ptxas. */
            if (!realpath(optarg, w.ptxas))
                bfmt(w.ptxas, sizeof w.ptxas, "%s", optarg);
            break;
        case 'C':
            w.opts.check_cmd = optarg;
            break;
        case 'M':
            w.opts.tune_cmd = optarg;
            break;
        case 'G':
            w.pocl_wg = optarg;
            break;
        case 'X':
            rcc.url = optarg;
            break;
        case 'Y':
            rcc.timeout_s = atoi(optarg);
            if (rcc.timeout_s < 1) {
                fprintf(stderr, "clc-pack: worker: bad --remote-cache-timeout '%s'\n", optarg);
                return 2;
            }
            break;
        case 'Z':
            rcc.readonly = 1;
            break;
        case 'V':
            w.work_root = optarg;
            break;
        case 'L':
            w.opts.check_timeout_s = atoi(optarg);
            if (w.opts.check_timeout_s < 1) {
                fprintf(stderr, "clc-pack: worker: bad --check-timeout '%s'\n", optarg);
                return 2;
            }
            break;
        case 'A': {
            char nerr[NVF_ERR_MAX];
            if (nvf_parse_archs(optarg, &w.nv_archs, nerr) != 0) {
                fprintf(stderr, "clc-pack: worker: bad --nv-arch '%s': %s\n", optarg, nerr);
                return 2;
            }
            break;
        }
        case 'N':
            w.opts.check = 0;
            break;
        case 'R':
            w.opts.warmup = 0;
            break;
        case 'T':
            if (sscanf(optarg, "%ux%u", &w.opts.tune.width, &w.opts.tune.height) != 2) {
                fprintf(stderr, "clc-pack: worker: bad --tune '%s'\n", optarg);
                return 2;
            }
            w.opts.tune.enabled = 1;
            break;
        case 'U':
            w.opts.tune.runs = atoi(optarg);
            if (w.opts.tune.runs < 1) {
                fprintf(stderr, "clc-pack: worker: bad --tune-runs '%s'\n", optarg);
                return 2;
            }
            break;
        case 'F':
            if (parse_widths(optarg, &w.opts.tune) != 0) {
                fprintf(stderr, "clc-pack: worker: bad --tune-widths '%s'\n", optarg);
                return 2;
            }
            break;
        case 'd':
            if (w.n_slots >= MAX_SLOTS || parse_slot(optarg, &w.plat[w.n_slots],
                                                     &w.dev[w.n_slots]) != 0) {
                fprintf(stderr, "clc-pack: worker: bad --device '%s'\n", optarg);
                return 2;
            }
            w.n_slots++;
            break;
        default:
            fprintf(stderr, "clc-pack: --worker is internal to clc-pack\n");
            return 2;
        }
    }

    /* libcurl's set-up before any OpenCL driver starts its threads. The
     * parent checked the URL and that libcurl is there; a failure here
     * (memory) only means building without the cache. */
    int curl_started = rcc.url && rch_global_init() == 0;
    if (curl_started) {
        char rerr[RC_MSG_MAX];
        w.remote = rc_open(&rcc, rerr, sizeof rerr);
    }
    char err[DS_ERR_MAX];
    char merr[MF_ERR_MAX];
    if (w.kernels && mf_load(w.kernels, &w.manifest, merr) != 0)
        bfmt(w.setup_error, sizeof w.setup_error, "worker: %s", merr);
    else if (enter_work_dir(&w, err, sizeof err) != 0)
        bfmt(w.setup_error, sizeof w.setup_error, "%s", err);
    else if (ds_enumerate(&w.devices, err) != 0)
        bfmt(w.setup_error, sizeof w.setup_error, "worker: %s", err);
    if (w.kernels) {
        seed_hook_init(&w.hook, &w.manifest);
        w.have_hook = 1;
    }

    int status = 0;
    for (;;) {
        unsigned char *payload;
        size_t size;
        char ferr[WP_ERR_MAX];
        int rc = wp_read_frame(0, WP_JOB_MAGIC, WP_JOB_MAX, &payload, &size, ferr);
        if (rc == 1)
            break;
        if (rc < 0) {
            fprintf(stderr, "clc-pack: worker: %s\n", ferr);
            status = 1;
            break;
        }
        uint32_t job = 0, slot = 0, flags = 0;
        build_job bj;
        bv_result r;
        if (wp_decode_job(payload, size, &job, &slot, &flags, &bj, ferr) != 0) {
            memset(&r, 0, sizeof r);
            r.status = BV_ERROR;
            r.message = strdup(w.setup_error[0] ? w.setup_error : ferr);
        } else {
            run_job(&w, slot, flags, &bj, &r);
            bj_free(&bj);
        }
        free(payload);
        wire_buf out;
        wire_init(&out);
        wp_encode_result(&out, job, &r);
        bv_result_free(&r);
        int wrc = out.failed ? -1 : wire_write_fd(WORKER_RESULT_FD, out.data, out.len);
        wire_free(&out);
        if (wrc != 0) {
            /* The parent is gone or the result did not fit in memory. */
            status = 1;
            break;
        }
    }
    for (size_t i = 0; i < w.n_slots; i++)
        if (w.opened[i])
            bv_target_close(&w.targets[i]);
    rc_close(w.remote);
    if (curl_started)
        rch_global_cleanup();
    if (w.temp_dir[0] && chdir("/") == 0)
        tt_remove(w.temp_dir);
    return status;
}
