/* startup_measure.c — one pass of the start-up benchmark (startup_measure.h). */
#include "startup_measure.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_device.h"
#include "bench_entry.h"
#include "bench_stats.h"
#include "bounded_fmt.h"
#include "kernel_run.h"
#include "pack_text.h"

/* docs/KERNELS.md, "Checking": what a correct kernel stays within. */
#define SU_TOL 1e-5
#define SU_SEED 0x5eedu

const char *su_form_name(su_form f)
{
    switch (f) {
    case SU_NATIVE: return "native";
    case SU_CUBIN: return "cubin";
    case SU_PTX: return "ptx";
    case SU_SOURCE: return "source";
    case SU_NFORMS: break;
    }
    return "?";
}

typedef struct pass {
    const su_plan *plan;
    bench_device dev;
    cl_command_queue q;
    clcpack_device_info here;
    int fd;
    int broken;                 /* the pipe is gone: stop measuring */
} pass;

static void emit(pass *s, uint32_t key, su_form form, su_metric metric, double ms)
{
    su_record r = {key, (uint16_t)form, (uint16_t)metric, ms};
    const char *p = (const char *)&r;
    size_t left = sizeof r;
    while (left && !s->broken) {
        ssize_t n = write(s->fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            s->broken = 1;
            break;
        }
        p += n;
        left -= (size_t)n;
    }
}

static void fail(pass *s, uint32_t key, su_form form, const char *label, const char *what)
{
    fprintf(stderr, "startup: %s %s: %s\n", label, su_form_name(form), what);
    emit(s, key, form, SU_FAILED, 0);
}

static uint32_t form_flags(su_form f)
{
    switch (f) {
    case SU_NATIVE: return CLCPACK_LOAD_NO_CUBIN | CLCPACK_LOAD_NO_PTX | CLCPACK_LOAD_NO_SOURCE;
    case SU_CUBIN: return CLCPACK_LOAD_NO_NATIVE | CLCPACK_LOAD_NO_PTX | CLCPACK_LOAD_NO_SOURCE;
    case SU_PTX: return CLCPACK_LOAD_NO_NATIVE | CLCPACK_LOAD_NO_CUBIN | CLCPACK_LOAD_NO_SOURCE;
    default: return CLCPACK_LOAD_NO_BINARY;
    }
}

static clcpack_path form_path(su_form f)
{
    return f == SU_NATIVE  ? CLCPACK_PATH_NATIVE
           : f == SU_CUBIN ? CLCPACK_PATH_CUBIN
           : f == SU_PTX   ? CLCPACK_PATH_PTX
                           : CLCPACK_PATH_SOURCE;
}

/* The entry the loader would use for this form on this device, as
 * program_load.c orders them; SIZE_MAX when there is none. */
static size_t form_entry(const pass *s, const size_t *match, size_t n_match, su_form f)
{
    uint32_t cc = s->here.nv_cc_major * 10 + s->here.nv_cc_minor;
    size_t best = SIZE_MAX;
    uint32_t best_arch = 0;
    for (size_t m = 0; m < n_match; m++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        if (clcpack_get_entry(s->plan->pack, match[m], &e) != CLCPACK_OK)
            continue;
        if (f == SU_NATIVE && e.kind == CLCPACK_KIND_NATIVE) {
            clcpack_device_info d = {.struct_size = sizeof d};
            if (clcpack_get_device(s->plan->pack, e.device, &d) == CLCPACK_OK &&
                clcpack_device_equal(&d, &s->here))
                return match[m];
        } else if (f == SU_CUBIN && e.kind == CLCPACK_KIND_CUBIN && cc && e.arch == cc) {
            return match[m];
        } else if (f == SU_PTX && e.kind == CLCPACK_KIND_PTX && cc && e.arch <= cc &&
                   (best == SIZE_MAX || e.arch > best_arch)) {
            best = match[m];
            best_arch = e.arch;
        }
    }
    return f == SU_PTX ? best : SIZE_MAX;
}

/* Lookup, inflate and CRC-32 of the entry, as the loader does them before
 * the driver sees a byte. Returns the malloc'd bytes (PTX with the NUL the
 * driver expects) or NULL. */
static unsigned char *decode(const pass *s, const clcpack_key *key, size_t entry, size_t *len,
                             double *ms, char *err, size_t cap)
{
    double t0 = bench_now_ms();
    size_t idx[64], n = 0, size = 0;
    clcpack_error e;
    if (clcpack_find(s->plan->pack, key, idx, 64, &n, &e) != CLCPACK_OK ||
        clcpack_read_binary(s->plan->pack, entry, NULL, 0, &size, &e) != CLCPACK_OK) {
        bfmt(err, cap, "%s", e.message);
        return NULL;
    }
    unsigned char *buf = malloc(size + 1);
    if (!buf) {
        bfmt(err, cap, "out of memory for %zu bytes", size + 1);
        return NULL;
    }
    if (clcpack_read_binary(s->plan->pack, entry, buf, size, &size, &e) != CLCPACK_OK) {
        free(buf);
        bfmt(err, cap, "%s", e.message);
        return NULL;
    }
    *ms = bench_now_ms() - t0;
    clcpack_entry_info info = {.struct_size = sizeof info};
    if (clcpack_get_entry(s->plan->pack, entry, &info) == CLCPACK_OK &&
        info.kind == CLCPACK_KIND_PTX && (size == 0 || buf[size - 1] != '\0'))
        buf[size++] = '\0';
    *len = size;
    return buf;
}

/* clCreateProgramWithBinary + clBuildProgram + clCreateKernel on bytes
 * already decoded. */
static cl_program bare_load(const pass *s, const unsigned char *bytes, size_t len,
                            const char *options, const char *kernel, double *ms, char *err,
                            size_t cap)
{
    double t0 = bench_now_ms();
    cl_int rc, status = CL_SUCCESS;
    cl_program prog =
        clCreateProgramWithBinary(s->dev.ctx, 1, &s->dev.dev, &len, &bytes, &status, &rc);
    if (rc != CL_SUCCESS || status != CL_SUCCESS || !prog) {
        bfmt(err, cap, "clCreateProgramWithBinary failed (%d, %d)", (int)rc, (int)status);
        if (prog)
            clReleaseProgram(prog);
        return NULL;
    }
    rc = clBuildProgram(prog, 1, &s->dev.dev, options, NULL, NULL);
    cl_kernel k = rc == CL_SUCCESS ? clCreateKernel(prog, kernel, &rc) : NULL;
    *ms = bench_now_ms() - t0;
    if (rc != CL_SUCCESS || !k) {
        bfmt(err, cap, "clBuildProgram or clCreateKernel on the binary failed (%d)", (int)rc);
        clReleaseProgram(prog);
        return NULL;
    }
    clReleaseKernel(k);
    return prog;
}

/* clcpack_create_kernel: the same three driver calls as bare_load, with
 * the lookup, the checks and the decode in front. */
static cl_program loader_load(const pass *s, const clcpack_key *key, su_form f, double *ms,
                              char *err, size_t cap)
{
    clcpack_load_options opts = {sizeof opts, form_flags(f)};
    clcpack_load_report rep = {.struct_size = sizeof rep};
    clcpack_error e;
    cl_program prog = NULL;
    cl_kernel k = NULL;
    double t0 = bench_now_ms();
    clcpack_status st = clcpack_create_kernel(s->plan->pack, key, s->dev.ctx, s->dev.dev, &opts,
                                              &prog, &k, &rep, &e);
    *ms = bench_now_ms() - t0;
    if (st != CLCPACK_OK) {
        bfmt(err, cap, "clcpack_create_kernel: %s", e.message);
        return NULL;
    }
    clReleaseKernel(k);
    if (rep.path != form_path(f)) {
        /* A loader that ignores the flag took another form: its time would
         * be credited to the wrong one. */
        bfmt(err, cap, "the loader took the %s path instead (%s)", clcpack_path_name(rep.path),
             rep.why);
        clReleaseProgram(prog);
        return NULL;
    }
    return prog;
}

/* Two launches of a fresh program, host-timed: checked, or over the large
 * grid unchecked. */
static int launches(const pass *s, cl_program prog, const manifest_variant *v, double *first,
                    double *second, char *err, size_t cap)
{
    kernel_run_problem pr;
    if (s->plan->large_grid)
        kernel_run_large_problem(v, SU_SEED, &pr);
    else
        kernel_run_default_problem(v, SU_SEED, &pr);
    kernel_run_result r;
    char kerr[KERNEL_RUN_ERR_MAX];
    for (int i = 0; i < 2; i++) {
        if (i == 1 && !second)
            break;
        memset(&r, 0, sizeof r);
        int rc = s->plan->large_grid
                     ? -!!kernel_run_run_once(s->dev.ctx, s->q, prog, v, &pr, &r.kernel_ms, kerr)
                     : kernel_run_check(s->dev.ctx, s->q, prog, v, &pr, SU_TOL, &r, kerr);
        if (rc != 0) {
            if (rc < 0)
                bfmt(err, cap, "%s", kerr);
            else
                bfmt(err, cap, "wrong result: max error %.3g at output %zu, %zu unwritten",
                     r.max_rel_err, r.bad_index, r.unwritten);
            return -1;
        }
        *(i == 0 ? first : second) = r.kernel_ms;
    }
    return 0;
}

static void measure_form(pass *s, uint32_t k, const clcpack_key *key, const clcpack_entry_info *e,
                         const manifest_variant *v, size_t entry, su_form f, const char *label)
{
    char err[CLCPACK_REPORT_MAX + 256];
    size_t len = 0;
    double ms = 0;
    unsigned char *bytes = decode(s, key, entry, &len, &ms, err, sizeof err);
    if (!bytes) {
        fail(s, k, f, label, err);
        return;
    }
    emit(s, k, f, SU_DECODE, ms);

    /* The pass's first program of this form: the one whose launches count. */
    cl_program prog = loader_load(s, key, f, &ms, err, sizeof err);
    double first = 0, second = 0;
    if (!prog || launches(s, prog, v, &first, &second, err, sizeof err) != 0) {
        if (prog)
            clReleaseProgram(prog);
        fail(s, k, f, label, err);
        free(bytes);
        return;
    }
    clReleaseProgram(prog);
    emit(s, k, f, SU_READY_LOADER, ms);
    emit(s, k, f, SU_FIRST, first);
    emit(s, k, f, SU_SECOND, second);

    /* Bare and loader alternate, each first in turn, so that drift over
     * the loop falls on both alike. */
    double t0 = bench_now_ms();
    for (int i = 0; i < s->plan->inner; i++) {
        if (i > 0 && bench_now_ms() - t0 > s->plan->budget_ms)
            break;
        for (int half = 0; half < 2; half++) {
            int bare = (i + half) % 2 == 0;
            prog = bare ? bare_load(s, bytes, len, e->options, key->kernel, &ms, err, sizeof err)
                        : loader_load(s, key, f, &ms, err, sizeof err);
            if (!prog) {
                fail(s, k, f, label, err);
                free(bytes);
                return;
            }
            clReleaseProgram(prog);
            emit(s, k, f, bare ? SU_READY_BARE : SU_READY_LOADER, ms);
        }
        unsigned char *again = decode(s, key, entry, &len, &ms, err, sizeof err);
        free(again);
        if (again)
            emit(s, k, f, SU_DECODE, ms);
    }
    free(bytes);
}

static void measure_source(pass *s, uint32_t k, const clcpack_entry_info *e, const manifest_variant *v,
                           const char *label)
{
    char err[1024];
    if (e->source == CLCPACK_NONE) {
        fail(s, k, SU_SOURCE, label, "the pack stores no source");
        return;
    }
    size_t size = 0;
    clcpack_error ce;
    char *text = NULL;
    if (clcpack_read_source(s->plan->pack, e->source, NULL, 0, &size, &ce) != CLCPACK_OK ||
        !(text = malloc(size + 1)) ||
        clcpack_read_source(s->plan->pack, e->source, text, size, &size, &ce) != CLCPACK_OK) {
        free(text);
        fail(s, k, SU_SOURCE, label, text ? ce.message : "cannot read the stored source");
        return;
    }
    const char *texts[1] = {text};
    double t0 = bench_now_ms();
    cl_int rc;
    cl_program prog = clCreateProgramWithSource(s->dev.ctx, 1, texts, &size, &rc);
    if (rc == CL_SUCCESS)
        rc = clBuildProgram(prog, 1, &s->dev.dev, e->options, NULL, NULL);
    cl_kernel kern = rc == CL_SUCCESS ? clCreateKernel(prog, e->kernel, &rc) : NULL;
    double ms = bench_now_ms() - t0;
    free(text);
    if (rc != CL_SUCCESS || !kern) {
        bfmt(err, sizeof err, "building the stored source failed (%d)", (int)rc);
        if (prog)
            clReleaseProgram(prog);
        fail(s, k, SU_SOURCE, label, err);
        return;
    }
    clReleaseKernel(kern);
    double first = 0;
    if (launches(s, prog, v, &first, NULL, err, sizeof err) != 0) {
        clReleaseProgram(prog);
        fail(s, k, SU_SOURCE, label, err);
        return;
    }
    clReleaseProgram(prog);
    emit(s, k, SU_SOURCE, SU_READY_LOADER, ms);
    emit(s, k, SU_SOURCE, SU_FIRST, first);
}

/* Builds and runs a one-line kernel, so that the driver's one-time start
 * (loading its compiler, say) is not charged to the first key measured:
 * an application pays it whichever way it makes its programs. */
static void warm_up_driver(pass *s)
{
    static const char *text = "__kernel void warm(__global float *x) { x[0] = 1.0f; }";
    cl_int rc;
    cl_program prog = clCreateProgramWithSource(s->dev.ctx, 1, &text, NULL, &rc);
    if (rc != CL_SUCCESS)
        return;
    cl_kernel k = NULL;
    cl_mem buf = NULL;
    if (clBuildProgram(prog, 1, &s->dev.dev, "", NULL, NULL) == CL_SUCCESS &&
        (k = clCreateKernel(prog, "warm", &rc)) != NULL &&
        (buf = clCreateBuffer(s->dev.ctx, CL_MEM_READ_WRITE, sizeof(float), NULL, &rc)) != NULL &&
        clSetKernelArg(k, 0, sizeof buf, &buf) == CL_SUCCESS) {
        size_t one = 1;
        if (clEnqueueNDRangeKernel(s->q, k, 1, NULL, &one, NULL, 0, NULL, NULL) == CL_SUCCESS)
            clFinish(s->q);
    }
    if (buf)
        clReleaseMemObject(buf);
    if (k)
        clReleaseKernel(k);
    clReleaseProgram(prog);
}

int su_measure(const su_plan *plan, int fd)
{
    pass s;
    memset(&s, 0, sizeof s);
    s.plan = plan;
    s.fd = fd;
    char err[DEVICE_SELECT_ERR_MAX];
    if (bench_device_open(plan->device_spec, plan->platform, 0, &s.dev, err) != 0) {
        fprintf(stderr, "startup: %s\n", err);
        return 1;
    }
    /* Only clCreateContext, as the tables name it: finding the device is
     * not part of it. */
    double t0 = bench_now_ms();
    if (bench_device_context(&s.dev, err) != 0) {
        fprintf(stderr, "startup: %s\n", err);
        return 1;
    }
    emit(&s, SU_KEY_PROCESS, SU_SOURCE, SU_CONTEXT, bench_now_ms() - t0);
    /* Launches are host-timed: a first launch's cost is mostly on the host
     * (compiling a work-group function, loading a module), outside the
     * span an event's profile covers. */
    if (!(s.q = bench_queue(&s.dev, 0, err))) {
        fprintf(stderr, "startup: %s\n", err);
        bench_device_close(&s.dev);
        return 1;
    }
    clcpack_error ce;
    t0 = bench_now_ms();
    s.here.struct_size = sizeof s.here;
    if (clcpack_device_query(s.dev.dev, &s.here, &ce) != CLCPACK_OK) {
        fprintf(stderr, "startup: %s\n", ce.message);
        clReleaseCommandQueue(s.q);
        bench_device_close(&s.dev);
        return 1;
    }
    emit(&s, SU_KEY_PROCESS, SU_SOURCE, SU_DEVQUERY, bench_now_ms() - t0);
    warm_up_driver(&s);

    for (size_t k = 0; k < plan->n && !s.broken; k++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        manifest_variant v;
        char label[512];
        if (clcpack_get_entry(plan->pack, plan->entry[k], &e) != CLCPACK_OK ||
            bench_entry_variant(plan->manifest, &e, &v) != 0)
            continue;
        bench_key_label(&e, label, sizeof label);
        clcpack_key key = pack_text_key(&e);
        size_t match[64], n_match = 0;
        if (clcpack_find(plan->pack, &key, match, 64, &n_match, &ce) != CLCPACK_OK)
            continue;
        if (n_match > 64)
            n_match = 64;
        for (int f = SU_NATIVE; f <= SU_PTX; f++) {
            size_t entry = form_entry(&s, match, n_match, (su_form)f);
            if (entry != SIZE_MAX)
                measure_form(&s, (uint32_t)k, &key, &e, &v, entry, (su_form)f, label);
        }
        if (!plan->skip_source[k])
            measure_source(&s, (uint32_t)k, &e, &v, label);
    }
    clReleaseCommandQueue(s.q);
    bench_device_close(&s.dev);
    return 0;
}
