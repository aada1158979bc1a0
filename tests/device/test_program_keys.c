/*
 * test_program_keys.c — the loader's API as a user of a program of two
 * kernels meets it: a program `blur` holding box_blur and sharpen, built
 * with the defines T and RADIUS at a work-group of 8x8.
 *
 *  - clcpack_best_variant asked for box_blur gives a choice whose key names
 *    box_blur, and clcpack_create_kernel takes that key unchanged and makes
 *    box_blur (on the OpenCL device, which runs it: RADIUS is the one
 *    chosen); asked for the program, a one-kernel program or a group
 *    label, the choice names the entry as before;
 *  - a key the pack does not hold says what it asked for (a work-group of
 *    {16,16,0} reads 16x16x0, not 16x16 like the entry's {16,16,1}) and
 *    what the pack has: the nearest entries of that name, within the
 *    message's bounds however many there are, or the nearest name
 *    ("did you mean box_blur?") when the name is not in the pack.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cl_device.h"
#include "clcpack_write.h"

static const char BLUR_SOURCE[] =
    "__kernel void box_blur(__global const T *in, __global T *out)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    T s = 0;\n"
    "    for (int r = 0; r <= 2 * RADIUS; r++)\n"
    "        s += in[i + r];\n"
    "    out[i] = s / (2 * RADIUS + 1);\n"
    "}\n"
    "__kernel void sharpen(__global const T *in, __global T *out)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    out[i] = 2 * in[i + RADIUS] - in[i];\n"
    "}\n";

static const char *const blur_kernels[2] = {"box_blur", "sharpen"};
static const char *const solo_kernels[1] = {"solo_k"};

static clcpack_device_info other_device(void)
{
    clcpack_device_info d;
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    snprintf(d.platform_name, sizeof d.platform_name, "Other Platform");
    snprintf(d.device_name, sizeof d.device_name, "Other Device");
    snprintf(d.driver_version, sizeof d.driver_version, "0.0-other");
    d.device_type = CL_DEVICE_TYPE_GPU;
    d.address_bits = 64;
    return d;
}

/* The blur program at RADIUS 1 to n_radius (T=float), and T=int RADIUS=1,
 * stored with its source and a binary for another device (so a load here
 * builds the source), plus a program `solo` of one kernel. */
static void *make_pack(unsigned n_radius, size_t *size)
{
    clcpack_writer *w = NULL;
    clcpack_error err;
    clcpack_device_info other = other_device();
    uint32_t d, s;
    void *data = NULL;
    *size = 0;
    if (!CHECK(clcpack_writer_new(0, &w, &err) == CLCPACK_OK &&
                   clcpack_writer_add_device(w, &other, &d, &err) == CLCPACK_OK &&
                   clcpack_writer_add_source(w, "blur.cl", BLUR_SOURCE, strlen(BLUR_SOURCE), &s,
                                             &err) == CLCPACK_OK,
               "writer setup: %s", err.message)) {
        clcpack_writer_free(w);
        return NULL;
    }
    static const unsigned char bin[16] = {1, 2, 3};
    for (unsigned r = 1; r <= n_radius + 1; r++) {
        char radius[16], options[64];
        const char *type = r <= n_radius ? "float" : "int";
        unsigned rv = r <= n_radius ? r : 1;
        snprintf(radius, sizeof radius, "%u", rv);
        snprintf(options, sizeof options, "-DT=%s -DRADIUS=%u", type, rv);
        clcpack_define defs[2] = {{"T", type}, {"RADIUS", radius}};
        clcpack_entry_spec spec = {.struct_size = sizeof spec};
        spec.kernel = "blur";
        spec.family = "filters";
        spec.options = options;
        spec.defines = defs;
        spec.define_count = 2;
        spec.wg[0] = spec.wg[1] = 8;
        spec.wg[2] = 1;
        spec.device = d;
        spec.source = s;
        spec.kind = CLCPACK_KIND_NATIVE;
        spec.binary = bin;
        spec.binary_size = sizeof bin;
        spec.kernel_names = blur_kernels;
        spec.kernel_name_count = 2;
        CHECK(clcpack_writer_add_entry(w, &spec, &err) == CLCPACK_OK, "add blur: %s", err.message);
        if (r == 1) {
            spec.kernel = "solo";
            spec.family = NULL;
            spec.kernel_names = solo_kernels;
            spec.kernel_name_count = 1;
            CHECK(clcpack_writer_add_entry(w, &spec, &err) == CLCPACK_OK, "add solo: %s",
                  err.message);
        }
    }
    CHECK(clcpack_writer_write_memory(w, &data, size, &err) == CLCPACK_OK, "write: %s",
          err.message);
    clcpack_writer_free(w);
    return data;
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

/* The choice's kernel for name, RADIUS=2 when radius2 (NULL on failure). */
static const char *choice_kernel(const clcpack *p, const char *name, int radius2,
                                 const clcpack_device_info *here, clcpack_choice *c)
{
    clcpack_define r = {"RADIUS", "2"};
    clcpack_error err;
    c->struct_size = sizeof *c;
    clcpack_status st = clcpack_best_variant(p, name, &r, radius2 ? 1 : 0, NULL, here, c, &err);
    if (!CHECK(st == CLCPACK_OK, "best variant of %s: %s", name, err.message))
        return NULL;
    return c->kernel;
}

static void test_choice_names(const clcpack *p)
{
    clcpack_device_info here = other_device();
    clcpack_choice c;
    const char *k = choice_kernel(p, "box_blur", 1, &here, &c);
    clcpack_key key;
    CHECK(k && strcmp(k, "box_blur") == 0, "asked for box_blur, the choice names box_blur: %s",
          k ? k : "(none)");
    CHECK(clcpack_choice_key(&c, &key) == CLCPACK_OK && key.kernel &&
              strcmp(key.kernel, "box_blur") == 0 && key.wg[0] == 8,
          "the choice's key names box_blur: %s", key.kernel ? key.kernel : "(none)");
    size_t n = 0;
    clcpack_error err;
    CHECK(clcpack_find(p, &key, NULL, 0, &n, &err) == CLCPACK_OK && n == 1,
          "the key finds its entry: %zu, %s", n, n ? "" : err.message);
    k = choice_kernel(p, "sharpen", 0, &here, &c);
    CHECK(k && strcmp(k, "sharpen") == 0, "asked for sharpen: %s", k ? k : "(none)");
    /* As before for the program's name, a group label, a one-kernel program. */
    k = choice_kernel(p, "blur", 1, &here, &c);
    CHECK(k && strcmp(k, "blur") == 0, "asked for the program blur: %s", k ? k : "(none)");
    k = choice_kernel(p, "filters", 1, &here, &c);
    CHECK(k && strcmp(k, "blur") == 0, "asked for the group filters: %s", k ? k : "(none)");
    k = choice_kernel(p, "solo", 0, &here, &c);
    CHECK(k && strcmp(k, "solo") == 0, "asked for the one-kernel program solo: %s",
          k ? k : "(none)");
    k = choice_kernel(p, "solo_k", 0, &here, &c);
    CHECK(k && strcmp(k, "solo_k") == 0, "asked for solo's kernel solo_k: %s", k ? k : "(none)");
}

/* The message of a key the pack lacks, "" when it was found. */
static const char *miss(const clcpack *p, const char *kernel, const char *radius,
                        const uint32_t wg[3], clcpack_error *err)
{
    clcpack_define defs[2] = {{"T", "float"}, {"RADIUS", radius}};
    clcpack_key key = {kernel, defs, 2, {wg[0], wg[1], wg[2]}};
    size_t n = 0;
    clcpack_status st = clcpack_find(p, &key, NULL, 0, &n, err);
    CHECK(st == CLCPACK_E_NOT_FOUND && n == 0, "%s RADIUS=%s wg %ux%ux%u is not found: %d",
          kernel, radius, wg[0], wg[1], wg[2], st);
    return st == CLCPACK_E_NOT_FOUND ? err->message : "";
}

static void test_miss_messages(const clcpack *p)
{
    clcpack_error err;
    static const uint32_t wg0[3] = {16, 16, 0}, wg1[3] = {16, 16, 1}, wg8[3] = {8, 8, 1};
    const char *m = miss(p, "box_blur", "1", wg0, &err);
    printf("%s\n", m);
    CHECK(strstr(m, "wg 16x16x0") && strstr(m, "6 entries of box_blur"),
          "a wg of {16,16,0} reads 16x16x0, with the entries of the name: %s", m);
    CHECK(strstr(m, "nearest: [RADIUS=1 T=float] wg 8x8; ") &&
              strstr(m, "; [RADIUS=2 T=float] wg 8x8") && strstr(m, "(and 2 other entries)"),
          "the nearest entries first, the rest counted: %s", m);
    m = miss(p, "box_blur", "1", wg1, &err);
    CHECK(strstr(m, "wg 16x16:"), "a wg of {16,16,1} reads 16x16: %s", m);
    m = miss(p, "box_blur", "9", wg8, &err);
    CHECK(strstr(m, "nearest: [RADIUS=1 T=float] wg 8x8"), "another RADIUS: %s", m);
    m = miss(p, "box_blr", "1", wg8, &err);
    printf("%s\n", m);
    CHECK(strstr(m, "no kernel or program box_blr; did you mean box_blur?"),
          "a name not in the pack: the nearest one: %s", m);
    m = miss(p, "sharpne", "1", wg8, &err);
    CHECK(strstr(m, "did you mean sharpen?"), "sharpne: %s", m);

    clcpack_device_info here = other_device();
    clcpack_choice c = {.struct_size = sizeof c};
    clcpack_status st = clcpack_best_variant(p, "box_blr", NULL, 0, NULL, &here, &c, &err);
    CHECK(st == CLCPACK_E_NOT_FOUND && strstr(err.message, "did you mean box_blur?"),
          "best variant of a name not in the pack: the nearest one: %d %s", st, err.message);
}

/* Many variants of the name: the message stays one bounded line. */
static void test_many_variants(void)
{
    size_t size;
    void *data = make_pack(60, &size);
    clcpack *p = open_pack(data, size);
    if (p) {
        clcpack_error err;
        static const uint32_t wg[3] = {32, 32, 0};
        const char *m = miss(p, "box_blur", "61", wg, &err);
        size_t len = strnlen(m, sizeof err.message);
        CHECK(len < sizeof err.message && strstr(m, "(and 57 other entries)") &&
                  strstr(m, "wg 32x32x0"),
              "61 variants: a message of %zu bytes naming 4 and counting the rest: %s", len, m);
    }
    clcpack_close(p);
    clcpack_free(data);
}

/* The choice's key, unchanged, creates the kernel asked for, which runs
 * with the chosen RADIUS (2): box_blur gives i + 2, sharpen i + 4. */
static void test_create_chosen(const clcpack *p)
{
    cl_device_id dev;
    cl_context ctx;
    if (test_first_device(&dev, &ctx) != 0) {
        CHECK_SKIP("no OpenCL device: clcpack_create_kernel on the choice's key not tried");
        return;
    }
    clcpack_device_info here = {.struct_size = sizeof here};
    clcpack_error err;
    CHECK(clcpack_device_query(dev, &here, &err) == CLCPACK_OK, "device: %s", err.message);
    for (int k = 0; k < 2; k++) {
        clcpack_choice c;
        clcpack_key key;
        if (!choice_kernel(p, blur_kernels[k], 1, &here, &c) ||
            clcpack_choice_key(&c, &key) != CLCPACK_OK)
            continue;
        cl_program prog = NULL;
        cl_kernel kern = NULL;
        clcpack_load_report rep = {.struct_size = sizeof rep};
        clcpack_status st = clcpack_create_kernel(p, &key, ctx, dev, NULL, &prog, &kern, &rep, &err);
        char name[64] = "";
        if (kern)
            clGetKernelInfo(kern, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
        CHECK(st == CLCPACK_OK && strcmp(name, blur_kernels[k]) == 0,
              "clcpack_create_kernel on the choice's key makes %s: '%s' %s", blur_kernels[k],
              name, st ? err.message : "");
        if (st == CLCPACK_OK) {
            enum { N = 64 };
            float in[N + 8], out[N];
            for (int i = 0; i < N + 8; i++)
                in[i] = (float)i;
            cl_int rc;
            cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &rc);
            cl_mem bi = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in,
                                       &rc);
            cl_mem bo = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof out, NULL, &rc);
            size_t global = N;
            clSetKernelArg(kern, 0, sizeof bi, &bi);
            clSetKernelArg(kern, 1, sizeof bo, &bo);
            rc = clEnqueueNDRangeKernel(q, kern, 1, NULL, &global, NULL, 0, NULL, NULL);
            if (rc == CL_SUCCESS)
                rc = clEnqueueReadBuffer(q, bo, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
            int bad = rc != CL_SUCCESS;
            for (int i = 0; !bad && i < N; i++)
                bad = out[i] != (float)(i + 2 + 2 * k);
            CHECK(!bad, "%s runs with RADIUS=2: rc %d, out[3] %g", blur_kernels[k], rc,
                  (double)out[3]);
            clReleaseMemObject(bi);
            clReleaseMemObject(bo);
            clReleaseCommandQueue(q);
        }
        if (kern)
            clReleaseKernel(kern);
        if (prog)
            clReleaseProgram(prog);
    }
    clReleaseContext(ctx);
}

int main(void)
{
    size_t size;
    void *data = make_pack(5, &size);
    clcpack *p = open_pack(data, size);
    if (p) {
        test_choice_names(p);
        test_miss_messages(p);
        test_create_chosen(p);
    }
    clcpack_close(p);
    clcpack_free(data);
    test_many_variants();
    return check_summary();
}
