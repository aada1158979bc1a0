/* build_variant.c — build, check and take the binary of one variant (build_variant.h). */
#include "build_variant.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <CL/cl_ext.h>

#include "bounded_fmt.h"
#include "kernel_run.h"
#include "kernel_source.h"
#include "nv_forms.h"
#include "pocl_binary_canon.h"
#include "ptx_text.h"
#include "ptxas_run.h"

#define NVIDIA_VENDOR_ID 0x10DEu
/* Build logs beyond this are cut: they are printed, not parsed. */
#define LOG_MAX (1u << 20)

void bv_default_options(bv_options *o)
{
    o->check = 1;
    o->warmup = 1;
    o->tol = 1e-4;
    o->seed = 20240531u;
    tv_default_options(&o->tune);
}

int bv_target_open(cl_device_id dev, const char *ptxas, bv_target *t, char *err, size_t cap)
{
    memset(t, 0, sizeof *t);
    t->device = dev;
    cl_int rc;
    t->ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
    if (!t->ctx) {
        bfmt(err, cap, "clCreateContext failed with error %d", (int)rc);
        return -1;
    }
    /* Profiling costs nothing measurable and lets --tune time with events. */
    t->queue = clCreateCommandQueue(t->ctx, dev, CL_QUEUE_PROFILING_ENABLE, &rc);
    if (!t->queue) {
        bfmt(err, cap, "clCreateCommandQueue failed with error %d", (int)rc);
        clReleaseContext(t->ctx);
        t->ctx = NULL;
        return -1;
    }
    cl_uint vendor = 0;
    clGetDeviceInfo(dev, CL_DEVICE_VENDOR_ID, sizeof vendor, &vendor, NULL);
    t->is_nvidia = vendor == NVIDIA_VENDOR_ID;
    if (t->is_nvidia) {
        cl_uint major = 0, minor = 0;
        if (clGetDeviceInfo(dev, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof major, &major,
                            NULL) == CL_SUCCESS &&
            clGetDeviceInfo(dev, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, sizeof minor, &minor,
                            NULL) == CL_SUCCESS) {
            t->cc_major = major;
            t->cc_minor = minor;
        }
    }
    if (ptxas)
        bfmt(t->ptxas, sizeof t->ptxas, "%s", ptxas);
    return 0;
}

void bv_target_close(bv_target *t)
{
    if (t->queue)
        clReleaseCommandQueue(t->queue);
    if (t->ctx)
        clReleaseContext(t->ctx);
    memset(t, 0, sizeof *t);
}

static char *dup_printf(const char *fmt, ...) BFMT_PRINTF(1, 2);
static char *dup_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

static void fail(bv_result *r, bv_status st, const char *fmt, ...) BFMT_PRINTF(3, 4);
static void fail(bv_result *r, bv_status st, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    r->status = st;
    free(r->message);
    r->message = dup_printf("%s", line);
}

static char *build_log(cl_program prog, cl_device_id dev)
{
    size_t n = 0;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) != CL_SUCCESS ||
        n == 0)
        return NULL;
    if (n > LOG_MAX)
        n = LOG_MAX;
    char *log = malloc(n + 1);
    if (!log)
        return NULL;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL) != CL_SUCCESS) {
        free(log);
        return NULL;
    }
    log[n] = '\0';
    return log;
}

/* The program's one binary (built for one device). */
static int take_binary(cl_program prog, unsigned char **data, size_t *size, char *err,
                       size_t cap)
{
    cl_uint ndev = 0;
    cl_int rc = clGetProgramInfo(prog, CL_PROGRAM_NUM_DEVICES, sizeof ndev, &ndev, NULL);
    if (rc != CL_SUCCESS || ndev != 1) {
        bfmt(err, cap, "CL_PROGRAM_NUM_DEVICES: error %d, %u devices", (int)rc, (unsigned)ndev);
        return -1;
    }
    size_t n = 0;
    rc = clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL);
    if (rc != CL_SUCCESS || n == 0) {
        bfmt(err, cap, "CL_PROGRAM_BINARY_SIZES: error %d, size %zu", (int)rc, n);
        return -1;
    }
    unsigned char *buf = malloc(n);
    if (!buf) {
        bfmt(err, cap, "out of memory for a %zu-byte binary", n);
        return -1;
    }
    unsigned char *ptrs[1] = {buf};
    rc = clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof ptrs, ptrs, NULL);
    if (rc != CL_SUCCESS) {
        free(buf);
        bfmt(err, cap, "CL_PROGRAM_BINARIES failed with error %d", (int)rc);
        return -1;
    }
    *data = buf;
    *size = n;
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* NVIDIA: the binary is PTX text. Keep it without its NUL, in its most
 * portable form, and add a cubin per architecture when ptxas is known
 * (nv_forms.h); a ptxas failure only costs that cubin. */
static void add_nvidia_forms(bv_target *t, unsigned char *bin, size_t size, bv_result *r)
{
    size_t len = ptx_text_length(bin, size);
    if (!ptx_is_text(bin, size)) {
        r->note = dup_printf("the NVIDIA binary is not PTX text; stored as a native binary");
        r->forms[r->n_forms++] = (bv_form){CLCPACK_KIND_NATIVE, 0, bin, size};
        return;
    }
    char arch_name[PTX_ARCH_NAME_MAX];
    uint32_t arch = 0;
    if (ptx_target(bin, len, arch_name, &arch) != 0)
        ptx_arch_from_cc(t->cc_major, t->cc_minor, arch_name, &arch);
    if (!t->ptxas[0]) {
        r->forms[r->n_forms++] = (bv_form){CLCPACK_KIND_PTX, arch, bin, len};
        return;
    }
    nvf_result nr;
    nvf_make(t->ptxas, bin, len, &t->nv_archs, t->cc_major * 10 + t->cc_minor, NULL, &nr);
    if (nr.ptx) {
        free(bin);
        r->forms[r->n_forms++] =
            (bv_form){CLCPACK_KIND_PTX, nr.ptx_arch, (unsigned char *)nr.ptx, nr.ptx_size};
        nr.ptx = NULL;
    } else {
        r->forms[r->n_forms++] = (bv_form){CLCPACK_KIND_PTX, arch, bin, len};
    }
    for (size_t i = 0; i < nr.n_cubins && r->n_forms < BV_MAX_FORMS; i++) {
        r->forms[r->n_forms++] =
            (bv_form){CLCPACK_KIND_CUBIN, nr.cubins[i].arch, nr.cubins[i].data, nr.cubins[i].size};
        nr.cubins[i].data = NULL;
    }
    if (nr.notes) {
        r->note = nr.notes;
        nr.notes = NULL;
    }
    nvf_result_free(&nr);
}

void bv_build(bv_target *t, const mf_manifest *m, const mf_variant *v, const bv_options *o,
              bv_result *r)
{
    memset(r, 0, sizeof *r);
    double t0 = now_s();
    char err[KR_ERR_MAX > MF_ERR_MAX ? KR_ERR_MAX : MF_ERR_MAX];
    cl_program prog = NULL;

    if (ks_program_source(m, v, &r->source, &r->source_size, r->source_name, err) != 0) {
        fail(r, BV_ERROR, "source: %s", err);
        goto out;
    }
    const char *text = r->source;
    cl_int rc;
    prog = clCreateProgramWithSource(t->ctx, 1, &text, &r->source_size, &rc);
    if (!prog) {
        fail(r, BV_ERROR, "clCreateProgramWithSource failed with error %d", (int)rc);
        goto out;
    }
    rc = clBuildProgram(prog, 1, &t->device, v->options, NULL, NULL);
    if (rc != CL_SUCCESS) {
        r->log = build_log(prog, t->device);
        fail(r, BV_BUILD_FAILED, "clBuildProgram failed with error %d", (int)rc);
        goto out;
    }

    if (o->warmup) {
        kr_problem p;
        kr_default_problem(v, o->seed, &p);
        if (o->check) {
            kr_result res;
            int c = kr_check(t->ctx, t->queue, prog, v, &p, o->tol, &res, err);
            if (c < 0) {
                fail(r, BV_ERROR, "check run: %s", err);
                goto out;
            }
            if (c > 0) {
                fail(r, BV_CHECK_FAILED,
                     "wrong output on a %dx%d problem (n=%zu): max relative error %.3g "
                     "(tolerance %.3g), first bad element %zu, %zu left unwritten",
                     p.width, p.height, p.n, res.max_rel_err, o->tol, res.bad_index,
                     res.unwritten);
                goto out;
            }
        } else if (kr_run_once(t->ctx, t->queue, prog, v, &p, err) != 0) {
            fail(r, BV_ERROR, "warm-up run: %s", err);
            goto out;
        }
    }

    unsigned char *bin = NULL;
    size_t size = 0;
    if (take_binary(prog, &bin, &size, err, sizeof err) != 0) {
        fail(r, BV_ERROR, "%s", err);
        goto out;
    }
    if (t->is_nvidia) {
        add_nvidia_forms(t, bin, size, r);
    } else {
        /* PoCL's binary is a snapshot of its cache folder: keep only what
         * this build made, in a fixed order, so that the pack's bytes do
         * not depend on what ran before. Other drivers' bytes pass as they are. */
        unsigned char *canon = NULL;
        size_t canon_size = 0;
        char why[256];
        int c = pcb_canonicalize(bin, size, v->kernel->name, v->wg, &canon, &canon_size, why,
                                 sizeof why);
        if (c == 0) {
            free(bin);
            bin = canon;
            size = canon_size;
        } else if (c < 0) {
            free(bin);
            fail(r, BV_ERROR, "out of memory rewriting a %zu-byte binary", size);
            goto out;
        }
        r->forms[r->n_forms++] = (bv_form){CLCPACK_KIND_NATIVE, 0, bin, size};
    }
    /* After the binary is taken, so timing launches cannot change it. */
    if (o->tune.enabled) {
        char note[TV_NOTE_MAX];
        if (tv_measure(t->ctx, t->queue, prog, v, &o->tune, r->tunings, &r->n_tunings,
                       note) != 0) {
            char *both = r->note ? dup_printf("%s; %s", r->note, note) : dup_printf("%s", note);
            free(r->note);
            r->note = both;
        }
    }
    r->status = BV_OK;
out:
    if (prog)
        clReleaseProgram(prog);
    r->build_s = now_s() - t0;
}

void bv_result_free(bv_result *r)
{
    free(r->message);
    free(r->log);
    free(r->note);
    free(r->source);
    for (size_t i = 0; i < r->n_forms; i++)
        free(r->forms[i].data);
    memset(r, 0, sizeof *r);
}
