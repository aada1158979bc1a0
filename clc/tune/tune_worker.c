/* tune_worker.c — a tuner worker process (tune_worker.h). */
#include "tune_worker.h"

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "cl_error_name.h"
#include "file_atomic.h"
#include "input_file.h"
#include "ptxas_run.h"
#include "sha256.h"
#include "strbuf.h"
#include "t1_spec.h"
#include "tune_data.h"
#include "tune_measure.h"
#include "tune_proto.h"
#include "tune_space.h"
#include "mono_clock.h"

typedef struct worker {
    int timing;            /* the timing worker, else a build worker */
    t1_spec spec;
    tune_space space;
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    unsigned runs;
    double tolerance;
    const char *workdir;
    /* The timing worker's arguments: one buffer each (Vector), the
     * initial bytes of those the kernel may write, the reference bytes of
     * each output (NULL until known). */
    cl_mem *bufs;
    void **initial;
    size_t *bytes;
    void **want;
    void **got;            /* per output: where its bytes are read back, made once (a
                              fresh buffer per configuration costs its page faults) */
    size_t *ref_of;        /* per argument: its ReferenceArguments entry, or SIZE_MAX */
    int have_reference;
    /* NVIDIA: the PTX a build gives is assembled here for the device
     * (sm_XY), in parallel with the other builds, so the timing worker's
     * driver has nothing left to compile. "" when not NVIDIA or no ptxas. */
    char ptxas[PTXAS_PATH_MAX];
    char sm[16];
} worker;

static void cl_fail(tune_reply *r, tune_verdict v, const char *what, cl_int rc)
{
    char name[CLCPK_CL_ERROR_MAX];
    r->verdict = v;
    bfmt(r->message, sizeof r->message, "%s failed with %s", what,
         clcpk_cl_error_name(rc, name, sizeof name));
}

static void build_log(cl_program p, cl_device_id dev, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    if (clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) != CL_SUCCESS || n < 2)
        return;
    char *log = malloc(n);
    if (!log)
        return;
    if (clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS)
        bfmt(out, cap, "%s", log);
    free(log);
}

static void do_build(worker *w, const tune_request *rq, tune_reply *r)
{
    char *opts = tune_space_options(&w->space, rq->raw);
    if (!opts) {
        bfmt(r->message, sizeof r->message, "out of memory");
        r->verdict = TUNE_COMPILE;
        return;
    }
    double t0 = mono_clock_s();
    const char *src = w->spec.source;
    size_t len = w->spec.source_size;
    cl_int rc;
    cl_program p = clCreateProgramWithSource(w->ctx, 1, &src, &len, &rc);
    if (!p) {
        cl_fail(r, TUNE_COMPILE, "clCreateProgramWithSource", rc);
        free(opts);
        return;
    }
    rc = clBuildProgram(p, 1, &w->dev, opts, NULL, NULL);
    r->compile_s = mono_clock_s() - t0;
    free(opts);
    if (rc != CL_SUCCESS) {
        char log[TUNE_PROTO_MSG_MAX - 100];
        build_log(p, w->dev, log, sizeof log);
        char name[CLCPK_CL_ERROR_MAX];
        r->verdict = TUNE_COMPILE;
        bfmt(r->message, sizeof r->message, "clBuildProgram failed with %s%s%s",
             clcpk_cl_error_name(rc, name, sizeof name), log[0] ? ": " : "", log);
        clReleaseProgram(p);
        return;
    }
    size_t size = 0;
    rc = clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL);
    if (rc == CL_SUCCESS && size > 0 && (r->binary = malloc(size)) != NULL) {
        unsigned char *bins[1] = {r->binary};
        rc = clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL);
        r->binary_size = size;
    }
    if (rc != CL_SUCCESS || !r->binary) {
        cl_fail(r, TUNE_COMPILE, "clGetProgramInfo(CL_PROGRAM_BINARIES)", rc);
        free(r->binary);
        r->binary = NULL;
        r->binary_size = 0;
    }
    clReleaseProgram(p);
    if (r->binary && w->ptxas[0]) {
        unsigned char *cubin = NULL;
        size_t n = 0;
        char msg[512];
        size_t plen = r->binary_size;
        while (plen && r->binary[plen - 1] == '\0')
            plen--;
        /* A PTX ptxas refuses is still PTX the driver can take. */
        if (ptxas_compile(w->ptxas, r->binary, plen, w->sm, &cubin, &n, msg, sizeof msg) == 0) {
            free(r->binary);
            r->binary = cubin;
            r->binary_size = n;
        }
        r->compile_s = mono_clock_s() - t0;
    }
}

static char *ref_path(const worker *w, size_t arg)
{
    size_t n = strlen(w->workdir) + 32;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/reference-%zu.bin", w->workdir, arg);
    return p;
}

/* The reference outputs: ReferenceArguments, or the first configuration's
 * outputs kept in the work folder by an earlier worker. */
static int load_references(worker *w, char *err, size_t cap)
{
    const t1_spec *s = &w->spec;
    for (size_t k = 0; k < s->n_refs; k++) {
        size_t t = s->refs[k].target;
        size_t n;
        if (tune_data_make(&s->args[t], &s->refs[k].data, &w->want[t], &n, err, cap) != 0)
            return -1;
        w->ref_of[t] = k;
    }
    w->have_reference = s->n_refs > 0;
    if (s->n_refs)
        return 0;
    int all = 1, any_output = 0;
    for (size_t k = 0; k < s->n_args; k++) {
        if (s->args[k].mem != T1_MEM_VECTOR || s->args[k].access == T1_ACCESS_RO)
            continue;
        any_output = 1;
        char *p = ref_path(w, k);
        char *data = NULL;
        size_t size = 0;
        char e[600];
        if (p && access(p, F_OK) == 0 &&
            in_read_all(p, w->bytes[k] + 1, &data, &size, e, sizeof e) == 0 && size == w->bytes[k])
            w->want[k] = data;
        else {
            free(data);
            all = 0;
        }
        free(p);
    }
    w->have_reference = any_output && all;
    return 0;
}

static int setup_args(worker *w, char *err, size_t cap)
{
    const t1_spec *s = &w->spec;
    size_t n = s->n_args ? s->n_args : 1;
    w->bufs = calloc(n, sizeof *w->bufs);
    w->initial = calloc(n, sizeof *w->initial);
    w->bytes = calloc(n, sizeof *w->bytes);
    w->want = calloc(n, sizeof *w->want);
    w->got = calloc(n, sizeof *w->got);
    w->ref_of = malloc(n * sizeof *w->ref_of);
    if (!w->bufs || !w->initial || !w->bytes || !w->want || !w->got || !w->ref_of) {
        bfmt(err, cap, "out of memory");
        return -1;
    }
    for (size_t k = 0; k < s->n_args; k++) {
        const t1_arg *a = &s->args[k];
        w->ref_of[k] = SIZE_MAX;
        if (a->mem != T1_MEM_VECTOR)
            continue;
        if (tune_data_make(a, &a->data, &w->initial[k], &w->bytes[k], err, cap) != 0)
            return -1;
        cl_int rc;
        w->bufs[k] = clCreateBuffer(w->ctx, CL_MEM_READ_WRITE, w->bytes[k], NULL, &rc);
        if (!w->bufs[k]) {
            char name[CLCPK_CL_ERROR_MAX];
            bfmt(err, cap, "argument %s: clCreateBuffer of %zu bytes failed with %s", a->name,
                 w->bytes[k], clcpk_cl_error_name(rc, name, sizeof name));
            return -1;
        }
        rc = clEnqueueWriteBuffer(w->q, w->bufs[k], CL_TRUE, 0, w->bytes[k], w->initial[k], 0,
                                  NULL, NULL);
        if (rc != CL_SUCCESS) {
            char name[CLCPK_CL_ERROR_MAX];
            bfmt(err, cap, "argument %s: upload failed with %s", a->name,
                 clcpk_cl_error_name(rc, name, sizeof name));
            return -1;
        }
        /* What only the reference needs stays in memory; inputs the
         * kernel only reads are on the device now. */
        if (a->access == T1_ACCESS_RO) {
            free(w->initial[k]);
            w->initial[k] = NULL;
        }
    }
    return load_references(w, err, cap);
}

/* The kernel's arguments for configuration idx: buffers, scalars, and the
 * Local sizes evaluated for it. */
static int set_args(worker *w, cl_kernel kern, uint64_t raw, cl_ulong *local_bytes,
                    tune_reply *r)
{
    const t1_spec *s = &w->spec;
    uint32_t idx[T1_SPEC_PARAMS_MAX];
    tune_space_decode(&w->space, raw, idx);
    t1_value slots[T1_SPEC_PARAMS_MAX + 1], prob[3];
    tune_space_bind(&w->space, idx, slots, prob);
    t1_arena arena = {0};
    *local_bytes = 0;
    for (size_t k = 0; k < s->n_args; k++) {
        const t1_arg *a = &s->args[k];
        cl_int rc = CL_SUCCESS;
        if (a->mem == T1_MEM_VECTOR) {
            rc = clSetKernelArg(kern, (cl_uint)k, sizeof(cl_mem), &w->bufs[k]);
        } else if (a->mem == T1_MEM_LOCAL) {
            t1_value v;
            char e[T1_EXPR_ERR_MAX];
            t1_arena_reset(&arena);
            if (t1_expr_eval(a->size, slots, &arena, &v, e, sizeof e) != 0 || v.type != T1_INT ||
                v.i <= 0) {
                r->verdict = TUNE_CONSTRAINTS;
                bfmt(r->message, sizeof r->message, "argument %zu (%s): Local Size %s", k,
                     a->name, v.type != T1_INT ? "is not a positive integer" : e);
                t1_arena_free(&arena);
                return -1;
            }
            size_t bytes = (size_t)v.i * a->elem_bytes;
            *local_bytes += bytes;
            rc = clSetKernelArg(kern, (cl_uint)k, bytes, NULL);
        } else {
            unsigned char val[8] = {0};
            double d = a->data.value;
            if (a->elem.base == T1_B_FLOAT && a->elem.lane_bytes == 4) {
                float f = (float)d;
                memcpy(val, &f, 4);
            } else if (a->elem.base == T1_B_FLOAT) {
                memcpy(val, &d, 8);
            } else {
                int64_t i = (int64_t)d;
                for (unsigned b = 0; b < a->elem.lane_bytes; b++)
                    val[b] = (unsigned char)((uint64_t)i >> (8 * b));
            }
            rc = clSetKernelArg(kern, (cl_uint)k, a->elem_bytes, val);
        }
        if (rc != CL_SUCCESS) {
            char what[160];
            bfmt(what, sizeof what, "clSetKernelArg(%zu, %s)", k, a->name);
            cl_fail(r, TUNE_RUNTIME, what, rc);
            t1_arena_free(&arena);
            return -1;
        }
    }
    t1_arena_free(&arena);
    return 0;
}

/* The limits only the built kernel knows. 0, or -1 with a constraints
 * verdict. */
static int kernel_fits(worker *w, cl_kernel kern, const size_t local[3], cl_ulong arg_local,
                       tune_reply *r)
{
    size_t most = 0, items = local[0] * local[1] * local[2], device_most = 0, c[3] = {0, 0, 0};
    cl_ulong kmem = 0, dmem = 0;
    clGetDeviceInfo(w->dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof device_most, &device_most, NULL);
    if (device_most && items > device_most) {
        r->verdict = TUNE_CONSTRAINTS;
        bfmt(r->message, sizeof r->message, "work-group %zux%zux%zu (%zu work-items) is larger "
             "than the device's limit (%zu)", local[0], local[1], local[2], items, device_most);
        return -1;
    }
    /* A kernel compiled for exactly this size (reqd_work_group_size)
     * launches at it, whatever CL_KERNEL_WORK_GROUP_SIZE says: NVIDIA's
     * driver reports 256 for a 32x32x1 kernel it runs at 32x32. */
    int compiled = clGetKernelWorkGroupInfo(kern, w->dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                            sizeof c, c, NULL) == CL_SUCCESS &&
                   c[0] == local[0] && c[1] == local[1] && c[2] == local[2];
    if (!compiled &&
        clGetKernelWorkGroupInfo(kern, w->dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most,
                                 NULL) == CL_SUCCESS &&
        most && items > most) {
        r->verdict = TUNE_CONSTRAINTS;
        bfmt(r->message, sizeof r->message, "work-group %zux%zux%zu (%zu work-items) is larger "
             "than the kernel can be launched with on this device (%zu)",
             local[0], local[1], local[2], items, most);
        return -1;
    }
    size_t dims[3] = {0, 0, 0};
    clGetDeviceInfo(w->dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof dims, dims, NULL);
    for (int d = 0; d < 3; d++)
        if (dims[d] && local[d] > dims[d]) {
            r->verdict = TUNE_CONSTRAINTS;
            bfmt(r->message, sizeof r->message, "local size %zu in dimension %d is above the "
                 "device's %zu", local[d], d, dims[d]);
            return -1;
        }
    clGetKernelWorkGroupInfo(kern, w->dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof kmem, &kmem, NULL);
    clGetDeviceInfo(w->dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof dmem, &dmem, NULL);
    /* Some drivers count the Local arguments set in the kernel's figure,
     * some not: the larger reading is the safe one. */
    cl_ulong used = kmem > arg_local ? kmem : arg_local;
    if (dmem && used > dmem) {
        r->verdict = TUNE_CONSTRAINTS;
        bfmt(r->message, sizeof r->message, "%llu bytes of local memory, above the device's %llu",
             (unsigned long long)used, (unsigned long long)dmem);
        return -1;
    }
    return 0;
}

/* Fresh inputs for the checked launch: what the kernel may write is
 * uploaded again (ReadWrite) or poisoned (WriteOnly, all bits set: NaN in
 * floats), so a kernel that writes nothing cannot pass. */
static cl_int reset_outputs(worker *w)
{
    const t1_spec *s = &w->spec;
    for (size_t k = 0; k < s->n_args; k++) {
        const t1_arg *a = &s->args[k];
        if (a->mem != T1_MEM_VECTOR || a->access == T1_ACCESS_RO)
            continue;
        cl_int rc;
        if (a->access == T1_ACCESS_WO) {
            unsigned char ff = 0xff;
            rc = clEnqueueFillBuffer(w->q, w->bufs[k], &ff, 1, 0, w->bytes[k], 0, NULL, NULL);
        } else {
            rc = clEnqueueWriteBuffer(w->q, w->bufs[k], CL_FALSE, 0, w->bytes[k], w->initial[k], 0,
                                      NULL, NULL);
        }
        if (rc != CL_SUCCESS)
            return rc;
    }
    return clFinish(w->q);
}

static int check_outputs(worker *w, int is_reference, tune_reply *r)
{
    const t1_spec *s = &w->spec;
    r->verdict = TUNE_CORRECT;
    for (size_t k = 0; k < s->n_args; k++) {
        const t1_arg *a = &s->args[k];
        if (a->mem != T1_MEM_VECTOR || a->access == T1_ACCESS_RO)
            continue;
        if (w->have_reference && !w->want[k])
            continue; /* ReferenceArguments name the outputs that count */
        if (!w->got[k] && !(w->got[k] = malloc(w->bytes[k]))) {
            r->verdict = TUNE_RUNTIME;
            bfmt(r->message, sizeof r->message, "out of memory reading argument %s", a->name);
            return -1;
        }
        void *got = w->got[k];
        cl_int rc = clEnqueueReadBuffer(w->q, w->bufs[k], CL_TRUE, 0, w->bytes[k], got, 0, NULL,
                                        NULL);
        if (rc != CL_SUCCESS) {
            cl_fail(r, TUNE_RUNTIME, "clEnqueueReadBuffer", rc);
            return -1;
        }
        if (!w->have_reference) {
            if (is_reference) {
                char *p = ref_path(w, k);
                clcpack_error e;
                if (p)
                    clcpk_write_file_atomic(p, got, w->bytes[k], &e);
                free(p);
                w->want[k] = got; /* the reference keeps this buffer */
                w->got[k] = NULL;
                continue;
            }
            r->verdict = TUNE_RUNTIME;
            bfmt(r->message, sizeof r->message, "no reference output to compare with");
            return -1;
        }
        size_t ri = w->ref_of[k];
        int method = ri == SIZE_MAX ? -1 : (int)s->refs[ri].method;
        double thr = ri == SIZE_MAX ? w->tolerance : s->refs[ri].threshold;
        double worst;
        size_t where;
        int ok = tune_data_compare(a, got, w->want[k], method, thr, &worst, &where);
        if (worst > r->error)
            r->error = worst;
        if (!ok) {
            r->verdict = TUNE_CORRECTNESS;
            bfmt(r->message, sizeof r->message, "output %s differs from the reference at element "
                 "%zu (measure %g, threshold %g)", a->name[0] ? a->name : "?",
                 where / a->elem.lanes, worst, thr);
            return -1;
        }
    }
    if (is_reference && !w->have_reference)
        w->have_reference = 1;
    return 0;
}

static void do_time(worker *w, const tune_request *rq, tune_reply *r)
{
    size_t global[3], local[3];
    if (tune_space_launch(&w->space, rq->raw, global, local, r->message, sizeof r->message) != 0) {
        r->verdict = TUNE_CONSTRAINTS;
        return;
    }
    double t0 = mono_clock_s();
    cl_int rc, st;
    const unsigned char *bin = rq->binary;
    size_t size = rq->binary_size;
    cl_program p = clCreateProgramWithBinary(w->ctx, 1, &w->dev, &size, &bin, &st, &rc);
    if (!p) {
        cl_fail(r, TUNE_RUNTIME, "clCreateProgramWithBinary", rc);
        return;
    }
    cl_kernel kern = NULL;
    rc = clBuildProgram(p, 1, &w->dev, "", NULL, NULL);
    if (rc != CL_SUCCESS) {
        cl_fail(r, TUNE_RUNTIME, "clBuildProgram of the binary", rc);
        goto out;
    }
    kern = clCreateKernel(p, w->spec.kernel_name, &rc);
    if (!kern) {
        char what[300];
        bfmt(what, sizeof what, "clCreateKernel(%s)", w->spec.kernel_name);
        cl_fail(r, TUNE_COMPILE, what, rc);
        goto out;
    }
    cl_ulong arg_local = 0;
    if (set_args(w, kern, rq->raw, &arg_local, r) != 0 || kernel_fits(w, kern, local, arg_local, r) != 0)
        goto out;
    r->load_s = mono_clock_s() - t0;
    double t1 = mono_clock_s();
    if ((rc = reset_outputs(w)) != CL_SUCCESS) {
        cl_fail(r, TUNE_RUNTIME, "resetting the outputs", rc);
        goto out;
    }
    rc = clEnqueueNDRangeKernel(w->q, kern, w->spec.dims, NULL, global, local, 0, NULL, NULL);
    if (rc == CL_INVALID_WORK_GROUP_SIZE || rc == CL_OUT_OF_RESOURCES ||
        rc == CL_INVALID_WORK_ITEM_SIZE) {
        /* The driver's own word on the kernel's limits. */
        cl_fail(r, TUNE_CONSTRAINTS, "the launch", rc);
        goto out;
    }
    if (rc == CL_SUCCESS)
        rc = clFinish(w->q);
    if (rc != CL_SUCCESS) {
        cl_fail(r, TUNE_RUNTIME, "the checked launch", rc);
        goto out;
    }
    if (check_outputs(w, (int)rq->is_reference, r) != 0)
        goto out;
    r->validation_s = mono_clock_s() - t1;
    /* The timed launches, measured as every tuner here measures them. */
    const char *what;
    rc = tune_measure_launches(w->q, kern, w->spec.dims, global, local, w->runs, r->runs_ns, &what);
    if (rc != CL_SUCCESS) {
        char call[80];
        bfmt(call, sizeof call, "the timed launches (%s)", what);
        cl_fail(r, TUNE_RUNTIME, call, rc);
        r->verdict = TUNE_RUNTIME;
        goto out;
    }
    r->n_runs = w->runs;
    r->verdict = TUNE_CORRECT;
out:
    if (kern)
        clReleaseKernel(kern);
    clReleaseProgram(p);
}

static int open_device(worker *w, unsigned pi, unsigned di, char *err, size_t cap)
{
    cl_uint np = 0, nd = 0;
    cl_platform_id plats[64];
    cl_device_id devs[64];
    if (clGetPlatformIDs(64, plats, &np) != CL_SUCCESS || pi >= np ||
        clGetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS || di >= nd) {
        bfmt(err, cap, "platform %u device %u is not there", pi, di);
        return -1;
    }
    w->dev = devs[di];
    cl_uint vendor = 0, major = 0, minor = 0;
    clGetDeviceInfo(w->dev, CL_DEVICE_VENDOR_ID, sizeof vendor, &vendor, NULL);
    /* CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV and _MINOR_NV (cl_nv_device_attribute_query). */
    /* The timing worker builds too, while it has nothing to time
     * (tune_session.c): the same binaries as a build worker's. */
    if (vendor == 0x10DEu &&
        clGetDeviceInfo(w->dev, 0x4000, sizeof major, &major, NULL) == CL_SUCCESS &&
        clGetDeviceInfo(w->dev, 0x4001, sizeof minor, &minor, NULL) == CL_SUCCESS &&
        getenv("CLCPACK_TUNE_NO_PTXAS") == NULL && ptxas_find(NULL, w->ptxas) == 0)
        bfmt(w->sm, sizeof w->sm, "sm_%u%u", major, minor);
    else
        w->ptxas[0] = '\0';
    cl_int rc;
    w->ctx = clCreateContext(NULL, 1, &w->dev, NULL, NULL, &rc);
    if (w->ctx && w->timing)
        w->q = clCreateCommandQueue(w->ctx, w->dev, CL_QUEUE_PROFILING_ENABLE, &rc);
    if (!w->ctx || (w->timing && !w->q)) {
        char name[CLCPK_CL_ERROR_MAX];
        bfmt(err, cap, "opening the device failed with %s", clcpk_cl_error_name(rc, name, sizeof name));
        return -1;
    }
    return 0;
}

/* The worker's state and its reply, large, on the heap (tune_worker_main). */
typedef struct worker_proc {
    worker w;
    tune_reply r;
} worker_proc;

static int serve(worker *w, tune_reply *r, char **argv)
{
    double t_start = mono_clock_s();
    w->timing = strcmp(argv[2], "time") == 0;
    w->runs = (unsigned)strtoul(argv[7], NULL, 10);
    w->tolerance = strtod(argv[8], NULL);
    w->workdir = argv[9];
    if (w->runs < 1 || w->runs > TUNE_PROTO_RUNS_MAX)
        w->runs = 7;
    char err[T1_SPEC_ERR_MAX > TUNE_SPACE_ERR_MAX ? T1_SPEC_ERR_MAX : TUNE_SPACE_ERR_MAX];
    char hex[65];
    if (t1_spec_read(argv[3], &w->spec, err) != 0 || tune_space_build(&w->space, &w->spec, err) != 0) {
        fprintf(stderr, "clc-pack: tune worker: %s\n", err);
        return 1;
    }
    clcpk_hex(w->spec.sha256, 32, hex);
    if (strcmp(hex, argv[4]) != 0) {
        fprintf(stderr, "clc-pack: tune worker: %s changed while tuning\n", argv[3]);
        return 1;
    }
    if (open_device(w, (unsigned)atoi(argv[5]), (unsigned)atoi(argv[6]), err, sizeof err) != 0 ||
        (w->timing && setup_args(w, err, sizeof err) != 0)) {
        fprintf(stderr, "clc-pack: tune worker: %s\n", err);
        return 1;
    }
    double setup_s = mono_clock_s() - t_start;
    if (w->timing) {
        /* Ready: the parent times configurations from now on, and a
         * configuration's time limit counts from its request. */
        memset(r, 0, sizeof *r);
        r->setup_s = setup_s;
        strbuf b;
        sb_init(&b);
        tune_proto_put_reply(&b, r);
        int wr = tune_proto_write(TUNE_PROTO_REPLY_FD, &b);
        sb_free(&b);
        if (wr != 0)
            return 1;
    }
    for (;;) {
        unsigned char *payload;
        size_t size;
        if (tune_proto_read(0, &payload, &size) != 0)
            return 0;
        tune_request rq;
        memset(r, 0, sizeof *r);
        if (tune_proto_get_request(payload, size, &rq) != 0) {
            free(payload);
            fprintf(stderr, "clc-pack: tune worker: a bad request\n");
            return 1;
        }
        if (rq.op == TUNE_OP_BUILD)
            do_build(w, &rq, r);
        else
            do_time(w, &rq, r);
        free(payload);
        r->setup_s = setup_s;
        strbuf b;
        sb_init(&b);
        tune_proto_put_reply(&b, r);
        free(r->binary);
        int wr = tune_proto_write(TUNE_PROTO_REPLY_FD, &b);
        sb_free(&b);
        if (wr != 0)
            return 1;
    }
}

int tune_worker_main(int argc, char **argv)
{
    if (argc != 10) {
        fprintf(stderr, "clc-pack: --tune-worker is internal (clc-pack tune starts it)\n");
        return 2;
    }
    worker_proc *wp = calloc(1, sizeof *wp);
    if (!wp) {
        fprintf(stderr, "clc-pack: tune worker: out of memory\n");
        return 1;
    }
    int rc = serve(&wp->w, &wp->r, argv);
    free(wp);
    return rc;
}
