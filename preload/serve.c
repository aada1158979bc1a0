/* serve.c — programs made from the pack's binaries (preload.h,
 * docs/RECORD.md "Replay"). A hash hit is never enough: the stored source
 * (or link description) and the normalized options are compared with the
 * application's byte for byte before a binary reaches the driver, and the
 * reader checks the binary's CRC-32. */
#include "preload.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t pack_once = PTHREAD_ONCE_INIT;
static clcpack *pack;
static char pack_error[CLCPACK_MESSAGE_MAX + 64];

/* A reason about the pack, naming it once: "PACK: MESSAGE", or the message
 * alone when it names the pack already (the library's messages about a
 * file it cannot read do). -1. */
static int pack_why(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int pack_why(char *why, size_t cap, const char *fmt, ...)
{
    char msg[WHY_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (strstr(msg, interposer_cfg.pack_path))
        interposer_why(why, cap, "%s", msg);
    else
        interposer_why(why, cap, "%s: %s", interposer_cfg.pack_path, msg);
    return -1;
}

static void open_pack(void)
{
    clcpack_error err;
    if (clcpack_open_file(interposer_cfg.pack_path, &pack, &err) != CLCPACK_OK) {
        pack = NULL;
        if (strstr(err.message, interposer_cfg.pack_path))
            snprintf(pack_error, sizeof pack_error, "cannot open the pack: %s", err.message);
        else
            snprintf(pack_error, sizeof pack_error, "cannot open pack %s: %s",
                     interposer_cfg.pack_path, err.message);
    }
}

static clcpack *the_pack(char *why, size_t cap)
{
    pthread_once(&pack_once, open_pack);
    if (!pack)
        interposer_why(why, cap, "%s", pack_error);
    return pack;
}

/* The entry among idx[0..n) to load on `here`: a native binary of a
 * compatible device, else (NVIDIA) a cubin for its compute capability,
 * else PTX for at most it. CLCPACK_NONE (with why) when none. */
static uint32_t pick_entry(const size_t *idx, size_t n, const clcpack_device_info *here,
                           char *why, size_t cap)
{
    uint32_t cc = here->nv_cc_major * 10 + here->nv_cc_minor, best_ptx = CLCPACK_NONE,
             best_arch = 0, cubin = CLCPACK_NONE;
    clcpack_device_info first = {.struct_size = sizeof first};
    int have_first = 0;
    for (size_t i = 0; i < n; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        clcpack_device_info d = {.struct_size = sizeof d};
        if (clcpack_get_entry(pack, idx[i], &e) != CLCPACK_OK ||
            clcpack_get_device(pack, e.device, &d) != CLCPACK_OK)
            continue;
        if (e.kind == CLCPACK_KIND_NATIVE) {
            if (clcpack_device_binary_compatible(&d, here))
                return (uint32_t)idx[i];
            if (!have_first) {
                first = d;
                have_first = 1;
            }
        } else if (cc && e.kind == CLCPACK_KIND_CUBIN && e.arch == cc) {
            cubin = (uint32_t)idx[i];
        } else if (cc && e.kind == CLCPACK_KIND_PTX && e.arch <= cc && e.arch >= best_arch) {
            if (best_ptx == CLCPACK_NONE || e.arch > best_arch)
                best_ptx = (uint32_t)idx[i];
            best_arch = e.arch;
        }
    }
    if (cubin != CLCPACK_NONE)
        return cubin;
    if (best_ptx != CLCPACK_NONE)
        return best_ptx;
    if (have_first) {
        char diff[256];
        clcpack_device_describe_difference(&first, here, diff, sizeof diff);
        interposer_why(why, cap, "%s has no binary for device %s: %s", interposer_cfg.pack_path,
                       here->device_name, diff);
    } else {
        interposer_why(why, cap, "%s has no binary for device %s", interposer_cfg.pack_path,
                       here->device_name);
    }
    return CLCPACK_NONE;
}

/* A failed read of entry e, the library's reason once: its messages
 * already begin "entry N (...)", so they are not prefixed again. -1. */
static int read_failed(uint32_t e, const clcpack_error *err, char *why, size_t cap)
{
    char own[32];
    snprintf(own, sizeof own, "entry %u ", (unsigned)e);
    if (strncmp(err->message, own, strlen(own)) == 0)
        return pack_why(why, cap, "%s", err->message);
    return pack_why(why, cap, "entry %u: %s", (unsigned)e, err->message);
}

/* Checks that entry e was recorded from exactly these source bytes (a
 * build's source, a link's description) and these normalized options, and
 * reads its binary (CRC-checked). */
static int check_and_read(uint32_t e, const void *src, size_t size, const char *norm,
                          unsigned char **bin, size_t *bin_size, char *why, size_t cap)
{
    clcpack_entry_info info = {.struct_size = sizeof info};
    clcpack_error err;
    if (clcpack_get_entry(pack, e, &info) != CLCPACK_OK || info.source == CLCPACK_NONE)
        return pack_why(why, cap, "entry %u has no source to compare", (unsigned)e);
    size_t n = 0;
    if (clcpack_read_source(pack, info.source, NULL, 0, &n, &err) != CLCPACK_OK)
        return pack_why(why, cap, "entry %u: %s", (unsigned)e, err.message);
    if (n != size)
        return pack_why(why, cap, "entry %u: key matches but the source differs", (unsigned)e);
    char *stored = malloc(n ? n : 1);
    if (!stored)
        return interposer_why(why, cap, "out of memory"), -1;
    int same = clcpack_read_source(pack, info.source, stored, n, &n, &err) == CLCPACK_OK &&
               memcmp(stored, src, size) == 0;
    free(stored);
    if (!same)
        return pack_why(why, cap, "entry %u: source unreadable or different", (unsigned)e);
    char *stored_norm = NULL, **dirs = NULL;
    size_t n_dirs = 0;
    if (rk_normalize(info.options, &stored_norm, &dirs, &n_dirs) != 0)
        return interposer_why(why, cap, "out of memory"), -1;
    same = strcmp(stored_norm, norm) == 0;
    free(stored_norm);
    rk_free_dirs(dirs, n_dirs);
    if (!same)
        return pack_why(why, cap, "entry %u: key matches but the options differ", (unsigned)e);
    if (clcpack_read_binary(pack, e, NULL, 0, bin_size, &err) != CLCPACK_OK)
        return read_failed(e, &err, why, cap);
    if (!*bin_size)
        return pack_why(why, cap, "entry %u: an empty binary", (unsigned)e);
    if (!(*bin = malloc(*bin_size)))
        return interposer_why(why, cap, "out of memory"), -1;
    if (clcpack_read_binary(pack, e, *bin, *bin_size, bin_size, &err) != CLCPACK_OK) {
        free(*bin);
        *bin = NULL;
        return read_failed(e, &err, why, cap);
    }
    return 0;
}

/* Why the pack has no entry of key, for source or link description src.
 * The nearest entry is looked for only when the reason is printed
 * (CLCPACK_LOG): it reads every recorded text of the pack, work a silent
 * run need not do. */
static void miss(const char *key, const void *src, size_t size, const char *norm, char *why,
                 size_t cap)
{
    int link = strncmp(key, RK_LINK_PREFIX, strlen(RK_LINK_PREFIX)) == 0;
    if (!interposer_cfg.log)
        interposer_why(why, cap, "%s has no entry for this %s", interposer_cfg.pack_path,
                       link ? "link" : "build");
    else if (link)
        miss_reason_link(pack, interposer_cfg.pack_path, src, size, norm, why, cap);
    else
        miss_reason_build(pack, interposer_cfg.pack_path, src, size, norm, why, cap);
}

/* For each of devs[0..n): the entry of key for it, checked against src and
 * options, its binary read into bins/sizes. 0, or -1 with why. */
static int read_for_devices(const char *key, cl_uint n, const cl_device_id *devs,
                            const void *src, size_t size, const char *options,
                            unsigned char **bins, size_t *sizes, char *why, size_t cap)
{
    clcpack_key k = {key, NULL, 0, {0, 0, 0}};
    size_t idx[256], count = 0;
    clcpack_error ferr;
    char *norm = NULL, **dirs = NULL;
    size_t n_dirs = 0;
    if (rk_normalize(options, &norm, &dirs, &n_dirs) != 0)
        return interposer_why(why, cap, "out of memory"), -1;
    rk_free_dirs(dirs, n_dirs);
    clcpack_status st = clcpack_find(pack, &k, idx, sizeof idx / sizeof idx[0], &count, &ferr);
    /* Only a key the pack lacks is "no entry": a damaged lookup table or a
     * pack cut short while the application runs says so, in the library's
     * words. */
    if (st != CLCPACK_OK) {
        if (st == CLCPACK_E_NOT_FOUND)
            miss(key, src, size, norm, why, cap);
        else
            pack_why(why, cap, "%s", ferr.message);
        free(norm);
        return -1;
    }
    if (count > sizeof idx / sizeof idx[0])
        count = sizeof idx / sizeof idx[0];
    int rc = 0;
    for (cl_uint i = 0; rc == 0 && i < n; i++) {
        clcpack_device_info here = {.struct_size = sizeof here};
        clcpack_error err;
        if (clcpack_device_query(devs[i], &here, &err) != CLCPACK_OK) {
            interposer_why(why, cap, "device fingerprint: %s", err.message);
            rc = -1;
            break;
        }
        uint32_t e = pick_entry(idx, count, &here, why, cap);
        if (e == CLCPACK_NONE ||
            check_and_read(e, src, size, norm, &bins[i], &sizes[i], why, cap) != 0)
            rc = -1;
    }
    free(norm);
    return rc;
}

/* A program for ctx and devs[0..n) from bins, built with options: the
 * program, or NULL with why. */
static cl_program from_binaries(cl_context ctx, cl_uint n, const cl_device_id *devs,
                                unsigned char **bins, const size_t *sizes, const char *options,
                                char *why, size_t cap)
{
    cl_int status[MAX_DEVICES], err_code = CL_SUCCESS;
    cl_program q = DRV(clCreateProgramWithBinary, ctx)(
        ctx, n, devs, sizes, (const unsigned char **)bins, status, &err_code);
    if (!q) {
        interposer_why(why, cap, "the driver refused the binary (error %d)", (int)err_code);
        return NULL;
    }
    cl_int b = DRV(clBuildProgram, q)(q, n, devs, options, NULL, NULL);
    if (b != CL_SUCCESS) {
        DRV(clReleaseProgram, q)(q);
        interposer_why(why, cap, "building the pack's binary failed (error %d)", (int)b);
        return NULL;
    }
    return q;
}

int serve_build(cl_program app, cl_uint nd, const cl_device_id *list, const char *options,
                const char *src, size_t size, const char *key, cl_program *out, char *why,
                size_t cap)
{
    if (!the_pack(why, cap))
        return -1;
    /* The driver's own copy of the source must be what was kept for this
     * handle: a handle the driver reused for a program made some way this
     * library does not see is never served. */
    size_t n_src = 0;
    char *real_src = NULL;
    int same_src = DRV(clGetProgramInfo, app)(app, CL_PROGRAM_SOURCE, 0, NULL, &n_src) ==
                       CL_SUCCESS &&
                   (n_src == size + 1 || n_src == size) && (real_src = malloc(n_src + 1)) &&
                   DRV(clGetProgramInfo, app)(app, CL_PROGRAM_SOURCE, n_src, real_src, NULL) ==
                       CL_SUCCESS &&
                   memcmp(real_src, src, size) == 0;
    free(real_src);
    if (!same_src)
        return interposer_why(why, cap, "the program's CL_PROGRAM_SOURCE is not the source it was "
                                "created with"),
               -1;
    cl_device_id devs[MAX_DEVICES];
    cl_uint n = 0;
    cl_context ctx = NULL;
    if (interposer_program_devices(app, 0, NULL, devs, &n) != 0 ||
        DRV(clGetProgramInfo, app)(app, CL_PROGRAM_CONTEXT, sizeof ctx, &ctx, NULL) !=
            CL_SUCCESS)
        return interposer_why(why, cap, "cannot query the program's devices and context"), -1;
    /* The served program answers for the application's: it has the same
     * devices in the same order, so a build for some of them only passes. */
    if (nd && list) {
        int covers = nd == n;
        for (cl_uint i = 0; covers && i < nd; i++) {
            cl_uint k = 0;
            while (k < n && devs[k] != list[i])
                k++;
            covers = k < n;
        }
        if (!covers)
            return interposer_why(why, cap, "the build is for some of the program's devices only"), -1;
    }
    unsigned char *bins[MAX_DEVICES] = {0};
    size_t sizes[MAX_DEVICES] = {0};
    int rc = -1;
    /* The stored source is the recorded program's text (rk_canonical_size):
     * the application's is compared as the key saw it. */
    if (read_for_devices(key, n, devs, src, rk_canonical_size(src, size), options, bins, sizes,
                         why, cap) == 0 &&
        (*out = from_binaries(ctx, n, devs, bins, sizes, options, why, cap)) != NULL)
        rc = 0;
    for (cl_uint i = 0; i < n; i++)
        free(bins[i]);
    return rc;
}

cl_program serve_link(cl_context ctx, cl_uint nd, const cl_device_id *list, const char *options,
                      const unsigned char *desc, size_t desc_size, const char *key, char *why,
                      size_t cap)
{
    if (!the_pack(why, cap))
        return NULL;
    cl_device_id devs[MAX_DEVICES];
    cl_uint n = 0;
    if (nd && list) {
        if (nd > MAX_DEVICES)
            return interposer_why(why, cap, "too many devices"), NULL;
        memcpy(devs, list, nd * sizeof *list);
        n = nd;
    } else {
        size_t bytes = 0;
        if (!ctx || DRV(clGetContextInfo, ctx)(ctx, CL_CONTEXT_DEVICES, 0, NULL, &bytes) !=
                        CL_SUCCESS ||
            bytes == 0 || bytes > sizeof devs ||
            DRV(clGetContextInfo, ctx)(ctx, CL_CONTEXT_DEVICES, bytes, devs, NULL) != CL_SUCCESS)
            return interposer_why(why, cap, "cannot query the context's devices"), NULL;
        n = (cl_uint)(bytes / sizeof devs[0]);
    }
    unsigned char *bins[MAX_DEVICES] = {0};
    size_t sizes[MAX_DEVICES] = {0};
    cl_program q = NULL;
    if (read_for_devices(key, n, devs, desc, desc_size, options, bins, sizes, why, cap) == 0)
        q = from_binaries(ctx, n, devs, bins, sizes, options, why, cap);
    for (cl_uint i = 0; i < n; i++)
        free(bins[i]);
    return q;
}

/* ---------------------------------------------------------------------- */
/* The compile keys of the pack's links                                    */

typedef struct input_ref {
    char key[CAPTURE_KEY_MAX];
    size_t entry;
} input_ref;

static pthread_once_t inputs_once = PTHREAD_ONCE_INIT;
static input_ref *inputs;
static size_t n_inputs;

typedef struct collect {
    size_t entry;
    size_t cap;
} collect;

static int add_input(const char *key, void *user)
{
    collect *c = user;
    if (n_inputs == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        input_ref *more = realloc(inputs, cap * sizeof *more);
        if (!more)
            return 1;
        inputs = more;
        c->cap = cap;
    }
    snprintf(inputs[n_inputs].key, sizeof inputs[0].key, "%s", key);
    inputs[n_inputs++].entry = c->entry;
    return 0;
}

/* Reads once the description of every link entry of the pack. */
static void index_inputs(void)
{
    char why[256];
    if (!the_pack(why, sizeof why))
        return;
    collect c = {0, 0};
    size_t prefix = strlen(CAPTURE_LINK_PREFIX);
    for (size_t i = 0; i < clcpack_entry_count(pack); i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        size_t n = 0;
        if (clcpack_get_entry(pack, i, &e) != CLCPACK_OK || e.source == CLCPACK_NONE ||
            strncmp(e.kernel, CAPTURE_LINK_PREFIX, prefix) != 0 ||
            clcpack_read_source(pack, e.source, NULL, 0, &n, NULL) != CLCPACK_OK)
            continue;
        unsigned char *desc = malloc(n ? n : 1);
        if (desc && clcpack_read_source(pack, e.source, desc, n, &n, NULL) == CLCPACK_OK) {
            c.entry = i;
            link_desc_each_key(desc, n, add_input, &c);
        }
        free(desc);
    }
}

int serve_knows_compile(const char *compile_key, cl_uint n, const cl_device_id *devs)
{
    char why[WHY_MAX];
    if (!the_pack(why, sizeof why))
        return 0;
    pthread_once(&inputs_once, index_inputs);
    size_t idx[256], count = 0;
    for (size_t i = 0; i < n_inputs && count < sizeof idx / sizeof idx[0]; i++)
        if (strcmp(inputs[i].key, compile_key) == 0)
            idx[count++] = inputs[i].entry;
    if (!count || !n)
        return 0;
    for (cl_uint d = 0; d < n; d++) {
        clcpack_device_info here = {.struct_size = sizeof here};
        if (clcpack_device_query(devs[d], &here, NULL) != CLCPACK_OK ||
            pick_entry(idx, count, &here, why, sizeof why) == CLCPACK_NONE)
            return 0;
    }
    return 1;
}
