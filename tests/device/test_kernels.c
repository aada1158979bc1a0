/*
 * test_kernels.c — every kernel of kernels/manifest.txt, at every filter
 * width it allows (1..32), every work-group it allows, built from source on
 * an OpenCL device and checked against the double-precision reference on
 * random data with the output poisoned (kernel_run.h). Prints one line per
 * run and the totals.
 *
 * Coverage (docs/KERNELS.md, "Tests"):
 *  - FILTER_WIDTH, NUMCOEFFS and WG: every allowed value;
 *  - UNROLL_FACTOR: the default at every width, the other factors at a few
 *    widths (UNROLL_WIDTHS);
 *  - IMAGE_W (optional): one image width at two filter widths;
 *  - kernels taking the filter width or the coefficient count as an
 *    argument: one build per work-group, run at every width 1..32 (or a set
 *    of counts);
 *  - two problem sizes per run: a multiple of the work-group and one that is
 *    not; grid=exact kernels must refuse the second with a message, grid=round
 *    kernels must compute it. An IMAGE_W variant must refuse another width.
 * Negative checks: kernels that are wrong on purpose (shifted input, one
 * filter term dropped, an output column never written) must fail the check.
 *
 * PoCL builds take most of the time, so the builds are shared among worker
 * processes (CLC_TEST_JOBS, default 2) forked before any OpenCL call, each
 * with its own context; their result lines come back through pipes and are
 * printed in plan order. CLC_TEST_DEVICE=substring picks a device by name
 * (default: the first CPU device, else the first device); CLC_TEST_KERNELS
 * =name,name limits the kernels; CLC_KERNELS_DIR the folder (kernels).
 */
#include "bounded_fmt.h"
#include "check.h"
#include "kernel_run.h"
#include "kernel_source.h"
#include "manifest.h"
#include "kernelgen.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TOL 1e-5
#define MAX_FW_TESTED 32
#define LINE_MAX_CHARS 1200
#define MAX_JOBS 16

/* Widths at which the non-default unroll factors are built. */
static const long UNROLL_WIDTHS[] = {1, 7, 32};
/* Filter widths of the IMAGE_W variants, and the image width. */
static const long IMAGE_W_WIDTHS[] = {3, 9};
static const long IMAGE_W_VALUE = 64;
/* Run-time coefficient counts for the polynomial kernels without NUMCOEFFS;
 * those the kernel cannot take are expected to be refused. */
static const int RUNTIME_NUMCOEFFS[] = {1, 3, 4, 16, 64};

/* One run of a build: a problem, and whether the launcher must refuse it. */
typedef struct run_plan {
    kernel_run_problem p;
    int expect_refusal;
} run_plan;

typedef struct build_plan {
    manifest_variant v;
    size_t n_runs;
    run_plan *runs;
} build_plan;

typedef struct plan {
    size_t n, cap;
    build_plan *builds;
} plan;

/* One result line from a worker, kept until all are in. */
typedef struct record {
    size_t build, run;
    int ok;
    char text[LINE_MAX_CHARS];
} record;

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q) {
        fprintf(stderr, "test_kernels: out of memory\n");
        exit(2);
    }
    return q;
}

static void add_run(build_plan *b, const kernel_run_problem *p, int expect_refusal)
{
    b->runs = xrealloc(b->runs, (b->n_runs + 1) * sizeof *b->runs);
    b->runs[b->n_runs].p = *p;
    b->runs[b->n_runs].expect_refusal = expect_refusal;
    b->n_runs++;
}

static int has_arg(const manifest_kernel *k, manifest_arg role)
{
    for (size_t i = 0; i < k->n_args; i++)
        if (k->args[i] == role)
            return 1;
    return 0;
}

/* The two sizes of a 2-D run: a whole number of work-groups, and a size with
 * a partial group in each direction (a group covers wg x block outputs). */
static void conv_sizes(const manifest_variant *v, int *w1, int *h1, int *w2, int *h2)
{
    int bx, by;
    kernel_run_block(v, &bx, &by);
    int wx = (int)v->wg[0] * bx, wy = (int)v->wg[1] * by;
    *w1 = 3 * wx;
    *h1 = 2 * wy;
    *w2 = 2 * wx + wx / 2 + 1;
    *h2 = 2 * wy + 3;
}

static void plan_runs(build_plan *b, uint64_t seed)
{
    const manifest_variant *v = &b->v;
    const manifest_kernel *k = v->kernel;
    int exact = k->grid == MANIFEST_GRID_EXACT;
    kernel_run_problem p;
    memset(&p, 0, sizeof p);
    p.seed = seed;
    if (k->family == MANIFEST_FAMILY_POLY) {
        int wg = (int)v->wg[0];
        int counts[sizeof RUNTIME_NUMCOEFFS / sizeof RUNTIME_NUMCOEFFS[0]];
        size_t n_counts = 0;
        if (manifest_variant_define(v, "NUMCOEFFS"))
            counts[n_counts++] = 0; /* taken from the define */
        else
            for (size_t i = 0; i < sizeof RUNTIME_NUMCOEFFS / sizeof RUNTIME_NUMCOEFFS[0]; i++)
                counts[n_counts++] = RUNTIME_NUMCOEFFS[i];
        for (size_t i = 0; i < n_counts; i++) {
            p.numcoeffs = counts[i];
            int refused = counts[i] && counts[i] % k->numcoeffs_multiple != 0;
            p.n = (size_t)(2 * wg);
            add_run(b, &p, refused);
            p.n = (size_t)(2 * wg + wg / 2 + 1);
            add_run(b, &p, refused || exact);
        }
        return;
    }
    int w1, h1, w2, h2;
    conv_sizes(v, &w1, &h1, &w2, &h2);
    const char *image_w = manifest_variant_define(v, "IMAGE_W");
    if (image_w) {
        /* The width is compiled in: run it with a partial last row of
         * groups, and check that another width is refused. */
        p.width = atoi(image_w);
        p.height = h2;
        add_run(b, &p, 0);
        p.width = w2;
        add_run(b, &p, 1);
        return;
    }
    int from = 0, to = 0;
    if (!manifest_variant_define(v, "FILTER_WIDTH") && has_arg(k, MANIFEST_ARG_FILTER_WIDTH)) {
        from = 1;
        to = MAX_FW_TESTED;
    }
    for (int fw = from; fw <= to; fw++) {
        p.filter_width = fw;
        p.width = w1;
        p.height = h1;
        add_run(b, &p, 0);
        p.width = w2;
        p.height = h2;
        add_run(b, &p, exact);
    }
}

static void add_builds(plan *pl, const manifest_kernel *k, const manifest_selection *sel, uint64_t *seed)
{
    manifest_variant *vs;
    size_t n;
    char err[MANIFEST_ERR_MAX];
    if (!CHECK(manifest_expand(k, sel, &vs, &n, err) == 0, "expand %s: %s", k->name, err))
        return;
    for (size_t i = 0; i < n; i++) {
        if (pl->n == pl->cap) {
            pl->cap = pl->cap ? 2 * pl->cap : 256;
            pl->builds = xrealloc(pl->builds, pl->cap * sizeof *pl->builds);
        }
        build_plan *b = &pl->builds[pl->n++];
        memset(b, 0, sizeof *b);
        b->v = vs[i];
        plan_runs(b, (*seed)++);
    }
    free(vs);
}

/* Sets axis name of sel to the given values (WG values when is_wg). */
static void select_values(manifest_selection *sel, const char *name, const manifest_value *vals, size_t n)
{
    size_t s = sel->n++;
    snprintf(sel->names[s], MANIFEST_NAME_MAX, "%s", name);
    sel->n_values[s] = n;
    memcpy(sel->values[s], vals, n * sizeof *vals);
}

static void select_ints(manifest_selection *sel, const char *name, const long *vals, size_t n)
{
    manifest_value tmp[MANIFEST_MAX_VALUES];
    memset(tmp, 0, sizeof tmp);
    for (size_t i = 0; i < n; i++)
        tmp[i].v[0] = vals[i];
    select_values(sel, name, tmp, n);
}

/* Every allowed value of the axes that must be covered in full. */
static void select_all_allowed(manifest_selection *sel, const manifest_kernel *k)
{
    static const char *const full[] = {"FILTER_WIDTH", "WG", "NUMCOEFFS"};
    for (size_t i = 0; i < sizeof full / sizeof full[0]; i++) {
        const manifest_axis *a = manifest_axis_find(k, full[i]);
        if (!a)
            continue;
        manifest_value vals[MANIFEST_MAX_VALUES];
        size_t n = 0;
        for (size_t j = 0; j < a->n_allowed; j++)
            if (a->is_wg || strcmp(a->name, "FILTER_WIDTH") != 0 ||
                a->allowed[j].v[0] <= MAX_FW_TESTED)
                vals[n++] = a->allowed[j];
        select_values(sel, a->name, vals, n);
    }
}

static int kernel_wanted(const char *name)
{
    const char *list = getenv("CLC_TEST_KERNELS");
    if (!list || !*list)
        return 1;
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n == len && strncmp(p, name, n) == 0)
            return 1;
        p += n + (comma ? 1 : 0);
    }
    return 0;
}

static void make_plan(const manifest_file *m, plan *pl)
{
    uint64_t seed = 20240601;
    for (size_t i = 0; i < m->n_kernels; i++) {
        const manifest_kernel *k = &m->kernels[i];
        if (!kernel_wanted(k->name))
            continue;
        manifest_selection sel;
        memset(&sel, 0, sizeof sel);
        select_all_allowed(&sel, k);
        add_builds(pl, k, &sel, &seed);

        const manifest_axis *uf = manifest_axis_find(k, "UNROLL_FACTOR");
        if (uf) {
            long others[MANIFEST_MAX_VALUES];
            size_t n = 0;
            for (size_t j = 0; j < uf->n_allowed; j++) {
                size_t d = 0;
                while (d < uf->n_default && uf->defaults[d].v[0] != uf->allowed[j].v[0])
                    d++;
                if (d == uf->n_default)
                    others[n++] = uf->allowed[j].v[0];
            }
            manifest_selection s2;
            memset(&s2, 0, sizeof s2);
            select_all_allowed(&s2, k);
            /* Replace the full FILTER_WIDTH list with a few widths. */
            for (size_t a = 0; a < s2.n; a++)
                if (strcmp(s2.names[a], "FILTER_WIDTH") == 0) {
                    s2.n_values[a] = 0;
                    for (size_t w = 0; w < sizeof UNROLL_WIDTHS / sizeof UNROLL_WIDTHS[0]; w++)
                        s2.values[a][s2.n_values[a]++].v[0] = UNROLL_WIDTHS[w];
                }
            if (n > 0) {
                select_ints(&s2, "UNROLL_FACTOR", others, n);
                add_builds(pl, k, &s2, &seed);
            }
        }
        if (manifest_axis_find(k, "IMAGE_W")) {
            manifest_selection s3;
            memset(&s3, 0, sizeof s3);
            select_all_allowed(&s3, k);
            for (size_t a = 0; a < s3.n; a++)
                if (strcmp(s3.names[a], "FILTER_WIDTH") == 0) {
                    s3.n_values[a] = 0;
                    for (size_t w = 0; w < sizeof IMAGE_W_WIDTHS / sizeof IMAGE_W_WIDTHS[0]; w++)
                        s3.values[a][s3.n_values[a]++].v[0] = IMAGE_W_WIDTHS[w];
                }
            select_ints(&s3, "IMAGE_W", &IMAGE_W_VALUE, 1);
            add_builds(pl, k, &s3, &seed);
        }
    }
}

/* ---- worker side ------------------------------------------------------- */

static int pick_device(cl_platform_id *plat_out, cl_device_id *dev_out, char *name, size_t cap)
{
    cl_platform_id plats[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS || np == 0)
        return -1;
    if (np > 16)
        np = 16;
    const char *want = getenv("CLC_TEST_DEVICE");
    int best = -1;
    for (int pass = 0; pass < 2 && best < 0; pass++)
        for (cl_uint i = 0; i < np && best < 0; i++) {
            cl_device_id devs[16];
            cl_uint nd = 0;
            if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 16, devs, &nd) != CL_SUCCESS)
                continue;
            if (nd > 16)
                nd = 16;
            for (cl_uint d = 0; d < nd && best < 0; d++) {
                char dn[256] = "";
                cl_device_type type = 0;
                clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof dn, dn, NULL);
                clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
                int match = want && *want ? strstr(dn, want) != NULL
                                          : pass == 1 || (type & CL_DEVICE_TYPE_CPU);
                if (match) {
                    best = 1;
                    *plat_out = plats[i];
                    *dev_out = devs[d];
                    snprintf(name, cap, "%s", dn);
                }
            }
        }
    return best < 0 ? -1 : 0;
}

static void one_line(char *s)
{
    for (; *s; s++)
        if (*s == '\n' || *s == '\r' || *s == '\t')
            *s = ' ';
}

static void emit(int fd, size_t b, size_t r, int ok, const char *text)
{
    char line[LINE_MAX_CHARS + 64];
    char body[LINE_MAX_CHARS];
    snprintf(body, sizeof body, "%s", text);
    one_line(body);
    /* Always one whole line, even when the text was cut short. */
    bfmt(line, sizeof line - 1, "%zu %zu %d %s", b, r, ok, body);
    size_t len = strlen(line);
    line[len++] = '\n';
    for (size_t off = 0; off < len;) {
        ssize_t w = write(fd, line + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        off += (size_t)w;
    }
}

/* "Convolve_Def FILTER_WIDTH=5 wg=16x16 48x32" */
static void describe(const manifest_variant *v, const kernel_run_problem *p, char *buf, size_t cap)
{
    size_t len = (size_t)snprintf(buf, cap, "%s", v->kernel->name);
    /* Axis values only: the derived defines follow from them. */
    for (size_t i = 0; i < v->n_defines && len < cap; i++)
        if (manifest_axis_find(v->kernel, v->define_names[i]))
            len += (size_t)snprintf(buf + len, cap - len, " %s=%s", v->define_names[i],
                                    v->define_values[i]);
    if (len < cap && !manifest_variant_define(v, "FILTER_WIDTH") && p->filter_width)
        len += (size_t)snprintf(buf + len, cap - len, " filter_width=%d(arg)", p->filter_width);
    if (len < cap && !manifest_variant_define(v, "NUMCOEFFS") && p->numcoeffs)
        len += (size_t)snprintf(buf + len, cap - len, " numcoeffs=%d(arg)", p->numcoeffs);
    if (len < cap && v->wg[0]) {
        if (v->kernel->dims == 2)
            len += (size_t)snprintf(buf + len, cap - len, " wg=%ux%u", (unsigned)v->wg[0],
                                    (unsigned)v->wg[1]);
        else
            len += (size_t)snprintf(buf + len, cap - len, " wg=%u", (unsigned)v->wg[0]);
    }
    if (len < cap) {
        if (v->kernel->family == MANIFEST_FAMILY_POLY)
            snprintf(buf + len, cap - len, " n=%zu", p->n);
        else
            snprintf(buf + len, cap - len, " %dx%d", p->width, p->height);
    }
}

static cl_program build(cl_context ctx, cl_device_id dev, const manifest_file *m,
                        const manifest_variant *v, char *err, size_t cap)
{
    char *text;
    size_t len;
    char name[MANIFEST_PATH_MAX], why[MANIFEST_ERR_MAX];
    if (kernel_source_program_source(m, v, &text, &len, name, why) != 0) {
        bfmt(err, cap, "source: %s", why);
        return NULL;
    }
    cl_int e;
    const char *src = text;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, &len, &e);
    free(text);
    if (e != CL_SUCCESS) {
        snprintf(err, cap, "clCreateProgramWithSource: %d", (int)e);
        return NULL;
    }
    e = clBuildProgram(prog, 1, &dev, v->options, NULL, NULL);
    if (e != CL_SUCCESS) {
        char log[800] = "";
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        bfmt(err, cap, "clBuildProgram(%s) = %d: %s", v->options, (int)e, log);
        clReleaseProgram(prog);
        return NULL;
    }
    return prog;
}

static int worker(const manifest_file *m, const plan *pl, size_t id, size_t jobs, int fd)
{
    cl_platform_id plat;
    cl_device_id dev;
    char dev_name[256];
    if (pick_device(&plat, &dev, dev_name, sizeof dev_name) != 0) {
        for (size_t b = id; b < pl->n; b += jobs)
            for (size_t r = 0; r < pl->builds[b].n_runs; r++)
                emit(fd, b, r, 0, "no OpenCL device (CLC_TEST_DEVICE?)");
        return 1;
    }
    cl_int e;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)plat, 0};
    cl_context ctx = clCreateContext(props, 1, &dev, NULL, NULL, &e);
    cl_command_queue q = ctx ? clCreateCommandQueue(ctx, dev, 0, &e) : NULL;
    if (!q)
        return 1;
    if (id == 0)
        emit(fd, (size_t)-1, 0, 1, dev_name);
    for (size_t b = id; b < pl->n; b += jobs) {
        const build_plan *bp = &pl->builds[b];
        char msg[LINE_MAX_CHARS], what[300];
        cl_program prog = build(ctx, dev, m, &bp->v, msg, sizeof msg);
        for (size_t r = 0; r < bp->n_runs; r++) {
            const run_plan *rp = &bp->runs[r];
            char line[LINE_MAX_CHARS];
            describe(&bp->v, &rp->p, what, sizeof what);
            if (!prog) {
                bfmt(line, sizeof line, "%s: %s", what, msg);
                emit(fd, b, r, 0, line);
                continue;
            }
            char err[KERNEL_RUN_ERR_MAX];
            kernel_run_result res;
            int sup = kernel_run_supports(&bp->v, &rp->p, err);
            if (rp->expect_refusal) {
                /* kernel_run_check must refuse too, with the same reason. */
                char err2[KERNEL_RUN_ERR_MAX] = "";
                int rc = sup == 0 ? 0 : kernel_run_check(ctx, q, prog, &bp->v, &rp->p, TOL, &res, err2);
                int ok = sup != 0 && rc == -1 && strcmp(err, err2) == 0 && err[0];
                bfmt(line, sizeof line, "%s refused: %s", what,
                         sup ? err : "(accepted, but should be refused)");
                emit(fd, b, r, ok, line);
                continue;
            }
            if (sup != 0) {
                bfmt(line, sizeof line, "%s wrongly refused: %s", what, err);
                emit(fd, b, r, 0, line);
                continue;
            }
            int rc = kernel_run_check(ctx, q, prog, &bp->v, &rp->p, TOL, &res, err);
            if (rc < 0)
                bfmt(line, sizeof line, "%s: %s", what, err);
            else
                bfmt(line, sizeof line, "%s maxrel=%.1e%s", what, res.max_rel_err,
                         res.unwritten ? " (outputs left unwritten)" : "");
            emit(fd, b, r, rc == 0, line);
        }
        if (prog)
            clReleaseProgram(prog);
    }
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}

/* ---- negative checks (parent, after the workers) ------------------------ */

/* Convolve_Def with the input shifted one column, one filter term dropped,
 * or the first output column never written. */
static const char *const WRONG_KERNELS[] = {
    "__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))\n"
    "void Convolve_Def(const __global float *in, __constant float *f, __global float *out,\n"
    "                  const int inW, const int fwArg)\n"
    "{ int x = get_global_id(0), y = get_global_id(1); float s = 0;\n"
    "  for (int r = 0; r < FILTER_WIDTH; r++) for (int c = 0; c < FILTER_WIDTH; c++)\n"
    "    s += f[r * FILTER_WIDTH + c] * in[(y + r) * inW + min(x + c + 1, inW - 1)];\n"
    "  out[y * get_global_size(0) + x] = s; }\n",

    "__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))\n"
    "void Convolve_Def(const __global float *in, __constant float *f, __global float *out,\n"
    "                  const int inW, const int fwArg)\n"
    "{ int x = get_global_id(0), y = get_global_id(1); float s = 0;\n"
    "  for (int r = 0; r < FILTER_WIDTH; r++) for (int c = 0; c < FILTER_WIDTH; c++)\n"
    "    if (r != FILTER_WIDTH - 1 || c != FILTER_WIDTH - 1)\n"
    "      s += f[r * FILTER_WIDTH + c] * in[(y + r) * inW + x + c];\n"
    "  out[y * get_global_size(0) + x] = s; }\n",

    "__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))\n"
    "void Convolve_Def(const __global float *in, __constant float *f, __global float *out,\n"
    "                  const int inW, const int fwArg)\n"
    "{ int x = get_global_id(0), y = get_global_id(1); float s = 0;\n"
    "  if (x == 0) return;\n"
    "  for (int r = 0; r < FILTER_WIDTH; r++) for (int c = 0; c < FILTER_WIDTH; c++)\n"
    "    s += f[r * FILTER_WIDTH + c] * in[(y + r) * inW + x + c];\n"
    "  out[y * get_global_size(0) + x] = s; }\n",
};
static const char *const WRONG_WHAT[] = {"input shifted by one column",
                                         "last filter term dropped",
                                         "column 0 never written"};

/* Generated text names the defines it was generated for: built with
 * another FILTER_WIDTH it must not compile (and with its own it must). */
static void generated_text_guard(const manifest_file *m, cl_context ctx, cl_device_id dev)
{
    const manifest_kernel *k = manifest_find(m, "reda_unrolled");
    if (!CHECK(k != NULL, "manifest has reda_unrolled"))
        return;
    manifest_selection sel;
    memset(&sel, 0, sizeof sel);
    long fw[] = {5, 7};
    select_ints(&sel, "FILTER_WIDTH", fw, 2);
    manifest_variant *vs;
    size_t n;
    char err[MANIFEST_ERR_MAX], name[MANIFEST_PATH_MAX];
    if (!CHECK(manifest_expand(k, &sel, &vs, &n, err) == 0 && n == 2, "expand reda_unrolled: %s", err))
        return;
    char *text;
    size_t len;
    if (CHECK(kernel_source_program_source(m, &vs[0], &text, &len, name, err) == 0, "source: %s", err)) {
        for (size_t i = 0; i < 2; i++) {
            const char *src = text;
            cl_int e;
            cl_program prog = clCreateProgramWithSource(ctx, 1, &src, &len, &e);
            /* The compiler reports the expected #error on stderr; keep it
             * out of the test's output. */
            fflush(stderr);
            int saved = i == 1 ? dup(2) : -1;
            int null_fd = saved >= 0 ? open("/dev/null", O_WRONLY) : -1;
            if (null_fd >= 0)
                dup2(null_fd, 2);
            e = clBuildProgram(prog, 1, &dev, vs[i].options, NULL, NULL);
            if (null_fd >= 0) {
                dup2(saved, 2);
                close(null_fd);
            }
            if (saved >= 0)
                close(saved);
            CHECK((e == CL_SUCCESS) == (i == 0), "%s built with %s: %d (must %s)", name,
                  vs[i].options, (int)e, i == 0 ? "build" : "fail");
            clReleaseProgram(prog);
        }
        printf("negative: %s refused to build with FILTER_WIDTH=7\n", name);
        free(text);
    }
    free(vs);
}

static void negative_checks(const manifest_file *m)
{
    const manifest_kernel *k = manifest_find(m, "Convolve_Def");
    if (!CHECK(k != NULL, "manifest has Convolve_Def"))
        return;
    manifest_selection sel;
    memset(&sel, 0, sizeof sel);
    long fw[] = {31};
    select_ints(&sel, "FILTER_WIDTH", fw, 1);
    manifest_variant *vs;
    size_t n;
    char err[KERNEL_RUN_ERR_MAX];
    if (!CHECK(manifest_expand(k, &sel, &vs, &n, err) == 0 && n == 1, "expand Convolve_Def: %s", err))
        return;
    cl_platform_id plat;
    cl_device_id dev;
    char dev_name[256];
    if (!CHECK(pick_device(&plat, &dev, dev_name, sizeof dev_name) == 0, "an OpenCL device")) {
        free(vs);
        return;
    }
    cl_int e;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)plat, 0};
    cl_context ctx = clCreateContext(props, 1, &dev, NULL, NULL, &e);
    cl_command_queue q = ctx ? clCreateCommandQueue(ctx, dev, 0, &e) : NULL;
    if (!CHECK(q != NULL, "context and queue")) {
        free(vs);
        return;
    }
    kernel_run_problem p;
    kernel_run_default_problem(&vs[0], 99, &p);
    for (size_t i = 0; i < sizeof WRONG_KERNELS / sizeof WRONG_KERNELS[0]; i++) {
        const char *src = WRONG_KERNELS[i];
        cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &e);
        e = clBuildProgram(prog, 1, &dev, vs[0].options, NULL, NULL);
        if (!CHECK(e == CL_SUCCESS, "build of the wrong kernel (%s): %d", WRONG_WHAT[i], (int)e)) {
            clReleaseProgram(prog);
            continue;
        }
        kernel_run_result res;
        int rc = kernel_run_check(ctx, q, prog, &vs[0], &p, TOL, &res, err);
        CHECK(rc == 1, "wrong kernel (%s) fails the check: rc=%d maxrel=%.1e unwritten=%zu %s",
              WRONG_WHAT[i], rc, res.max_rel_err, res.unwritten, rc < 0 ? err : "");
        printf("negative: %s FILTER_WIDTH=31 %dx%d: rc=%d maxrel=%.1e unwritten=%zu "
               "first bad output %zu\n",
               WRONG_WHAT[i], p.width, p.height, rc, res.max_rel_err, res.unwritten,
               res.bad_index);
        if (i == 2)
            CHECK(res.unwritten == (size_t)p.height, "column 0 counted as unwritten: %zu of %d",
                  res.unwritten, p.height);
        clReleaseProgram(prog);
    }
    generated_text_guard(m, ctx, dev);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(vs);
}

/* ---- parent ------------------------------------------------------------ */

static int cmp_record(const void *a, const void *b)
{
    const record *x = a, *y = b;
    if (x->build != y->build)
        return x->build < y->build ? -1 : 1;
    return x->run < y->run ? -1 : x->run > y->run;
}

/* Splits complete lines out of buf into records; keeps the partial tail. */
static void take_lines(char *buf, size_t *len, record **recs, size_t *n, size_t *cap,
                       char *device)
{
    size_t start = 0;
    for (size_t i = 0; i < *len; i++) {
        if (buf[i] != '\n')
            continue;
        buf[i] = '\0';
        size_t b, r;
        int ok, off = 0;
        if (sscanf(buf + start, "%zu %zu %d %n", &b, &r, &ok, &off) == 3 && off > 0) {
            if (b == (size_t)-1) {
                snprintf(device, 256, "%s", buf + start + off);
            } else {
                if (*n == *cap) {
                    *cap = *cap ? 2 * *cap : 1024;
                    *recs = xrealloc(*recs, *cap * sizeof **recs);
                }
                record *rec = &(*recs)[(*n)++];
                rec->build = b;
                rec->run = r;
                rec->ok = ok;
                snprintf(rec->text, sizeof rec->text, "%s", buf + start + off);
            }
        }
        start = i + 1;
    }
    memmove(buf, buf + start, *len - start);
    *len -= start;
}

int main(void)
{
    source_gen_install(&kernelgen_generator); /* the bundled manifest's generators */
    const char *dir = getenv("CLC_KERNELS_DIR");
    if (!dir || !*dir)
        dir = "kernels";
    manifest_file *m = malloc(sizeof *m);
    char err[MANIFEST_ERR_MAX];
    if (!CHECK(m && manifest_load(dir, m, err) == 0, "load %s/manifest.txt: %s", dir, err))
        return check_summary();

    plan pl = {0};
    make_plan(m, &pl);
    size_t expected = 0;
    for (size_t b = 0; b < pl.n; b++)
        expected += pl.builds[b].n_runs;
    CHECK(pl.n > 0, "the plan has builds");

    long jobs = getenv("CLC_TEST_JOBS") ? atol(getenv("CLC_TEST_JOBS")) : 2;
    if (jobs < 1 || jobs > MAX_JOBS)
        jobs = 2;
    fflush(stdout);
    int fds[MAX_JOBS];
    pid_t pids[MAX_JOBS];
    for (long j = 0; j < jobs; j++) {
        int pfd[2];
        if (pipe(pfd) != 0) {
            perror("pipe");
            return 2;
        }
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 2;
        }
        if (pid == 0) {
            close(pfd[0]);
            for (long i = 0; i < j; i++)
                close(fds[i]);
            _exit(worker(m, &pl, (size_t)j, (size_t)jobs, pfd[1]));
        }
        close(pfd[1]);
        fds[j] = pfd[0];
        pids[j] = pid;
    }

    record *recs = NULL;
    size_t n_recs = 0, cap = 0;
    char device[256] = "?";
    char bufs[MAX_JOBS][8192];
    size_t lens[MAX_JOBS] = {0};
    long open_fds = jobs;
    while (open_fds > 0) {
        struct pollfd pfds[MAX_JOBS];
        for (long j = 0; j < jobs; j++) {
            pfds[j].fd = fds[j];
            pfds[j].events = POLLIN;
            pfds[j].revents = 0;
        }
        if (poll(pfds, (nfds_t)jobs, -1) < 0) {
            if (errno == EINTR)
                continue;
            perror("poll");
            break;
        }
        for (long j = 0; j < jobs; j++) {
            if (fds[j] < 0 || !(pfds[j].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t r = read(fds[j], bufs[j] + lens[j], sizeof bufs[j] - 1 - lens[j]);
            if (r <= 0) {
                close(fds[j]);
                fds[j] = -1;
                open_fds--;
                continue;
            }
            lens[j] += (size_t)r;
            take_lines(bufs[j], &lens[j], &recs, &n_recs, &cap, device);
        }
    }
    for (long j = 0; j < jobs; j++) {
        int status = 0;
        waitpid(pids[j], &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "worker %ld ended with status %d",
              j, status);
    }

    printf("device: %s\n", device);
    qsort(recs, n_recs, sizeof *recs, cmp_record);
    size_t ok = 0, refusals = 0;
    for (size_t i = 0; i < n_recs; i++) {
        int refusal = strstr(recs[i].text, " refused: ") != NULL;
        if (recs[i].ok) {
            ok++;
            refusals += (size_t)refusal;
            printf("ok %s\n", recs[i].text);
        }
        CHECK(recs[i].ok, "%s", recs[i].text);
    }
    CHECK(n_recs == expected, "every planned run reported: %zu of %zu", n_recs, expected);

    negative_checks(m);

    size_t kernels = 0;
    for (size_t i = 0; i < m->n_kernels; i++)
        kernels += kernel_wanted(m->kernels[i].name) ? 1 : 0;
    printf("total: %zu kernels, %zu builds, %zu runs checked against the reference "
           "and %zu refusals verified (%zu of %zu runs passed)\n",
           kernels, pl.n, ok - refusals, refusals, ok, expected);
    for (size_t b = 0; b < pl.n; b++)
        free(pl.builds[b].runs);
    free(pl.builds);
    free(recs);
    free(m);
    return check_summary();
}
