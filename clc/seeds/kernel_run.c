/*
 * kernel_run.c — launching a variant as its manifest entry says, on random
 * data, and checking it against the double reference (kernel_run.h).
 *
 * Data (docs/KERNELS.md, "Checking"): images and filters have magnitudes in
 * [1/8, 1] with random signs; polynomial inputs and coefficients lie in
 * [0.5, 1]. The output buffer starts as NaN, so an output the kernel never
 * wrote is counted, not mistaken for a result. An output's error is
 * |out - ref| divided by the sum of the magnitudes of its terms, the scale
 * of float rounding error in that sum.
 */
#include "kernel_run.h"

#include "bounded_fmt.h"
#include "cl_error_name.h"
#include "device_lock.h"
#include "random_data.h"
#include "reference.h"
#include "tune_measure.h"
#include "mono_clock.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Problem bounds: index arithmetic in the kernels is int, and the checker
 * holds the data three times over in host memory: 2^28 values (an RGBA
 * image of 8192x8192, 1 GiB of input) keeps every index far below 2^31 and
 * lets --tune time the 4096x4096 RGBA images that matter. */
#define KERNEL_RUN_MAX_ELEMENTS (1L << 28)
#define KERNEL_RUN_MAX_NUMCOEFFS 1024
/* The __constant size every OpenCL 1.2 device has: the filter must fit. */
#define KERNEL_RUN_CONSTANT_BYTES 65536

static int cl_fail(char err[KERNEL_RUN_ERR_MAX], const char *what, const manifest_variant *v, cl_int e)
{
    char cl[CLCPK_CL_ERROR_MAX];
    bfmt(err, KERNEL_RUN_ERR_MAX, "%s (%s %s): %s", what, v->kernel->name, v->options,
         clcpk_cl_error_name(e, cl, sizeof cl));
    return -1;
}

/* A define of the variant as an int, or fallback when it has none. */
static long define_or(const manifest_variant *v, const char *name, long fallback)
{
    const char *s = manifest_variant_define(v, name);
    return s ? strtol(s, NULL, 10) : fallback;
}

static int has_arg(const manifest_kernel *k, manifest_arg role)
{
    for (size_t i = 0; i < k->n_args; i++)
        if (k->args[i] == role)
            return 1;
    return 0;
}

/* The filter width the variant runs with: its define, else the problem's
 * (for kernels that take it as an argument), else 0 (unknown). */
static int filter_width_of(const manifest_variant *v, const kernel_run_problem *p)
{
    long fw = define_or(v, "FILTER_WIDTH", 0);
    if (fw == 0 && has_arg(v->kernel, MANIFEST_ARG_FILTER_WIDTH))
        fw = p->filter_width;
    return fw > INT_MAX ? 0 : (int)fw;
}

static int numcoeffs_of(const manifest_variant *v, const kernel_run_problem *p)
{
    long nc = define_or(v, "NUMCOEFFS", p->numcoeffs);
    return nc > INT_MAX ? 0 : (int)nc;
}

static uint32_t wg_or(const manifest_variant *v, int d, uint32_t fallback)
{
    return v->wg[d] ? v->wg[d] : fallback;
}

void kernel_run_block(const manifest_variant *v, int *bx, int *by)
{
    const manifest_kernel *k = v->kernel;
    long x = k->block[0][0] ? define_or(v, k->block[0], 1) : 1;
    long y = k->block[1][0] ? define_or(v, k->block[1], 1) : 1;
    *bx = x >= 1 && x <= 1024 ? (int)x : 1;
    *by = y >= 1 && y <= 1024 ? (int)y : 1;
}

void kernel_run_default_problem(const manifest_variant *v, uint64_t seed, kernel_run_problem *p)
{
    memset(p, 0, sizeof *p);
    p->seed = seed;
    const manifest_kernel *k = v->kernel;
    int round = k->grid == MANIFEST_GRID_ROUND;
    if (k->family == MANIFEST_FAMILY_POLY) {
        long wg = wg_or(v, 0, 64);
        /* Two groups, and a partial third where the kernel bounds-checks. */
        p->n = (size_t)(2 * wg + (round ? wg / 2 + 1 : 0));
        long nc = define_or(v, "NUMCOEFFS", 16);
        long m = k->numcoeffs_multiple > 1 ? k->numcoeffs_multiple : 1;
        p->numcoeffs = (int)((nc + m - 1) / m * m);
        return;
    }
    int bx, by;
    kernel_run_block(v, &bx, &by);
    long wx = wg_or(v, 0, 16) * bx, wy = wg_or(v, 1, 16) * by; /* outputs per group */
    p->filter_width = (int)define_or(v, "FILTER_WIDTH", 5);
    p->width = (int)(round ? 2 * wx + wx / 2 + 1 : 3 * wx);
    p->height = (int)(round ? 2 * wy + 3 : 2 * wy);
    p->width = (int)define_or(v, "IMAGE_W", p->width);
}

void kernel_run_large_problem(const manifest_variant *v, uint64_t seed, kernel_run_problem *p)
{
    kernel_run_default_problem(v, seed, p);
    const long wide = 65536; /* work-items in x: above PoCL 3.1's small-grid limit, 65534 */
    if (v->kernel->family == MANIFEST_FAMILY_POLY) {
        long wg = wg_or(v, 0, 64);
        p->n = (size_t)((wide + wg - 1) / wg * wg);
        return;
    }
    int bx, by;
    kernel_run_block(v, &bx, &by);
    long wx = (long)wg_or(v, 0, 16), wy = (long)wg_or(v, 1, 16) * by;
    /* One row of work-groups: the reference stays affordable. */
    p->width = (int)((wide + wx - 1) / wx * wx * bx);
    p->height = (int)wy;
    p->width = (int)define_or(v, "IMAGE_W", p->width);
}

int kernel_run_supports(const manifest_variant *v, const kernel_run_problem *p, char err[KERNEL_RUN_ERR_MAX])
{
    const manifest_kernel *k = v->kernel;
    const char *name = k->name;
    err[0] = '\0';
    if (k->family == MANIFEST_FAMILY_POLY) {
        int nc = numcoeffs_of(v, p);
        if (p->n < 1 || p->n > (size_t)KERNEL_RUN_MAX_ELEMENTS) {
            bfmt(err, KERNEL_RUN_ERR_MAX, "%s needs from 1 to %ld inputs: %zu is not", name,
                 KERNEL_RUN_MAX_ELEMENTS, p->n);
            return -1;
        }
        if (nc < 1 || nc > KERNEL_RUN_MAX_NUMCOEFFS) {
            bfmt(err, KERNEL_RUN_ERR_MAX, "%s needs from 1 to %d coefficients: %d is not", name,
                 KERNEL_RUN_MAX_NUMCOEFFS, nc);
            return -1;
        }
        if (nc % k->numcoeffs_multiple != 0) {
            bfmt(err, KERNEL_RUN_ERR_MAX, "%s needs the coefficient count to be a multiple of %ld: %d "
                 "is not", name, k->numcoeffs_multiple, nc);
            return -1;
        }
        if (k->grid == MANIFEST_GRID_EXACT && v->wg[0] && p->n % v->wg[0] != 0) {
            bfmt(err, KERNEL_RUN_ERR_MAX, "%s needs the input count to be a multiple of the "
                 "work-group size %u: %zu is not", name, (unsigned)v->wg[0], p->n);
            return -1;
        }
        return 0;
    }

    int fw = filter_width_of(v, p);
    if (fw < 1) {
        bfmt(err, KERNEL_RUN_ERR_MAX, "%s needs a filter width of at least 1 (%s)", name,
             manifest_variant_define(v, "FILTER_WIDTH") ? "FILTER_WIDTH define" : "problem's filter_width");
        return -1;
    }
    long term_bytes = k->family == MANIFEST_FAMILY_CONV_RGBA ? 16 : 4;
    if ((long)fw * fw * term_bytes > KERNEL_RUN_CONSTANT_BYTES) {
        bfmt(err, KERNEL_RUN_ERR_MAX, "%s: a %dx%d filter needs %ld bytes, more than the %d bytes of "
             "__constant memory every device has", name, fw, fw, (long)fw * fw * term_bytes,
             KERNEL_RUN_CONSTANT_BYTES);
        return -1;
    }
    if (k->family == MANIFEST_FAMILY_CONV_RGBA && fw % 2 == 0) {
        bfmt(err, KERNEL_RUN_ERR_MAX, "%s centres the filter on the pixel and needs an odd filter "
             "width: %d is not", name, fw);
        return -1;
    }
    if (p->width < 1 || p->height < 1) {
        bfmt(err, KERNEL_RUN_ERR_MAX, "%s needs an image of at least 1x1: %dx%d is not", name, p->width,
             p->height);
        return -1;
    }
    double in_elems = ((double)p->width + fw - 1) * ((double)p->height + fw - 1) *
                      (k->family == MANIFEST_FAMILY_CONV_RGBA ? 4 : 1);
    if (in_elems > (double)KERNEL_RUN_MAX_ELEMENTS) {
        bfmt(err, KERNEL_RUN_ERR_MAX, "%s: a %dx%d image is larger than this checker handles (%ld "
             "input values at most)", name, p->width, p->height, KERNEL_RUN_MAX_ELEMENTS);
        return -1;
    }
    long image_w = define_or(v, "IMAGE_W", 0);
    if (image_w && p->width != image_w) {
        bfmt(err, KERNEL_RUN_ERR_MAX, "%s was built for IMAGE_W=%ld and cannot run a width of %d", name,
             image_w, p->width);
        return -1;
    }
    if (k->grid == MANIFEST_GRID_EXACT && v->wg[0]) {
        if (p->width % (int)v->wg[0] != 0) {
            bfmt(err, KERNEL_RUN_ERR_MAX, "%s needs the width to be a multiple of the work-group width "
                 "%u: %d is not", name, (unsigned)v->wg[0], p->width);
            return -1;
        }
        if (p->height % (int)wg_or(v, 1, 1) != 0) {
            bfmt(err, KERNEL_RUN_ERR_MAX, "%s needs the height to be a multiple of the work-group "
                 "height %u: %d is not", name, (unsigned)wg_or(v, 1, 1), p->height);
            return -1;
        }
    }
    return 0;
}

/* Everything one launch needs, host and device side. */
typedef struct launch {
    cl_kernel kernel;
    cl_mem in, aux, out;          /* aux: the filter or the coefficients */
    float *h_in, *h_aux, *h_out;
    size_t n_in, n_aux, n_out;    /* in floats */
    cl_uint dims;
    size_t global[2], local[2];
    int use_local;
    int fw, in_w, numcoeffs;
} launch;

static void launch_free(launch *L)
{
    if (L->kernel)
        clReleaseKernel(L->kernel);
    if (L->in)
        clReleaseMemObject(L->in);
    if (L->aux)
        clReleaseMemObject(L->aux);
    if (L->out)
        clReleaseMemObject(L->out);
    free(L->h_in);
    free(L->h_aux);
    free(L->h_out);
    memset(L, 0, sizeof *L);
}

static size_t round_up(size_t x, size_t m) { return m ? (x + m - 1) / m * m : x; }

/* Refuses a variant whose work-group the built kernel cannot run, with the
 * reason, before the launch fails with a bare error code. */
static int check_device_limits(cl_command_queue q, const manifest_variant *v, launch *L,
                               char err[KERNEL_RUN_ERR_MAX])
{
    cl_device_id dev;
    cl_int e = clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
    if (e != CL_SUCCESS)
        return cl_fail(err, "clGetCommandQueueInfo(CL_QUEUE_DEVICE)", v, e);
    cl_ulong dev_local = 0, kern_local = 0;
    size_t kern_wg = 0;
    e = clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof dev_local, &dev_local, NULL);
    if (e == CL_SUCCESS)
        e = clGetKernelWorkGroupInfo(L->kernel, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof kern_local,
                                     &kern_local, NULL);
    if (e == CL_SUCCESS)
        e = clGetKernelWorkGroupInfo(L->kernel, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof kern_wg,
                                     &kern_wg, NULL);
    if (e != CL_SUCCESS)
        return cl_fail(err, "clGetKernelWorkGroupInfo", v, e);
    if (kern_local > dev_local) {
        bfmt(err, KERNEL_RUN_ERR_MAX, "%s (%s) needs %lu bytes of local memory; the device has %lu",
             v->kernel->name, v->options, (unsigned long)kern_local, (unsigned long)dev_local);
        return -1;
    }
    size_t group = L->local[0] * (L->dims == 2 ? L->local[1] : 1);
    if (L->use_local && group > kern_wg) {
        bfmt(err, KERNEL_RUN_ERR_MAX, "%s (%s): work-group of %zu items, the device runs this kernel "
             "with at most %zu", v->kernel->name, v->options, group, kern_wg);
        return -1;
    }
    return 0;
}

static int set_args(const manifest_variant *v, const kernel_run_problem *p, launch *L, char err[KERNEL_RUN_ERR_MAX])
{
    const manifest_kernel *k = v->kernel;
    for (size_t i = 0; i < k->n_args; i++) {
        cl_int e;
        cl_uint idx = (cl_uint)i;
        cl_int ival = 0;
        switch (k->args[i]) {
        case MANIFEST_ARG_IN: e = clSetKernelArg(L->kernel, idx, sizeof(cl_mem), &L->in); break;
        case MANIFEST_ARG_FILTER:
        case MANIFEST_ARG_COEFFS: e = clSetKernelArg(L->kernel, idx, sizeof(cl_mem), &L->aux); break;
        case MANIFEST_ARG_OUT: e = clSetKernelArg(L->kernel, idx, sizeof(cl_mem), &L->out); break;
        default:
            switch (k->args[i]) {
            case MANIFEST_ARG_IN_WIDTH: ival = L->in_w; break;
            case MANIFEST_ARG_FILTER_WIDTH: ival = L->fw; break;
            case MANIFEST_ARG_WIDTH: ival = p->width; break;
            case MANIFEST_ARG_HEIGHT: ival = p->height; break;
            case MANIFEST_ARG_NUMCOEFFS: ival = L->numcoeffs; break;
            case MANIFEST_ARG_N: ival = (cl_int)p->n; break;
            default: break;
            }
            e = clSetKernelArg(L->kernel, idx, sizeof ival, &ival);
        }
        if (e != CL_SUCCESS) {
            char what[64];
            bfmt(what, sizeof what, "clSetKernelArg(%u)", (unsigned)i);
            return cl_fail(err, what, v, e);
        }
    }
    return 0;
}

static cl_mem make_buffer(cl_context ctx, cl_mem_flags flags, float *host, size_t n, cl_int *e)
{
    return clCreateBuffer(ctx, flags | CL_MEM_COPY_HOST_PTR, n * sizeof(float), host, e);
}

/* Refuses what the variant cannot run, makes the data (output NaN) and the
 * buffers, creates the kernel and sets its arguments. */
static int launch_setup(cl_context ctx, cl_command_queue q, cl_program prog, const manifest_variant *v,
                        const kernel_run_problem *p, launch *L, char err[KERNEL_RUN_ERR_MAX])
{
    memset(L, 0, sizeof *L);
    if (kernel_run_supports(v, p, err) != 0)
        return -1;
    const manifest_kernel *k = v->kernel;
    if (k->family == MANIFEST_FAMILY_POLY) {
        L->numcoeffs = numcoeffs_of(v, p);
        L->n_in = p->n;
        L->n_aux = (size_t)L->numcoeffs;
        L->n_out = p->n;
        L->dims = 1;
        L->local[0] = v->wg[0];
        L->global[0] = k->grid == MANIFEST_GRID_ROUND ? round_up(p->n, v->wg[0]) : p->n;
    } else {
        int ch = k->family == MANIFEST_FAMILY_CONV_RGBA ? 4 : 1;
        L->fw = filter_width_of(v, p);
        L->in_w = p->width + L->fw - 1;
        L->n_in = (size_t)L->in_w * (size_t)(p->height + L->fw - 1) * (size_t)ch;
        L->n_aux = (size_t)L->fw * (size_t)L->fw * (size_t)ch;
        L->n_out = (size_t)p->width * (size_t)p->height * (size_t)ch;
        L->dims = 2;
        L->local[0] = v->wg[0];
        L->local[1] = v->wg[1];
        int round = k->grid == MANIFEST_GRID_ROUND;
        /* A blocked kernel's work-item computes bx x by outputs. */
        int bx, by;
        kernel_run_block(v, &bx, &by);
        size_t items_x = ((size_t)p->width + (size_t)bx - 1) / (size_t)bx;
        size_t items_y = ((size_t)p->height + (size_t)by - 1) / (size_t)by;
        L->global[0] = round ? round_up(items_x, v->wg[0]) : (size_t)p->width;
        L->global[1] = round ? round_up(items_y, v->wg[1]) : (size_t)p->height;
    }
    L->use_local = v->wg[0] != 0;
    L->h_in = malloc(L->n_in * sizeof(float));
    L->h_aux = malloc(L->n_aux * sizeof(float));
    L->h_out = malloc(L->n_out * sizeof(float));
    if (!L->h_in || !L->h_aux || !L->h_out) {
        launch_free(L);
        bfmt(err, KERNEL_RUN_ERR_MAX, "%s: out of host memory", k->name);
        return -1;
    }
    /* Different streams for each buffer, all from the one seed. */
    if (k->family == MANIFEST_FAMILY_POLY) {
        random_data_fill_range(L->h_in, L->n_in, 0.5f, 1.0f, p->seed ^ 0x1111);
        random_data_fill_range(L->h_aux, L->n_aux, 0.5f, 1.0f, p->seed ^ 0x2222);
    } else {
        random_data_fill_signed(L->h_in, L->n_in, p->seed ^ 0x1111);
        random_data_fill_signed(L->h_aux, L->n_aux, p->seed ^ 0x2222);
    }
    for (size_t i = 0; i < L->n_out; i++)
        L->h_out[i] = NAN;

    cl_int e;
    L->in = make_buffer(ctx, CL_MEM_READ_ONLY, L->h_in, L->n_in, &e);
    if (e == CL_SUCCESS)
        L->aux = make_buffer(ctx, CL_MEM_READ_ONLY, L->h_aux, L->n_aux, &e);
    if (e == CL_SUCCESS)
        L->out = make_buffer(ctx, CL_MEM_READ_WRITE, L->h_out, L->n_out, &e);
    if (e != CL_SUCCESS) {
        launch_free(L);
        return cl_fail(err, "clCreateBuffer", v, e);
    }
    L->kernel = clCreateKernel(prog, k->name, &e);
    if (e != CL_SUCCESS) {
        L->kernel = NULL;
        launch_free(L);
        return cl_fail(err, "clCreateKernel", v, e);
    }
    if (check_device_limits(q, v, L, err) != 0 || set_args(v, p, L, err) != 0) {
        launch_free(L);
        return -1;
    }
    return 0;
}

static int enqueue(cl_command_queue q, const manifest_variant *v, launch *L, cl_event *ev,
                   char err[KERNEL_RUN_ERR_MAX])
{
    cl_int e = clEnqueueNDRangeKernel(q, L->kernel, L->dims, NULL, L->global,
                                      L->use_local ? L->local : NULL, 0, NULL, ev);
    if (e != CL_SUCCESS)
        return cl_fail(err, "clEnqueueNDRangeKernel", v, e);
    return 0;
}

static int queue_profiles(cl_command_queue q)
{
    cl_command_queue_properties props = 0;
    if (clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL) != CL_SUCCESS)
        return 0;
    return (props & CL_QUEUE_PROFILING_ENABLE) != 0;
}

static int event_ns(cl_event ev, uint64_t *ns)
{
    cl_ulong start = 0, end = 0;
    if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) !=
            CL_SUCCESS ||
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) !=
            CL_SUCCESS)
        return -1;
    *ns = end > start ? (uint64_t)(end - start) : 0;
    return 0;
}

/* One launch, waited for; *ms its duration when ms is not NULL. */
static int run_timed(cl_command_queue q, const manifest_variant *v, launch *L, double *ms,
                     char err[KERNEL_RUN_ERR_MAX])
{
    int profiled = ms && queue_profiles(q);
    cl_event ev = NULL;
    double t0 = mono_clock_s() * 1e3;
    if (enqueue(q, v, L, profiled ? &ev : NULL, err) != 0)
        return -1;
    cl_int e = clFinish(q);
    double t1 = mono_clock_s() * 1e3;
    if (e != CL_SUCCESS) {
        if (ev)
            clReleaseEvent(ev);
        return cl_fail(err, "clFinish", v, e);
    }
    if (ms) {
        uint64_t ns;
        *ms = profiled && event_ns(ev, &ns) == 0 ? (double)ns / 1e6 : t1 - t0;
    }
    if (ev)
        clReleaseEvent(ev);
    return 0;
}

int kernel_run_run_once(cl_context ctx, cl_command_queue q, cl_program prog, const manifest_variant *v,
                const kernel_run_problem *p, double *ms, char err[KERNEL_RUN_ERR_MAX])
{
    launch L;
    if (launch_setup(ctx, q, prog, v, p, &L, err) != 0)
        return -1;
    int rc = run_timed(q, v, &L, ms, err);
    launch_free(&L);
    return rc;
}

/* Compares L->h_out with the reference; fills res. 0 within tol, else 1. */
static int compare(const manifest_variant *v, const kernel_run_problem *p, const launch *L, double tol,
                   kernel_run_result *res, char err[KERNEL_RUN_ERR_MAX])
{
    double *ref = malloc(L->n_out * sizeof(double));
    double *mag = malloc(L->n_out * sizeof(double));
    if (!ref || !mag) {
        free(ref);
        free(mag);
        bfmt(err, KERNEL_RUN_ERR_MAX, "%s: out of host memory for the reference", v->kernel->name);
        return -1;
    }
    switch (v->kernel->family) {
    case MANIFEST_FAMILY_CONV_GREY:
        reference_conv_grey(L->h_in, L->in_w, L->h_aux, L->fw, p->width, p->height, ref, mag);
        break;
    case MANIFEST_FAMILY_CONV_RGBA:
        reference_conv_rgba(L->h_in, L->in_w, L->h_aux, L->fw, p->width, p->height, ref, mag);
        break;
    case MANIFEST_FAMILY_POLY:
        reference_poly(L->h_in, p->n, L->h_aux, L->numcoeffs, ref, mag);
        break;
    }
    int bad = 0;
    for (size_t i = 0; i < L->n_out; i++) {
        float got = L->h_out[i];
        double e;
        if (isnan(got)) {
            res->unwritten++;
            e = INFINITY;
        } else {
            /* mag is never 0 with this data; the floor only guards the
             * division. */
            e = fabs((double)got - ref[i]) / fmax(mag[i], 1e-30);
            if (!(e <= res->max_rel_err))
                res->max_rel_err = e;
        }
        if (!(e <= tol) && !bad) {
            bad = 1;
            res->bad_index = i;
        }
    }
    free(ref);
    free(mag);
    return bad;
}

int kernel_run_check(cl_context ctx, cl_command_queue q, cl_program prog, const manifest_variant *v,
             const kernel_run_problem *p, double tol, kernel_run_result *res, char err[KERNEL_RUN_ERR_MAX])
{
    kernel_run_result local_res;
    if (!res)
        res = &local_res;
    memset(res, 0, sizeof *res);
    launch L;
    if (launch_setup(ctx, q, prog, v, p, &L, err) != 0)
        return -1;
    int rc = run_timed(q, v, &L, &res->kernel_ms, err);
    if (rc == 0) {
        cl_int e = clEnqueueReadBuffer(q, L.out, CL_TRUE, 0, L.n_out * sizeof(float), L.h_out, 0,
                                       NULL, NULL);
        rc = e == CL_SUCCESS ? compare(v, p, &L, tol, res, err)
                             : cl_fail(err, "clEnqueueReadBuffer", v, e);
    }
    launch_free(&L);
    return rc;
}

int kernel_run_time(cl_context ctx, cl_command_queue q, cl_program prog, const manifest_variant *v,
            const kernel_run_problem *p, int warmup, int runs, const char *lock_key,
            uint64_t *median_ns, char err[KERNEL_RUN_ERR_MAX])
{
    if (runs < 1 || warmup < 0) {
        bfmt(err, KERNEL_RUN_ERR_MAX, "kernel_run_time: runs must be at least 1 and warmup at least 0");
        return -1;
    }
    if (!queue_profiles(q)) {
        bfmt(err, KERNEL_RUN_ERR_MAX, "kernel_run_time: the queue was not created with "
             "CL_QUEUE_PROFILING_ENABLE");
        return -1;
    }
    double *ns = malloc((size_t)runs * sizeof *ns);
    if (!ns) {
        bfmt(err, KERNEL_RUN_ERR_MAX, "kernel_run_time: out of host memory");
        return -1;
    }
    launch L;
    if (launch_setup(ctx, q, prog, v, p, &L, err) != 0) {
        free(ns);
        return -1;
    }
    /* The problem is made and uploaded; only the launches wait for the
     * device's other timings (device_lock.h). */
    int rc = 0;
    cl_int fe = clFinish(q);
    if (fe != CL_SUCCESS)
        rc = cl_fail(err, "clFinish", v, fe);
    int lock = rc == 0 && lock_key && lock_key[0] ? device_lock_acquire(lock_key) : -1;
    for (int i = 0; rc == 0 && i < warmup; i++)
        rc = run_timed(q, v, &L, NULL, err);
    if (rc == 0) {
        const char *what;
        cl_int e = tune_measure_launches(q, L.kernel, L.dims, L.global, L.use_local ? L.local : NULL,
                                         (unsigned)runs, ns, &what);
        if (e != CL_SUCCESS)
            rc = cl_fail(err, what, v, e);
    }
    device_lock_release(lock);
    if (rc == 0)
        *median_ns = (uint64_t)tune_median_ns(ns, (size_t)runs);
    launch_free(&L);
    free(ns);
    return rc;
}
