/*
 * load_worker.c — the body of `clc-pack --load-worker`: the process
 * `verify --load` and `warm` load a pack's keys in (load_worker.h), started
 * through the worker pool, never by hand; its options are read in
 * clc/main/worker_main.c. A driver that crashes on a bad binary or while
 * building kills this process, not the command (worker_proto.h has the
 * frames).
 */
#include "load_worker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "build_variant.h"
#include "cl_error_name.h"
#include "clcpack.h"
#include "pack_text.h"
#include "worker_proto.h"

#define LABEL_MAX 640
/* Same tolerance as the pack-time check (build_variant.c). */
#define CHECK_TOL 1e-4

typedef struct load_worker {
    const load_worker_config *c;
    clcpack *p;
    cl_context ctx;
    cl_command_queue q;
    char setup_error[LOAD_WORKER_ERR_MAX];
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
    uint32_t cache = w->c->load_flags & CLCPACK_LOAD_CACHE ? 0 : CLCPACK_LOAD_NO_CACHE;
    clcpack_load_options lo = {sizeof lo, cache | w->c->load_flags};
    if (clcpack_create_program(w->p, &key, w->ctx, w->c->dev, &lo, &prog, &rep, &e) !=
        CLCPACK_OK) {
        r->message = strdup(e.message);
        r->note = strdup(rep.why);
        return;
    }
    char check_text[CH_MSG_MAX + 64] = "";
    r->status = BUILD_VARIANT_OK;
    if (w->c->check) {
        build_job job;
        memset(&job, 0, sizeof job);
        char err[CH_MSG_MAX];
        int c = w->c->entry_job(w->c->entry_self, &ei, &job);
        if (c == 1) {
            bfmt(check_text, sizeof check_text, ", no reference check (loaded and built)");
        } else if (c < 0) {
            r->status = BUILD_VARIANT_CHECK_FAILED;
            bfmt(check_text, sizeof check_text, ", CHECK FAILED: out of memory");
        } else {
            c = w->c->hook->check(w->c->hook->self, w->ctx, w->q, prog, &job, 1, CHECK_TOL, err);
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

/* The pack, the context and the queue; a failure into w->setup_error,
 * in the order load_worker.h gives. */
static void setup(load_worker *w)
{
    const load_worker_config *c = w->c;
    clcpack_error e;
    cl_int rc;
    if (!c->pack || !c->args_ok) {
        bfmt(w->setup_error, sizeof w->setup_error, "load worker: bad arguments");
        return;
    }
    if (clcpack_open_file(c->pack, &w->p, &e) != CLCPACK_OK) {
        bfmt(w->setup_error, sizeof w->setup_error, "load worker: %s", e.message);
        return;
    }
    if (!c->dev) {
        bfmt(w->setup_error, sizeof w->setup_error, "load worker: %s", c->device_error);
        return;
    }
    cl_device_id dev = c->dev;
    w->ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
    w->q = w->ctx ? clCreateCommandQueue(w->ctx, dev, 0, &rc) : NULL;
    if (!w->ctx || !w->q) {
        char cl[CLCPK_CL_ERROR_MAX];
        bfmt(w->setup_error, sizeof w->setup_error,
             "load worker: creating a context and queue failed with %s",
             clcpk_cl_error_name(rc, cl, sizeof cl));
        return;
    }
    if (c->manifest_error[0])
        bfmt(w->setup_error, sizeof w->setup_error, "load worker: %s", c->manifest_error);
}

size_t load_worker_argv(char *argv[], const char *pack, unsigned platform, unsigned device,
                        char slot[LOAD_WORKER_SLOT_MAX])
{
    bfmt(slot, LOAD_WORKER_SLOT_MAX, "%u:%u", platform, device);
    argv[0] = (char *)"clc-pack";
    argv[1] = (char *)"--load-worker";
    argv[2] = (char *)"--pack";
    argv[3] = (char *)pack;
    argv[4] = (char *)"--device";
    argv[5] = slot;
    return 6;
}

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

int load_worker_serve(const load_worker_config *c)
{
    load_worker w;
    memset(&w, 0, sizeof w);
    w.c = c;
    setup(&w);
    int rc = worker_proto_serve("load worker", serve_load, &w) ? 1 : 0;
    if (w.q)
        clReleaseCommandQueue(w.q);
    if (w.ctx)
        clReleaseContext(w.ctx);
    clcpack_close(w.p);
    return rc;
}
