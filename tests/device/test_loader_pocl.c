/*
 * test_loader_pocl.c — clcpack_create_program on a real OpenCL device (PoCL
 * on a machine without a GPU): the native path, and every fallback the
 * issue names, each checked by running the program it returns against a
 * double-precision reference on random data with a NaN-poisoned output.
 *
 *  - native binaries of this device load as native and compute right;
 *  - a fingerprint with another driver version loads through the source,
 *    and the report says "driver version differs";
 *  - a binary the driver rejects (bytes without PoCL's header, stored with
 *    a correct CRC: PoCL answers CL_INVALID_BINARY, checked in a child
 *    process first since PoCL crashes on some other damage) falls back;
 *  - a damaged payload is caught by the CRC before the driver sees it;
 *  - a pack without sources, built for another device, is refused naming
 *    both devices;
 *  - the load flags, a missing key, a stored source that fails to build;
 *  - clcpack_create_kernel hands over the kernel the load made, and the
 *    device is queried on the first load of an open pack only (a shim
 *    counts the library's clGetDeviceInfo/clGetPlatformInfo calls);
 *  - on an NVIDIA device (the shim plays one), a key held as cubins and
 *    PTX alone is chosen with 3 queries, not the whole fingerprint, which
 *    a source build still takes;
 *  - 8 threads loading from one handle at once.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "cl_device.h"
#include "conv_check.h"
#include "clcpack_write.h"

static const char TEST_SOURCE[] =
    "/* test_conv.cl: FILTER_WIDTH x FILTER_WIDTH convolution, top-left form */\n"
    "__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))\n"
    "void conv(const __global float *in, __constant float *filt, __global float *out,\n"
    "          const int in_w)\n"
    "{\n"
    "    const int x = get_global_id(0), y = get_global_id(1);\n"
    "    float sum = 0.0f;\n"
    "    for (int r = 0; r < FILTER_WIDTH; r++)\n"
    "        for (int c = 0; c < FILTER_WIDTH; c++)\n"
    "            sum += filt[r * FILTER_WIDTH + c] * in[(y + r) * in_w + x + c];\n"
    "    out[y * get_global_size(0) + x] = sum;\n"
    "}\n";

#define WG 8
#define OUT_W 32
#define OUT_H 16
#define N_WIDTHS 3
static const int widths[N_WIDTHS] = {3, 5, 7};

static cl_context ctx;
static cl_device_id dev;
static clcpack_device_info here = {.struct_size = sizeof here};

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

/* ------------------------------------------------------------------ */
/* A shim that counts device and platform queries while armed. The real
 * functions are looked up before any thread starts, so threads only read. */

static int query_shim_armed;
static unsigned long query_calls;
static int shim_nvidia;           /* armed: answer as an sm_90 NVIDIA device */
static unsigned long name_calls;  /* armed: CL_DEVICE_NAME queries */
typedef cl_int(CL_API_CALL *info_fn)(void *, cl_uint, size_t, void *, size_t *);
static info_fn real_device_info, real_platform_info;

static void query_shim_init(void)
{
    *(void **)&real_device_info = dlsym(RTLD_NEXT, "clGetDeviceInfo");
    *(void **)&real_platform_info = dlsym(RTLD_NEXT, "clGetPlatformInfo");
}

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceInfo(cl_device_id d, cl_device_info param, size_t size,
                                                void *value, size_t *size_ret)
{
    if (query_shim_armed) { /* only a read in the threads' test */
        query_calls++;
        name_calls += param == CL_DEVICE_NAME;
        cl_uint nv = param == CL_DEVICE_VENDOR_ID ? 0x10DE : param == 0x4000 ? 9 : 0;
        if (shim_nvidia && (param == CL_DEVICE_VENDOR_ID || param == 0x4000 || param == 0x4001)) {
            if (value && size >= sizeof nv)
                memcpy(value, &nv, sizeof nv);
            if (size_ret)
                *size_ret = sizeof nv;
            return value && size < sizeof nv ? CL_INVALID_VALUE : CL_SUCCESS;
        }
    }
    if (!real_device_info)
        return CL_INVALID_DEVICE;
    return real_device_info(d, param, size, value, size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id pl, cl_platform_info param,
                                                  size_t size, void *value, size_t *size_ret)
{
    if (query_shim_armed) /* only a read in the threads' test */
        query_calls++;
    if (!real_platform_info)
        return CL_INVALID_PLATFORM;
    return real_platform_info(pl, param, size, value, size_ret);
}

static void options_for(int width, char *buf, size_t cap)
{
    snprintf(buf, cap, "-cl-std=CL1.2 -DFILTER_WIDTH=%d -DWG_X=%d -DWG_Y=%d", width, WG, WG);
}

static int result_ok(cl_program prog, int fw, const char *what)
{
    char why[256] = "";
    double err = test_conv_check(ctx, dev, prog, "conv", fw, OUT_W, OUT_H, WG, rng_state++, why, sizeof why);
    return CHECK(err >= 0 && err < 1e-5, "%s: width %d computes right (max rel error %g%s%s)", what,
                 fw, err, why[0] ? ", " : "", why);
}

/* Builds the test source at a width, runs it once at its local size (so
 * PoCL puts the work-group function in the binary) and takes the binary. */
static unsigned char *build_binary(int fw, size_t *size)
{
    const char *src = TEST_SOURCE;
    cl_int rc;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &rc);
    char opts[128];
    options_for(fw, opts, sizeof opts);
    if (rc != CL_SUCCESS || clBuildProgram(prog, 1, &dev, opts, NULL, NULL) != CL_SUCCESS) {
        CHECK(0, "building the test source at width %d", fw);
        return NULL;
    }
    result_ok(prog, fw, "built from source");
    clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof *size, size, NULL);
    unsigned char *bin = malloc(*size);
    clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
    clReleaseProgram(prog);
    return bin;
}

typedef struct pack_plan {
    const clcpack_device_info *device;
    uint32_t writer_flags;
    int with_source;
    unsigned char *bins[N_WIDTHS];
    size_t sizes[N_WIDTHS];
    const char *kernel; /* NULL: "conv" */
} pack_plan;

static void *make_pack(const pack_plan *plan, size_t *size)
{
    clcpack_writer *w = NULL;
    clcpack_error err;
    uint32_t d, s = CLCPACK_NONE;
    void *data = NULL;
    *size = 0;
    if (clcpack_writer_new(plan->writer_flags, &w, &err) != CLCPACK_OK ||
        clcpack_writer_add_device(w, plan->device, &d, &err) != CLCPACK_OK ||
        (plan->with_source &&
         clcpack_writer_add_source(w, "test_conv.cl", TEST_SOURCE, strlen(TEST_SOURCE), &s, &err) !=
             CLCPACK_OK)) {
        CHECK(0, "writer setup: %s", err.message);
        clcpack_writer_free(w);
        return NULL;
    }
    for (int i = 0; i < N_WIDTHS; i++) {
        if (!plan->bins[i])
            continue;
        char value[8], opts[128];
        snprintf(value, sizeof value, "%d", widths[i]);
        options_for(widths[i], opts, sizeof opts);
        clcpack_define def = {"FILTER_WIDTH", value};
        clcpack_entry_spec spec = {sizeof spec, plan->kernel ? plan->kernel : "conv", "test",
                                   opts, &def, 1, {WG, WG, 1}, d, s, CLCPACK_KIND_NATIVE, 0,
                                   plan->bins[i], plan->sizes[i], NULL, 0, 0, NULL};
        CHECK(clcpack_writer_add_entry(w, &spec, &err) == CLCPACK_OK, "add_entry: %s", err.message);
    }
    CHECK(clcpack_writer_write_memory(w, &data, size, &err) == CLCPACK_OK, "write: %s", err.message);
    clcpack_writer_free(w);
    return data;
}

static clcpack_status load(const clcpack *p, int fw, uint32_t flags, const char *kernel,
                           cl_program *prog, clcpack_load_report *rep, clcpack_error *err)
{
    char value[8];
    snprintf(value, sizeof value, "%d", fw);
    clcpack_define def = {"FILTER_WIDTH", value};
    clcpack_key key = {kernel ? kernel : "conv", &def, 1, {WG, WG, 1}};
    clcpack_load_options opts = {sizeof opts, flags};
    return clcpack_create_program(p, &key, ctx, dev, &opts, prog, rep, err);
}

static clcpack *open_pack(const void *data, size_t size)
{
    clcpack *p = NULL;
    clcpack_error err;
    if (!CHECK(data && clcpack_open_memory(data, size, &p, &err) == CLCPACK_OK, "open: %s",
               data ? err.message : "no pack"))
        return NULL;
    return p;
}

/* PoCL crashes on some damaged binaries instead of rejecting them, so the
 * "rejected binary" the tests use is first tried in a child process. */
static int pocl_rejects_in_child(const unsigned char *bin, size_t n)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        cl_int rc, st = CL_SUCCESS;
        cl_program prog = clCreateProgramWithBinary(ctx, 1, &dev, &n, &bin, &st, &rc);
        if (rc == CL_SUCCESS && prog && st == CL_SUCCESS)
            rc = clBuildProgram(prog, 1, &dev, "", NULL, NULL);
        _exit(rc == CL_INVALID_BINARY || st == CL_INVALID_BINARY ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void test_native(const pack_plan *good)
{
    size_t size;
    void *data = make_pack(good, &size);
    clcpack *p = open_pack(data, size);
    for (int i = 0; p && i < N_WIDTHS; i++) {
        cl_program prog = NULL;
        clcpack_load_report rep = {.struct_size = sizeof rep};
        clcpack_error err;
        clcpack_status st = load(p, widths[i], 0, NULL, &prog, &rep, &err);
        if (CHECK(st == CLCPACK_OK && rep.path == CLCPACK_PATH_NATIVE && rep.attempts == 1,
                  "width %d loads native: status %d path %s attempts %u (%s) why: %s", widths[i], st,
                  clcpack_path_name(rep.path), rep.attempts, st ? err.message : "", rep.why))
            result_ok(prog, widths[i], "native");
        if (prog)
            clReleaseProgram(prog);
    }

    /* Binaries only: skipped, rebuilt from the source. */
    cl_program prog = NULL;
    clcpack_load_report rep = {.struct_size = sizeof rep};
    clcpack_error err;
    clcpack_status st = p ? load(p, 5, CLCPACK_LOAD_NO_BINARY, NULL, &prog, &rep, &err) : CLCPACK_E_IO;
    if (CHECK(st == CLCPACK_OK && rep.path == CLCPACK_PATH_SOURCE && rep.attempts == 0 &&
                  strstr(rep.why, "CLCPACK_LOAD_NO_BINARY"),
              "CLCPACK_LOAD_NO_BINARY rebuilds from source: %d %s (%s)", st,
              clcpack_path_name(rep.path), rep.why))
        result_ok(prog, 5, "source (no binary)");
    if (prog)
        clReleaseProgram(prog);

    /* Native binaries skipped: rebuilt from the source. */
    prog = NULL;
    st = p ? load(p, 3, CLCPACK_LOAD_NO_NATIVE, NULL, &prog, &rep, &err) : CLCPACK_E_IO;
    if (CHECK(st == CLCPACK_OK && rep.path == CLCPACK_PATH_SOURCE && rep.attempts == 0 &&
                  strstr(rep.why, "CLCPACK_LOAD_NO_NATIVE"),
              "CLCPACK_LOAD_NO_NATIVE rebuilds from source: %d %s (%s)", st,
              clcpack_path_name(rep.path), rep.why))
        result_ok(prog, 3, "source (no native)");
    if (prog)
        clReleaseProgram(prog);

    /* Unknown keys. */
    st = p ? load(p, 9, 0, NULL, &prog, &rep, &err) : CLCPACK_E_IO;
    CHECK(st == CLCPACK_E_NOT_FOUND && prog == NULL && strstr(err.message, "FILTER_WIDTH=9"),
          "width 9 is not in the pack: %d (%s)", st, err.message);
    clcpack_define none[1] = {{"OTHER", "1"}};
    clcpack_key key = {"conv", none, 1, {WG, WG, 1}};
    st = p ? clcpack_create_program(p, &key, ctx, dev, NULL, &prog, NULL, &err) : CLCPACK_E_IO;
    CHECK(st == CLCPACK_E_NOT_FOUND, "another define set is not found: %d", st);
    clcpack_close(p);
    clcpack_free(data);
}

static void test_stale_driver(const pack_plan *good)
{
    clcpack_device_info stale = here;
    snprintf(stale.driver_version, sizeof stale.driver_version, "0.0-stale");
    pack_plan plan = *good;
    plan.device = &stale;
    size_t size;
    void *data = make_pack(&plan, &size);
    clcpack *p = open_pack(data, size);
    cl_program prog = NULL;
    clcpack_load_report rep = {.struct_size = sizeof rep};
    clcpack_error err;
    char expect[600];
    snprintf(expect, sizeof expect, "driver version differs: 0.0-stale in pack, %s here",
             here.driver_version);
    clcpack_status st = p ? load(p, 7, 0, NULL, &prog, &rep, &err) : CLCPACK_E_IO;
    if (CHECK(st == CLCPACK_OK && rep.path == CLCPACK_PATH_SOURCE && rep.attempts == 0 &&
                  strstr(rep.why, expect),
              "stale driver loads through source, report says why: %d %s why: %s", st,
              clcpack_path_name(rep.path), rep.why))
        result_ok(prog, 7, "source (stale driver)");
    printf("stale driver report: %s\n", rep.why);
    if (prog)
        clReleaseProgram(prog);
    prog = NULL;
    st = p ? load(p, 7, CLCPACK_LOAD_NO_SOURCE, NULL, &prog, &rep, &err) : CLCPACK_E_IO;
    CHECK(st == CLCPACK_E_NO_USABLE_FORM && !prog && strstr(err.message, "CLCPACK_LOAD_NO_SOURCE"),
          "stale driver with CLCPACK_LOAD_NO_SOURCE: %d (%s)", st, err.message);
    clcpack_close(p);
    clcpack_free(data);
}

static void test_rejected_binary(const pack_plan *good)
{
    size_t n = good->sizes[0];
    unsigned char *junk = malloc(n);
    uint64_t s = 77;
    for (size_t i = 0; i < n; i++)
        junk[i] = (unsigned char)(test_rnd_float(&s) * 127.0f);
    if (!CHECK(pocl_rejects_in_child(junk, n),
               "the driver rejects random bytes with CL_INVALID_BINARY (in a child)")) {
        free(junk);
        return;
    }
    pack_plan plan = *good;
    plan.bins[0] = junk;
    size_t size;
    void *data = make_pack(&plan, &size);
    clcpack *p = open_pack(data, size);
    cl_program prog = NULL;
    clcpack_load_report rep = {.struct_size = sizeof rep};
    clcpack_error err;
    clcpack_status st = p ? load(p, 3, 0, NULL, &prog, &rep, &err) : CLCPACK_E_IO;
    if (CHECK(st == CLCPACK_OK && rep.path == CLCPACK_PATH_SOURCE && rep.attempts == 1 &&
                  strstr(rep.why, "driver rejected the binary (CL_INVALID_BINARY (-42))"),
              "rejected binary falls back to source: %d %s why: %s", st,
              clcpack_path_name(rep.path), rep.why))
        result_ok(prog, 3, "source (rejected binary)");
    printf("rejected binary report: %s\n", rep.why);
    if (prog)
        clReleaseProgram(prog);
    clcpack_close(p);
    clcpack_free(data);
    free(junk);

    /* A real binary that lacks the kernel asked for: built, then refused
     * by clCreateKernel; the source lacks it too, so the build error. */
    plan = *good;
    plan.kernel = "conv_absent";
    data = make_pack(&plan, &size);
    p = open_pack(data, size);
    prog = NULL;
    st = p ? load(p, 5, 0, "conv_absent", &prog, &rep, &err) : CLCPACK_E_IO;
    CHECK(st == CLCPACK_E_BUILD && !prog && rep.attempts == 1 && strstr(rep.why, "clCreateKernel") &&
              strstr(err.message, "test_conv.cl"),
          "a binary without the kernel is a miss, then the source build fails: %d why: %s; %s", st,
          rep.why, err.message);
    clcpack_close(p);
    clcpack_free(data);
}

/* The writer lays blobs out as sources then entries, back to back after
 * the 64-byte header, stored entries at multiples of 64 (docs/FORMAT.md):
 * the payload offset of entry i. */
static size_t entry_blob_offset(const clcpack *p, size_t i)
{
    size_t off = 64;
    for (size_t s = 0; s < clcpack_source_count(p); s++) {
        clcpack_source_info si = {.struct_size = sizeof si};
        clcpack_get_source(p, s, &si);
        off += si.stored_size;
    }
    for (size_t k = 0; k <= i; k++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        clcpack_get_entry(p, k, &e);
        if (e.codec == 0)
            off = (off + 63) / 64 * 64;
        if (k < i)
            off += e.stored_size;
    }
    return off;
}

static void test_damaged_payload(const pack_plan *good)
{
    size_t size;
    uint8_t *data = make_pack(good, &size);
    clcpack *p = open_pack(data, size);
    if (!p) {
        clcpack_free(data);
        return;
    }
    size_t idx[4], n = 0;
    char value[] = "5";
    clcpack_define def = {"FILTER_WIDTH", value};
    clcpack_key key = {"conv", &def, 1, {WG, WG, 1}};
    clcpack_find(p, &key, idx, 4, &n, NULL);
    clcpack_entry_info e = {.struct_size = sizeof e};
    clcpack_get_entry(p, idx[0], &e);
    size_t at = entry_blob_offset(p, idx[0]) + (size_t)e.stored_size / 2;
    clcpack_close(p);
    data[at] ^= 0x40; /* the index checksum does not cover the payload */
    p = open_pack(data, size);
    cl_program prog = NULL;
    clcpack_load_report rep = {.struct_size = sizeof rep};
    clcpack_error err;
    clcpack_status st = p ? load(p, 5, 0, NULL, &prog, &rep, &err) : CLCPACK_E_IO;
    if (CHECK(st == CLCPACK_OK && rep.path == CLCPACK_PATH_SOURCE && rep.attempts == 0 &&
                  strstr(rep.why, "unreadable"),
              "a damaged binary never reaches the driver: %d %s attempts %u why: %s", st,
              clcpack_path_name(rep.path), rep.attempts, rep.why))
        result_ok(prog, 5, "source (damaged binary)");
    if (prog)
        clReleaseProgram(prog);
    clcpack_close(p);
    clcpack_free(data);
}

/* The fingerprint of a device that is not this one: an NVIDIA H200 with
 * the fields the loader compares; callers add the rest they need. */
static clcpack_device_info nvidia_h200(void)
{
    clcpack_device_info nv = {.struct_size = sizeof nv};
    memset(&nv, 0, sizeof nv);
    nv.struct_size = sizeof nv;
    snprintf(nv.platform_name, sizeof nv.platform_name, "NVIDIA CUDA");
    snprintf(nv.device_name, sizeof nv.device_name, "NVIDIA H200");
    snprintf(nv.driver_version, sizeof nv.driver_version, "580.159.04");
    nv.vendor_id = 0x10DE;
    nv.nv_cc_major = 9;
    return nv;
}

static void test_binary_only(const pack_plan *good)
{
    clcpack_device_info other = nvidia_h200();
    snprintf(other.platform_version, sizeof other.platform_version, "OpenCL 3.0 CUDA 13.0.88");
    snprintf(other.device_version, sizeof other.device_version, "OpenCL 3.0 CUDA");
    snprintf(other.opencl_c_version, sizeof other.opencl_c_version, "OpenCL C 1.2 ");
    other.device_type = CL_DEVICE_TYPE_GPU;
    other.address_bits = 64;
    pack_plan plan = *good;
    plan.device = &other;
    plan.writer_flags = CLCPACK_WRITE_NO_SOURCES;
    size_t size;
    void *data = make_pack(&plan, &size);
    clcpack *p = open_pack(data, size);
    cl_program prog = NULL;
    clcpack_load_report rep = {.struct_size = sizeof rep};
    clcpack_error err;
    clcpack_status st = p ? load(p, 5, 0, NULL, &prog, &rep, &err) : CLCPACK_E_IO;
    CHECK(st == CLCPACK_E_NO_USABLE_FORM && !prog && rep.path == CLCPACK_PATH_NONE &&
              strstr(err.message, "NVIDIA H200") && strstr(err.message, here.device_name) &&
              strstr(err.message, "no source"),
          "binary-only pack for another device is refused naming both: %d (%s)", st, err.message);
    printf("binary-only refusal: %s\n", err.message);
    clcpack_close(p);
    clcpack_free(data);

    /* The same binary-only pack built for this device loads natively. */
    plan.device = &here;
    data = make_pack(&plan, &size);
    p = open_pack(data, size);
    prog = NULL;
    st = p ? load(p, 7, 0, NULL, &prog, &rep, &err) : CLCPACK_E_IO;
    if (CHECK(st == CLCPACK_OK && rep.path == CLCPACK_PATH_NATIVE,
              "binary-only pack for this device loads native: %d (%s)", st, rep.why))
        result_ok(prog, 7, "native (binary-only pack)");
    if (prog)
        clReleaseProgram(prog);
    clcpack_close(p);
    clcpack_free(data);
}

/* A pack for an sm_90 NVIDIA device, with or without the source: PTX for
 * sm_80 and a "cubin" that is PoCL's own binary (so that it loads here
 * while the shim plays NVIDIA). */
static void *nvidia_pack(const pack_plan *good, int with_source, size_t *size)
{
    clcpack_device_info nv = nvidia_h200();
    clcpack_writer *w = NULL;
    clcpack_error err;
    uint32_t d, s = CLCPACK_NONE;
    clcpack_writer_new(0, &w, &err);
    clcpack_writer_add_device(w, &nv, &d, &err);
    if (with_source)
        clcpack_writer_add_source(w, "test_conv.cl", TEST_SOURCE, strlen(TEST_SOURCE), &s, &err);
    char opts[128];
    options_for(5, opts, sizeof opts);
    clcpack_define def = {"FILTER_WIDTH", "5"};
    static const char ptx[] = "//\n.version 8.0\n.target sm_80\n";
    clcpack_entry_spec ps = {sizeof ps, "conv", NULL, opts, &def, 1, {WG, WG, 1}, d, s,
                             CLCPACK_KIND_PTX, 80, ptx, sizeof ptx - 1, NULL, 0, 0, NULL};
    clcpack_entry_spec cs = ps;
    cs.kind = CLCPACK_KIND_CUBIN;
    cs.arch = 90;
    cs.binary = good->bins[1];
    cs.binary_size = good->sizes[1];
    void *data = NULL;
    *size = 0;
    CHECK(clcpack_writer_add_entry(w, &ps, &err) == CLCPACK_OK &&
              clcpack_writer_add_entry(w, &cs, &err) == CLCPACK_OK &&
              clcpack_writer_write_memory(w, &data, size, &err) == CLCPACK_OK,
          "NVIDIA pack written: %s", err.message);
    clcpack_writer_free(w);
    return data;
}

/* PTX and cubin entries are for NVIDIA devices only: on this one they are
 * passed over, named in the report and in the refusal. */
static void test_nvidia_forms_elsewhere(const pack_plan *good)
{
    for (int with_source = 1; with_source >= 0; with_source--) {
        clcpack_error err;
        uint32_t skip = with_source ? 0 : CLCPACK_LOAD_NO_CUBIN | CLCPACK_LOAD_NO_PTX;
        size_t size = 0;
        void *data = nvidia_pack(good, with_source, &size);
        clcpack *p = open_pack(data, size);
        cl_program prog = NULL;
        clcpack_load_report rep = {.struct_size = sizeof rep};
        clcpack_status st = p ? load(p, 5, skip, NULL, &prog, &rep, &err) : CLCPACK_E_IO;
        if (with_source) {
            if (CHECK(st == CLCPACK_OK && rep.path == CLCPACK_PATH_SOURCE && rep.attempts == 0 &&
                          strstr(rep.why, "cubin entry") && strstr(rep.why, "ptx entry") &&
                          strstr(rep.why, "not an NVIDIA device"),
                      "ptx and cubin passed over on a non-NVIDIA device: %d %s why: %s", st,
                      clcpack_path_name(rep.path), rep.why))
                result_ok(prog, 5, "source (NVIDIA-only forms)");
        } else {
            CHECK(st == CLCPACK_E_NO_USABLE_FORM && strstr(err.message, "(ptx sm_80)") &&
                      strstr(err.message, "(cubin sm_90)"),
                  "the refusal names the forms held: %d (%s)", st, err.message);
            CHECK(strstr(rep.why, "skipped (CLCPACK_LOAD_NO_CUBIN)") &&
                      strstr(rep.why, "skipped (CLCPACK_LOAD_NO_PTX)"),
                  "CLCPACK_LOAD_NO_CUBIN and _NO_PTX reported: %s", rep.why);
        }
        if (prog)
            clReleaseProgram(prog);
        clcpack_close(p);
        clcpack_free(data);
    }
}

/* The whole fingerprint cost 0.04 ms of a 2.1 ms cubin load on an H100
 * (CL_DEVICE_NAME 0.025 ms alone): a key held as cubins and PTX alone is
 * chosen with the vendor ID and compute capability. */
static void test_nvidia_identity(const pack_plan *good)
{
    size_t size;
    void *data = nvidia_pack(good, 1, &size);
    for (int skip = 0; skip < 2; skip++) {
        clcpack *p = open_pack(data, size); /* a fresh fingerprint cache */
        cl_program prog = NULL;
        clcpack_load_report rep = {.struct_size = sizeof rep};
        clcpack_error err;
        query_calls = name_calls = 0;
        shim_nvidia = query_shim_armed = 1;
        uint32_t flags = skip ? CLCPACK_LOAD_NO_CUBIN | CLCPACK_LOAD_NO_PTX : 0;
        clcpack_status st = p ? load(p, 5, flags, NULL, &prog, &rep, &err) : CLCPACK_E_IO;
        shim_nvidia = query_shim_armed = 0;
        if (!skip) {
            if (CHECK(st == CLCPACK_OK && rep.path == CLCPACK_PATH_CUBIN && query_calls == 3 &&
                          name_calls == 0,
                      "an sm_90 cubin chosen with %lu device queries (want 3), %lu of the name: "
                      "%d %s (%s)",
                      query_calls, name_calls, st, clcpack_path_name(rep.path), rep.why))
                result_ok(prog, 5, "cubin chosen by NVIDIA identity");
        } else {
            if (CHECK(st == CLCPACK_OK && rep.path == CLCPACK_PATH_SOURCE && name_calls > 0 &&
                          strstr(rep.why, "skipped (CLCPACK_LOAD_NO_CUBIN)"),
                      "binaries skipped: the source build takes the whole fingerprint (%lu "
                      "queries, %lu of the name): %d %s (%s)",
                      query_calls, name_calls, st, clcpack_path_name(rep.path), rep.why))
                result_ok(prog, 5, "source after NVIDIA identity");
        }
        if (prog)
            clReleaseProgram(prog);
        clcpack_close(p);
    }
    clcpack_free(data);
}

static void test_create_kernel(const pack_plan *good)
{
    size_t size;
    void *data = make_pack(good, &size);
    clcpack *p = open_pack(data, size);
    if (!p) {
        clcpack_free(data);
        return;
    }
    clcpack_define def = {"FILTER_WIDTH", "5"};
    clcpack_key key = {"conv", &def, 1, {WG, WG, 1}};
    clcpack_load_report rep = {.struct_size = sizeof rep};
    clcpack_error err;
    for (int from_source = 0; from_source < 2; from_source++) {
        clcpack_load_options opts = {sizeof opts, from_source ? CLCPACK_LOAD_NO_BINARY : 0};
        cl_program prog = NULL;
        cl_kernel k = NULL;
        clcpack_status st = clcpack_create_kernel(p, &key, ctx, dev, &opts, &prog, &k, &rep, &err);
        char name[64] = "";
        cl_program owner = NULL;
        if (k) {
            clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
            clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof owner, &owner, NULL);
        }
        if (CHECK(st == CLCPACK_OK && k && prog && owner == prog && strcmp(name, "conv") == 0 &&
                      rep.path == (from_source ? CLCPACK_PATH_SOURCE : CLCPACK_PATH_NATIVE),
                  "clcpack_create_kernel (%s) gives kernel '%s' of the program it returns: %d %s",
                  from_source ? "source" : "native", name, st, st ? err.message : rep.why))
            result_ok(prog, 5, "create_kernel");
        if (k)
            clReleaseKernel(k);
        if (prog)
            clReleaseProgram(prog);
    }
    cl_program prog = (cl_program)1;
    cl_kernel k = (cl_kernel)1;
    clcpack_define missing = {"FILTER_WIDTH", "9"};
    clcpack_key absent = {"conv", &missing, 1, {WG, WG, 1}};
    clcpack_status st = clcpack_create_kernel(p, &absent, ctx, dev, NULL, &prog, &k, NULL, &err);
    CHECK(st == CLCPACK_E_NOT_FOUND && !prog && !k,
          "a missing key gives neither program nor kernel: %d", st);
    st = clcpack_create_kernel(p, &key, ctx, dev, NULL, &prog, NULL, NULL, &err);
    CHECK(st == CLCPACK_E_INVALID_ARG && !prog && strstr(err.message, "kernel is NULL"),
          "a NULL kernel pointer is refused: %s", err.message);

    /* The device is queried on the first load of this handle only... */
    unsigned long calls[3];
    clcpack *fresh = open_pack(data, size);
    for (int i = 0; fresh && i < 3; i++) {
        if (i == 2) {
            /* ...and again by a new handle. */
            clcpack_close(fresh);
            fresh = open_pack(data, size);
        }
        query_calls = 0;
        query_shim_armed = 1;
        prog = NULL;
        st = fresh ? load(fresh, 3 + 2 * (i % 2), 0, NULL, &prog, &rep, &err) : CLCPACK_E_IO;
        query_shim_armed = 0;
        calls[i] = query_calls;
        CHECK(st == CLCPACK_OK, "load %d: %s", i, st ? err.message : "");
        if (prog)
            clReleaseProgram(prog);
    }
    printf("device queries: %lu on a handle's first load, %lu on the next, %lu on a new handle\n",
           calls[0], calls[1], calls[2]);
    CHECK(fresh && calls[0] >= 10 && calls[1] == 0 && calls[2] == calls[0],
          "device queries: %lu on a handle's first load, %lu on the next, %lu on a new handle",
          calls[0], calls[1], calls[2]);
    clcpack_close(fresh);
    clcpack_close(p);
    clcpack_free(data);
}

typedef struct thread_job {
    const clcpack *p;
    int id;
    int ok, native, source;
    char first_error[1200];
} thread_job;

static void *thread_main(void *arg)
{
    thread_job *j = arg;
    uint64_t seed = 1000 + (uint64_t)j->id;
    for (int it = 0; it < 3; it++) {
        int fw = widths[(j->id + it) % N_WIDTHS];
        char value[8];
        snprintf(value, sizeof value, "%d", fw);
        clcpack_define def = {"FILTER_WIDTH", value};
        clcpack_key key = {"conv", &def, 1, {WG, WG, 1}};
        size_t idx[4], n = 0;
        clcpack_error err;
        if (clcpack_find(j->p, &key, idx, 4, &n, &err) != CLCPACK_OK || n != 1) {
            snprintf(j->first_error, sizeof j->first_error, "find: %s", err.message);
            continue;
        }
        /* Two threads rebuild from source while the others load binaries. */
        clcpack_load_options opts = {sizeof opts, j->id < 2 && it == 0 ? CLCPACK_LOAD_NO_BINARY : 0};
        clcpack_load_report rep = {.struct_size = sizeof rep};
        cl_program prog = NULL;
        cl_kernel kernel = NULL;
        /* Odd threads take the kernel too. */
        clcpack_status st =
            j->id % 2 ? clcpack_create_kernel(j->p, &key, ctx, dev, &opts, &prog, &kernel, &rep, &err)
                      : clcpack_create_program(j->p, &key, ctx, dev, &opts, &prog, &rep, &err);
        if (st != CLCPACK_OK || (j->id % 2 && !kernel)) {
            snprintf(j->first_error, sizeof j->first_error, "create: %s", err.message);
            continue;
        }
        if (kernel)
            clReleaseKernel(kernel);
        char why[256] = "";
        double e = test_conv_check(ctx, dev, prog, "conv", fw, OUT_W, OUT_H, WG, seed++, why, sizeof why);
        clReleaseProgram(prog);
        if (e < 0 || e >= 1e-5) {
            snprintf(j->first_error, sizeof j->first_error, "width %d: error %g %s", fw, e, why);
            continue;
        }
        j->ok++;
        j->native += rep.path == CLCPACK_PATH_NATIVE;
        j->source += rep.path == CLCPACK_PATH_SOURCE;
    }
    return NULL;
}

static void test_threads(const pack_plan *good)
{
    size_t size;
    void *data = make_pack(good, &size);
    clcpack *p = open_pack(data, size);
    if (!p) {
        clcpack_free(data);
        return;
    }
    enum { N = 8 };
    pthread_t t[N];
    thread_job jobs[N];
    for (int i = 0; i < N; i++) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].p = p;
        jobs[i].id = i;
        pthread_create(&t[i], NULL, thread_main, &jobs[i]);
    }
    int ok = 0, native = 0, source = 0;
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        ok += jobs[i].ok;
        native += jobs[i].native;
        source += jobs[i].source;
        CHECK(jobs[i].first_error[0] == '\0', "thread %d: %s", i, jobs[i].first_error);
    }
    CHECK(ok == N * 3 && native == N * 3 - 2 && source == 2,
          "8 threads x 3 loads on one handle: %d right (%d native, %d source)", ok, native, source);
    clcpack_close(p);
    clcpack_free(data);
}

int main(void)
{
    query_shim_init();
    if (!CHECK(test_first_device(&dev, &ctx) == 0, "an OpenCL device (PoCL: apt-get install pocl-opencl-icd)"))
        return check_summary();
    clcpack_error err;
    CHECK(clcpack_device_query(dev, &here, &err) == CLCPACK_OK, "device query: %s", err.message);
    clcpack_device_info again = {.struct_size = sizeof again};
    clcpack_device_query(dev, &again, &err);
    CHECK(here.device_name[0] && here.driver_version[0] && here.address_bits &&
              clcpack_device_equal(&here, &again),
          "fingerprint of '%s' (driver %s) is filled and stable", here.device_name,
          here.driver_version);
    size_t dn = strlen(here.device_name);
    CHECK(dn && here.device_name[dn - 1] != ' ', "trailing spaces stripped");
    char diff[256];
    clcpack_device_describe_difference(&here, &again, diff, sizeof diff);
    CHECK(strstr(diff, "identical") != NULL, "identical fingerprints described as such: %s", diff);

    pack_plan good = {&here, 0, 1, {NULL}, {0}, NULL};
    for (int i = 0; i < N_WIDTHS; i++)
        good.bins[i] = build_binary(widths[i], &good.sizes[i]);
    if (good.bins[0] && good.bins[1] && good.bins[2]) {
        test_native(&good);
        test_stale_driver(&good);
        test_rejected_binary(&good);
        test_damaged_payload(&good);
        test_binary_only(&good);
        test_nvidia_forms_elsewhere(&good);
        test_nvidia_identity(&good);
        test_create_kernel(&good);
        test_threads(&good);
    }
    for (int i = 0; i < N_WIDTHS; i++)
        free(good.bins[i]);
    clReleaseContext(ctx);
    return check_summary();
}
