/*
 * test_gpu_stub.c — the stub OpenCL driver (tests/stubs/gpu_driver/README.md),
 * reached the way an application reaches a driver: through the system's
 * ICD loader, OCL_ICD_VENDORS naming a folder with the stub's .icd file.
 *
 *  - both platforms and every device show, with NEO's and ROCm's strings,
 *    vendor ids, the Intel IP version and device id queries, IL versions,
 *    and every query of the library's device fingerprint answered;
 *  - a source builds into a binary the same device takes back, with its
 *    kernels and their argument info; another target or vendor refuses it;
 *  - real compiler output: ocloc 22.43's zebin, patchtokens and fat binaries
 *    for tgllp, dg2-g10 and pvc, and clang-15's AMDGPU code objects, are
 *    taken or refused exactly as NEO and ROCm decide (a wrong Intel target
 *    with IR inside is recompiled, as NEO does; without IR it is refused);
 *    the stub's table of gfx processors agrees with clang-15;
 *  - IL: SPIR-V on the Intel device (also through clCreateProgramWithILKHR),
 *    refused by AMD, a SPIR-V version the device does not list refused;
 *  - the switches: every binary refused, builds failing on a pattern;
 *  - reference counts; odd input (garbage, cut and mutated binaries, wrong
 *    handle types, small buffers) gives errors, never a crash; eight
 *    threads building and loading at once;
 *  - the log: a line per hand-over whose SHA-256 and options are exactly
 *    what was handed.
 * The compiler parts skip when ocloc or clang-15 is not installed.
 */
/* OpenCL 2.1 and 3.0 calls and types (IL, cl_version): the stub has them. */
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CL/cl_ext.h>

#include "check.h"
#include "clcpack.h"
#include "gpu_stub.h"
#include "test_file.h"
#include "test_rng.h"

#define DEVICES "intel:tgllp,intel:dg2-g10,intel:pvc,amd:gfx90a:sramecc+:xnack-,amd:gfx1030"
enum { TGLLP, DG2, PVC, GFX90A, GFX1030, N_DEV };
static const char *const LABELS[N_DEV] = {"intel:tgllp", "intel:dg2-g10", "intel:pvc",
                                          "amd:gfx90a:sramecc+:xnack-", "amd:gfx1030"};

static const char SOURCE[] =
    "/* two kernels; a comment with __kernel void fake(int x) in it */\n"
    "__kernel __attribute__((reqd_work_group_size(16, 1, 1)))\n"
    "void scale(__global float *x, const float f)\n"
    "{ x[get_global_id(0)] *= f; }\n"
    "kernel void add1(__global const float *restrict in, __local int *tmp,\n"
    "                 __constant float *c, __global float *out)\n"
    "{ out[get_global_id(0)] = in[get_global_id(0)] + 1.0f; }\n";

static char dir[] = "/tmp/test_gpu_stub.XXXXXX";
static char logp[4200];
static cl_platform_id plats[2];
static cl_device_id dev[N_DEV];

static int has_tool(const char *name)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", name);
    return system(cmd) == 0;
}

static cl_context context_of(cl_device_id d)
{
    cl_int rc;
    return clCreateContext(NULL, 1, &d, NULL, NULL, &rc);
}

/* A program from bytes on one device; NULL with *rc on refusal. */
static cl_program from_binary(cl_context ctx, cl_device_id d, const void *b, size_t n, cl_int *rc)
{
    cl_int st = CL_SUCCESS;
    const unsigned char *p = b;
    cl_program prog = clCreateProgramWithBinary(ctx, 1, &d, &n, &p, &st, rc);
    if (prog && st != CL_SUCCESS)
        *rc = st;
    return prog;
}

/* Whether device d takes the binary and, built, holds kernel `kernel`. */
static cl_int try_binary(cl_device_id d, const void *b, size_t n, const char *kernel)
{
    cl_context ctx = context_of(d);
    cl_int rc;
    cl_program p = from_binary(ctx, d, b, n, &rc);
    if (p && rc == CL_SUCCESS)
        rc = clBuildProgram(p, 1, &d, "", NULL, NULL);
    if (p && rc == CL_SUCCESS && kernel) {
        cl_kernel k = clCreateKernel(p, kernel, &rc);
        if (k)
            clReleaseKernel(k);
    }
    if (p)
        clReleaseProgram(p);
    clReleaseContext(ctx);
    return rc;
}

static void str_info(cl_device_id d, cl_device_info q, char *out, size_t cap)
{
    out[0] = '\0';
    if (clGetDeviceInfo(d, q, cap, out, NULL) != CL_SUCCESS)
        snprintf(out, cap, "(query failed)");
}

static void check_identity(void)
{
    cl_uint np = 0;
    CHECK(clGetPlatformIDs(2, plats, &np) == CL_SUCCESS && np == 2, "two platforms, got %u", np);
    char name[256] = "";
    clGetPlatformInfo(plats[0], CL_PLATFORM_NAME, sizeof name, name, NULL);
    CHECK(strcmp(name, "Intel(R) OpenCL Graphics") == 0, "Intel platform name: %s", name);
    clGetPlatformInfo(plats[1], CL_PLATFORM_NAME, sizeof name, name, NULL);
    CHECK(strcmp(name, "AMD Accelerated Parallel Processing") == 0, "AMD platform: %s", name);
    cl_uint ni = 0, na = 0;
    clGetDeviceIDs(plats[0], CL_DEVICE_TYPE_ALL, 3, dev, &ni);
    clGetDeviceIDs(plats[1], CL_DEVICE_TYPE_GPU, 2, dev + 3, &na);
    CHECK(ni == 3 && na == 2, "3 Intel and 2 AMD devices, got %u and %u", ni, na);
    CHECK(clGetDeviceIDs(plats[1], CL_DEVICE_TYPE_CPU, 2, dev + 3, &na) == CL_DEVICE_NOT_FOUND,
          "no CPU device");

    const cl_version ips[3] = {CL_MAKE_VERSION(12, 0, 0), CL_MAKE_VERSION(12, 55, 8),
                               CL_MAKE_VERSION(12, 60, 7)};
    const cl_uint pci[3] = {0x9a49, 0x56a0, 0x0bd5};
    for (int i = 0; i < 3; i++) {
        cl_uint vendor = 0, id = 0;
        cl_version ip = 0;
        char ver[256], ext[4096], il[256];
        clGetDeviceInfo(dev[i], CL_DEVICE_VENDOR_ID, sizeof vendor, &vendor, NULL);
        clGetDeviceInfo(dev[i], CL_DEVICE_IP_VERSION_INTEL, sizeof ip, &ip, NULL);
        clGetDeviceInfo(dev[i], CL_DEVICE_ID_INTEL, sizeof id, &id, NULL);
        str_info(dev[i], CL_DEVICE_VERSION, ver, sizeof ver);
        str_info(dev[i], CL_DEVICE_EXTENSIONS, ext, sizeof ext);
        str_info(dev[i], CL_DEVICE_IL_VERSION, il, sizeof il);
        CHECK(vendor == 0x8086 && ip == ips[i] && id == pci[i],
              "%s: vendor 0x%x, IP version %u.%u.%u, device id 0x%x", LABELS[i], vendor,
              CL_VERSION_MAJOR(ip), CL_VERSION_MINOR(ip), CL_VERSION_PATCH(ip), id);
        CHECK(strcmp(ver, "OpenCL 3.0 NEO ") == 0 && strstr(ext, "cl_intel_device_attribute_query ") &&
                  strstr(ext, "cl_khr_il_program ") && strstr(il, "SPIR-V_1.2"),
              "%s: NEO version, attribute query and IL: '%s' '%s'", LABELS[i], ver, il);
        cl_name_version ils[16];
        size_t size = 0;
        CHECK(clGetDeviceInfo(dev[i], CL_DEVICE_ILS_WITH_VERSION, sizeof ils, ils, &size) ==
                      CL_SUCCESS &&
                  size >= 3 * sizeof ils[0] && strcmp(ils[0].name, "SPIR-V") == 0,
              "%s: CL_DEVICE_ILS_WITH_VERSION", LABELS[i]);
    }
    char devname[256], driver[256], ext[4096], plat_ver[256];
    cl_uint vendor = 0;
    str_info(dev[GFX90A], CL_DEVICE_NAME, devname, sizeof devname);
    str_info(dev[GFX90A], CL_DRIVER_VERSION, driver, sizeof driver);
    str_info(dev[GFX90A], CL_DEVICE_EXTENSIONS, ext, sizeof ext);
    clGetDeviceInfo(dev[GFX90A], CL_DEVICE_VENDOR_ID, sizeof vendor, &vendor, NULL);
    clGetPlatformInfo(plats[1], CL_PLATFORM_VERSION, sizeof plat_ver, plat_ver, NULL);
    CHECK(vendor == 0x1002 && strcmp(devname, "gfx90a:sramecc+:xnack-") == 0 &&
              strstr(driver, "HSA") && !strstr(ext, "cl_khr_il_program") &&
              strcmp(plat_ver, "OpenCL 2.1 AMD-APP (3513.0)") == 0,
          "AMD: vendor 0x%x, name %s, driver %s, platform %s", vendor, devname, driver, plat_ver);
    CHECK(clGetDeviceInfo(dev[GFX1030], CL_DEVICE_IL_VERSION, sizeof ext, ext, NULL) ==
              CL_INVALID_VALUE,
          "AMD: no CL_DEVICE_IL_VERSION (an OpenCL 2.0 device)");
    char small[4];
    CHECK(clGetDeviceInfo(dev[TGLLP], CL_DEVICE_NAME, sizeof small, small, NULL) ==
                  CL_INVALID_VALUE &&
              clGetDeviceInfo(dev[TGLLP], 0x7fff, sizeof ext, ext, NULL) == CL_INVALID_VALUE,
          "a too small buffer and an unknown query are CL_INVALID_VALUE");
    for (int i = 0; i < N_DEV; i++) {
        clcpack_device_info info = {.struct_size = sizeof info};
        clcpack_error e;
        CHECK(clcpack_device_query(dev[i], &info, &e) == CLCPACK_OK &&
                  info.has_uuid == (i < GFX90A),
              "%s: the library's fingerprint: %s", LABELS[i], e.message);
    }
}

/* The source round trip on device i; its built binary into *bin. */
static void check_source_build(int i, unsigned char **bin, size_t *bin_len)
{
    cl_device_id d = dev[i];
    cl_context ctx = context_of(d);
    const char *src = SOURCE;
    cl_int rc;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &rc);
    const char *options = "-DX=1 -DNAME=\"a b\" -cl-std=CL1.2";
    rc = p ? clBuildProgram(p, 0, NULL, options, NULL, NULL) : rc;
    char names[256] = "";
    size_t nk = 0;
    clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL);
    clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, NULL);
    CHECK(rc == CL_SUCCESS && nk == 2 && strcmp(names, "scale;add1") == 0,
          "%s: source built, kernels '%s' (rc %d)", LABELS[i], names, rc);
    size_t len = 0;
    clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, NULL);
    *bin = len ? malloc(len) : NULL;
    *bin_len = len;
    unsigned char *ptrs[1] = {*bin};
    CHECK(len > 64 && clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof ptrs, ptrs, NULL) ==
                          CL_SUCCESS,
          "%s: a binary of %zu bytes", LABELS[i], len);
    cl_kernel k = clCreateKernel(p, "add1", &rc);
    cl_uint nargs = 0;
    char argname[64] = "", type[64] = "";
    cl_kernel_arg_address_qualifier aq = 0;
    cl_kernel_arg_type_qualifier tq = 0;
    clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL);
    clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, sizeof argname, argname, NULL);
    clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof type, type, NULL);
    clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, NULL);
    clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq, &tq, NULL);
    CHECK(k && nargs == 4 && strcmp(argname, "in") == 0 && strcmp(type, "float*") == 0 &&
              aq == CL_KERNEL_ARG_ADDRESS_GLOBAL &&
              tq == (CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_RESTRICT),
          "%s: add1 has 4 args, the first 'in' of type '%s'", LABELS[i], type);
    cl_kernel bad = clCreateKernel(p, "fake", &rc);
    CHECK(!bad && rc == CL_INVALID_KERNEL_NAME, "%s: no kernel from a comment", LABELS[i]);
    /* Reference counts: the kernel holds the program. */
    cl_uint refs = 0;
    clGetProgramInfo(p, CL_PROGRAM_REFERENCE_COUNT, sizeof refs, &refs, NULL);
    CHECK(refs == 2, "%s: the kernel holds a reference to its program (%u)", LABELS[i], refs);
    CHECK(clBuildProgram(p, 0, NULL, "", NULL, NULL) == CL_INVALID_OPERATION,
          "%s: no rebuild while a kernel exists", LABELS[i]);
    clReleaseProgram(p);
    char fname[64] = "";
    CHECK(clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof fname, fname, NULL) == CL_SUCCESS &&
              strcmp(fname, "add1") == 0,
          "%s: the kernel outlives the application's program reference", LABELS[i]);
    clReleaseKernel(k);
    CHECK(clReleaseKernel(bad) == CL_INVALID_KERNEL, "releasing NULL is CL_INVALID_KERNEL");

    /* The log: the source and the options, exactly. */
    stub_log_line l;
    CHECK(stub_log_find(logp, "source", LABELS[i], SOURCE, strlen(SOURCE), "CL_SUCCESS", &l) >= 1,
          "%s: the log has the source's bytes", LABELS[i]);
    CHECK(stub_log_find(logp, "build", LABELS[i], SOURCE, strlen(SOURCE), "CL_SUCCESS", &l) >=
                  1 &&
              strcmp(l.options, options) == 0 && strcmp(l.how, "source") == 0,
          "%s: the log has the build with options '%s'", LABELS[i], l.options);

    /* Back from the binary: same kernels, argument info kept. */
    if (*bin) {
        cl_program q = from_binary(ctx, d, *bin, len, &rc);
        if (q && rc == CL_SUCCESS)
            rc = clBuildProgram(q, 1, &d, "-DIGNORED", NULL, NULL);
        cl_kernel kk = q ? clCreateKernel(q, "scale", &rc) : NULL;
        char t2[64] = "";
        clGetKernelArgInfo(kk, 1, CL_KERNEL_ARG_TYPE_NAME, sizeof t2, t2, NULL);
        CHECK(kk && rc == CL_SUCCESS && strcmp(t2, "float") == 0,
              "%s: its own binary loads back with its kernels (arg 1 '%s')", LABELS[i], t2);
        CHECK(stub_log_count(logp, "binary", LABELS[i], *bin, len, "CL_SUCCESS") == 1,
              "%s: the log has the binary's bytes", LABELS[i]);
        if (kk)
            clReleaseKernel(kk);
        if (q)
            clReleaseProgram(q);
    }
    clReleaseContext(ctx);
}

static void check_own_binaries(void)
{
    unsigned char *bin[N_DEV] = {0};
    size_t len[N_DEV] = {0};
    for (int i = 0; i < N_DEV; i++)
        check_source_build(i, &bin[i], &len[i]);
    /* Each device's binary on every other device. */
    for (int i = 0; i < N_DEV; i++)
        for (int j = 0; j < N_DEV; j++) {
            if (i == j || !bin[i])
                continue;
            cl_int rc = try_binary(dev[j], bin[i], len[i], "scale");
            CHECK(rc == CL_INVALID_BINARY, "%s's binary on %s: refused (rc %d)", LABELS[i],
                  LABELS[j], rc);
        }
    stub_log_line l;
    CHECK(stub_log_find(logp, "binary", LABELS[GFX1030], bin[TGLLP], len[TGLLP],
                        "CL_INVALID_BINARY", &l) == 1 &&
              strstr(l.why, "not an AMDGPU code object"),
          "the log says why AMD refused Intel's binary: %s", l.why);
    CHECK(stub_log_find(logp, "binary", LABELS[TGLLP], bin[DG2], len[DG2], "CL_INVALID_BINARY",
                        &l) == 1 &&
              strstr(l.why, "product family 1270"),
          "the log says why tgllp refused dg2's binary: %s", l.why);
    CHECK(stub_log_find(logp, "binary", LABELS[GFX1030], bin[GFX90A], len[GFX90A],
                        "CL_INVALID_BINARY", &l) == 1 &&
              strstr(l.why, "code object for gfx90a"),
          "the log says why gfx1030 refused gfx90a's: %s", l.why);

    /* The switches, read at each call. */
    setenv("CLCSTUB_REFUSE_BINARIES", "amd", 1);
    CHECK(try_binary(dev[GFX1030], bin[GFX1030], len[GFX1030], NULL) == CL_INVALID_BINARY &&
              try_binary(dev[TGLLP], bin[TGLLP], len[TGLLP], NULL) == CL_SUCCESS,
          "CLCSTUB_REFUSE_BINARIES=amd: AMD refuses its own binary, Intel does not");
    setenv("CLCSTUB_REFUSE_BINARIES", "1", 1);
    CHECK(try_binary(dev[TGLLP], bin[TGLLP], len[TGLLP], NULL) == CL_INVALID_BINARY,
          "CLCSTUB_REFUSE_BINARIES=1: every binary refused");
    unsetenv("CLCSTUB_REFUSE_BINARIES");

    /* Odd binaries: never a crash, always a refusal or an acceptance. */
    uint8_t junk[256];
    uint64_t rng = 24;
    test_rng_fill(&rng, junk, sizeof junk);
    int ok = try_binary(dev[TGLLP], junk, sizeof junk, NULL) == CL_INVALID_BINARY &&
             try_binary(dev[GFX1030], junk, sizeof junk, NULL) == CL_INVALID_BINARY;
    for (int i = 0; i < N_DEV && ok; i++)
        for (size_t cut = 0; cut < len[i]; cut += 1 + cut / 3) {
            cl_int rc = try_binary(dev[i], bin[i], cut, NULL);
            if (rc != CL_INVALID_BINARY && rc != CL_INVALID_VALUE && rc != CL_SUCCESS)
                ok = 0;
        }
    CHECK(ok, "random bytes and every cut of each binary: refused, no crash");
    int mutated_ok = 1;
    for (int round = 0; round < 400 && mutated_ok; round++) {
        int i = round % N_DEV;
        unsigned char *m = malloc(len[i]);
        memcpy(m, bin[i], len[i]);
        for (int f = 0; f < 4; f++)
            m[test_rng_next(&rng) % len[i]] = (uint8_t)test_rng_next(&rng);
        cl_int rc = try_binary(dev[i], m, len[i], NULL);
        mutated_ok = rc == CL_SUCCESS || rc == CL_INVALID_BINARY;
        free(m);
    }
    CHECK(mutated_ok, "400 binaries with flipped bytes: taken or refused, no crash");
    for (int i = 0; i < N_DEV; i++)
        free(bin[i]);
}

/* The kernels of SOURCE in two files for the compilers. */
static void write_source(const char *path)
{
    test_write_file(path, SOURCE, strlen(SOURCE));
}

static int run_cmd(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* ocloc's output for -device target in format (zebin or patchtokens),
 * with or without IR; NULL when ocloc failed. */
static unsigned char *ocloc(const char *target, const char *format, int ir, size_t *n)
{
    char cmd[1024], out[600];
    snprintf(out, sizeof out, "%s/ocloc-%s-%s%s", dir, target, format, ir ? "" : "-noir");
    snprintf(cmd, sizeof cmd,
             "cd '%s' && ocloc compile -q -file k.cl -device %s --format %s %s -output_no_suffix "
             "-output '%s' >/dev/null 2>&1",
             dir, target, format, ir ? "" : "-exclude_ir", out);
    if (run_cmd(cmd) != 0)
        return NULL;
    char bin[700];
    snprintf(bin, sizeof bin, "%s.bin", out);
    unsigned char *b = test_read_file(bin, n);
    if (!b) /* a fat binary has no suffix */
        b = test_read_file(out, n);
    return b;
}

static void check_ocloc(void)
{
    if (!has_tool("ocloc")) {
        CHECK_SKIP("ocloc (intel-opencl-icd) is not installed: real Intel binaries not tried");
        return;
    }
    char path[600];
    snprintf(path, sizeof path, "%s/k.cl", dir);
    write_source(path);
    const char *targets[3] = {"tgllp", "dg2-g10", "pvc"};
    for (int t = 0; t < 3; t++) {
        size_t nz = 0, nn = 0, np = 0;
        unsigned char *zebin = ocloc(targets[t], "zebin", 1, &nz);
        unsigned char *noir = ocloc(targets[t], "zebin", 0, &nn);
        unsigned char *patch = ocloc(targets[t], "patchtokens", 1, &np);
        if (!CHECK(zebin && noir && patch, "ocloc built %s", targets[t])) {
            free(zebin);
            free(noir);
            free(patch);
            continue;
        }
        for (int d = 0; d < 3; d++) {
            const char *want = d == t ? "binary" : "ir";
            stub_log_line l;
            cl_int rc = try_binary(dev[d], zebin, nz, "add1");
            CHECK(rc == CL_SUCCESS &&
                      stub_log_find(logp, "binary", LABELS[d], zebin, nz, "CL_SUCCESS", &l) >= 1 &&
                      strcmp(l.how, want) == 0,
                  "ocloc zebin for %s on %s: taken as %s (how=%s, %s)", targets[t], LABELS[d],
                  want, l.how, l.why);
            rc = try_binary(dev[d], noir, nn, "add1");
            CHECK(d == t ? rc == CL_SUCCESS : rc == CL_INVALID_BINARY,
                  "ocloc zebin without IR for %s on %s: %s (rc %d)", targets[t], LABELS[d],
                  d == t ? "taken" : "refused", rc);
            rc = try_binary(dev[d], patch, np, "scale");
            CHECK(rc == CL_SUCCESS &&
                      stub_log_find(logp, "binary", LABELS[d], patch, np, "CL_SUCCESS", &l) >= 1 &&
                      strcmp(l.how, want) == 0,
                  "ocloc patchtokens for %s on %s: taken as %s (how=%s)", targets[t], LABELS[d],
                  want, l.how);
        }
        setenv("CLCSTUB_INTEL_RECOMPILE", "0", 1);
        cl_int rc = try_binary(dev[(t + 1) % 3], zebin, nz, NULL);
        unsetenv("CLCSTUB_INTEL_RECOMPILE");
        CHECK(rc == CL_INVALID_BINARY,
              "CLCSTUB_INTEL_RECOMPILE=0: %s's zebin refused on another target", targets[t]);
        CHECK(try_binary(dev[GFX90A], zebin, nz, NULL) == CL_INVALID_BINARY &&
                  try_binary(dev[GFX1030], patch, np, NULL) == CL_INVALID_BINARY,
              "%s's binaries refused by AMD", targets[t]);
        /* The SPIR-V ocloc wrote beside it, as IL. */
        if (t == 0) {
            char spv[700];
            size_t ns = 0;
            snprintf(spv, sizeof spv, "%s/ocloc-tgllp-zebin.spv", dir);
            unsigned char *il = test_read_file(spv, &ns);
            cl_context ctx = context_of(dev[TGLLP]);
            cl_program p = il ? clCreateProgramWithIL(ctx, il, ns, &rc) : NULL;
            if (p)
                rc = clBuildProgram(p, 0, NULL, "", NULL, NULL);
            char names[128] = "";
            clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL);
            CHECK(p && rc == CL_SUCCESS && strstr(names, "scale") && strstr(names, "add1"),
                  "ocloc's SPIR-V through clCreateProgramWithIL: kernels '%s'", names);
            if (p)
                clReleaseProgram(p);
            clReleaseContext(ctx);
            free(il);
        }
        free(zebin);
        free(noir);
        free(patch);
    }
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && ocloc compile -q -file k.cl -device tgllp,dg2-g10,pvc -output fat "
             "-output_no_suffix >/dev/null 2>&1",
             dir);
    size_t nf = 0;
    char fat[600];
    snprintf(fat, sizeof fat, "%s/fat", dir);
    unsigned char *fb = run_cmd(cmd) == 0 ? test_read_file(fat, &nf) : NULL;
    if (CHECK(fb && nf > 8 && memcmp(fb, "!<arch>\n", 8) == 0, "ocloc fat binary")) {
        for (int d = 0; d < 3; d++)
            CHECK(try_binary(dev[d], fb, nf, "add1") == CL_SUCCESS,
                  "the fat binary on %s: its member taken", LABELS[d]);
        CHECK(try_binary(dev[GFX90A], fb, nf, NULL) == CL_INVALID_BINARY, "AMD refuses it");
    }
    free(fb);
}

/* clang-15's code object for processor id, or NULL. */
static unsigned char *clang_co(const char *id, size_t *n)
{
    char cmd[1024], out[600];
    snprintf(out, sizeof out, "%s/co-%s.co", dir, id);
    for (char *c = out + strlen(dir); *c; c++)
        if (*c == ':')
            *c = '_';
    snprintf(cmd, sizeof cmd,
             "clang-15 -x cl -cl-std=CL1.2 -target amdgcn-amd-amdhsa -mcpu=%s -nogpulib "
             "'%s/s.cl' -o '%s' >/dev/null 2>&1",
             id, dir, out);
    return run_cmd(cmd) == 0 ? test_read_file(out, n) : NULL;
}

/* Processors of the table compared with clang-15, in one child process
 * (16 devices at most per process). */
static const char *const TABLE_IDS[] = {"gfx803", "gfx900", "gfx902", "gfx906", "gfx908",
                                        "gfx90a", "gfx90c", "gfx940", "gfx1010", "gfx1012",
                                        "gfx1030", "gfx1031", "gfx1034", "gfx1100", "gfx1101",
                                        "gfx1103"};
#define N_TABLE (sizeof TABLE_IDS / sizeof TABLE_IDS[0])

static int table_child(void)
{
    cl_platform_id p;
    cl_device_id ds[N_TABLE];
    cl_uint n = 0;
    if (clGetPlatformIDs(1, &p, NULL) != CL_SUCCESS ||
        clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, N_TABLE, ds, &n) != CL_SUCCESS || n != N_TABLE) {
        printf("child: %u devices\n", n);
        return 1;
    }
    int bad = 0;
    for (size_t i = 0; i < N_TABLE; i++) {
        size_t len = 0, other_len = 0;
        unsigned char *own = clang_co(TABLE_IDS[i], &len);
        unsigned char *other = clang_co(TABLE_IDS[(i + 1) % N_TABLE], &other_len);
        cl_int a = own ? try_binary(ds[i], own, len, "k") : -1;
        cl_int b = other ? try_binary(ds[i], other, other_len, NULL) : -1;
        if (a != CL_SUCCESS || b != CL_INVALID_BINARY) {
            printf("%s: own code object %d, %s's %d\n", TABLE_IDS[i], a,
                   TABLE_IDS[(i + 1) % N_TABLE], b);
            bad++;
        }
        free(own);
        free(other);
    }
    return bad ? 1 : 0;
}

static void check_clang(const char *self)
{
    if (!has_tool("clang-15")) {
        CHECK_SKIP("clang-15 is not installed: real AMDGPU code objects not tried");
        return;
    }
    char path[600];
    snprintf(path, sizeof path, "%s/s.cl", dir);
    const char *s = "__kernel void k(__global float *x) { x[0] = 1.0f; }\n";
    test_write_file(path, s, strlen(s));
    static const struct {
        const char *id;
        int on_90a, on_1030;
    } cases[] = {
        {"gfx90a", 1, 0},         {"gfx90a:xnack-", 1, 0}, {"gfx90a:xnack+", 0, 0},
        {"gfx90a:sramecc+", 1, 0}, {"gfx90a:sramecc-", 0, 0}, {"gfx906", 0, 0},
        {"gfx1030", 0, 1},        {"gfx1031", 0, 0},       {"gfx1100", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = 0;
        unsigned char *co = clang_co(cases[i].id, &n);
        if (!CHECK(co, "clang-15 built a code object for %s", cases[i].id))
            continue;
        cl_int a = try_binary(dev[GFX90A], co, n, "k"), b = try_binary(dev[GFX1030], co, n, "k");
        CHECK((a == CL_SUCCESS) == cases[i].on_90a && (b == CL_SUCCESS) == cases[i].on_1030 &&
                  (a == CL_SUCCESS || a == CL_INVALID_BINARY) &&
                  (b == CL_SUCCESS || b == CL_INVALID_BINARY),
              "clang-15 %s: %s on gfx90a:sramecc+:xnack-, %s on gfx1030", cases[i].id,
              a == CL_SUCCESS ? "taken" : "refused", b == CL_SUCCESS ? "taken" : "refused");
        CHECK(try_binary(dev[TGLLP], co, n, NULL) == CL_INVALID_BINARY,
              "clang-15 %s: refused by Intel", cases[i].id);
        free(co);
    }
    /* The processor table against clang-15, in a child with those devices. */
    char devices[1024] = "", cmd[8192];
    for (size_t i = 0; i < N_TABLE; i++)
        snprintf(devices + strlen(devices), sizeof devices - strlen(devices), "%samd:%s",
                 i ? "," : "", TABLE_IDS[i]);
    snprintf(cmd, sizeof cmd, "CLCSTUB_DEVICES='%s' '%s' --table-child '%s'", devices, self, dir);
    CHECK(run_cmd(cmd) == 0, "the stub's table agrees with clang-15 on %zu processors", N_TABLE);
}

/* A minimal SPIR-V module: OpEntryPoint Kernel %1 "k". */
static void spirv_module(uint32_t words[9], uint32_t version)
{
    const uint32_t w[9] = {0x07230203u, version, 0, 2, 0, (4u << 16) | 15u, 6, 1, 'k'};
    memcpy(words, w, sizeof w);
}

static void check_il(void)
{
    uint32_t spv[9];
    spirv_module(spv, 0x00010200u);
    cl_context ctx = context_of(dev[PVC]);
    cl_int rc;
    cl_program p = clCreateProgramWithIL(ctx, spv, sizeof spv, &rc);
    if (p)
        rc = clBuildProgram(p, 0, NULL, "-cl-fast-relaxed-math", NULL, NULL);
    cl_kernel k = p ? clCreateKernel(p, "k", &rc) : NULL;
    CHECK(k && rc == CL_SUCCESS, "SPIR-V 1.2 through clCreateProgramWithIL on pvc: kernel k");
    stub_log_line l;
    CHECK(stub_log_find(logp, "il", LABELS[PVC], spv, sizeof spv, "CL_SUCCESS", &l) == 1 &&
              stub_log_find(logp, "build", LABELS[PVC], spv, sizeof spv, "CL_SUCCESS", &l) == 1 &&
              strcmp(l.how, "il") == 0 && strcmp(l.options, "-cl-fast-relaxed-math") == 0,
          "the log has the IL and its build");
    if (k)
        clReleaseKernel(k);
    if (p)
        clReleaseProgram(p);
    typedef cl_program(CL_API_CALL * il_khr)(cl_context, const void *, size_t, cl_int *);
    il_khr fn = (il_khr)clGetExtensionFunctionAddressForPlatform(plats[0], "clCreateProgramWithILKHR");
    p = fn ? fn(ctx, spv, sizeof spv, &rc) : NULL;
    CHECK(p && rc == CL_SUCCESS, "clCreateProgramWithILKHR through the platform's extension address");
    if (p)
        clReleaseProgram(p);
    CHECK(clGetExtensionFunctionAddressForPlatform(plats[1], "clCreateProgramWithILKHR") == NULL,
          "the AMD platform has no clCreateProgramWithILKHR");
    uint32_t v16[9];
    spirv_module(v16, 0x00010600u);
    p = clCreateProgramWithIL(ctx, v16, sizeof v16, &rc);
    CHECK(!p && rc == CL_INVALID_VALUE &&
              stub_log_find(logp, "il", LABELS[PVC], v16, sizeof v16, "CL_INVALID_VALUE", &l) == 1 &&
              strstr(l.why, "SPIR-V 1.6"),
          "SPIR-V 1.6, not in the device's list, is CL_INVALID_VALUE: %s", l.why);
    p = clCreateProgramWithIL(ctx, "not spirv at all", 16, &rc);
    CHECK(!p && rc == CL_INVALID_VALUE, "bytes that are not SPIR-V are CL_INVALID_VALUE");
    /* SPIR-V handed to clCreateProgramWithBinary: NEO takes it as IR. */
    CHECK(try_binary(dev[PVC], spv, sizeof spv, "k") == CL_SUCCESS &&
              try_binary(dev[GFX1030], spv, sizeof spv, NULL) == CL_INVALID_BINARY,
          "SPIR-V as a binary: NEO compiles it, ROCm refuses it");
    clReleaseContext(ctx);
    cl_context amd = context_of(dev[GFX1030]);
    p = clCreateProgramWithIL(amd, spv, sizeof spv, &rc);
    CHECK(!p && rc == CL_INVALID_OPERATION, "IL on the AMD device: CL_INVALID_OPERATION");
    clReleaseContext(amd);
}

static void check_switches(void)
{
    cl_context ctx = context_of(dev[DG2]);
    const char *src = SOURCE;
    cl_int rc;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &rc);
    setenv("CLCSTUB_FAIL_BUILD", "-DBROKEN", 1);
    rc = clBuildProgram(p, 0, NULL, "-DBROKEN=1", NULL, NULL);
    cl_build_status status = 0;
    char log[512] = "";
    clGetProgramBuildInfo(p, dev[DG2], CL_PROGRAM_BUILD_STATUS, sizeof status, &status, NULL);
    clGetProgramBuildInfo(p, dev[DG2], CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    CHECK(rc == CL_BUILD_PROGRAM_FAILURE && status == CL_BUILD_ERROR && strstr(log, "error"),
          "CLCSTUB_FAIL_BUILD=-DBROKEN fails a build with -DBROKEN=1: %s", log);
    rc = clBuildProgram(p, 0, NULL, "-DFINE=1", NULL, NULL);
    CHECK(rc == CL_SUCCESS, "... not one without it");
    unsetenv("CLCSTUB_FAIL_BUILD");
    clReleaseProgram(p);
    /* Wrong handles and arguments. */
    CHECK(clBuildProgram((cl_program)ctx, 0, NULL, "", NULL, NULL) == CL_INVALID_PROGRAM,
          "a context passed as a program: CL_INVALID_PROGRAM");
    p = clCreateProgramWithSource(ctx, 1, NULL, NULL, &rc);
    CHECK(!p && rc == CL_INVALID_VALUE, "no source strings: CL_INVALID_VALUE");
    const unsigned char *none = NULL;
    size_t zero = 0;
    p = clCreateProgramWithBinary(ctx, 1, &dev[DG2], &zero, &none, NULL, &rc);
    CHECK(!p && rc == CL_INVALID_VALUE, "a NULL binary: CL_INVALID_VALUE");
    p = clCreateProgramWithBinary(ctx, 1, &dev[PVC], &zero, &none, NULL, &rc);
    CHECK(!p && rc == CL_INVALID_DEVICE, "a device not in the context: CL_INVALID_DEVICE");
    clReleaseContext(ctx);
}

/* Eight threads building, taking binaries and loading them back. */
static void *worker(void *arg)
{
    cl_device_id d = dev[(size_t)arg % N_DEV];
    cl_context ctx = context_of(d);
    int ok = 1;
    for (int i = 0; i < 25 && ok; i++) {
        const char *src = SOURCE;
        cl_int rc;
        cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &rc);
        ok = p && clBuildProgram(p, 0, NULL, "-DT=1", NULL, NULL) == CL_SUCCESS;
        size_t len = 0;
        clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, NULL);
        unsigned char *bin = malloc(len ? len : 1), *ptrs[1] = {bin};
        ok = ok && clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof ptrs, ptrs, NULL) == CL_SUCCESS;
        clReleaseProgram(p);
        ok = ok && try_binary(d, bin, len, "scale") == CL_SUCCESS;
        free(bin);
    }
    clReleaseContext(ctx);
    return ok ? arg : NULL;
}

static void check_threads(void)
{
    int before = stub_log_count(logp, NULL, NULL, NULL, 0, NULL);
    pthread_t t[8];
    for (size_t i = 0; i < 8; i++)
        pthread_create(&t[i], NULL, worker, (void *)(i + 1));
    int ok = 1;
    for (size_t i = 0; i < 8; i++) {
        void *r;
        pthread_join(t[i], &r);
        ok &= r == (void *)(i + 1);
    }
    int after = stub_log_count(logp, NULL, NULL, NULL, 0, NULL);
    CHECK(ok, "eight threads building and loading at once");
    /* Each thread: its context, then 25 rounds of four hand-overs and the
     * context try_binary makes. */
    CHECK(after - before == 8 + 8 * 25 * 5, "every hand-over logged, each line whole: %d lines",
          after - before);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--table-child") == 0) {
        snprintf(dir, sizeof dir, "%s", argv[2]);
        return table_child();
    }
    if (!CHECK(mkdtemp(dir) != NULL, "temporary folder"))
        return check_summary();
    if (stub_icd_use(dir, DEVICES, logp, sizeof logp, 0) != 0) {
        CHECK(0, "the stub driver is built (make build/tests/libclcstub.so)");
        return check_summary();
    }
    char self[4096];
    if (!realpath(argv[0], self))
        snprintf(self, sizeof self, "%s", argv[0]);
    check_identity();
    if (check_failures() == 0) {
        check_own_binaries();
        check_ocloc();
        check_clang(self);
        check_il();
        check_switches();
        check_threads();
    }
    int status = check_summary();
    if (status == 0) {
        char cmd[200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        run_cmd(cmd);
    }
    return status;
}
