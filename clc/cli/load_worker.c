/*
 * load_worker.c — `clc-pack --load-worker --pack PACK --device P:D
 * [--no-cubin] [--warm] [--pocl-wg SPEC] [--check [--kernels DIR]]`: the process `verify
 * --load` and `warm` load a pack's keys in (load_worker.h), started through
 * the worker pool, never by hand. A driver that crashes on a bad binary or
 * while building kills this process, not the command (worker_proto.h has
 * the frames).
 */
#include "load_worker.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_variant.h"
#include "cli_opts.h"
#include "cli_report.h"
#include "cl_error_name.h"
#include "clcpack.h"
#include "device_select.h"
#include "manifest.h"
#include "pack_text.h"
#include "worker_proto.h"

#define LABEL_MAX 640
/* Same tolerance as the pack-time check (build_variant.c). */
#define CHECK_TOL 1e-4

/* An entry as a build job, for the seeds' check hook: its kernel, defines,
 * work-group and options, checked by the manifest kernel of its name. 0, or
 * 1 when the entry has no reference check (a program entry, or a kernel the
 * manifest does not give a family), -1 when out of memory. */
static int entry_job(const manifest_file *m, const clcpack_entry_info *e, build_job *j)
{
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

typedef struct load_worker {
    clcpack *p;
    cl_context ctx;
    cl_command_queue q;
    cl_device_id dev;
    int check;
    uint32_t load_flags;     /* --no-cubin: CLCPACK_LOAD_NO_CUBIN; --warm: CLCPACK_LOAD_CACHE */
    manifest_file manifest;
    check_hook hook;
    char setup_error[DEVICE_SELECT_ERR_MAX + 64];
} load_worker;

/* Loads (and checks) the key of entry i into r. */
static void load_job(load_worker *w, uint32_t i, build_variant_result *r)
{
    memset(r, 0, sizeof *r);
    r->status = BUILD_VARIANT_ERROR;
    clcpack_entry_info ei = {.struct_size = sizeof ei};
    if (w->setup_error[0] || clcpack_get_entry(w->p, i, &ei) != CLCPACK_OK) {
        r->message = strdup(w->setup_error[0] ? w->setup_error : "no such entry");
        return;
    }
    clcpack_key key = pack_text_key(&ei);
    clcpack_load_report rep = {.struct_size = sizeof rep};
    clcpack_error e;
    cl_program prog = NULL;
    /* verify checks the pack, not the rebuild cache (CLCPACK_CACHE_DIR);
     * warm fills the cache. */
    uint32_t cache = w->load_flags & CLCPACK_LOAD_CACHE ? 0 : CLCPACK_LOAD_NO_CACHE;
    clcpack_load_options lo = {sizeof lo, cache | w->load_flags};
    if (clcpack_create_program(w->p, &key, w->ctx, w->dev, &lo, &prog, &rep, &e) !=
        CLCPACK_OK) {
        r->message = strdup(e.message);
        r->note = strdup(rep.why);
        return;
    }
    char check_text[CH_MSG_MAX + 64] = "";
    r->status = BUILD_VARIANT_OK;
    if (w->check) {
        build_job job;
        char err[CH_MSG_MAX];
        int c = entry_job(&w->manifest, &ei, &job);
        if (c == 1) {
            bfmt(check_text, sizeof check_text, ", no reference check (loaded and built)");
        } else if (c < 0) {
            r->status = BUILD_VARIANT_CHECK_FAILED;
            bfmt(check_text, sizeof check_text, ", CHECK FAILED: out of memory");
        } else {
            c = w->hook.check(w->hook.self, w->ctx, w->q, prog, &job, 1, CHECK_TOL, err);
            if (c == 0) {
                bfmt(check_text, sizeof check_text, ", check ok");
            } else {
                r->status = BUILD_VARIANT_CHECK_FAILED;
                bfmt(check_text, sizeof check_text, ", CHECK FAILED: %s", err);
            }
        }
        build_job_free(&job);
    }
    clReleaseProgram(prog);
    char label[LABEL_MAX], line[LABEL_MAX + CH_MSG_MAX + 128];
    pack_text_key_label(&ei, label, sizeof label);
    bfmt(line, sizeof line, "entry %u %s: %s%s", (unsigned)rep.entry, label,
         clcpack_path_name(rep.path), check_text);
    r->message = strdup(line);
    r->note = strdup(rep.why);
    /* The load path's name travels back as the result's one name. */
    r->kernel_names = calloc(1, sizeof *r->kernel_names);
    if (r->kernel_names && (r->kernel_names[0] = strdup(clcpack_path_name(rep.path))))
        r->n_kernel_names = 1;
}

static void load_worker_setup(load_worker *w, const char *pack, const char *slot,
                              const char *kernels, load_worker_hook_init hook_init)
{
    char err[DEVICE_SELECT_ERR_MAX];
    unsigned pi, di;
    const device_select_device *d;
    clcpack_error e;
    cl_int rc;
    if (!pack || !slot || sscanf(slot, "%u:%u", &pi, &di) != 2) {
        bfmt(w->setup_error, sizeof w->setup_error, "load worker: bad arguments");
        return;
    }
    if (clcpack_open_file(pack, &w->p, &e) != CLCPACK_OK) {
        bfmt(w->setup_error, sizeof w->setup_error, "load worker: %s", e.message);
        return;
    }
    device_select_list *devices = calloc(1, sizeof *devices); /* large: on the heap */
    if (!devices)
        bfmt(err, sizeof err, "out of memory");
    if (!devices || device_select_enumerate(devices, err) != 0 ||
        device_select_find_by_index(devices, pi, di, &d, err) != 0) {
        bfmt(w->setup_error, sizeof w->setup_error, "load worker: %s", err);
        free(devices);
        return;
    }
    w->dev = d->device; /* the handle outlives the list */
    free(devices);
    w->ctx = clCreateContext(NULL, 1, &w->dev, NULL, NULL, &rc);
    w->q = w->ctx ? clCreateCommandQueue(w->ctx, w->dev, 0, &rc) : NULL;
    if (!w->ctx || !w->q) {
        char cl[CLCPK_CL_ERROR_MAX];
        bfmt(w->setup_error, sizeof w->setup_error,
             "load worker: creating a context and queue failed with %s",
             clcpk_cl_error_name(rc, cl, sizeof cl));
        return;
    }
    char merr[MANIFEST_ERR_MAX];
    if (w->check && kernels && manifest_load(kernels, &w->manifest, merr) != 0)
        bfmt(w->setup_error, sizeof w->setup_error, "load worker: %s", merr);
    hook_init(&w->hook, &w->manifest);
}

size_t load_worker_argv(char *argv[], const char *pack, const device_select_device *d,
                        char slot[LOAD_WORKER_SLOT_MAX])
{
    bfmt(slot, LOAD_WORKER_SLOT_MAX, "%u:%u", d->platform_index, d->device_index);
    argv[0] = (char *)"clc-pack";
    argv[1] = (char *)"--load-worker";
    argv[2] = (char *)"--pack";
    argv[3] = (char *)pack;
    argv[4] = (char *)"--device";
    argv[5] = slot;
    return 6;
}

typedef struct load_worker_args {
    int load_worker, check, no_cubin, warm;
    const char *pack, *slot, *kernels, *pocl_wg; /* kernels NULL: no manifest */
} load_worker_args;

static const cli_opt load_worker_opts[] = {
    OPT_FLAG("load-worker", 0, load_worker_args, load_worker, "this mode (argv[1])"),
    OPT_FLAG("check", 0, load_worker_args, check, "run each loaded program against the reference"),
    OPT_FLAG("no-cubin", 0, load_worker_args, no_cubin, "skip cubins"),
    OPT_FLAG("warm", 0, load_worker_args, warm, "fill the rebuild cache (clc-pack warm)"),
    OPT_STR("pack", 0, load_worker_args, pack, "PACK", "the pack to load"),
    OPT_STR("device", 0, load_worker_args, slot, "P:D", "the device slot"),
    OPT_STR("kernels", 0, load_worker_args, kernels, "DIR", "the kernels folder for --check"),
    OPT_STR("pocl-wg", 0, load_worker_args, pocl_wg, "LIST", "PoCL work-group functions to warm"),
};

/* One load job frame, answered in r. */
static void serve_load(void *self, const unsigned char *payload, size_t size, uint32_t *job,
                       build_variant_result *r)
{
    uint32_t entry = 0;
    char ferr[WORKER_PROTO_ERR_MAX];
    if (worker_proto_decode_load_job(payload, size, job, &entry, ferr) != 0) {
        memset(r, 0, sizeof *r);
        r->status = BUILD_VARIANT_ERROR;
        r->message = strdup(ferr);
        return;
    }
    load_job(self, entry, r);
}

int load_worker_main(int argc, char **argv, load_worker_hook_init hook_init)
{
    load_worker *w = calloc(1, sizeof *w); /* large (the manifest): on the heap */
    if (!w) {
        fprintf(stderr, "clc-pack: load worker: out of memory\n");
        return EXIT_FAILURE_STATUS;
    }
    load_worker_args a = {0, 0, 0, 0, NULL, NULL, NULL, NULL};
    static const cli_optspec spec = {"load worker", load_worker_opts, sizeof load_worker_opts / sizeof load_worker_opts[0],
                                     0, 0};
    char err[512];
    int first = argc;
    if (cli_opts_parse(&spec, argc, argv, &a, &first, err, sizeof err) != 0 || first != argc) {
        fprintf(stderr, "clc-pack: load worker: %s (--load-worker is internal to clc-pack)\n",
                first != argc ? "unexpected arguments" : err);
        free(w);
        return EXIT_USAGE_STATUS;
    }
    w->check = a.check;
    w->load_flags = (a.no_cubin ? CLCPACK_LOAD_NO_CUBIN : 0) | (a.warm ? CLCPACK_LOAD_CACHE : 0);
    /* warm's workers finish the build they are on when the user interrupts
     * warm (the signal reaches the whole process group); they end when warm
     * closes their job pipe. */
    if (w->load_flags & CLCPACK_LOAD_CACHE) {
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
    }
    /* Before the first OpenCL call: PoCL reads it once (pocl_wg.h). */
    if (a.pocl_wg)
        setenv("POCL_BINARY_SPECIALIZE_WG", a.pocl_wg, 1);
    load_worker_setup(w, a.pack, a.slot, a.kernels, hook_init);
    int status = worker_proto_serve("load worker", serve_load, w) ? EXIT_FAILURE_STATUS : EXIT_OK_STATUS;
    if (w->q)
        clReleaseCommandQueue(w->q);
    if (w->ctx)
        clReleaseContext(w->ctx);
    clcpack_close(w->p);
    free(w);
    return status;
}
