/*
 * test_target_load.c — which offline binary clcpack_create_program hands a
 * device (docs/FORMAT.md, "Offline targets"), on the fake driver of
 * tests/fuzz/fake_cl.h, no OpenCL driver needed: an Intel GPU gets exactly
 * the entry of its IP version, an AMD GPU one whose gfx target ID fits its
 * name (of two that fit, the one that sets the device's features), and a device of another vendor, a CPU with Intel's vendor id, or a
 * stepping the pack lacks gets none of them, each with its reason in the
 * load report, and then the source. CLCPACK_LOAD_NO_TARGET skips them.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clcpack_write.h"
#include "fuzz/fake_cl.h"

#define INTEL 0x8086u
#define AMD 0x1002u
#define IP(a, b, c) ((uint32_t)(a) << 22 | (uint32_t)(b) << 12 | (uint32_t)(c))

static const char source[] = "__kernel void k(__global int *a) { a[0] = 1; }\n";

/* An offline entry's bytes: distinct per target, so the sum of what the
 * driver got says which one it was. */
typedef struct form {
    clcpack_binary_kind kind;
    uint32_t arch;
    const char *target;
    unsigned char bytes[64];
    unsigned long sum;
} form;

static form forms[] = {
    {CLCPACK_KIND_INTEL, IP(12, 0, 0), "tgllp", {0}, 0},
    {CLCPACK_KIND_INTEL, IP(12, 55, 8), "acm-g10", {0}, 0},
    {CLCPACK_KIND_AMDGCN, 9u << 16 | 10u, "gfx90a", {0}, 0},
    {CLCPACK_KIND_AMDGCN, 2u << 28 | 9u << 16 | 10u, "gfx90a:xnack+", {0}, 0},
    {CLCPACK_KIND_AMDGCN, 10u << 16 | 3u << 8, "gfx1030", {0}, 0},
    {CLCPACK_KIND_SPIRV, 0x00010000u, "SPIR-V_1.0", {0}, 0},
};
#define N_FORMS (sizeof forms / sizeof forms[0])

static void *pack_data;
static size_t pack_size;

static void make_pack(void)
{
    clcpack_writer *w;
    clcpack_error err;
    CHECK(clcpack_writer_new(0, &w, &err) == CLCPACK_OK, "writer: %s", err.message);
    clcpack_device_info dev[3];
    memset(dev, 0, sizeof dev);
    for (int i = 0; i < 3; i++)
        dev[i].struct_size = sizeof dev[i];
    const char *names[3] = {"Intel GPU", "AMD GPU", "SPIR-V"};
    const uint32_t vendors[3] = {INTEL, AMD, 0};
    uint32_t index[3];
    for (int i = 0; i < 3; i++) {
        strcpy(dev[i].platform_name, "clc-pack offline");
        strcpy(dev[i].device_name, names[i]);
        dev[i].vendor_id = vendors[i];
        dev[i].device_type = vendors[i] ? CL_DEVICE_TYPE_GPU : 0;
        dev[i].address_bits = 64;
        clcpack_writer_add_device(w, &dev[i], &index[i], &err);
    }
    uint32_t src;
    clcpack_writer_add_source(w, "k.cl", source, sizeof source - 1, &src, &err);
    for (size_t f = 0; f < N_FORMS; f++) {
        form *x = &forms[f];
        for (size_t b = 0; b < sizeof x->bytes; b++) {
            x->bytes[b] = (unsigned char)(f * 37 + b * 3 + 1);
            x->sum += x->bytes[b];
        }
        clcpack_entry_spec s;
        memset(&s, 0, sizeof s);
        s.struct_size = sizeof s;
        s.kernel = "k";
        s.options = "-cl-std=CL1.2";
        s.device = index[x->kind == CLCPACK_KIND_INTEL ? 0 : x->kind == CLCPACK_KIND_AMDGCN ? 1 : 2];
        s.source = src;
        s.kind = x->kind;
        s.arch = x->arch;
        s.target = x->target;
        s.binary = x->bytes;
        s.binary_size = sizeof x->bytes;
        CHECK(clcpack_writer_add_entry(w, &s, &err) == CLCPACK_OK, "add %s: %s", x->target,
              err.message);
    }
    CHECK(clcpack_writer_write_memory(w, &pack_data, &pack_size, &err) == CLCPACK_OK, "write: %s",
          err.message);
    clcpack_writer_free(w);
}

/* The fake device: an OpenCL 3.0 GPU of a vendor. */
static void device(uint32_t vendor, uint64_t type, const char *name, uint32_t ip)
{
    memset(&fake_cl_device, 0, sizeof fake_cl_device);
    strcpy(fake_cl_device.platform_name, "a vendor's platform");
    snprintf(fake_cl_device.device_name, sizeof fake_cl_device.device_name, "%s", name);
    strcpy(fake_cl_device.driver_version, "1.0");
    fake_cl_device.vendor_id = vendor;
    fake_cl_device.device_type = type;
    fake_cl_device.address_bits = 64;
    fake_cl_device.intel_ip_version = ip;
    fake_cl_device.intel_device_id = ip ? 0x56a0 : 0;
}

/* Loads key k on the fake device; *f is the form handed over (NULL: none). */
static clcpack_status load(uint32_t flags, clcpack_load_report *rep, const form **f)
{
    clcpack *p;
    clcpack_error err;
    *f = NULL;
    if (clcpack_open_memory(pack_data, pack_size, &p, &err) != CLCPACK_OK)
        return CLCPACK_E_FORMAT;
    clcpack_key key = {"k", NULL, 0, {0, 0, 0}};
    clcpack_load_options o = {sizeof o, flags};
    cl_program prog = NULL;
    fake_cl_binary_sum = 0;
    clcpack_status st = clcpack_create_program(p, &key, (cl_context)(void *)&fake_platform_object,
                                               FAKE_DEVICE, &o, &prog, rep, &err);
    if (prog)
        clReleaseProgram(prog);
    if (st == CLCPACK_OK && (rep->path == CLCPACK_PATH_TARGET || rep->path == CLCPACK_PATH_NATIVE))
        for (size_t i = 0; i < N_FORMS; i++)
            if (forms[i].sum == fake_cl_binary_sum)
                *f = &forms[i];
    clcpack_close(p);
    return st;
}

static void expect(const char *what, uint32_t flags, clcpack_path path, const char *target,
                   const char *why_has)
{
    clcpack_load_report rep = {.struct_size = sizeof rep};
    const form *f;
    clcpack_status st = load(flags, &rep, &f);
    CHECK(st == CLCPACK_OK && rep.path == path, "%s: path %s (want %s), status %d; %s", what,
          clcpack_path_name(rep.path), clcpack_path_name(path), st, rep.why);
    if (target)
        CHECK(f && strcmp(f->target, target) == 0, "%s: handed %s, want %s; %s", what,
              f ? f->target : "nothing", target, rep.why);
    if (why_has)
        CHECK(strstr(rep.why, why_has) != NULL, "%s: the report says '%s': %s", what, why_has,
              rep.why);
}

int main(void)
{
    make_pack();
    device(INTEL, CL_DEVICE_TYPE_GPU, "Intel(R) Arc(TM) A770 Graphics", IP(12, 55, 8));
    expect("Arc A770 (12.55.8)", 0, CLCPACK_PATH_TARGET, "acm-g10",
           "intel entry 3 (tgllp): IP version 12.0.0, this device's is 12.55.8");
    device(INTEL, CL_DEVICE_TYPE_GPU, "Intel(R) Iris(R) Xe Graphics", IP(12, 0, 0));
    expect("Tiger Lake (12.0.0)", 0, CLCPACK_PATH_TARGET, "tgllp", "intel entry 3 (tgllp): loaded");
    device(INTEL, CL_DEVICE_TYPE_GPU, "Intel(R) Arc(TM) A770 Graphics", IP(12, 55, 4));
    expect("another stepping (12.55.4)", 0, CLCPACK_PATH_SOURCE, NULL,
           "intel entry 4 (acm-g10): IP version 12.55.8, this device's is 12.55.4");
    device(INTEL, CL_DEVICE_TYPE_GPU, "Intel(R) HD Graphics", 0);
    expect("an Intel GPU without the IP version query", 0, CLCPACK_PATH_SOURCE, NULL,
           "reports no IP version (no cl_intel_device_attribute_query)");
    device(INTEL, CL_DEVICE_TYPE_CPU, "pthread-haswell", 0);
    expect("a CPU with Intel's vendor id (PoCL)", 0, CLCPACK_PATH_SOURCE, NULL,
           "2 intel entries (3 to 4): this device is not an Intel GPU");
    device(AMD, CL_DEVICE_TYPE_GPU, "gfx90a:sramecc+:xnack-", 0);
    expect("MI210 (gfx90a:sramecc+:xnack-)", 0, CLCPACK_PATH_TARGET, "gfx90a",
           "amdgcn entry 0 (gfx90a): loaded");
    device(AMD, CL_DEVICE_TYPE_GPU, "gfx90a:sramecc+:xnack+", 0);
    /* Both gfx90a entries fit: the one made for xnack+ before the one for
     * either setting. */
    expect("MI250 (gfx90a:sramecc+:xnack+)", 0, CLCPACK_PATH_TARGET, "gfx90a:xnack+",
           "amdgcn entry 2 (gfx90a:xnack+): loaded");
    device(AMD, CL_DEVICE_TYPE_GPU, "gfx1030", 0);
    expect("RX 6800 (gfx1030)", 0, CLCPACK_PATH_TARGET, "gfx1030",
           "amdgcn entry 0 (gfx90a): this device is gfx1030");
    device(AMD, CL_DEVICE_TYPE_GPU, "gfx1031", 0);
    expect("RX 6700 (gfx1031)", 0, CLCPACK_PATH_SOURCE, NULL, "this device is gfx1031");
    device(AMD, CL_DEVICE_TYPE_GPU, "AMD Radeon RX 6800", 0);
    expect("a marketing name", 0, CLCPACK_PATH_SOURCE, NULL,
           "this device's name 'AMD Radeon RX 6800' is not a gfx target ID");
    device(0x10DE, CL_DEVICE_TYPE_GPU, "gfx1030", IP(12, 55, 8));
    expect("an NVIDIA GPU with a misleading name", 0, CLCPACK_PATH_SOURCE, NULL,
           "this device is not an AMD GPU");
    device(INTEL, CL_DEVICE_TYPE_GPU, "Intel(R) Arc(TM) A770 Graphics", IP(12, 55, 8));
    expect("CLCPACK_LOAD_NO_TARGET", CLCPACK_LOAD_NO_TARGET, CLCPACK_PATH_SOURCE, NULL,
           "2 intel entries (3 to 4): skipped (CLCPACK_LOAD_NO_TARGET)");
    expect("no IL on this device", 0, CLCPACK_PATH_TARGET, "acm-g10", NULL);
    device(INTEL, CL_DEVICE_TYPE_GPU, "Intel(R) Arc(TM) A770 Graphics", IP(12, 55, 4));
    expect("the SPIR-V entry on a device without IL", 0, CLCPACK_PATH_SOURCE, NULL,
           "spirv entry 5 (SPIR-V_1.0): this device takes no IL (CL_DEVICE_IL_VERSION)");
    CHECK(fake_cl_live == 0, "every program and kernel released (%ld live)", fake_cl_live);
    clcpack_free(pack_data);
    return check_summary();
}
