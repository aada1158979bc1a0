/* build_variant.c — build, check and take the binary of one variant (build_variant.h). */
#include "build_variant.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <CL/cl_ext.h>

#include <unistd.h>

#include "bounded_fmt.h"
#include "cl_error_name.h"
#include "check_cmd.h"
#include "nearest_name.h"
#include "device_lock.h"
#include "tune_cmd.h"
#include "nv_forms.h"
#include "pocl_wg.h"
#include "pocl_binary_canon.h"
#include "ptx_text.h"
#include "ptxas_run.h"
#include "roundtrip.h"
#include "text_format.h"
#include "mono_clock.h"

#define NVIDIA_VENDOR_ID 0x10DEu
/* Build logs beyond this are cut: they are printed, not parsed. */
#define LOG_MAX (1u << 20)

void build_variant_default_options(build_variant_options *o)
{
    memset(o, 0, sizeof *o);
    o->check = 1;
    o->warmup = 1;
    o->tol = 1e-4;
    o->roundtrip = 1;
    o->check_timeout_s = 600;
    o->work_dir = ".";
    tune_options_default(&o->tune);
}

void build_variant_target_identify(cl_device_id dev, const char *ptxas, build_variant_target *t)
{
    memset(t, 0, sizeof *t);
    t->spare.rd = t->spare.wr = -1;
    t->device = dev;
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
    char version[256] = "";
    if (clGetDeviceInfo(dev, CL_DEVICE_VERSION, sizeof version - 1, version, NULL) ==
        CL_SUCCESS)
        t->is_pocl = strstr(version, "PoCL") != NULL || strstr(version, "pocl") != NULL;
    if (ptxas)
        bfmt(t->ptxas, sizeof t->ptxas, "%s", ptxas);
}

int build_variant_target_context(build_variant_target *t, char *err, size_t cap)
{
    if (t->ctx)
        return 0;
    cl_int rc;
    t->ctx = clCreateContext(NULL, 1, &t->device, NULL, NULL, &rc);
    if (!t->ctx) {
        char cl[CLCPK_CL_ERROR_MAX];
        bfmt(err, cap, "clCreateContext failed with %s", clcpk_cl_error_name(rc, cl, sizeof cl));
        return -1;
    }
    /* Profiling costs nothing measurable and lets --tune time with events. */
    t->queue = clCreateCommandQueue(t->ctx, t->device, CL_QUEUE_PROFILING_ENABLE, &rc);
    if (!t->queue) {
        char cl[CLCPK_CL_ERROR_MAX];
        bfmt(err, cap, "clCreateCommandQueue failed with %s",
             clcpk_cl_error_name(rc, cl, sizeof cl));
        clReleaseContext(t->ctx);
        t->ctx = NULL;
        return -1;
    }
    return 0;
}

int build_variant_target_open(cl_device_id dev, const char *ptxas, build_variant_target *t, char *err, size_t cap)
{
    build_variant_target_identify(dev, ptxas, t);
    return build_variant_target_context(t, err, cap);
}

void build_variant_target_close(build_variant_target *t)
{
    if (t->queue)
        clReleaseCommandQueue(t->queue);
    if (t->ctx)
        clReleaseContext(t->ctx);
    memset(t, 0, sizeof *t);
}

static void fail(build_variant_result *r, build_variant_status st, const char *fmt, ...) BFMT_PRINTF(3, 4);
static void fail(build_variant_result *r, build_variant_status st, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    r->status = st;
    free(r->message);
    r->message = clcpk_strdup_printf("%s", line);
}

/* fail() for an OpenCL call that returned rc, named with its code. */
static void fail_cl(build_variant_result *r, build_variant_status st, const char *call, cl_int rc)
{
    char cl[CLCPK_CL_ERROR_MAX];
    fail(r, st, "%s failed with %s", call, clcpk_cl_error_name(rc, cl, sizeof cl));
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
        char cl[CLCPK_CL_ERROR_MAX];
        bfmt(err, cap, "CL_PROGRAM_NUM_DEVICES: %s, %u devices",
             clcpk_cl_error_name(rc, cl, sizeof cl), (unsigned)ndev);
        return -1;
    }
    size_t n = 0;
    rc = clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL);
    if (rc != CL_SUCCESS || n == 0) {
        char cl[CLCPK_CL_ERROR_MAX];
        bfmt(err, cap, "CL_PROGRAM_BINARY_SIZES: %s, size %zu",
             clcpk_cl_error_name(rc, cl, sizeof cl), n);
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
        char cl[CLCPK_CL_ERROR_MAX];
        bfmt(err, cap, "CL_PROGRAM_BINARIES failed with %s",
             clcpk_cl_error_name(rc, cl, sizeof cl));
        return -1;
    }
    *data = buf;
    *size = n;
    return 0;
}

/* NVIDIA: the binary is PTX text. Keep it without its NUL, in its most
 * portable form, and add a cubin per architecture when ptxas is known
 * (nv_forms.h); a ptxas failure only costs that cubin. */
static void add_nvidia_forms(build_variant_target *t, unsigned char *bin, size_t size, build_variant_result *r)
{
    size_t len = ptx_text_length(bin, size);
    if (!ptx_text_is_text(bin, size)) {
        r->note =
            clcpk_strdup_printf("the NVIDIA binary is not PTX text; stored as a native binary");
        r->forms[r->n_forms++] = (build_variant_form){.kind = CLCPACK_KIND_NATIVE, .arch = 0, .data = bin, .size = size};
        return;
    }
    char arch_name[PTX_TEXT_ARCH_NAME_MAX];
    uint32_t arch = 0;
    if (ptx_text_target(bin, len, arch_name, &arch) != 0)
        ptx_text_arch_from_cc(t->cc_major, t->cc_minor, arch_name, &arch);
    if (!t->ptxas[0]) {
        r->forms[r->n_forms++] = (build_variant_form){.kind = CLCPACK_KIND_PTX, .arch = arch, .data = bin, .size = len};
        return;
    }
    nv_forms_result nr;
    /* One ptxas at a time, and one more for each slot an idle worker lends
     * (spare_slots.h). */
    int lent = spare_take(&t->spare, (int)t->nv_archs.n);
    nv_forms_make(t->ptxas, bin, len, &t->nv_archs, t->cc_major * 10 + t->cc_minor, NULL, 1 + lent,
             &nr);
    spare_give(&t->spare, lent);
    if (nr.ptx) {
        free(bin);
        r->forms[r->n_forms++] =
            (build_variant_form){.kind = CLCPACK_KIND_PTX, .arch = nr.ptx_arch, .data = (unsigned char *)nr.ptx, .size = nr.ptx_size};
        nr.ptx = NULL;
    } else {
        r->forms[r->n_forms++] = (build_variant_form){.kind = CLCPACK_KIND_PTX, .arch = arch, .data = bin, .size = len};
    }
    for (size_t i = 0; i < nr.n_cubins && r->n_forms < BUILD_VARIANT_MAX_FORMS; i++) {
        r->forms[r->n_forms++] =
            (build_variant_form){.kind = CLCPACK_KIND_CUBIN, .arch = nr.cubins[i].arch, .data = nr.cubins[i].data, .size = nr.cubins[i].size};
        nr.cubins[i].data = NULL;
    }
    if (nr.notes) {
        r->note = nr.notes;
        nr.notes = NULL;
    }
    nv_forms_result_free(&nr);
}

static const char *kind_name(clcpack_binary_kind k)
{
    return k == CLCPACK_KIND_CUBIN ? "cubin" : k == CLCPACK_KIND_PTX ? "PTX" : "native";
}

static int adopted_checks(build_variant_target *t, const build_job *job, cl_program prog, build_variant_result *r);

/* Loads back each form of r this device can load and compares it with
 * expect, the source build's signature (roundtrip.h). On NVIDIA the cubin
 * for this device is what the loader hands over first; loading the PTX
 * back would cost a JIT of the whole program (up to half a second) to
 * check the same code, so it is checked only when there is no such cubin.
 * adopted: the forms come from elsewhere (build_variant_adopt), and the first one
 * loaded, the one the loader would pick, also gets adopted_checks.
 * 0, or -1 after fail(r). */
static int load_back(build_variant_target *t, const build_job *job, const char *expect, build_variant_result *r,
                     int adopted)
{
    uint32_t cc = t->cc_major * 10 + t->cc_minor;
    int have_own_cubin = 0, loaded = 0;
    for (size_t f = 0; f < r->n_forms; f++)
        have_own_cubin |= r->forms[f].kind == CLCPACK_KIND_CUBIN && r->forms[f].arch == cc;
    for (size_t f = 0; f < r->n_forms; f++) {
        const build_variant_form *form = &r->forms[f];
        /* A cubin loads only on its own architecture. */
        if ((form->kind == CLCPACK_KIND_CUBIN && form->arch != cc) ||
            (form->kind == CLCPACK_KIND_PTX && have_own_cubin))
            continue;
        const unsigned char *bin = form->data;
        size_t size = form->size;
        unsigned char *ptx = NULL;
        if (form->kind == CLCPACK_KIND_PTX) {
            /* Stored without its NUL; the driver gets it back with one, as
             * the loader hands it over. */
            ptx = malloc(size + 1);
            if (!ptx) {
                fail(r, BUILD_VARIANT_ERROR, "out of memory");
                return -1;
            }
            memcpy(ptx, bin, size);
            ptx[size] = 0;
            bin = ptx;
            size++;
        }
        char msg[ROUNDTRIP_MSG_MAX];
        cl_program prog = roundtrip_program_from_binary(t->ctx, t->device, job->options, bin, size, msg);
        free(ptx);
        if (!prog || roundtrip_compare(expect, prog, msg) != 0) {
            if (prog)
                clReleaseProgram(prog);
            fail(r, BUILD_VARIANT_CHECK_FAILED, "round trip of the %s binary: %s", kind_name(form->kind),
                 msg);
            return -1;
        }
        int bad = adopted && !loaded && adopted_checks(t, job, prog, r) != 0;
        clReleaseProgram(prog);
        if (bad)
            return -1;
        loaded++;
    }
    if (adopted && !loaded) {
        fail(r, BUILD_VARIANT_CHECK_FAILED, "no form of it loads on this device");
        return -1;
    }
    return 0;
}

/* Each form this device can load comes back as the source build's
 * program. keep: when not NULL, gets the source build's signature. */
static int roundtrip_forms(build_variant_target *t, const build_job *job, cl_program prog, build_variant_result *r,
                           char **keep)
{
    char msg[ROUNDTRIP_MSG_MAX];
    char *expect = roundtrip_signature(prog, msg);
    if (!expect) {
        fail(r, BUILD_VARIANT_ERROR, "reading the built program: %s", msg);
        return -1;
    }
    if (load_back(t, job, expect, r, 0) != 0) {
        free(expect);
        return -1;
    }
    if (keep)
        *keep = expect;
    else
        free(expect);
    return 0;
}

/* Runs the user's command (--check-cmd or --tune-cmd, called `what`) on
 * the first form, written to a file of its own. 0 with *output (malloc'd)
 * when it exited 0; else -1 with the variant failed and its output in
 * r->log. */
static int run_user_cmd(const char *what, const char *cmd, build_variant_target *t, const build_job *job,
                        const build_variant_options *o, build_variant_result *r, char **output)
{
    char path[BUILD_VARIANT_PATH_MAX];
    static unsigned serial;
    *output = NULL;
    bfmt(path, sizeof path, "%s/variant-%ld-%u.bin", o->work_dir, (long)getpid(), serial++);
    FILE *f = fopen(path, "wb");
    int written = f && fwrite(r->forms[0].data, 1, r->forms[0].size, f) == r->forms[0].size;
    if ((f && fclose(f) != 0) || !written) {
        unlink(path);
        fail(r, BUILD_VARIANT_ERROR, "cannot write the binary for %s to %s", what, path);
        return -1;
    }
    char defines[4096], wg[48];
    build_job_defines_text(job, defines, sizeof defines);
    build_job_wg_text(job->wg, wg, sizeof wg);
    check_cmd_vars vars = {path, defines, wg, t->ordinal, job->entry_name};
    char msg[CHECK_CMD_MSG_MAX];
    int c = check_cmd_run(what, cmd, &vars, o->user_place, o->check_timeout_s, output, msg);
    unlink(path);
    if (c != 0) {
        fail(r, c > 0 ? BUILD_VARIANT_CHECK_FAILED : BUILD_VARIANT_ERROR, "%s", msg);
        free(r->log);
        r->log = *output;
        *output = NULL;
        return -1;
    }
    return 0;
}

/* The job's check command (--check-cmd). */
static int run_check_cmd(build_variant_target *t, const build_job *job, const build_variant_options *o, build_variant_result *r)
{
    if (!build_job_has_check_cmd(job) || r->n_forms == 0)
        return 0;
    char *output;
    if (run_user_cmd("the check command", job->check_cmd, t, job, o, r, &output) != 0)
        return -1;
    free(output);
    return 0;
}

/* The job's tune command (--tune-cmd): its one timing line becomes the variant's timing
 * (tune_cmd.h); a line missing or malformed fails the variant, quoted. */
static int run_tune_cmd_locked(build_variant_target *t, const build_job *job,
                               const build_variant_options *o, build_variant_result *r);

/* One timing at a time on the device while other variants build
 * (device_lock.h). */
static int run_tune_cmd(build_variant_target *t, const build_job *job, const build_variant_options *o, build_variant_result *r)
{
    if (!build_job_has_tune_cmd(job) || r->n_forms == 0)
        return 0;
    int lock = device_lock_acquire(t->ordinal);
    int rc = run_tune_cmd_locked(t, job, o, r);
    device_lock_release(lock);
    return rc;
}

/* --tune: the seeds' hook times the variant, its launches holding the
 * device's lock; a timing that fails is a note, not a failure. */
static void run_tune_hook(build_variant_target *t, const build_job *job,
                          const build_variant_options *o, const check_hook *hook, cl_program prog,
                          build_variant_result *r)
{
    char note[TUNE_OPTIONS_NOTE_MAX];
    /* The hook takes the device's lock itself, around the launches only. */
    tune_options to = o->tune;
    bfmt(to.device_key, sizeof to.device_key, "%s", t->ordinal);
    int trc = hook->tune(hook->self, t->ctx, t->queue, prog, job, &to, r->tunings, &r->n_tunings,
                         note);
    if (trc != 0) {
        char *both = r->note ? clcpk_strdup_printf("%s; %s", r->note, note) : strdup(note);
        free(r->note);
        r->note = both;
    }
}

static int run_tune_cmd_locked(build_variant_target *t, const build_job *job,
                               const build_variant_options *o, build_variant_result *r)
{
    char *output;
    if (run_user_cmd("the tune command", job->tune_cmd, t, job, o, r, &output) != 0)
        return -1;
    char msg[TUNE_CMD_MSG_MAX];
    clcpack_tuning tu;
    if (tune_cmd_parse(output ? output : "", &tu, msg) != 0) {
        fail(r, BUILD_VARIANT_CHECK_FAILED, "the tune command %s", msg);
        free(r->log);
        r->log = output;
        return -1;
    }
    free(output);
    r->tunings[0] = tu;
    r->n_tunings = 1;
    return 0;
}

/* Every kernel the job asks for is in the program. */
static int find_kernels(const build_job *job, build_variant_result *r)
{
    for (size_t i = 0; i < job->n_kernels; i++) {
        size_t k = 0;
        while (k < r->n_kernel_names && strcmp(r->kernel_names[k], job->kernels[i]) != 0)
            k++;
        if (k < r->n_kernel_names)
            continue;
        char held[1024] = "", hint[160] = "";
        size_t len = 0;
        nearest_name_best near;
        nearest_name_init(&near, job->kernels[i]);
        for (size_t n = 0; n < r->n_kernel_names && len + 1 < sizeof held; n++) {
            bfmt(held + len, sizeof held - len, "%s%s", n ? ", " : "", r->kernel_names[n]);
            len += strlen(held + len);
            nearest_name_offer(&near, r->kernel_names[n]);
        }
        if (nearest_name_result(&near))
            bfmt(hint, sizeof hint, "; did you mean %s?", nearest_name_result(&near));
        fail(r, BUILD_VARIANT_CHECK_FAILED, "kernel %s is not in the built program%s (it holds: %s)",
             job->kernels[i], hint, held[0] ? held : "no kernel");
        return -1;
    }
    return 0;
}

/* Whether kernel k was compiled for exactly the local size wg
 * (reqd_work_group_size), within the device's limit. NVIDIA's driver then
 * reports a CL_KERNEL_WORK_GROUP_SIZE below it (256 for a 32x32x1 kernel
 * on an H200) and launches it at that size all the same: the size the
 * kernel was compiled for is its real limit (docs/TUNING.md, "The
 * kernel's real limits"). */
static int compiled_for(cl_kernel k, cl_device_id dev, const size_t wg[3], size_t device_most)
{
    size_t c[3] = {0, 0, 0};
    if (clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof c, c, NULL) !=
        CL_SUCCESS)
        return 0;
    return c[0] == wg[0] && c[1] == wg[1] && c[2] == wg[2] &&
           (!device_most || wg[0] * wg[1] * wg[2] <= device_most);
}

/* Whether the variant's work-group can be launched on this device with
 * every kernel of the program: each dimension within the device's
 * CL_DEVICE_MAX_WORK_ITEM_SIZES and the whole within each kernel's
 * CL_KERNEL_WORK_GROUP_SIZE (the device's limit, lowered by what the kernel
 * uses). A driver builds such a program without a word, and the
 * application's launch is then refused (CL_INVALID_WORK_GROUP_SIZE). */
static int wg_fits(const build_variant_target *t, cl_program prog, const build_job *job, build_variant_result *r)
{
    if (!job->wg[0])
        return 0;
    size_t wg[3] = {job->wg[0], job->wg[1] ? job->wg[1] : 1, job->wg[2] ? job->wg[2] : 1};
    size_t items = wg[0] * wg[1] * wg[2];
    size_t dims[3] = {0, 0, 0};
    if (clGetDeviceInfo(t->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof dims, dims, NULL) ==
        CL_SUCCESS) {
        for (int d = 0; d < 3; d++)
            if (dims[d] && wg[d] > dims[d]) {
                fail(r, BUILD_VARIANT_CHECK_FAILED,
                     "work-group %zux%zux%zu: dimension %d is %zu, above the device's "
                     "maximum of %zu",
                     wg[0], wg[1], wg[2], d, wg[d], dims[d]);
                return -1;
            }
    }
    cl_uint n = 0;
    if (clCreateKernelsInProgram(prog, 0, NULL, &n) != CL_SUCCESS || n == 0)
        return 0;
    cl_kernel *ks = calloc(n, sizeof *ks);
    if (!ks || clCreateKernelsInProgram(prog, n, ks, NULL) != CL_SUCCESS) {
        free(ks);
        return 0;
    }
    int rc = 0;
    size_t device_most = 0;
    clGetDeviceInfo(t->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof device_most, &device_most,
                    NULL);
    for (cl_uint i = 0; i < n; i++) {
        size_t most = 0;
        if (rc == 0 &&
            clGetKernelWorkGroupInfo(ks[i], t->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof most,
                                     &most, NULL) == CL_SUCCESS &&
            most && items > most && !compiled_for(ks[i], t->device, wg, device_most)) {
            char name[256] = "";
            clGetKernelInfo(ks[i], CL_KERNEL_FUNCTION_NAME, sizeof name - 1, name, NULL);
            fail(r, BUILD_VARIANT_CHECK_FAILED,
                 "work-group %zux%zux%zu (%zu work-items) is larger than kernel %s can be "
                 "launched with on this device (%zu)",
                 wg[0], wg[1], wg[2], items, name, most);
            rc = -1;
        }
        clReleaseKernel(ks[i]);
    }
    free(ks);
    return rc;
}

void build_variant_build(build_variant_target *t, const build_job *job, const build_variant_options *o, const check_hook *hook,
              build_variant_result *r)
{
    build_variant_build_signed(t, job, o, hook, r, NULL);
}

/* The forms of prog's binary into r: on PoCL with every work-group
 * function the helper runs give it (pocl_wg.h), canonical; on NVIDIA PTX
 * and cubins; else the bytes as they are. 0, or -1 after fail(r). */
static int take_forms(build_variant_target *t, const build_job *job,
                      const build_variant_options *o, cl_program prog, int use_hook,
                      build_variant_result *r)
{
    /* Before the binary is taken: PoCL serializes its cache folder at the
     * first query and returns those bytes ever after (pocl_wg.h). */
    int grids = o->pocl_small_grids ? 1 : 2;
    for (int g = o->pocl_small_in_env; t->is_pocl && o->pocl_helper && t->slot[0] && g < grids;
         g++) {
        char ferr[POCL_WG_ERR_MAX];
        if (pocl_wg_fill(o->pocl_helper, t->slot, job, (pocl_wg_grid)g, ferr) != 0) {
            fail(r, BUILD_VARIANT_ERROR, "PoCL's %s-grid work-group functions: %s",
                 g ? "large" : "small", ferr);
            return -1;
        }
    }
    unsigned char *bin = NULL;
    size_t size = 0;
    char err[512];
    if (take_binary(prog, &bin, &size, err, sizeof err) != 0) {
        fail(r, BUILD_VARIANT_ERROR, "%s", err);
        return -1;
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
        int c = pocl_binary_canon_canonicalize_forms(
            bin, size, use_hook ? job->kernels[0] : NULL, job->wg,
            pocl_wg_forms(o->pocl_small_grids), &canon, &canon_size, why, sizeof why);
        if (c == 0) {
            free(bin);
            bin = canon;
            size = canon_size;
        } else if (c < 0) {
            free(bin);
            fail(r, BUILD_VARIANT_ERROR, "out of memory rewriting a %zu-byte binary", size);
            return -1;
        }
        r->forms[r->n_forms++] = (build_variant_form){.kind = CLCPACK_KIND_NATIVE, .arch = 0, .data = bin, .size = size};
    }
    return 0;
}

void build_variant_build_signed(build_variant_target *t, const build_job *job, const build_variant_options *o,
                     const check_hook *hook, build_variant_result *r, char **signature)
{
    memset(r, 0, sizeof *r);
    if (signature)
        *signature = NULL;
    double t0 = mono_clock_s(), t1 = t0, t2 = t0;
    char err[CH_MSG_MAX > ROUNDTRIP_MSG_MAX ? CH_MSG_MAX : ROUNDTRIP_MSG_MAX];
    cl_program prog = NULL;
    int use_hook = job->check && job->check[0];
    if (use_hook && !hook) {
        fail(r, BUILD_VARIANT_ERROR, "the check '%s' has no module to run it", job->check);
        goto out;
    }

    const char *text = job->source;
    size_t text_size = job->source_size;
    cl_int rc;
    prog = clCreateProgramWithSource(t->ctx, 1, &text, &text_size, &rc);
    if (!prog) {
        fail_cl(r, BUILD_VARIANT_ERROR, "clCreateProgramWithSource", rc);
        goto out;
    }
    rc = clBuildProgram(prog, 1, &t->device, job->options, NULL, NULL);
    t1 = mono_clock_s();
    r->phase_s[BUILD_VARIANT_PHASE_COMPILE] = t1 - t0;
    if (rc != CL_SUCCESS) {
        r->log = build_log(prog, t->device);
        fail_cl(r, BUILD_VARIANT_BUILD_FAILED, "clBuildProgram", rc);
        goto out;
    }
    if (roundtrip_kernel_names(prog, &r->kernel_names, &r->n_kernel_names, err) != 0) {
        fail(r, BUILD_VARIANT_ERROR, "%s", err);
        goto out;
    }
    if (find_kernels(job, r) != 0 || wg_fits(t, prog, job, r) != 0)
        goto out;

    if (use_hook && o->warmup) {
        int c = hook->check(hook->self, t->ctx, t->queue, prog, job, o->check, o->tol, err);
        if (c != 0) {
            fail(r, c > 0 ? BUILD_VARIANT_CHECK_FAILED : BUILD_VARIANT_ERROR, "%s", err);
            goto out;
        }
    }
    t2 = mono_clock_s();
    r->phase_s[BUILD_VARIANT_PHASE_CHECK] = t2 - t1;

    if (take_forms(t, job, o, prog, use_hook, r) != 0)
        goto out;
    t1 = mono_clock_s();
    r->phase_s[BUILD_VARIANT_PHASE_FORMS] = t1 - t2;
    int checked = (!o->roundtrip || roundtrip_forms(t, job, prog, r, signature) == 0) &&
                  run_check_cmd(t, job, o, r) == 0 && run_tune_cmd(t, job, o, r) == 0;
    if (checked && signature && !*signature) {
        char msg[ROUNDTRIP_MSG_MAX];
        *signature = roundtrip_signature(prog, msg); /* NULL: no upload, nothing more */
    }
    r->phase_s[BUILD_VARIANT_PHASE_ROUNDTRIP] = mono_clock_s() - t1;
    if (!checked)
        goto out;
    /* After the binary is taken, so timing launches cannot change it. */
    if (o->tune.enabled && use_hook && hook->tune)
        run_tune_hook(t, job, o, hook, prog, r);
    r->status = BUILD_VARIANT_OK;
out:
    if (prog)
        clReleaseProgram(prog);
    if (signature && r->status != BUILD_VARIANT_OK) {
        free(*signature);
        *signature = NULL;
    }
    r->build_s = mono_clock_s() - t0;
}

/* A fetched program holds the kernels its record names, and the job's
 * checks that need a program hold (build_variant_build runs them on the source
 * build). 0, or -1 after fail(r). */
static int adopted_checks(build_variant_target *t, const build_job *job, cl_program prog, build_variant_result *r)
{
    char msg[ROUNDTRIP_MSG_MAX];
    char **held = NULL;
    size_t n_held = 0;
    int same = roundtrip_kernel_names(prog, &held, &n_held, msg) == 0 && n_held == r->n_kernel_names;
    for (size_t i = 0; same && i < n_held; i++)
        same = strcmp(held[i], r->kernel_names[i]) == 0;
    for (size_t i = 0; i < n_held; i++)
        free(held[i]);
    free(held);
    if (!same) {
        fail(r, BUILD_VARIANT_CHECK_FAILED, "its program holds other kernels than its record names");
        return -1;
    }
    return find_kernels(job, r) != 0 || wg_fits(t, prog, job, r) != 0 ? -1 : 0;
}

/* On PoCL, a binary from elsewhere must be the canonical form this job's
 * build makes (pocl_binary_canon.h: a canonical binary is its own
 * canonical form) before PoCL sees it: PoCL unpacks a binary into its
 * kernel cache under the program's hash, where a truncated or malformed
 * one would stay and break every later build of that program (measured:
 * a binary cut in half crashed the loading worker, then every build of
 * the same source from that cache folder). 0, or -1 after fail(r). */
static int pocl_canonical(const build_variant_target *t, const build_job *job,
                          const build_variant_options *o, build_variant_result *r)
{
    int use_hook = job->check && job->check[0];
    for (size_t f = 0; t->is_pocl && f < r->n_forms; f++) {
        unsigned char *canon = NULL;
        size_t canon_size = 0;
        char why[256] = "";
        int c = pocl_binary_canon_canonicalize_forms(
            r->forms[f].data, r->forms[f].size, use_hook ? job->kernels[0] : NULL, job->wg,
            pocl_wg_forms(o->pocl_small_grids), &canon, &canon_size, why, sizeof why);
        int same = c == 0 && canon_size == r->forms[f].size &&
                   memcmp(canon, r->forms[f].data, canon_size) == 0;
        free(canon);
        if (c < 0) {
            fail(r, BUILD_VARIANT_ERROR, "out of memory");
            return -1;
        }
        if (!same) {
            fail(r, BUILD_VARIANT_CHECK_FAILED, "its PoCL binary is not the canonical form a build of it "
                                     "makes (%s)",
                 c == 1 ? why : "it changes when made canonical");
            return -1;
        }
        int parses = pocl_binary_canon_bitcode_parses(r->forms[f].data, r->forms[f].size, why,
                                                      sizeof why);
        if (parses < 0) {
            fail(r, BUILD_VARIANT_ERROR, "out of memory");
            return -1;
        }
        if (!parses) {
            fail(r, BUILD_VARIANT_CHECK_FAILED, "its PoCL binary's program.bc is not LLVM bitcode "
                                                "that parses (%s)", why);
            return -1;
        }
    }
    return 0;
}

/* r holds a record's parts: its forms (moved), note and kernel names
 * (copied). 0, or -1 with r failed (memory). */
static int adopt_fill(char *const *names, size_t n_names, const char *note,
                      build_variant_form *forms, size_t *n_forms, build_variant_result *r)
{
    for (size_t f = 0; f < *n_forms && r->n_forms < BUILD_VARIANT_MAX_FORMS; f++)
        r->forms[r->n_forms++] = forms[f];
    *n_forms = 0;
    if (note && *note)
        r->note = clcpk_strdup_printf("%s", note);
    r->kernel_names = calloc(n_names ? n_names : 1, sizeof *r->kernel_names);
    for (size_t i = 0; r->kernel_names && i < n_names; i++) {
        r->kernel_names[i] = strdup(names[i]);
        if (!r->kernel_names[i])
            break;
        r->n_kernel_names++;
    }
    if (r->n_kernel_names == n_names)
        return 0;
    fail(r, BUILD_VARIANT_ERROR, "out of memory");
    return -1;
}

int build_variant_adopt(build_variant_target *t, const build_job *job, const build_variant_options *o, const char *signature,
             char *const *names, size_t n_names, const char *note, build_variant_form *forms,
             size_t *n_forms, build_variant_result *r)
{
    int seen = 0; /* the driver had the binary */
    memset(r, 0, sizeof *r);
    double t0 = mono_clock_s();
    if (adopt_fill(names, n_names, note, forms, n_forms, r) == 0 &&
        pocl_canonical(t, job, o, r) == 0 && (seen = 1, load_back(t, job, signature, r, 1)) == 0 &&
        run_check_cmd(t, job, o, r) == 0)
        r->status = BUILD_VARIANT_OK;
    r->build_s = mono_clock_s() - t0;
    r->phase_s[BUILD_VARIANT_PHASE_ROUNDTRIP] = r->build_s;
    return r->status == BUILD_VARIANT_OK ? 0 : seen ? 2 : 1;
}

int build_variant_adopt_unloaded(const build_variant_target *t, const build_job *job,
                                 const build_variant_options *o, char *const *names,
                                 size_t n_names, const char *note, build_variant_form *forms,
                                 size_t *n_forms, build_variant_result *r)
{
    memset(r, 0, sizeof *r);
    double t0 = mono_clock_s();
    if (adopt_fill(names, n_names, note, forms, n_forms, r) == 0 && pocl_canonical(t, job, o, r) == 0)
        r->status = BUILD_VARIANT_OK;
    r->build_s = mono_clock_s() - t0;
    r->phase_s[BUILD_VARIANT_PHASE_ROUNDTRIP] = r->build_s;
    return r->status == BUILD_VARIANT_OK ? 0 : 1;
}

void build_variant_result_free(build_variant_result *r)
{
    free(r->message);
    free(r->remote_note);
    free(r->upload_note);
    free(r->local_note);
    free(r->log);
    free(r->note);
    for (size_t i = 0; i < r->n_forms; i++)
        free(r->forms[i].data);
    for (size_t i = 0; i < r->n_kernel_names; i++)
        free(r->kernel_names[i]);
    free(r->kernel_names);
    memset(r, 0, sizeof *r);
}
