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
#include "cli_report.h"
#include "clcpack.h"
#include "device_select.h"
#include "manifest.h"
#include "pack_text.h"
#include "seed_hook.h"
#include "wire.h"
#include "worker_main.h"
#include "worker_proto.h"

#define LABEL_MAX 640
/* Same tolerance as the pack-time check (build_variant.c). */
#define CHECK_TOL 1e-4

/* An entry as a build job, for the seeds' check hook: its kernel, defines,
 * work-group and options, checked by the manifest kernel of its name. 0, or
 * 1 when the entry has no reference check (a program entry, or a kernel the
 * manifest does not give a family), -1 when out of memory. */
static int entry_job(const mf_manifest *m, const clcpack_entry_info *e, build_job *j)
{
    memset(j, 0, sizeof *j);
    const mf_kernel *k = e->kernel_name_count ? NULL : mf_find(m, e->kernel);
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
        bj_set_defines(j, names, values, e->define_count) != 0)
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
    mf_manifest manifest;
    check_hook hook;
    char setup_error[DS_ERR_MAX + 64];
} load_worker;

/* Loads (and checks) the key of entry i into r. */
static void load_job(load_worker *w, uint32_t i, bv_result *r)
{
    memset(r, 0, sizeof *r);
    r->status = BV_ERROR;
    clcpack_entry_info ei = {.struct_size = sizeof ei};
    if (w->setup_error[0] || clcpack_get_entry(w->p, i, &ei) != CLCPACK_OK) {
        r->message = strdup(w->setup_error[0] ? w->setup_error : "no such entry");
        return;
    }
    clcpack_key key = pt_key(&ei);
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
    r->status = BV_OK;
    if (w->check) {
        build_job job;
        char err[CH_MSG_MAX];
        int c = entry_job(&w->manifest, &ei, &job);
        if (c == 1) {
            bfmt(check_text, sizeof check_text, ", no reference check (loaded and built)");
        } else if (c < 0) {
            r->status = BV_CHECK_FAILED;
            bfmt(check_text, sizeof check_text, ", CHECK FAILED: out of memory");
        } else {
            c = w->hook.check(w->hook.self, w->ctx, w->q, prog, &job, 1, CHECK_TOL, err);
            if (c == 0) {
                bfmt(check_text, sizeof check_text, ", check ok");
            } else {
                r->status = BV_CHECK_FAILED;
                bfmt(check_text, sizeof check_text, ", CHECK FAILED: %s", err);
            }
        }
        bj_free(&job);
    }
    clReleaseProgram(prog);
    char label[LABEL_MAX], line[LABEL_MAX + CH_MSG_MAX + 128];
    pt_key_label(&ei, label, sizeof label);
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
                              const char *kernels)
{
    char err[DS_ERR_MAX];
    unsigned pi, di;
    static ds_list devices;
    const ds_device *d;
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
    if (ds_enumerate(&devices, err) != 0 || ds_find_by_index(&devices, pi, di, &d, err) != 0) {
        bfmt(w->setup_error, sizeof w->setup_error, "load worker: %s", err);
        return;
    }
    w->dev = d->device;
    w->ctx = clCreateContext(NULL, 1, &w->dev, NULL, NULL, &rc);
    w->q = w->ctx ? clCreateCommandQueue(w->ctx, w->dev, 0, &rc) : NULL;
    if (!w->ctx || !w->q) {
        bfmt(w->setup_error, sizeof w->setup_error,
             "load worker: creating a context and queue failed with error %d", (int)rc);
        return;
    }
    char merr[MF_ERR_MAX];
    if (w->check && kernels && mf_load(kernels, &w->manifest, merr) != 0)
        bfmt(w->setup_error, sizeof w->setup_error, "load worker: %s", merr);
    seed_hook_init(&w->hook, &w->manifest);
}

size_t load_worker_argv(char *argv[], const char *pack, const ds_device *d,
                        char slot[LW_SLOT_MAX])
{
    bfmt(slot, LW_SLOT_MAX, "%u:%u", d->platform_index, d->device_index);
    argv[0] = (char *)"clc-pack";
    argv[1] = (char *)"--load-worker";
    argv[2] = (char *)"--pack";
    argv[3] = (char *)pack;
    argv[4] = (char *)"--device";
    argv[5] = slot;
    return 6;
}

int load_worker_main(int argc, char **argv)
{
    static load_worker w; /* large (the manifest); one per process */
    memset(&w, 0, sizeof w);
    const char *pack = NULL, *slot = NULL, *kernels = NULL; /* NULL: no manifest */
    const char *pocl_wg = NULL;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--check") == 0)
            w.check = 1;
        else if (strcmp(argv[i], "--no-cubin") == 0)
            w.load_flags |= CLCPACK_LOAD_NO_CUBIN;
        else if (strcmp(argv[i], "--warm") == 0)
            w.load_flags |= CLCPACK_LOAD_CACHE;
        else if (i + 1 < argc && strcmp(argv[i], "--pack") == 0)
            pack = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--device") == 0)
            slot = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--kernels") == 0)
            kernels = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--pocl-wg") == 0)
            pocl_wg = argv[++i];
        else {
            fprintf(stderr, "clc-pack: --load-worker is internal to clc-pack\n");
            return EXIT_USAGE_STATUS;
        }
    }
    /* warm's workers finish the build they are on when the user interrupts
     * warm (the signal reaches the whole process group); they end when warm
     * closes their job pipe. */
    if (w.load_flags & CLCPACK_LOAD_CACHE) {
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
    }
    /* Before the first OpenCL call: PoCL reads it once (bv_pocl_wg_spec). */
    if (pocl_wg)
        setenv("POCL_BINARY_SPECIALIZE_WG", pocl_wg, 1);
    load_worker_setup(&w, pack, slot, kernels);
    int status = EXIT_OK_STATUS;
    for (;;) {
        unsigned char *payload;
        size_t size;
        char ferr[WP_ERR_MAX];
        int rc = wp_read_frame(0, WP_JOB_MAGIC, WP_JOB_MAX, &payload, &size, ferr);
        if (rc == 1)
            break;
        if (rc < 0) {
            fprintf(stderr, "clc-pack: load worker: %s\n", ferr);
            status = EXIT_FAILURE_STATUS;
            break;
        }
        uint32_t job = 0, entry = 0;
        bv_result r;
        if (wp_decode_load_job(payload, size, &job, &entry, ferr) != 0) {
            memset(&r, 0, sizeof r);
            r.status = BV_ERROR;
            r.message = strdup(ferr);
        } else {
            load_job(&w, entry, &r);
        }
        free(payload);
        wire_buf out;
        wire_init(&out);
        wp_encode_result(&out, job, &r);
        bv_result_free(&r);
        int wrc = out.failed ? -1 : wire_write_fd(WORKER_RESULT_FD, out.data, out.len);
        wire_free(&out);
        if (wrc != 0) {
            status = EXIT_FAILURE_STATUS;
            break;
        }
    }
    if (w.q)
        clReleaseCommandQueue(w.q);
    if (w.ctx)
        clReleaseContext(w.ctx);
    clcpack_close(w.p);
    return status;
}
