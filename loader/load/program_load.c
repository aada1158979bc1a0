/*
 * program_load.c — clcpack_create_program: the fallback chain from the
 * fastest form of an entry to the slowest, with a report of every step.
 *
 * Order: native binary of an identical device; on NVIDIA, cubin of this
 * compute capability, then PTX; on an Intel or AMD GPU, the offline binary
 * of its target (target_match.h); with the rebuild cache on, a binary an
 * earlier rebuild left there (rebuild_cache.h); SPIR-V where the device
 * takes it; the stored source with the stored options (and the binary of
 * either of the last two then goes to the cache).
 * Bytes reach the driver only after their CRC-32 matched (PoCL crashes on a
 * damaged binary instead of rejecting it), and anything the driver refuses
 * is released and counted as a miss. All state lives on this call's stack
 * or heap: many threads may load from one pack at once.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_cache.h"
#include "device_fp.h"
#include "errors.h"
#include "key_hash.h"
#include "pack_decode.h"
#include "pack_format.h"
#include "platform.h"
#include "pocl_note.h"
#include "rebuild_cache.h"
#include "struct_size.h"
#include "target_match.h"
#include "text.h"

/* OpenCL 2.1's, hidden by the 1.2 headers the library builds against. */
#ifndef CL_DEVICE_IL_VERSION
#define CL_DEVICE_IL_VERSION 0x105B
#endif

typedef struct load_ctx {
    const clcpack *p;
    const clcpack_key *key;
    cl_context ctx;
    cl_device_id dev;
    const clcpack_device_info *here; /* dev's fingerprint, or with `partial`
                                        its NVIDIA identity alone */
    int partial;                     /* here_whole() asks for the rest */
    clcpack_device_info *scratch;    /* load()'s, for a fingerprint not cached */
    int want_kernel;       /* keep the kernel build_and_check made */
    const char *kernel_name; /* the kernel build_and_check creates */
    cl_kernel kernel;      /* that kernel, when kept */
    const size_t *match;   /* entries with the key, ascending */
    size_t n_match;
    clcpack_load_report *report;
    uint32_t flags;        /* clcpack_load_options.flags */
    pk_text why;
    size_t rejected;       /* binaries the driver refused */
} load_ctx;

static const char *kind_label(clcpack_binary_kind k) { return clcpk_kind_name((uint32_t)k); }

/* The first lines of a build log, squeezed onto one line. */
static void build_log_excerpt(cl_program prog, cl_device_id dev, char *out, size_t cap)
{
    out[0] = '\0';
    size_t size = 0;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS ||
        size == 0)
        return;
    char *log = malloc(size + 1);
    if (!log)
        return;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, size, log, NULL) == CL_SUCCESS) {
        log[size] = '\0';
        size_t n = 0;
        int space = 1;
        for (const char *s = log; *s && n + 1 < cap; s++) {
            int ws = *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r';
            if (ws && space)
                continue;
            out[n++] = ws ? ' ' : *s;
            space = ws;
        }
        while (n && out[n - 1] == ' ')
            n--;
        out[n] = '\0';
    }
    free(log);
}

/* Builds prog for the device and checks the kernel is in it. Returns
 * CL_SUCCESS, or the failing call's code with its name in *what. */
static cl_int build_and_check(load_ctx *c, cl_program prog, const char *options, const char **what)
{
    cl_int rc = clBuildProgram(prog, 1, &c->dev, options, NULL, NULL);
    if (rc != CL_SUCCESS) {
        *what = "clBuildProgram";
        return rc;
    }
    cl_kernel k = clCreateKernel(prog, c->kernel_name, &rc);
    if (rc != CL_SUCCESS || !k) {
        if (k)
            clReleaseKernel(k);
        *what = "clCreateKernel";
        return rc != CL_SUCCESS ? rc : CL_INVALID_KERNEL_NAME;
    }
    if (c->want_kernel)
        c->kernel = k; /* the caller's: no second clCreateKernel */
    else
        clReleaseKernel(k);
    return CL_SUCCESS;
}

/* "cubin entry 5", "intel entry 3 (tgllp)": how the report names entry i. */
static void entry_label(const clcpack_entry_info *e, size_t i, char *buf, size_t cap)
{
    if (e->target[0])
        snprintf(buf, cap, "%s entry %zu (%s)", kind_label(e->kind), i, e->target);
    else
        snprintf(buf, cap, "%s entry %zu", kind_label(e->kind), i);
}

typedef cl_program(CL_API_CALL *create_with_il_fn)(cl_context, const void *, size_t, cl_int *);

/* clCreateProgramWithIL of the OpenCL library the application linked,
 * looked up when first needed: an ICD loader older than OpenCL 2.1 lacks
 * it, and the library must still load there. NULL when absent. */
static create_with_il_fn create_with_il(void)
{
    static _Atomic(create_with_il_fn) fn;
    static atomic_int looked;
    if (!atomic_load(&looked)) {
        /* A function pointer read through the object pointer the lookup
         * gives (POSIX and Win32 both require the two to convert). */
        void *sym = clcpk_os_cl_symbol("clCreateProgramWithIL");
        create_with_il_fn f;
        memcpy(&f, &sym, sizeof f);
        atomic_store(&fn, f);
        atomic_store(&looked, 1);
    }
    return atomic_load(&fn);
}

/* Hands entry i's verified bytes to the driver: a binary, or with il a
 * SPIR-V module (clCreateProgramWithIL). 1 and *out on success; 0 on a
 * miss, with the reason in the report. */
static int try_binary(load_ctx *c, size_t i, int il, cl_program *out)
{
    const clcpack_entry_info *e = &c->p->entries[i].info;
    char label[128];
    entry_label(e, i, label, sizeof label);
    create_with_il_fn with_il = NULL;
    if (il && !(with_il = create_with_il())) {
        clcpk_text_item(&c->why, "%s: the OpenCL library has no clCreateProgramWithIL", label);
        return 0;
    }
    clcpack_error derr;
    const uint8_t *view;
    uint8_t *bin;
    pk_decoded *held;
    if (clcpk_entry_view(c->p, i, &view, &bin, &held, &derr) != CLCPACK_OK) {
        clcpk_text_item(&c->why, "%s: unreadable: %s", label, derr.message);
        return 0;
    }
    size_t len = (size_t)e->raw_size;
    if (e->kind == CLCPACK_KIND_PTX && view[len - 1] != '\0') {
        /* PTX is stored without the NUL NVIDIA's CL_PROGRAM_BINARIES ends
         * with; give the text back the way the driver produced it. */
        uint8_t *grown = bin ? realloc(bin, len + 1) : malloc(len + 1);
        if (!grown) {
            free(bin);
            clcpk_decoded_release(c->p, held);
            clcpk_text_item(&c->why, "%s: out of memory", label);
            return 0;
        }
        if (!bin)
            memcpy(grown, view, len);
        view = bin = grown;
        bin[len++] = '\0';
    }
    char pocl[CLCPK_POCL_NOTE_MAX] = ""; /* of the bytes the driver gets */
    if (e->kind == CLCPACK_KIND_NATIVE)
        clcpk_pocl_note(e, view, len, pocl, sizeof pocl);
    c->report->attempts++;
    cl_int rc = CL_SUCCESS, bin_status = CL_SUCCESS;
    const unsigned char *ptr = view;
    cl_program prog =
        il ? with_il(c->ctx, view, len, &rc)
           : clCreateProgramWithBinary(c->ctx, 1, &c->dev, &len, &ptr, &bin_status, &rc);
    free(bin);
    clcpk_decoded_release(c->p, held);
    char code[CLCPK_CL_ERROR_MAX];
    const char *what_form = il ? "module" : "binary";
    if (rc != CL_SUCCESS || bin_status != CL_SUCCESS || !prog) {
        if (prog)
            clReleaseProgram(prog);
        c->rejected++;
        clcpk_text_item(&c->why, "%s: driver rejected the %s (%s)", label, what_form,
                     clcpk_cl_error_name(rc != CL_SUCCESS ? rc : bin_status, code, sizeof code));
        return 0;
    }
    const char *what = "";
    rc = build_and_check(c, prog, e->options, &what);
    if (rc != CL_SUCCESS) {
        clReleaseProgram(prog);
        c->rejected++;
        clcpk_text_item(&c->why, "%s: driver rejected the %s (%s: %s)", label, what_form, what,
                     clcpk_cl_error_name(rc, code, sizeof code));
        return 0;
    }
    clcpk_text_item(&c->why, "%s: %s", label, il ? "built" : "loaded");
    if (pocl[0])
        clcpk_text_item(&c->why, "%s", pocl);
    *out = prog;
    return 1;
}

static int try_native(load_ctx *c, cl_program *out)
{
    if (c->flags & CLCPACK_LOAD_NO_NATIVE) {
        clcpk_text_item(&c->why, "native binaries skipped (CLCPACK_LOAD_NO_NATIVE)");
        return 0;
    }
    for (size_t m = 0; m < c->n_match; m++) {
        size_t i = c->match[m];
        const clcpack_entry_info *e = &c->p->entries[i].info;
        if (e->kind != CLCPACK_KIND_NATIVE)
            continue;
        const clcpack_device_info *d = &c->p->devices[e->device];
        if (!clcpk_device_compatible(d, c->here)) {
            char diff[600];
            clcpk_device_difference(d, c->here, diff, sizeof diff);
            clcpk_text_item(&c->why, "native entry %zu: %s", i, diff);
            continue;
        }
        if (try_binary(c, i, 0, out)) {
            c->report->path = CLCPACK_PATH_NATIVE;
            c->report->entry = (uint32_t)i;
            return 1;
        }
    }
    return 0;
}

static int is_nvidia(const clcpack_device_info *d)
{
    return d->vendor_id == PK_NVIDIA_VENDOR_ID || d->nv_cc_major > 0;
}

/* NVIDIA: a cubin for exactly this compute capability, then PTX no newer
 * than it, newest first (the driver JIT-compiles PTX forward, not back). */
static int try_nvidia(load_ctx *c, cl_program *out)
{
    int nv = is_nvidia(c->here);
    uint32_t cc = c->here->nv_cc_major * 10 + c->here->nv_cc_minor;
    for (size_t m = 0; m < c->n_match; m++) {
        size_t i = c->match[m];
        const clcpack_entry_info *e = &c->p->entries[i].info;
        if (e->kind != CLCPACK_KIND_CUBIN)
            continue;
        if (c->flags & CLCPACK_LOAD_NO_CUBIN)
            clcpk_text_item(&c->why, "cubin entry %zu: skipped (CLCPACK_LOAD_NO_CUBIN)", i);
        else if (!nv)
            clcpk_text_item(&c->why, "cubin entry %zu: this is not an NVIDIA device", i);
        else if (e->arch != cc)
            clcpk_text_item(&c->why, "cubin entry %zu: sm_%u, this device is sm_%u", i, e->arch, cc);
        else if (try_binary(c, i, 0, out)) {
            c->report->path = CLCPACK_PATH_CUBIN;
            c->report->entry = (uint32_t)i;
            return 1;
        }
    }
    /* PTX usable here, highest arch first, then in entry order: c->match
     * is ascending, so an insertion sort on arch keeps that order. */
    size_t *ptx = malloc((c->n_match ? c->n_match : 1) * sizeof *ptx), n_ptx = 0;
    if (!ptx) {
        clcpk_text_item(&c->why, "ptx: out of memory");
        return 0;
    }
    int use_ptx = nv && !(c->flags & CLCPACK_LOAD_NO_PTX);
    for (size_t m = 0; m < c->n_match && use_ptx; m++) {
        size_t i = c->match[m];
        const clcpack_entry_info *e = &c->p->entries[i].info;
        if (e->kind != CLCPACK_KIND_PTX || e->arch > cc)
            continue;
        size_t k = n_ptx++;
        while (k > 0 && c->p->entries[ptx[k - 1]].info.arch < e->arch) {
            ptx[k] = ptx[k - 1];
            k--;
        }
        ptx[k] = i;
    }
    for (size_t k = 0; k < n_ptx; k++)
        if (try_binary(c, ptx[k], 0, out)) {
            c->report->path = CLCPACK_PATH_PTX;
            c->report->entry = (uint32_t)ptx[k];
            free(ptx);
            return 1;
        }
    free(ptx);
    for (size_t m = 0; m < c->n_match; m++) {
        size_t i = c->match[m];
        const clcpack_entry_info *e = &c->p->entries[i].info;
        if (e->kind != CLCPACK_KIND_PTX)
            continue;
        if (c->flags & CLCPACK_LOAD_NO_PTX)
            clcpk_text_item(&c->why, "ptx entry %zu: skipped (CLCPACK_LOAD_NO_PTX)", i);
        else if (!nv)
            clcpk_text_item(&c->why, "ptx entry %zu: this is not an NVIDIA device", i);
        else if (e->arch > cc)
            clcpk_text_item(&c->why, "ptx entry %zu: sm_%u is newer than this device's sm_%u", i,
                         e->arch, cc);
    }
    return 0;
}

static int is_gpu_of(const clcpack_device_info *d, uint32_t vendor)
{
    return d->vendor_id == vendor && (d->device_type & CL_DEVICE_TYPE_GPU);
}

/* Why no entry of an offline kind (3 or 4) can fit this device, or NULL
 * when its entries are to be looked at one by one. */
static const char *kind_mismatch(const load_ctx *c, clcpack_binary_kind kind, char *buf, size_t cap)
{
    const clcpack_device_info *here = c->here;
    pk_gfx have;
    if (c->flags & CLCPACK_LOAD_NO_TARGET)
        return "skipped (CLCPACK_LOAD_NO_TARGET)";
    if (kind == CLCPACK_KIND_INTEL) {
        if (!is_gpu_of(here, PK_INTEL_VENDOR_ID))
            return "this device is not an Intel GPU";
        if (!here->intel_ip_version)
            return "this Intel GPU reports no IP version (no cl_intel_device_attribute_query)";
        return NULL;
    }
    if (!is_gpu_of(here, PK_AMD_VENDOR_ID))
        return "this device is not an AMD GPU";
    if (clcpk_gfx_parse(here->device_name, 1, &have) != 0) {
        snprintf(buf, cap, "this device's name '%.64s' is not a gfx target ID", here->device_name);
        return buf;
    }
    return NULL;
}

/* Why an offline entry of a kind this device may take does not fit it,
 * or NULL when it does (docs/FORMAT.md, "Offline targets"). */
static const char *entry_mismatch(const clcpack_device_info *here, const clcpack_entry_info *e,
                                  char *buf, size_t cap)
{
    if (e->kind == CLCPACK_KIND_INTEL) {
        if (here->intel_ip_version == e->arch)
            return NULL;
        char v1[32], v2[32];
        clcpk_version_text(e->arch, v1, sizeof v1);
        clcpk_version_text(here->intel_ip_version, v2, sizeof v2);
        snprintf(buf, cap, "IP version %s, this device's is %s", v1, v2);
        return buf;
    }
    pk_gfx want, have;
    clcpk_gfx_from_arch(e->arch, &want);
    clcpk_gfx_parse(here->device_name, 1, &have);
    if (clcpk_gfx_fits(&want, &have))
        return NULL;
    snprintf(buf, cap, "this device is %.64s", here->device_name);
    return buf;
}

/* How many target features an entry's gfx target ID sets (0 to 2): among
 * the AMD entries that fit a device, one compiled for its very settings
 * (gfx90a:xnack+ on an xnack+ device) is tried before one for "any", whose
 * code is made to run either way (as ROCm's code object lookup prefers the
 * most specific target ID). 0 for the other kinds. */
static unsigned specificity(const clcpack_entry_info *e)
{
    if (e->kind != CLCPACK_KIND_AMDGCN)
        return 0;
    pk_gfx g;
    clcpk_gfx_from_arch(e->arch, &g);
    return (g.sramecc != PK_FEAT_ANY) + (g.xnack != PK_FEAT_ANY);
}

/* Intel and AMD GPUs: the offline binaries (kinds 3 and 4) of this
 * device's target, the most specific first, then in entry order. Never
 * one of another vendor. The entries of a kind this device cannot take at
 * all are named in one item (a pack may hold a dozen targets of each
 * vendor: one line each would crowd the rest of the report out). */
static int try_target(load_ctx *c, cl_program *out)
{
    static const clcpack_binary_kind kinds[2] = {CLCPACK_KIND_AMDGCN, CLCPACK_KIND_INTEL};
    const char *whole[2];
    char buf[2][160];
    for (int k = 0; k < 2; k++) {
        whole[k] = kind_mismatch(c, kinds[k], buf[k], sizeof buf[k]);
        size_t n = 0, first = 0, last = 0, one = 0;
        for (size_t m = 0; m < c->n_match && whole[k]; m++) {
            size_t i = c->match[m];
            if (c->p->entries[i].info.kind != kinds[k])
                continue;
            if (!n++)
                first = one = i;
            last = i;
        }
        char label[128];
        if (n == 1) {
            entry_label(&c->p->entries[one].info, one, label, sizeof label);
            clcpk_text_item(&c->why, "%s: %s", label, whole[k]);
        } else if (n > 1) {
            clcpk_text_item(&c->why, "%zu %s entries (%zu to %zu): %s", n,
                            kind_label(kinds[k]), first, last, whole[k]);
        }
    }
    if (whole[0] && whole[1])
        return 0;
    size_t *fit = malloc((c->n_match ? c->n_match : 1) * sizeof *fit), n_fit = 0;
    if (!fit) {
        clcpk_text_item(&c->why, "targets: out of memory");
        return 0;
    }
    for (size_t m = 0; m < c->n_match; m++) {
        size_t i = c->match[m];
        const clcpack_entry_info *e = &c->p->entries[i].info;
        int k = e->kind == CLCPACK_KIND_AMDGCN ? 0 : e->kind == CLCPACK_KIND_INTEL ? 1 : -1;
        if (k < 0 || whole[k])
            continue;
        char label[128], why[160];
        entry_label(e, i, label, sizeof label);
        if (entry_mismatch(c->here, e, why, sizeof why)) {
            clcpk_text_item(&c->why, "%s: %s", label, why);
            continue;
        }
        /* Insertion by specificity, stable: c->match is ascending. */
        size_t j = n_fit++;
        while (j > 0 && specificity(&c->p->entries[fit[j - 1]].info) < specificity(e)) {
            fit[j] = fit[j - 1];
            j--;
        }
        fit[j] = i;
    }
    int found = 0;
    for (size_t j = 0; j < n_fit && !found; j++)
        if (try_binary(c, fit[j], 0, out)) {
            c->report->path = CLCPACK_PATH_TARGET;
            c->report->entry = (uint32_t)fit[j];
            found = 1;
        }
    free(fit);
    return found;
}

/* The SPIR-V entries this device takes, newest version first (then in
 * entry order), into spv; the others are named in the report with why.
 * il is the device's CL_DEVICE_IL_VERSION ("" when it has none). */
static size_t usable_spirv(load_ctx *c, const char *il, size_t *spv)
{
    size_t n = 0;
    for (size_t m = 0; m < c->n_match; m++) {
        size_t i = c->match[m];
        const clcpack_entry_info *e = &c->p->entries[i].info;
        if (e->kind != CLCPACK_KIND_SPIRV)
            continue;
        char label[128];
        entry_label(e, i, label, sizeof label);
        unsigned bits = c->p->devices[e->device].address_bits;
        if (c->flags & (CLCPACK_LOAD_NO_SPIRV | CLCPACK_LOAD_NO_BINARY)) {
            clcpk_text_item(&c->why, "%s: skipped (%s)", label,
                            (c->flags & CLCPACK_LOAD_NO_SPIRV) ? "CLCPACK_LOAD_NO_SPIRV"
                                                               : "CLCPACK_LOAD_NO_BINARY");
        } else if (!il[0]) {
            clcpk_text_item(&c->why, "%s: this device takes no IL (CL_DEVICE_IL_VERSION)", label);
        } else if (!clcpk_il_takes(il, e->arch)) {
            clcpk_text_item(&c->why, "%s: this device takes %.128s", label, il);
        } else if (bits && bits != c->here->address_bits) {
            clcpk_text_item(&c->why, "%s: a %u-bit module, this device has %u-bit addresses",
                            label, bits, c->here->address_bits);
        } else {
            size_t k = n++;
            while (k > 0 && c->p->entries[spv[k - 1]].info.arch < e->arch) {
                spv[k] = spv[k - 1];
                k--;
            }
            spv[k] = i;
        }
    }
    return n;
}

/* CL_DEVICE_IL_VERSION into il ("" when the device has none: an OpenCL
 * 1.2 device answers the query with an error). */
static void device_il(cl_device_id dev, char *il, size_t cap)
{
    size_t n = 0;
    il[0] = '\0';
    if (clGetDeviceInfo(dev, CL_DEVICE_IL_VERSION, cap - 1, il, &n) != CL_SUCCESS || n >= cap)
        il[0] = '\0';
    il[cap - 1] = '\0';
}

/* The entry whose source to rebuild: one of an identical device if any
 * (its options were chosen for this device), else the first with a source. */
static size_t pick_source_entry(const load_ctx *c)
{
    size_t first = SIZE_MAX;
    for (size_t m = 0; m < c->n_match; m++) {
        const clcpack_entry_info *e = &c->p->entries[c->match[m]].info;
        if (e->source == CLCPACK_NONE)
            continue;
        if (clcpk_device_compatible(&c->p->devices[e->device], c->here))
            return c->match[m];
        if (first == SIZE_MAX)
            first = c->match[m];
    }
    return first;
}

static clcpack_status try_source(load_ctx *c, size_t i, cl_program *out, clcpack_error *err)
{
    const clcpack_entry_info *e = &c->p->entries[i].info;
    const char *name = c->p->sources[e->source].info.name;
    char keydesc[512], dev[600], code[CLCPK_CL_ERROR_MAX];
    clcpk_describe_entry_key(e, keydesc, sizeof keydesc);
    char *text;
    clcpack_error derr;
    clcpack_status st = clcpk_decode_source_alloc(c->p, e->source, &text, &derr);
    if (st != CLCPACK_OK) {
        clcpk_text_item(&c->why, "source (entry %zu, '%s'): unreadable", i, name);
        return clcpk_fail(err, st, "stored source of %s unreadable: %s", keydesc, derr.message);
    }
    const char *texts[1] = {text};
    size_t lens[1] = {(size_t)c->p->sources[e->source].info.raw_size};
    cl_int rc;
    cl_program prog = clCreateProgramWithSource(c->ctx, 1, texts, lens, &rc);
    free(text);
    clcpk_device_label(c->here, dev, sizeof dev);
    if (rc != CL_SUCCESS || !prog) {
        clcpk_text_item(&c->why, "source (entry %zu, '%s'): clCreateProgramWithSource failed (%s)", i,
                     name, clcpk_cl_error_name(rc, code, sizeof code));
        return clcpk_fail(err, CLCPACK_E_BUILD,
                       "stored source '%s' of %s: clCreateProgramWithSource failed on %s: %s", name,
                       keydesc, dev, clcpk_cl_error_name(rc, code, sizeof code));
    }
    const char *what = "";
    rc = build_and_check(c, prog, e->options, &what);
    if (rc != CL_SUCCESS) {
        char log[400];
        build_log_excerpt(prog, c->dev, log, sizeof log);
        clReleaseProgram(prog);
        clcpk_text_item(&c->why, "source (entry %zu, '%s'): %s failed (%s)", i, name, what,
                     clcpk_cl_error_name(rc, code, sizeof code));
        return clcpk_fail(err, CLCPACK_E_BUILD,
                       "stored source '%s' of %s failed to build on %s with options '%s': %s: %s%s%s",
                       name, keydesc, dev, e->options, what, clcpk_cl_error_name(rc, code, sizeof code),
                       log[0] ? ": " : "", log);
    }
    clcpk_text_item(&c->why, "source (entry %zu, '%s'): built", i, name);
    c->report->path = CLCPACK_PATH_SOURCE;
    c->report->entry = (uint32_t)i;
    *out = prog;
    return CLCPACK_OK;
}

/* The cached binary of source entry i, checked by clcpk_cache_read before
 * the driver sees it. 1 and *out on a hit; 0 on a miss, a refused file or
 * one the driver rejects (the report says which). */
static int try_cache(load_ctx *c, const pk_cache *cache, size_t i, cl_program *out)
{
    char why[256];
    size_t len = 0;
    uint8_t *bin = clcpk_cache_read(cache, &len, why, sizeof why);
    const char *file = strrchr(cache->path, '/') ? strrchr(cache->path, '/') + 1 : cache->path;
    if (!bin) {
        if (why[0])
            clcpk_text_item(&c->why, "cache: refused %s: %s", file, why);
        else
            clcpk_text_item(&c->why, "cache: miss");
        return 0;
    }
    c->report->attempts++;
    cl_int rc = CL_SUCCESS, bin_status = CL_SUCCESS;
    const unsigned char *ptr = bin;
    cl_program prog = clCreateProgramWithBinary(c->ctx, 1, &c->dev, &len, &ptr, &bin_status, &rc);
    free(bin);
    const char *what = "clCreateProgramWithBinary";
    if (rc == CL_SUCCESS && bin_status == CL_SUCCESS && prog)
        rc = build_and_check(c, prog, c->p->entries[i].info.options, &what);
    else if (rc == CL_SUCCESS)
        rc = bin_status != CL_SUCCESS ? bin_status : CL_INVALID_BINARY;
    if (rc != CL_SUCCESS) {
        char code[CLCPK_CL_ERROR_MAX];
        if (prog)
            clReleaseProgram(prog);
        c->rejected++;
        clcpk_text_item(&c->why, "cache: driver rejected %s (%s: %s)", file, what,
                        clcpk_cl_error_name(rc, code, sizeof code));
        return 0;
    }
    clcpk_text_item(&c->why, "cache: hit %s", file);
    c->report->path = CLCPACK_PATH_CACHE;
    c->report->entry = (uint32_t)i;
    *out = prog;
    return 1;
}

static void store_in_cache(load_ctx *c, const pk_cache *cache, cl_program prog)
{
    size_t len = 0;
    uint8_t *bin = clcpk_cache_program_binary(prog, &len);
    char why[600];
    if (!bin)
        clcpk_text_item(&c->why, "cache: not stored: the driver gave no binary");
    else if (clcpk_cache_store(cache, bin, len, why, sizeof why) != 0)
        clcpk_text_item(&c->why, "cache: not stored: %s", why);
    else
        clcpk_text_item(&c->why, "cache: stored");
    free(bin);
}

/* CLCPACK_E_NO_USABLE_FORM, naming the pack's devices for the key and this one. */
static clcpack_status no_usable_form(load_ctx *c, uint32_t flags, int has_source,
                                     clcpack_error *err)
{
    char msg[CLCPACK_MESSAGE_MAX], keydesc[512], label[600];
    pk_text t;
    clcpk_text_init(&t, msg, sizeof msg);
    clcpk_describe_key(c->key, keydesc, sizeof keydesc);
    clcpk_text_add(&t, "no usable form of %s: pack holds ", keydesc);
    if (flags & CLCPACK_LOAD_NO_BINARY) {
        clcpk_text_add(&t, "binaries (skipped: CLCPACK_LOAD_NO_BINARY)");
    } else {
        /* Each distinct (device, form) once: the form tells apart two
         * entries of one device name, e.g. a cubin for another sm. */
        clcpk_text_add(&t, "binaries for ");
        for (size_t m = 0, shown = 0; m < c->n_match; m++) {
            const clcpack_entry_info *e = &c->p->entries[c->match[m]].info;
            int seen = 0;
            for (size_t k = 0; k < m && !seen; k++) {
                const clcpack_entry_info *o = &c->p->entries[c->match[k]].info;
                seen = o->device == e->device && o->kind == e->kind && o->arch == e->arch;
            }
            if (seen)
                continue;
            clcpk_device_label(&c->p->devices[e->device], label, sizeof label);
            if (e->kind == CLCPACK_KIND_NATIVE)
                clcpk_text_add(&t, "%s%s", shown++ ? ", " : "", label);
            else if (e->target[0])
                clcpk_text_add(&t, "%s%s (%s %s)", shown++ ? ", " : "", label,
                               kind_label(e->kind), e->target);
            else
                clcpk_text_add(&t, "%s%s (%s sm_%u)", shown++ ? ", " : "", label,
                               kind_label(e->kind), e->arch);
        }
        clcpk_text_add(&t, " only");
        if (c->rejected)
            clcpk_text_add(&t, " (%zu rejected by the driver)", c->rejected);
    }
    if (!has_source)
        clcpk_text_add(&t, " and no source");
    else
        clcpk_text_add(&t, " and a source (not used: CLCPACK_LOAD_NO_SOURCE)");
    clcpk_device_label(c->here, label, sizeof label);
    clcpk_text_add(&t, "; this device is %s", label);
    if (is_nvidia(c->here))
        clcpk_text_add(&t, " (sm_%u)", c->here->nv_cc_major * 10 + c->here->nv_cc_minor);
    return clcpk_fail(err, CLCPACK_E_NO_USABLE_FORM, "%s", msg);
}

/* The longest match list kept on the stack; a key rarely has more than a
 * few forms per device. */
#define MATCH_STACK 32

/* The kernel c->key names, into c->kernel_name. A key names a kernel, or
 * a program entry by the program's name: the program is then checked with
 * its first kernel. One name in two programs is ambiguous: the program's
 * name says which. A program's name that is also the name of a kernel it
 * holds (sgemm.cl holding sgemm) names that kernel. */
static clcpack_status resolve_kernel_name(const char *api, load_ctx *c, int want_kernel,
                                          clcpack_error *err)
{
    const clcpack *p = c->p;
    const clcpack_key *key = c->key;
    const clcpack_entry_info *first = &p->entries[c->match[0]].info;
    c->kernel_name = key->kernel;
    for (size_t i = 1; i < c->n_match; i++)
        if (strcmp(p->entries[c->match[i]].info.kernel, first->kernel) != 0)
            return clcpk_fail(err, CLCPACK_E_INVALID_ARG,
                              "%s: kernel %s is in the programs %s and %s: name the program",
                              api, key->kernel, first->kernel,
                              p->entries[c->match[i]].info.kernel);
    int names_a_kernel = 0;
    for (size_t k = 0; k < first->kernel_name_count; k++)
        names_a_kernel |= strcmp(first->kernel_names[k], key->kernel) == 0;
    if (first->kernel_name_count && strcmp(key->kernel, first->kernel) == 0 && !names_a_kernel) {
        if (want_kernel)
            return clcpk_fail(err, CLCPACK_E_INVALID_ARG,
                              "%s: %s is a program of %zu kernels (the first is %s): name the "
                              "kernel to create",
                              api, key->kernel, first->kernel_name_count,
                              first->kernel_names[0]);
        c->kernel_name = first->kernel_names[0];
    }
    return CLCPACK_OK;
}

/* 1 when every entry with the key is a cubin or PTX: choosing among them
 * needs only the device's NVIDIA identity, not its whole fingerprint. */
static int nvidia_forms_only(const load_ctx *c)
{
    for (size_t m = 0; m < c->n_match; m++) {
        clcpack_binary_kind k = c->p->entries[c->match[m]].info.kind;
        if (k != CLCPACK_KIND_CUBIN && k != CLCPACK_KIND_PTX)
            return 0;
    }
    return 1;
}

/* c->here: the cached fingerprint; else, when the entries are NVIDIA's
 * forms alone, the device's NVIDIA identity (3 driver calls: at a cold
 * start the whole fingerprint cost 0.04 ms of a 2.1 ms cubin load on an
 * H100, CL_DEVICE_NAME alone 0.025 ms), completed by here_whole when a
 * source must be built; else the whole fingerprint. */
static clcpack_status fingerprint(load_ctx *c, clcpack_error *err)
{
    if ((c->here = clcpk_device_cached(c->p, c->dev)) != NULL)
        return CLCPACK_OK;
    if (!(c->flags & CLCPACK_LOAD_NO_BINARY) && nvidia_forms_only(c) &&
        clcpk_device_nvidia_identity(c->dev, c->scratch)) {
        c->here = c->scratch;
        c->partial = 1;
        return CLCPACK_OK;
    }
    return clcpk_device_fingerprint(c->p, c->dev, c->scratch, &c->here, err);
}

/* c->here whole, where fingerprint() took the NVIDIA identity alone. */
static clcpack_status here_whole(load_ctx *c, clcpack_error *err)
{
    if (!c->partial)
        return CLCPACK_OK;
    c->partial = 0;
    return clcpk_device_fingerprint(c->p, c->dev, c->scratch, &c->here, err);
}

/* After no binary loaded: what builds for this device, SPIR-V, then the
 * source; the rebuild cache may hold what either built here before. These
 * compare and name the whole fingerprint. */
static clcpack_status build_here(load_ctx *c, cl_program *out, clcpack_error *err)
{
    clcpack_status whole = here_whole(c, err);
    if (whole != CLCPACK_OK)
        return whole;
    const clcpack *p = c->p;
    const size_t *match = c->match;
    size_t n = c->n_match;
    uint32_t flags = c->flags;
    clcpack_status st = CLCPACK_OK;
    int found = 0;
    size_t src = pick_source_entry(c), n_spv = 0;
    size_t spv_stack[MATCH_STACK], *spv = spv_stack;
    int has_spirv = 0;
    for (size_t m = 0; m < n; m++)
        has_spirv |= p->entries[match[m]].info.kind == CLCPACK_KIND_SPIRV;
    if (has_spirv) {
        char il[CLCPACK_FP_STR];
        device_il(c->dev, il, sizeof il);
        if (n > MATCH_STACK && !(spv = malloc(n * sizeof *spv))) {
            spv = spv_stack;
            clcpk_text_item(&c->why, "spirv: out of memory");
        } else {
            n_spv = usable_spirv(c, il, spv);
        }
    }
    int use_src = src != SIZE_MAX && !(flags & CLCPACK_LOAD_NO_SOURCE);
    pk_cache cache_spv, cache_src;
    int cached_spv = 0, cached_src = 0;
    char why1[128] = "", why2[128] = "";
    if (n_spv)
        cached_spv = clcpk_cache_begin(&cache_spv, p, spv[0], c->here, flags, why1, sizeof why1);
    if (use_src)
        cached_src = clcpk_cache_begin(&cache_src, p, src, c->here, flags, why2, sizeof why2);
    if (!cached_spv && !cached_src && (why1[0] || why2[0]))
        clcpk_text_item(&c->why, "cache: off: %s", why1[0] ? why1 : why2);
    if ((cached_spv && try_cache(c, &cache_spv, spv[0], out)) ||
        (cached_src && try_cache(c, &cache_src, src, out))) {
        found = 1;
    } else {
        for (size_t k = 0; k < n_spv && !found; k++)
            if (try_binary(c, spv[k], 1, out)) {
                found = 1;
                c->report->path = CLCPACK_PATH_SPIRV;
                c->report->entry = (uint32_t)spv[k];
                if (k == 0 && cached_spv)
                    store_in_cache(c, &cache_spv, *out);
            }
    }
    if (found) {
        /* loaded */
    } else if (src == SIZE_MAX) {
        clcpk_text_item(&c->why, "source: none stored");
        st = no_usable_form(c, flags, 0, err);
    } else if (flags & CLCPACK_LOAD_NO_SOURCE) {
        clcpk_text_item(&c->why, "source: not tried (CLCPACK_LOAD_NO_SOURCE)");
        st = no_usable_form(c, flags, 1, err);
    } else {
        st = try_source(c, src, out, err);
        if (st == CLCPACK_OK && cached_src)
            store_in_cache(c, &cache_src, *out);
    }
    if (cached_spv)
        clcpk_cache_end(&cache_spv);
    if (cached_src)
        clcpk_cache_end(&cache_src);
    if (spv != spv_stack)
        free(spv);
    return st;
}

/* clcpack_create_program and clcpack_create_kernel: kernel_out NULL for
 * the first. `api` names the caller in argument errors. report is the
 * library's full struct (report_out copies it to the caller's). */
static clcpack_status load(const char *api, const clcpack *p, const clcpack_key *key,
                           cl_context ctx, cl_device_id dev, const clcpack_load_options *opts,
                           cl_program *out, cl_kernel *kernel_out, clcpack_load_report *report,
                           clcpack_error *err)
{
    report->path = CLCPACK_PATH_NONE;
    report->entry = CLCPACK_NONE;
    report->attempts = 0;
    report->why[0] = '\0';
    if (out)
        *out = NULL;
    if (kernel_out)
        *kernel_out = NULL;
    if (!p || !ctx || !dev || !out)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "%s: %s is NULL", api,
                       !p ? "pack" : !ctx ? "context" : !dev ? "device" : "out");
    if (opts && opts->struct_size < offsetof(clcpack_load_options, flags) + sizeof opts->flags)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "%s: opts->struct_size %zu is too small",
                       api, opts->struct_size);
    uint32_t flags = opts ? opts->flags : 0;

    load_ctx c = {0};
    c.p = p;
    c.key = key;
    c.ctx = ctx;
    c.dev = dev;
    c.report = report;
    c.flags = flags;
    c.want_kernel = kernel_out != NULL;
    clcpk_text_init(&c.why, report->why, sizeof report->why);

    size_t n = 0, on_stack[MATCH_STACK], *match = on_stack;
    clcpack_status st = clcpack_find(p, key, on_stack, MATCH_STACK, &n, err);
    if (st != CLCPACK_OK)
        return st;
    if (n > MATCH_STACK) {
        if (!(match = malloc(n * sizeof *match)))
            return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory");
        clcpack_find(p, key, match, n, &n, NULL);
    }
    c.match = match;
    c.n_match = n;
    if ((st = resolve_kernel_name(api, &c, kernel_out != NULL, err)) != CLCPACK_OK) {
        if (match != on_stack)
            free(match);
        return st;
    }
    clcpack_device_info scratch;
    c.scratch = &scratch;
    if ((st = fingerprint(&c, err)) != CLCPACK_OK) {
        if (match != on_stack)
            free(match);
        return st;
    }

    int found = 0;
    if (flags & CLCPACK_LOAD_NO_BINARY)
        clcpk_text_item(&c.why, "binaries skipped (CLCPACK_LOAD_NO_BINARY)");
    else
        found = try_native(&c, out) || try_nvidia(&c, out) || try_target(&c, out);

    st = found ? CLCPACK_OK : build_here(&c, out, err);
    if (kernel_out)
        *kernel_out = st == CLCPACK_OK ? c.kernel : NULL;
    if (match != on_stack)
        free(match);
    return st;
}

/* load() with the caller's report (NULL, or versioned by struct_size). */
static clcpack_status load_reported(const char *api, const clcpack *p, const clcpack_key *key,
                                    cl_context ctx, cl_device_id dev,
                                    const clcpack_load_options *opts, cl_program *out,
                                    cl_kernel *kernel_out, clcpack_load_report *report,
                                    clcpack_error *err)
{
    if (report && !clcpk_size_ok(report, CLCPK_LOAD_REPORT_1_0)) {
        if (out)
            *out = NULL;
        if (kernel_out)
            *kernel_out = NULL;
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG,
                          "%s: report->struct_size %zu is too small (set it to "
                          "sizeof(clcpack_load_report))",
                          api, report->struct_size);
    }
    clcpack_load_report full;
    full.struct_size = sizeof full;
    clcpack_status st = load(api, p, key, ctx, dev, opts, out, kernel_out, &full, err);
    if (report)
        clcpk_copy_out(report, &full, sizeof full);
    return st;
}

clcpack_status clcpack_create_program(const clcpack *p, const clcpack_key *key, cl_context ctx,
                                      cl_device_id dev, const clcpack_load_options *opts,
                                      cl_program *out, clcpack_load_report *report,
                                      clcpack_error *err)
{
    return load_reported("clcpack_create_program", p, key, ctx, dev, opts, out, NULL, report,
                         err);
}

clcpack_status clcpack_create_kernel(const clcpack *p, const clcpack_key *key, cl_context ctx,
                                     cl_device_id dev, const clcpack_load_options *opts,
                                     cl_program *program, cl_kernel *kernel,
                                     clcpack_load_report *report, clcpack_error *err)
{
    if (!kernel) {
        if (program)
            *program = NULL;
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_create_kernel: kernel is NULL");
    }
    return load_reported("clcpack_create_kernel", p, key, ctx, dev, opts, program, kernel, report,
                         err);
}
