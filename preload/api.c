/* api.c — the interposed OpenCL calls (preload.h, docs/RECORD.md).
 *
 * Each call is one function pl_<name> with the ICD signature: the layer's
 * table holds them (layer.c), and the exported symbol of the same name
 * calls it, unless a layer is active and the call goes on through the
 * loader, which then calls the layer: the work is done once either way.
 *
 * The application's handle is always a real driver object: its program is
 * created from source by the driver as usual, and when the pack holds it,
 * clBuildProgram makes a second program from the pack's binary ("served")
 * and the calls that read a built program (info, build info, kernels) are
 * answered by that one. A served link returns the program made from the
 * pack's binary itself. Anything unexpected leaves the call to the driver.
 * No lock is held across any call out of the interposer (preload.h). */
#include "preload.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------- */
/* Helpers                                                                 */

static int join_sources(cl_uint count, const char **strings, const size_t *lengths, char **out,
                        size_t *size)
{
    size_t total = 0;
    if (!strings)
        return -1;
    for (cl_uint i = 0; i < count; i++) {
        if (!strings[i])
            return -1;
        size_t n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
        if (n > SIZE_MAX - total - 1)
            return -1;
        total += n;
    }
    char *s = malloc(total + 1);
    if (!s)
        return -1;
    size_t k = 0;
    for (cl_uint i = 0; i < count; i++) {
        size_t n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
        memcpy(s + k, strings[i], n);
        k += n;
    }
    s[k] = '\0';
    *out = s;
    *size = total;
    return 0;
}

static char *dup_bytes(const char *p, size_t n)
{
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, p, n);
        s[n] = '\0';
    }
    return s;
}

/* ---------------------------------------------------------------------- */
/* Separate compilation                                                    */

/* What clCompileProgram was given for one input, as the link description
 * holds it. */
typedef struct input_desc {
    int ok;
    char why[256];
    char *norm;
    char key[RK_KEY_MAX];
    size_t n_headers;
    char **names;
    char **srcs;
    size_t *sizes;
} input_desc;

static void input_desc_free(input_desc *d)
{
    free(d->norm);
    for (size_t i = 0; i < d->n_headers; i++) {
        if (d->names)
            free(d->names[i]);
        if (d->srcs)
            free(d->srcs[i]);
    }
    free(d->names);
    free(d->srcs);
    free(d->sizes);
    memset(d, 0, sizeof *d);
}

static void describe_input(const prog *r, const char *options, cl_uint nh,
                           const cl_program *headers, const char **names, input_desc *d)
{
    memset(d, 0, sizeof *d);
    if (nh > LINK_MAX_HEADERS || (nh && (!headers || !names))) {
        interposer_why(d->why, sizeof d->why, "too many or missing header programs");
        return;
    }
    char **dirs = NULL;
    size_t n_dirs = 0;
    d->names = calloc(nh ? nh : 1, sizeof *d->names);
    d->srcs = calloc(nh ? nh : 1, sizeof *d->srcs);
    d->sizes = calloc(nh ? nh : 1, sizeof *d->sizes);
    d->n_headers = nh;
    if (!d->names || !d->srcs || !d->sizes ||
        rk_normalize(options, &d->norm, &dirs, &n_dirs) != 0) {
        interposer_why(d->why, sizeof d->why, "out of memory");
        return;
    }
    rk_free_dirs(dirs, n_dirs);
    for (cl_uint i = 0; i < nh; i++) {
        prog *h = program_table_pin(headers[i]);
        if (!h || !names[i]) {
            program_table_unpin(h);
            interposer_why(d->why, sizeof d->why, "header program %u was not created from source",
                   (unsigned)i);
            return;
        }
        d->names[i] = strdup(names[i]);
        d->srcs[i] = dup_bytes(h->source, h->size);
        d->sizes[i] = h->size;
        program_table_unpin(h);
        if (!d->names[i] || !d->srcs[i]) {
            interposer_why(d->why, sizeof d->why, "out of memory");
            return;
        }
    }
    char build_key[RK_KEY_MAX];
    if (rk_key(r->source, r->size, options, build_key) != 0) {
        interposer_why(d->why, sizeof d->why, "out of memory");
        return;
    }
    if (rk_compile_key(build_key, nh, d->names, d->srcs, d->sizes, d->key) != 0) {
        interposer_why(d->why, sizeof d->why, "out of memory");
        return;
    }
    d->ok = 1;
}

static void set_compiled(prog *r, void *arg)
{
    input_desc *d = arg;
    prog_free_compiled(r);
    r->compiled = 1;
    r->compile_norm = d->norm;
    memcpy(r->compile_key, d->key, sizeof r->compile_key);
    r->n_headers = d->n_headers;
    r->header_names = d->names;
    r->header_srcs = d->srcs;
    r->header_sizes = d->sizes;
    memset(d, 0, sizeof *d);
}

/* A compile the pack makes unnecessary, kept to run later if needed. */
typedef struct deferred {
    int taken;
    char *options;
    cl_uint n_devs;
    cl_device_id *devs;
    size_t n_headers;
    cl_program *headers;
    char **names;
} deferred;

static void deferred_free(deferred *t)
{
    free(t->options);
    free(t->devs);
    free(t->headers);
    if (t->names)
        for (size_t i = 0; i < t->n_headers; i++)
            free(t->names[i]);
    free(t->names);
}

static void set_deferred(prog *r, void *arg)
{
    deferred *t = arg;
    r->deferred_options = t->options;
    r->n_deferred_devs = t->n_devs;
    r->deferred_devs = t->devs;
    r->deferred_headers = t->headers;
    program_table_set_deferred_locked(r, 1);
    t->options = NULL;
    t->devs = NULL;
    t->headers = NULL;
    t->taken = 1;
}

static void take_deferred(prog *r, void *arg)
{
    deferred *t = arg;
    if (!r->deferred)
        return;
    t->taken = 1;
    t->options = r->deferred_options;
    t->n_devs = r->n_deferred_devs;
    t->devs = r->deferred_devs;
    t->headers = r->deferred_headers;
    t->n_headers = r->n_headers;
    t->names = calloc(r->n_headers ? r->n_headers : 1, sizeof *t->names);
    for (size_t i = 0; t->names && i < r->n_headers; i++)
        t->names[i] = strdup(r->header_names[i]);
    r->deferred_options = NULL;
    r->deferred_devs = NULL;
    r->deferred_headers = NULL;
    program_table_set_deferred_locked(r, 0);
}

static void release_headers(const deferred *t)
{
    for (size_t i = 0; t->headers && i < t->n_headers; i++)
        if (t->headers[i])
            DRV(clReleaseProgram, t->headers[i])(t->headers[i]);
}

/* Runs r's deferred compile now, if it has one. */
static void materialize(prog *r)
{
    deferred t = {0};
    program_table_update(r, take_deferred, &t);
    if (!t.taken)
        return;
    double t0 = interposer_now_ms();
    cl_int rc = t.names || !t.n_headers
                    ? DRV(clCompileProgram, r->app)(r->app, t.n_devs, t.devs, t.options,
                                                    (cl_uint)t.n_headers, t.headers,
                                                    (const char **)t.names, NULL, NULL)
                    : CL_OUT_OF_HOST_MEMORY;
    release_headers(&t);
    interposer_say("program %p: deferred compile run now: %s in %.3f ms", (void *)r->app,
           rc == CL_SUCCESS ? "done" : "failed", interposer_now_ms() - t0);
    deferred_free(&t);
}

/* materialize() for p when it may be deferred. */
static void materialize_handle(cl_program p)
{
    if (!program_table_any_deferred())
        return;
    prog *r = program_table_pin(p);
    if (r)
        materialize(r);
    program_table_unpin(r);
}

/* ---------------------------------------------------------------------- */
/* Creating programs                                                       */

static cl_program CL_API_CALL pl_clCreateProgramWithSource(cl_context ctx, cl_uint count,
                                                           const char **strings,
                                                           const size_t *lengths,
                                                           cl_int *errcode)
{
    interposer_init();
    if (!interposer_next()->clCreateProgramWithSource && !ctx) {
        if (errcode)
            *errcode = CL_INVALID_CONTEXT;
        return NULL;
    }
    interposer_count_call();
    cl_program p =
        DRV(clCreateProgramWithSource, ctx)(ctx, count, strings, lengths, errcode);
    if (p && interposer_active()) {
        prog *r = calloc(1, sizeof *r);
        if (r && join_sources(count, strings, lengths, &r->source, &r->size) == 0) {
            r->app = p;
            program_table_add(r);
        } else {
            free(r);
            program_table_forget(p);
        }
    }
    return p;
}

static cl_program CL_API_CALL pl_clCreateProgramWithBinary(cl_context ctx, cl_uint n,
                                                           const cl_device_id *devs,
                                                           const size_t *lengths,
                                                           const unsigned char **bins,
                                                           cl_int *status, cl_int *errcode)
{
    interposer_init();
    if (!interposer_next()->clCreateProgramWithBinary && !ctx) {
        if (errcode)
            *errcode = CL_INVALID_CONTEXT;
        return NULL;
    }
    interposer_count_call();
    cl_program p =
        DRV(clCreateProgramWithBinary, ctx)(ctx, n, devs, lengths, bins, status, errcode);
    if (p && interposer_active()) {
        program_table_forget(p);
        record_note_binary();
    }
    return p;
}

static cl_program CL_API_CALL pl_clCreateProgramWithBuiltInKernels(cl_context ctx, cl_uint n,
                                                                   const cl_device_id *devs,
                                                                   const char *names,
                                                                   cl_int *errcode)
{
    interposer_init();
    if (!interposer_next()->clCreateProgramWithBuiltInKernels && !ctx) {
        if (errcode)
            *errcode = CL_INVALID_CONTEXT;
        return NULL;
    }
    interposer_count_call();
    cl_program p = DRV(clCreateProgramWithBuiltInKernels, ctx)(ctx, n, devs, names, errcode);
    if (p && interposer_active())
        program_table_forget(p);
    return p;
}

static cl_program CL_API_CALL pl_clCreateProgramWithIL(cl_context ctx, const void *il,
                                                       size_t size, cl_int *errcode)
{
    interposer_init();
    if (!interposer_next()->clCreateProgramWithIL && !ctx) {
        if (errcode)
            *errcode = CL_INVALID_CONTEXT;
        return NULL;
    }
    interposer_count_call();
    cl_program p = DRV(clCreateProgramWithIL, ctx)(ctx, il, size, errcode);
    if (p && interposer_active())
        program_table_forget(p);
    return p;
}

/* ---------------------------------------------------------------------- */
/* Building                                                                */

static cl_int CL_API_CALL pl_clBuildProgram(cl_program program, cl_uint nd,
                                            const cl_device_id *list, const char *options,
                                            void(CL_CALLBACK *notify)(cl_program, void *),
                                            void *user_data)
{
    interposer_init();
    if (!interposer_next()->clBuildProgram && !program)
        return CL_INVALID_PROGRAM;
    interposer_count_call();
    if (!interposer_active())
        return DRV(clBuildProgram, program)(program, nd, list, options, notify, user_data);
    double t0 = interposer_now_ms();
    prog *r = program_table_pin(program);
    if (r && r->deferred)
        materialize(r);
    cl_program served = r ? program_table_answering(program) : program;
    if (r && served != program) {
        /* Built again: the served program answers, as it did the first time. */
        cl_int rc = DRV(clBuildProgram, served)(served, nd, list, options, NULL, NULL);
        if (rc == CL_SUCCESS && notify)
            notify(program, user_data);
        interposer_say("program %p: served from the pack again (built again) in %.3f ms",
               (void *)program, interposer_now_ms() - t0);
        program_table_unpin(r);
        return rc;
    }
    char key[RK_KEY_MAX];
    if (!r || rk_key(r->source, r->size, options, key) != 0) {
        cl_int rc = DRV(clBuildProgram, program)(program, nd, list, options, notify, user_data);
        interposer_say("program %p: passed through (%s): build %s in %.3f ms", (void *)program,
               r ? "out of memory" : "not created from source",
               rc ? "failed" : "done", interposer_now_ms() - t0);
        program_table_unpin(r);
        return rc;
    }

    char why[WHY_MAX] = "";
    if (interposer_cfg.pack_path) {
        cl_program q = NULL;
        if (serve_build(program, nd, list, options, r->source, r->size, key, &q, why,
                        sizeof why) == 0) {
            if (program_table_set_served(r, q) == 0) {
                program_table_unpin(r);
                if (notify)
                    notify(program, user_data);
                interposer_say("program %p: served from the pack (key %.16s) in %.3f ms",
                       (void *)program, key, interposer_now_ms() - t0);
                return CL_SUCCESS;
            }
            DRV(clReleaseProgram, q)(q);
            interposer_why(why, sizeof why, "the program was released or built during the build");
        }
        cl_int rc = DRV(clBuildProgram, program)(program, nd, list, options, notify, user_data);
        interposer_say("program %p: passed through (%s): build %s in %.3f ms", (void *)program, why,
               rc ? "failed" : "done", interposer_now_ms() - t0);
        program_table_unpin(r);
        return rc;
    }

    cl_int rc = DRV(clBuildProgram, program)(program, nd, list, options, notify, user_data);
    double build_ms = interposer_now_ms() - t0;
    if (rc == CL_SUCCESS) {
        cl_device_id devs[MAX_DEVICES];
        cl_uint n = 0;
        if (interposer_program_devices(program, nd, list, devs, &n) == 0) {
            interposer_say("program %p: recorded (key %.16s, %u device%s): build done in %.3f ms",
                   (void *)program, key, (unsigned)n, n == 1 ? "" : "s", build_ms);
            record_capture(program, CAPTURE_BUILD, n, devs, r->source, r->size, options, key);
        } else {
            interposer_say("program %p: not recorded (cannot list the build's devices): build done "
                   "in %.3f ms",
                   (void *)program, build_ms);
        }
    } else {
        interposer_say("program %p: not recorded: build failed (error %d) in %.3f ms", (void *)program,
               (int)rc, build_ms);
    }
    program_table_unpin(r);
    return rc;
}

static cl_int CL_API_CALL pl_clCompileProgram(cl_program p, cl_uint nd, const cl_device_id *devs,
                                              const char *options, cl_uint nh,
                                              const cl_program *headers, const char **names,
                                              void(CL_CALLBACK *notify)(cl_program, void *),
                                              void *user_data)
{
    interposer_init();
    if (!interposer_next()->clCompileProgram && !p)
        return CL_INVALID_PROGRAM;
    interposer_count_call();
    if (!interposer_active())
        return DRV(clCompileProgram, p)(p, nd, devs, options, nh, headers, names, notify,
                                        user_data);
    double t0 = interposer_now_ms();
    prog *r = program_table_pin(p);
    if (!r) {
        cl_int rc = DRV(clCompileProgram, p)(p, nd, devs, options, nh, headers, names, notify,
                                             user_data);
        interposer_say("program %p: compile passed through (not created from source): %s in %.3f ms",
               (void *)p, rc ? "failed" : "done", interposer_now_ms() - t0);
        return rc;
    }
    if (r->deferred)
        materialize(r);
    input_desc d;
    describe_input(r, options, nh, headers, names, &d);
    if (d.ok && interposer_cfg.pack_path) {
        cl_device_id list[MAX_DEVICES];
        cl_uint n = 0;
        deferred t = {0};
        if (interposer_program_devices(p, nd, devs, list, &n) == 0 &&
            serve_knows_compile(d.key, n, list) &&
            (t.options = strdup(options ? options : "")) != NULL &&
            (t.headers = calloc(nh ? nh : 1, sizeof *t.headers)) != NULL &&
            (!nd || (t.devs = malloc(nd * sizeof *devs)) != NULL)) {
            /* The pack holds a link of exactly this input for these
             * devices: the compile runs only if something needs its result
             * (a link the pack does not serve, a build log). */
            t.n_devs = nd && devs ? nd : 0;
            if (t.devs && devs)
                memcpy(t.devs, devs, nd * sizeof *devs);
            for (cl_uint i = 0; i < nh; i++)
                if (DRV(clRetainProgram, headers[i])(headers[i]) == CL_SUCCESS)
                    t.headers[i] = headers[i];
            program_table_update(r, set_compiled, &d);
            program_table_update(r, set_deferred, &t);
            program_table_unpin(r);
            deferred_free(&t);
            if (notify)
                notify(p, user_data);
            interposer_say("program %p: compile deferred (the pack holds a link of it) in %.3f ms",
                   (void *)p, interposer_now_ms() - t0);
            return CL_SUCCESS;
        }
        deferred_free(&t);
    }
    cl_int rc =
        DRV(clCompileProgram, p)(p, nd, devs, options, nh, headers, names, notify, user_data);
    if (d.ok)
        interposer_say("program %p: compiled (key %.20s): %s in %.3f ms", (void *)p, d.key,
               rc ? "failed" : "done", interposer_now_ms() - t0);
    else
        interposer_say("program %p: compiled (%s: its links pass through): %s in %.3f ms", (void *)p,
               d.why, rc ? "failed" : "done", interposer_now_ms() - t0);
    if (rc == CL_SUCCESS && d.ok)
        program_table_update(r, set_compiled, &d);
    input_desc_free(&d);
    program_table_unpin(r);
    return rc;
}

/* Whether link options make a library (never recorded or served). */
static int makes_library(const char *options)
{
    return options && strstr(options, "-create-library") != NULL;
}

static cl_program CL_API_CALL pl_clLinkProgram(cl_context ctx, cl_uint nd,
                                               const cl_device_id *devs, const char *options,
                                               cl_uint n, const cl_program *inputs,
                                               void(CL_CALLBACK *notify)(cl_program, void *),
                                               void *user_data, cl_int *errcode)
{
    interposer_init();
    if (!interposer_next()->clLinkProgram && !ctx) {
        if (errcode)
            *errcode = CL_INVALID_CONTEXT;
        return NULL;
    }
    interposer_count_call();
    if (!interposer_active())
        return DRV(clLinkProgram, ctx)(ctx, nd, devs, options, n, inputs, notify, user_data,
                                       errcode);
    double t0 = interposer_now_ms();
    char why[WHY_MAX] = "";
    prog **rs = n && inputs && n <= LINK_MAX_INPUTS ? calloc(n, sizeof *rs) : NULL;
    link_input *in = rs ? calloc(n, sizeof *in) : NULL;
    link_header **hs = in ? calloc(n, sizeof *hs) : NULL;
    int describable = hs != NULL && !makes_library(options);
    if (!hs)
        interposer_why(why, sizeof why, "no inputs, too many, or out of memory");
    else if (!describable)
        interposer_why(why, sizeof why, "it makes a library");
    for (cl_uint i = 0; rs && i < n; i++) {
        rs[i] = program_table_pin(inputs[i]);
        if (describable && (!rs[i] || !rs[i]->compiled)) {
            describable = 0;
            interposer_why(why, sizeof why, "input %u was not compiled from source here", (unsigned)i);
        }
    }
    unsigned char *desc = NULL;
    size_t desc_size = 0;
    char key[RK_KEY_MAX] = "";
    for (cl_uint i = 0; describable && i < n; i++) {
        const prog *r = rs[i];
        hs[i] = calloc(r->n_headers ? r->n_headers : 1, sizeof *hs[i]);
        if (!hs[i]) {
            describable = 0;
            break;
        }
        for (size_t h = 0; h < r->n_headers; h++)
            hs[i][h] = (link_header){r->header_names[h], r->header_srcs[h], r->header_sizes[h]};
        in[i] = (link_input){r->source, r->size, r->compile_norm, r->compile_key, r->n_headers,
                             hs[i]};
    }
    char *norm = NULL, **dirs = NULL;
    size_t n_dirs = 0;
    if (describable && (link_desc_encode(in, n, &desc, &desc_size) != 0 ||
                        rk_normalize(options, &norm, &dirs, &n_dirs) != 0)) {
        describable = 0;
        interposer_why(why, sizeof why, "out of memory");
    }
    rk_free_dirs(dirs, n_dirs);
    if (describable && rk_link_key(norm, desc, desc_size, key) != 0) {
        describable = 0;
        interposer_why(why, sizeof why, "out of memory");
    }
    free(norm);

    cl_program out = NULL;
    const char *what = "passed through";
    if (describable && interposer_cfg.pack_path) {
        out = serve_link(ctx, nd, devs, options, desc, desc_size, key, why, sizeof why);
        if (out) {
            program_table_forget(out);
            if (errcode)
                *errcode = CL_SUCCESS;
            if (notify)
                notify(out, user_data);
            what = "served from the pack";
        }
    }
    if (!out) {
        for (cl_uint i = 0; rs && i < n; i++)
            if (rs[i] && rs[i]->deferred)
                materialize(rs[i]);
        out = DRV(clLinkProgram, ctx)(ctx, nd, devs, options, n, inputs, notify, user_data,
                                      errcode);
        if (out && describable && interposer_cfg.record_dir) {
            cl_device_id list[MAX_DEVICES];
            cl_uint nl = 0;
            if (interposer_program_devices(out, nd, devs, list, &nl) == 0) {
                record_capture(out, CAPTURE_LINK, nl, list, (const char *)desc, desc_size, options,
                            key);
                what = "recorded";
            }
        }
        if (out)
            program_table_forget(out); /* a linked program is no compile input or header */
    }
    if (strcmp(what, "passed through") == 0)
        interposer_say("link %p: passed through (%s): %s in %.3f ms", (void *)out,
               describable ? (interposer_cfg.pack_path ? why : "not recording") : why,
               out ? "done" : "failed", interposer_now_ms() - t0);
    else
        interposer_say("link %p: %s (key %.20s, %u input%s) in %.3f ms", (void *)out, what, key,
               (unsigned)n, n == 1 ? "" : "s", interposer_now_ms() - t0);
    for (cl_uint i = 0; rs && i < n; i++)
        program_table_unpin(rs[i]);
    for (cl_uint i = 0; hs && i < n; i++)
        free(hs[i]);
    free(hs);
    free(in);
    free(rs);
    free(desc);
    return out;
}

/* ---------------------------------------------------------------------- */
/* Reading built programs                                                  */

static cl_int CL_API_CALL pl_clGetProgramInfo(cl_program p, cl_program_info param, size_t size,
                                              void *value, size_t *ret)
{
    interposer_init();
    if (!interposer_next()->clGetProgramInfo && !p)
        return CL_INVALID_PROGRAM;
    interposer_count_call();
    if (param == CL_PROGRAM_SOURCE || param == CL_PROGRAM_CONTEXT)
        return DRV(clGetProgramInfo, p)(p, param, size, value, ret);
    /* Of a deferred compile's program only its binary needs the compile;
     * kernels are no more there than in a compiled object. */
    if (param == CL_PROGRAM_BINARIES || param == CL_PROGRAM_BINARY_SIZES)
        materialize_handle(p);
    cl_program q = program_table_answering(p);
    if (param != CL_PROGRAM_REFERENCE_COUNT || q == p)
        return DRV(clGetProgramInfo, q)(q, param, size, value, ret);
    /* The application's references are on its program, its kernels' on the
     * served one (which holds one more, ours): together, what a source
     * build would count. */
    cl_uint mine = 0, served = 0;
    cl_int rc = DRV(clGetProgramInfo, p)(p, param, size, value, ret);
    if (rc != CL_SUCCESS || !value || size < sizeof mine)
        return rc;
    memcpy(&mine, value, sizeof mine);
    if (DRV(clGetProgramInfo, q)(q, param, sizeof served, &served, NULL) == CL_SUCCESS &&
        served > 1)
        mine += served - 1;
    memcpy(value, &mine, sizeof mine);
    return rc;
}

/* A release callback of a served program: called with the application's
 * handle when the served program, which the kernels keep, goes. */
typedef struct release_hook {
    cl_program app;
    void(CL_CALLBACK *notify)(cl_program, void *);
    void *user_data;
} release_hook;

static void CL_CALLBACK release_trampoline(cl_program q, void *arg)
{
    (void)q;
    release_hook h = *(release_hook *)arg;
    free(arg);
    h.notify(h.app, h.user_data);
}

static cl_int CL_API_CALL pl_clSetProgramReleaseCallback(cl_program p,
                                                         void(CL_CALLBACK *notify)(cl_program,
                                                                                   void *),
                                                         void *user_data)
{
    interposer_init();
    if (!interposer_next()->clSetProgramReleaseCallback && !p)
        return CL_INVALID_PROGRAM;
    interposer_count_call();
    cl_program q = program_table_answering(p);
    release_hook *h = q != p && notify ? malloc(sizeof *h) : NULL;
    if (!h)
        return DRV(clSetProgramReleaseCallback, p)(p, notify, user_data);
    *h = (release_hook){p, notify, user_data};
    cl_int rc = DRV(clSetProgramReleaseCallback, q)(q, release_trampoline, h);
    if (rc != CL_SUCCESS)
        free(h);
    return rc;
}

static cl_int CL_API_CALL pl_clGetProgramBuildInfo(cl_program p, cl_device_id dev,
                                                   cl_program_build_info param, size_t size,
                                                   void *value, size_t *ret)
{
    interposer_init();
    if (!interposer_next()->clGetProgramBuildInfo && !p)
        return CL_INVALID_PROGRAM;
    interposer_count_call();
    if (program_table_any_deferred()) {
        /* A deferred compile answers as the compile it stands for did; its
         * log is empty, as a served build's is (docs/RECORD.md, "Limits"). */
        prog *r = program_table_pin(p);
        int is_deferred = r && r->deferred;
        program_table_unpin(r);
        cl_build_status ok = CL_BUILD_SUCCESS;
        cl_program_binary_type object = CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
        const void *src = NULL;
        size_t n = 0;
        if (param == CL_PROGRAM_BUILD_STATUS) {
            src = &ok;
            n = sizeof ok;
        } else if (param == CL_PROGRAM_BINARY_TYPE) {
            src = &object;
            n = sizeof object;
        } else if (param == CL_PROGRAM_BUILD_LOG) {
            src = "";
            n = 1;
        }
        if (is_deferred && src) {
            if (value && size < n)
                return CL_INVALID_VALUE;
            if (value)
                memcpy(value, src, n);
            if (ret)
                *ret = n;
            return CL_SUCCESS;
        }
    }
    materialize_handle(p);
    cl_program q = program_table_answering(p);
    return DRV(clGetProgramBuildInfo, q)(q, dev, param, size, value, ret);
}

static cl_kernel CL_API_CALL pl_clCreateKernel(cl_program p, const char *name, cl_int *errcode)
{
    interposer_init();
    if (!interposer_next()->clCreateKernel && !p) {
        if (errcode)
            *errcode = CL_INVALID_PROGRAM;
        return NULL;
    }
    interposer_count_call();
    cl_program q = program_table_answering(p);
    return DRV(clCreateKernel, q)(q, name, errcode);
}

static cl_int CL_API_CALL pl_clCreateKernelsInProgram(cl_program p, cl_uint n,
                                                      cl_kernel *kernels, cl_uint *n_ret)
{
    interposer_init();
    if (!interposer_next()->clCreateKernelsInProgram && !p)
        return CL_INVALID_PROGRAM;
    interposer_count_call();
    cl_program q = program_table_answering(p);
    return DRV(clCreateKernelsInProgram, q)(q, n, kernels, n_ret);
}

static cl_int CL_API_CALL pl_clGetKernelInfo(cl_kernel k, cl_kernel_info param, size_t size,
                                             void *value, size_t *ret)
{
    interposer_init();
    if (!interposer_next()->clGetKernelInfo && !k)
        return CL_INVALID_KERNEL;
    interposer_count_call();
    cl_int rc = DRV(clGetKernelInfo, k)(k, param, size, value, ret);
    if (rc == CL_SUCCESS && param == CL_KERNEL_PROGRAM && value && size >= sizeof(cl_program))
        *(cl_program *)value = program_table_app_handle(*(cl_program *)value);
    return rc;
}

/* ---------------------------------------------------------------------- */
/* References                                                              */

static cl_int CL_API_CALL pl_clRetainProgram(cl_program p)
{
    interposer_init();
    if (!interposer_next()->clRetainProgram && !p)
        return CL_INVALID_PROGRAM;
    interposer_count_call();
    cl_int rc = DRV(clRetainProgram, p)(p);
    if (rc == CL_SUCCESS && interposer_active())
        program_table_retain(p);
    return rc;
}

static cl_int CL_API_CALL pl_clReleaseProgram(cl_program p)
{
    interposer_init();
    if (!interposer_next()->clReleaseProgram && !p)
        return CL_INVALID_PROGRAM;
    interposer_count_call();
    if (!interposer_active())
        return DRV(clReleaseProgram, p)(p);
    /* The application's last reference: the entry leaves the table now
     * (under the lock), everything else happens unlocked. */
    prog *r = program_table_release(p);
    cl_int rc = DRV(clReleaseProgram, p)(p);
    if (r) {
        deferred t = {0};
        program_table_update(r, take_deferred, &t);
        release_headers(&t);
        deferred_free(&t);
        if (r->served)
            DRV(clReleaseProgram, r->served)(r->served);
        program_table_unpin(r);
    }
    return rc;
}

/* ---------------------------------------------------------------------- */
/* The exported symbols and the layer's table                              */

#define FORWARD(n, ...)                                                                        \
    do {                                                                                       \
        interposer_init();                                                                             \
        if (PL_LAYER_OWNS(n))                                                                  \
            return interposer_real.n(__VA_ARGS__);                                                     \
        return pl_##n(__VA_ARGS__);                                                            \
    } while (0)

EXPORT cl_program CL_API_CALL clCreateProgramWithSource(cl_context ctx, cl_uint count,
                                                        const char **strings,
                                                        const size_t *lengths, cl_int *errcode)
{
    FORWARD(clCreateProgramWithSource, ctx, count, strings, lengths, errcode);
}

EXPORT cl_program CL_API_CALL clCreateProgramWithBinary(cl_context ctx, cl_uint n,
                                                        const cl_device_id *devs,
                                                        const size_t *lengths,
                                                        const unsigned char **bins,
                                                        cl_int *status, cl_int *errcode)
{
    FORWARD(clCreateProgramWithBinary, ctx, n, devs, lengths, bins, status, errcode);
}

EXPORT cl_program CL_API_CALL clCreateProgramWithBuiltInKernels(cl_context ctx, cl_uint n,
                                                                const cl_device_id *devs,
                                                                const char *names,
                                                                cl_int *errcode)
{
    FORWARD(clCreateProgramWithBuiltInKernels, ctx, n, devs, names, errcode);
}

EXPORT cl_program CL_API_CALL clCreateProgramWithIL(cl_context ctx, const void *il, size_t size,
                                                    cl_int *errcode)
{
    FORWARD(clCreateProgramWithIL, ctx, il, size, errcode);
}

EXPORT cl_int CL_API_CALL clCompileProgram(cl_program p, cl_uint nd, const cl_device_id *devs,
                                           const char *options, cl_uint nh,
                                           const cl_program *headers, const char **names,
                                           void(CL_CALLBACK *notify)(cl_program, void *),
                                           void *user_data)
{
    FORWARD(clCompileProgram, p, nd, devs, options, nh, headers, names, notify, user_data);
}

EXPORT cl_program CL_API_CALL clLinkProgram(cl_context ctx, cl_uint nd, const cl_device_id *devs,
                                            const char *options, cl_uint n,
                                            const cl_program *inputs,
                                            void(CL_CALLBACK *notify)(cl_program, void *),
                                            void *user_data, cl_int *errcode)
{
    FORWARD(clLinkProgram, ctx, nd, devs, options, n, inputs, notify, user_data, errcode);
}

EXPORT cl_int CL_API_CALL clBuildProgram(cl_program p, cl_uint nd, const cl_device_id *list,
                                         const char *options,
                                         void(CL_CALLBACK *notify)(cl_program, void *),
                                         void *user_data)
{
    FORWARD(clBuildProgram, p, nd, list, options, notify, user_data);
}

EXPORT cl_int CL_API_CALL clGetProgramInfo(cl_program p, cl_program_info param, size_t size,
                                           void *value, size_t *ret)
{
    FORWARD(clGetProgramInfo, p, param, size, value, ret);
}

EXPORT cl_int CL_API_CALL clSetProgramReleaseCallback(cl_program p,
                                                      void(CL_CALLBACK *notify)(cl_program,
                                                                                void *),
                                                      void *user_data)
{
    FORWARD(clSetProgramReleaseCallback, p, notify, user_data);
}

EXPORT cl_int CL_API_CALL clGetProgramBuildInfo(cl_program p, cl_device_id dev,
                                                cl_program_build_info param, size_t size,
                                                void *value, size_t *ret)
{
    FORWARD(clGetProgramBuildInfo, p, dev, param, size, value, ret);
}

EXPORT cl_kernel CL_API_CALL clCreateKernel(cl_program p, const char *name, cl_int *errcode)
{
    FORWARD(clCreateKernel, p, name, errcode);
}

EXPORT cl_int CL_API_CALL clCreateKernelsInProgram(cl_program p, cl_uint n, cl_kernel *kernels,
                                                   cl_uint *n_ret)
{
    FORWARD(clCreateKernelsInProgram, p, n, kernels, n_ret);
}

EXPORT cl_int CL_API_CALL clGetKernelInfo(cl_kernel k, cl_kernel_info param, size_t size,
                                          void *value, size_t *ret)
{
    FORWARD(clGetKernelInfo, k, param, size, value, ret);
}

EXPORT cl_int CL_API_CALL clRetainProgram(cl_program p)
{
    FORWARD(clRetainProgram, p);
}

EXPORT cl_int CL_API_CALL clReleaseProgram(cl_program p)
{
    FORWARD(clReleaseProgram, p);
}

void interposer_fill_layer_table(cl_icd_dispatch *t, size_t n)
{
    /* Only the first n entries exist in the loader's table. */
#define SET(f)                                                                                 \
    if (offsetof(cl_icd_dispatch, f) / sizeof(void *) < n)                                    \
        t->f = pl_##f;
    SET(clCreateProgramWithSource)
    SET(clCreateProgramWithBinary)
    SET(clCreateProgramWithBuiltInKernels)
    SET(clCreateProgramWithIL)
    SET(clCompileProgram)
    SET(clLinkProgram)
    SET(clBuildProgram)
    SET(clGetProgramInfo)
    SET(clSetProgramReleaseCallback)
    SET(clGetProgramBuildInfo)
    SET(clCreateKernel)
    SET(clCreateKernelsInProgram)
    SET(clGetKernelInfo)
    SET(clRetainProgram)
    SET(clReleaseProgram)
#undef SET
}
