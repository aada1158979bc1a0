/*
 * test_corrupt_pocl.c — damaged packs never put unverified bytes in front
 * of a driver. PoCL crashes on a binary with one flipped byte, so the
 * library's CRC check is all that stands between a damaged file and a
 * crashed application; this test proves the check is on every path.
 *
 * A counting shim replaces clCreateProgramWithBinary and
 * clCreateProgramWithSource for the whole program (a definition in the
 * executable takes precedence over libOpenCL's for the static
 * libclcpack.a's calls; the shim forwards to the real function found with
 * dlsym(RTLD_NEXT)). Each call is counted and its bytes compared with the
 * original binaries and source: a call with any other bytes is a failure.
 *
 * From one small valid pack (two real PoCL binaries, the second stored as
 * a delta of the first, and their source) it tries every truncation, every
 * single-bit flip of the header and the index, and 1000 random byte
 * corruptions of the payload. For each: open, find, read_binary and
 * clcpack_create_program must each fail with a status and a message, or
 * give exactly the original bytes (and, for a program, one that computes
 * right).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_rng.h"
#include "cl_device.h"
#include "clcpack_write.h"

static const char SOURCE[] =
    "/* corrupt_test.cl: o[i] = SCALE * a * i */\n"
    "__kernel void scale(__global float *o, const float a)\n"
    "{\n"
    "    const size_t i = get_global_id(0);\n"
    "    o[i] = SCALE * a * (float)i;\n"
    "}\n";

#define N_KEYS 2
static const char *const scale_values[N_KEYS] = {"2", "3"};
static unsigned char *originals[N_KEYS];
static size_t original_sizes[N_KEYS];

static cl_context ctx;
static cl_device_id dev;

/* ------------------------------------------------------------------ */
/* The shim                                                            */

static int shim_armed;
static unsigned long binary_calls, binary_calls_unverified;
static unsigned long source_calls, source_calls_unverified;

typedef cl_program(CL_API_CALL *create_binary_fn)(cl_context, cl_uint, const cl_device_id *,
                                                  const size_t *, const unsigned char **,
                                                  cl_int *, cl_int *);
typedef cl_program(CL_API_CALL *create_source_fn)(cl_context, cl_uint, const char **,
                                                  const size_t *, cl_int *);

static int is_original_binary(size_t len, const unsigned char *bin)
{
    for (int k = 0; k < N_KEYS; k++)
        if (originals[k] && len == original_sizes[k] && memcmp(bin, originals[k], len) == 0)
            return 1;
    return 0;
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithBinary(
    cl_context context, cl_uint num_devices, const cl_device_id *device_list,
    const size_t *lengths, const unsigned char **binaries, cl_int *binary_status,
    cl_int *errcode_ret)
{
    static create_binary_fn real;
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "clCreateProgramWithBinary");
    if (shim_armed) {
        binary_calls++;
        for (cl_uint d = 0; d < num_devices; d++)
            if (!lengths || !binaries || !is_original_binary(lengths[d], binaries[d])) {
                binary_calls_unverified++;
                /* Never pass such bytes on: PoCL would crash the test. */
                if (errcode_ret)
                    *errcode_ret = CL_INVALID_BINARY;
                return NULL;
            }
    }
    if (!real) {
        if (errcode_ret)
            *errcode_ret = CL_INVALID_PLATFORM;
        return NULL;
    }
    return real(context, num_devices, device_list, lengths, binaries, binary_status, errcode_ret);
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithSource(cl_context context, cl_uint count,
                                                              const char **strings,
                                                              const size_t *lengths,
                                                              cl_int *errcode_ret)
{
    static create_source_fn real;
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "clCreateProgramWithSource");
    if (shim_armed) {
        source_calls++;
        size_t len = count == 1 && strings && strings[0]
                         ? (lengths && lengths[0] ? lengths[0] : strlen(strings[0]))
                         : 0;
        if (count != 1 || !strings || len != strlen(SOURCE) || memcmp(strings[0], SOURCE, len)) {
            source_calls_unverified++;
            if (errcode_ret)
                *errcode_ret = CL_INVALID_VALUE;
            return NULL;
        }
    }
    if (!real) {
        if (errcode_ret)
            *errcode_ret = CL_INVALID_PLATFORM;
        return NULL;
    }
    return real(context, count, strings, lengths, errcode_ret);
}

/* ------------------------------------------------------------------ */
/* Device, binaries and the pack                                       */

static void options_for(int k, char *buf, size_t cap)
{
    snprintf(buf, cap, "-cl-std=CL1.2 -DSCALE=%s", scale_values[k]);
}

#define N_OUT 256

/* Runs scale(o, a) and compares with the double-precision reference; the
 * output is NaN-poisoned first and a is random, never zero. */
static int program_computes_right(cl_program prog, int k, uint64_t *seed)
{
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    float a = 0.25f + (float)(*seed >> 40) / (float)(1u << 24); /* [0.25, 1.25) */
    float out[N_OUT];
    for (int i = 0; i < N_OUT; i++)
        out[i] = NAN;
    cl_int rc;
    cl_kernel kern = clCreateKernel(prog, "scale", &rc);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof out, out, &rc);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &rc);
    int ok = kern && buf && q && clSetKernelArg(kern, 0, sizeof buf, &buf) == CL_SUCCESS &&
             clSetKernelArg(kern, 1, sizeof a, &a) == CL_SUCCESS;
    size_t global = N_OUT;
    ok = ok && clEnqueueNDRangeKernel(q, kern, 1, NULL, &global, NULL, 0, NULL, NULL) == CL_SUCCESS &&
         clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL) == CL_SUCCESS;
    double scale = atof(scale_values[k]);
    for (int i = 0; ok && i < N_OUT; i++) {
        double want = scale * (double)a * i;
        ok = fabs(out[i] - want) <= 1e-6 * (fabs(want) + 1.0);
    }
    if (q)
        clReleaseCommandQueue(q);
    if (buf)
        clReleaseMemObject(buf);
    if (kern)
        clReleaseKernel(kern);
    return ok;
}

static unsigned char *build_original(int k, size_t *size)
{
    const char *src = SOURCE;
    char opts[64];
    options_for(k, opts, sizeof opts);
    cl_int rc;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &rc);
    if (rc != CL_SUCCESS || clBuildProgram(prog, 1, &dev, opts, NULL, NULL) != CL_SUCCESS) {
        CHECK(0, "building the test source with %s", opts);
        return NULL;
    }
    uint64_t seed = 77;
    /* PoCL compiles the work-group function at the first launch; a binary
     * taken afterwards holds it. */
    CHECK(program_computes_right(prog, k, &seed), "SCALE=%s built from source computes right",
          scale_values[k]);
    clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof *size, size, NULL);
    unsigned char *bin = malloc(*size);
    clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
    clReleaseProgram(prog);
    return bin;
}

static void key_of(int k, clcpack_define *def, clcpack_key *key)
{
    def->name = "SCALE";
    def->value = scale_values[k];
    *key = (clcpack_key){"scale", def, 1, {0, 0, 0}};
}

static void *make_pack(size_t *size)
{
    clcpack_writer *w = NULL;
    clcpack_error err;
    clcpack_device_info here = {.struct_size = sizeof here};
    uint32_t d, s;
    void *data = NULL;
    if (clcpack_device_query(dev, &here, &err) != CLCPACK_OK ||
        clcpack_writer_new(0, &w, &err) != CLCPACK_OK ||
        clcpack_writer_add_device(w, &here, &d, &err) != CLCPACK_OK ||
        clcpack_writer_add_source(w, "corrupt_test.cl", SOURCE, strlen(SOURCE), &s, &err) !=
            CLCPACK_OK)
        goto fail;
    for (int k = 0; k < N_KEYS; k++) {
        clcpack_define def;
        clcpack_key key;
        key_of(k, &def, &key);
        char opts[64];
        options_for(k, opts, sizeof opts);
        clcpack_entry_spec e = {sizeof e, "scale", "", opts, &def, 1, {0, 0, 0}, d, s,
                                CLCPACK_KIND_NATIVE, 0, originals[k], original_sizes[k], NULL, 0, 0, NULL};
        if (clcpack_writer_add_entry(w, &e, &err) != CLCPACK_OK)
            goto fail;
    }
    if (clcpack_writer_write_memory(w, &data, size, &err) != CLCPACK_OK)
        goto fail;
    clcpack_writer_free(w);
    return data;
fail:
    CHECK(0, "making the test pack: %s", err.message);
    clcpack_writer_free(w);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* One damaged pack                                                    */

typedef struct tally {
    unsigned long packs, refused_at_open, opened, lookups, reads_ok, reads_refused;
    unsigned long loads_ok, loads_refused, silent_errors, wrong_bytes, wrong_results;
} tally;

static uint64_t run_seed = 0x9E3779B97F4A7C15ull;

/* Everything an application would do with the pack. allow_source lets the
 * loader fall back to a source build (slower: only for some packs). */
static void try_pack(const uint8_t *data, size_t size, int allow_source, tally *t)
{
    t->packs++;
    clcpack *p = NULL;
    clcpack_error err;
    err.message[0] = '\0';
    if (clcpack_open_memory(data, size, &p, &err) != CLCPACK_OK) {
        t->refused_at_open++;
        t->silent_errors += err.message[0] == '\0';
        return;
    }
    t->opened++;
    for (int k = 0; k < N_KEYS; k++) {
        clcpack_define def;
        clcpack_key key;
        key_of(k, &def, &key);
        size_t idx[4], n = 0;
        t->lookups++;
        if (clcpack_find(p, &key, idx, 4, &n, &err) == CLCPACK_OK) {
            for (size_t j = 0; j < n && j < 4; j++) {
                size_t need = 0;
                err.message[0] = '\0';
                if (clcpack_read_binary(p, idx[j], NULL, 0, &need, &err) != CLCPACK_OK) {
                    t->reads_refused++;
                    t->silent_errors += err.message[0] == '\0';
                    continue;
                }
                unsigned char *buf = malloc(need ? need : 1);
                err.message[0] = '\0';
                if (buf && clcpack_read_binary(p, idx[j], buf, need, &need, &err) == CLCPACK_OK) {
                    t->reads_ok++;
                    t->wrong_bytes += need != original_sizes[k] || memcmp(buf, originals[k], need);
                } else {
                    t->reads_refused++;
                    t->silent_errors += err.message[0] == '\0';
                }
                free(buf);
            }
        }
        clcpack_load_options opts = {sizeof opts, allow_source ? 0u : CLCPACK_LOAD_NO_SOURCE};
        cl_program prog = NULL;
        err.message[0] = '\0';
        if (clcpack_create_program(p, &key, ctx, dev, &opts, &prog, NULL, &err) == CLCPACK_OK) {
            t->loads_ok++;
            t->wrong_results += !program_computes_right(prog, k, &run_seed);
            clReleaseProgram(prog);
        } else {
            t->loads_refused++;
            t->silent_errors += err.message[0] == '\0';
        }
    }
    clcpack_close(p);
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void) { return test_rng_next(&rng); }

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void report(const char *what, const tally *t)
{
    printf("%s: %lu packs; %lu refused at open, %lu opened; reads %lu exact, %lu refused; "
           "loads %lu computed right, %lu refused\n",
           what, t->packs, t->refused_at_open, t->opened, t->reads_ok, t->reads_refused,
           t->loads_ok - t->wrong_results, t->loads_refused);
    CHECK(t->silent_errors == 0, "%s: every refusal has a message (%lu without)", what,
          t->silent_errors);
    CHECK(t->wrong_bytes == 0, "%s: every read that succeeds gives the original bytes (%lu not)",
          what, t->wrong_bytes);
    CHECK(t->wrong_results == 0, "%s: every program loaded computes right (%lu not)", what,
          t->wrong_results);
}

int main(void)
{
    if (!CHECK(test_first_device(&dev, &ctx) == 0, "an OpenCL device (PoCL: apt-get install pocl-opencl-icd)"))
        return check_summary();
    for (int k = 0; k < N_KEYS; k++)
        originals[k] = build_original(k, &original_sizes[k]);
    if (!originals[0] || !originals[1])
        return check_summary();
    size_t size = 0;
    uint8_t *good = make_pack(&size);
    if (!good)
        return check_summary();
    uint64_t header_size = good[12] | good[13] << 8 | (uint64_t)good[14] << 16 | (uint64_t)good[15] << 24;
    uint64_t index_offset = le64(good + 24), index_size = le64(good + 32);
    printf("pack: %zu bytes, header %llu, payload %llu, index %llu\n", size,
           (unsigned long long)header_size, (unsigned long long)(index_offset - header_size),
           (unsigned long long)index_size);

    shim_armed = 1;
    /* The intact pack: both keys load natively, through the shim. */
    tally intact = {0};
    try_pack(good, size, 0, &intact);
    CHECK(intact.loads_ok == N_KEYS && intact.reads_ok == N_KEYS && binary_calls == N_KEYS,
          "the intact pack loads both binaries through the shim (%lu loads, %lu driver calls)",
          intact.loads_ok, binary_calls);
    report("intact", &intact);
    /* With binaries skipped, both keys rebuild from the stored source. */
    clcpack_load_options no_bin = {sizeof no_bin, CLCPACK_LOAD_NO_BINARY};
    clcpack *p = NULL;
    clcpack_error err;
    if (clcpack_open_memory(good, size, &p, &err) == CLCPACK_OK) {
        clcpack_define def;
        clcpack_key key;
        key_of(0, &def, &key);
        cl_program prog = NULL;
        CHECK(clcpack_create_program(p, &key, ctx, dev, &no_bin, &prog, NULL, &err) == CLCPACK_OK &&
                  source_calls == 1 && program_computes_right(prog, 0, &run_seed),
              "the stored source reaches the driver through the shim (%lu calls)", source_calls);
        if (prog)
            clReleaseProgram(prog);
        clcpack_close(p);
    }

    uint8_t *bad = malloc(size);
    /* Every truncation. */
    tally trunc = {0};
    for (size_t n = 0; n < size; n++) {
        memcpy(bad, good, n);
        try_pack(bad, n, 0, &trunc);
    }
    report("every truncation", &trunc);
    CHECK(trunc.opened == 0, "no truncated pack opens (%lu did)", trunc.opened);

    /* Every single-bit flip of the header and the index. */
    tally flips = {0};
    for (uint64_t at = 0; at < size; at++) {
        if (at == header_size)
            at = index_offset;
        for (int bit = 0; bit < 8; bit++) {
            memcpy(bad, good, size);
            bad[at] ^= (uint8_t)(1u << bit);
            try_pack(bad, size, 0, &flips);
        }
    }
    report("header and index bit flips", &flips);
    CHECK(flips.packs == (header_size + index_size) * 8 && flips.opened == 0,
          "all %llu header and index bit flips are refused at open (%lu opened)",
          (unsigned long long)((header_size + index_size) * 8), flips.opened);

    /* 1000 random byte corruptions of the payload; every 25th may fall
     * back to the stored source. */
    tally payload = {0};
    for (int i = 0; i < 1000; i++) {
        memcpy(bad, good, size);
        uint64_t at = header_size + rnd() % (index_offset - header_size);
        bad[at] ^= (uint8_t)(1 + rnd() % 255);
        try_pack(bad, size, i % 25 == 0, &payload);
    }
    report("payload corruptions", &payload);
    CHECK(payload.opened == 1000 && payload.reads_refused > 0 && payload.loads_refused > 0,
          "payload damage is found when decoding, not at open (%lu opened, %lu reads refused)",
          payload.opened, payload.reads_refused);

    printf("driver calls: %lu binaries (%lu with unverified bytes), %lu sources (%lu unverified)\n",
           binary_calls, binary_calls_unverified, source_calls, source_calls_unverified);
    CHECK(binary_calls_unverified == 0 && source_calls_unverified == 0,
          "no driver call ever got bytes other than an original binary or source "
          "(%lu binaries, %lu sources)",
          binary_calls_unverified, source_calls_unverified);
    printf("corrupted packs tried: %lu\n", trunc.packs + flips.packs + payload.packs);
    free(bad);
    clcpack_free(good);
    for (int k = 0; k < N_KEYS; k++)
        free(originals[k]);
    clReleaseContext(ctx);
    return check_summary();
}
