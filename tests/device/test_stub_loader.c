/*
 * test_stub_loader.c — the library on devices this machine does not have:
 * the stub driver (tests/stubs/gpu_driver/README.md) playing an Intel tgllp and an
 * AMD gfx1030 beside PoCL, its log telling which bytes reached which
 * device.
 *
 *  - a pack built on PoCL (native binaries, the source) loads natively on
 *    PoCL; on the stub's Intel and AMD devices PoCL's binaries are never
 *    handed over (the log has no binary at all), the report says why
 *    (another platform), and the stored source is built with the stored
 *    options (the log has exactly the stored source's bytes and options);
 *  - with the rebuild cache, the next process loads the stub's own binary
 *    from the cache on each device (path "cache"; the log has exactly the
 *    cache file's binary, no source);
 *  - a driver that refuses every binary: the cache file and a pack entry
 *    made for the very device are refused, the load falls through to the
 *    source and the report names each refusal;
 *  - a source that does not build: CLCPACK_E_BUILD with the driver's log;
 *  - a pack holding a native entry for the stub's Intel and one for its AMD
 *    device: each device gets exactly its own entry's bytes, never the
 *    other vendor's — the assertion later tests of target binaries use.
 * Loads that must start cold run in child processes (this program again).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include "check.h"
#include "cl_device.h"
#include "clcpack_write.h"
#include "gpu_stub.h"
#include "test_file.h"

static const char SOURCE[] =
    "__kernel void scale(__global float *x)\n"
    "{\n"
    "    x[get_global_id(0)] *= (float)(FILTER_WIDTH + HALF_FILTER_SIZE);\n"
    "}\n";
static const char OPTIONS[] = "-DFILTER_WIDTH=5 -DHALF_FILTER_SIZE=2";

#define INTEL "Intel(R) OpenCL Graphics"
#define AMD "AMD Accelerated Parallel Processing"
#define POCL "Portable Computing Language"

static char dir[] = "/tmp/test_stub_loader.XXXXXX";
static char logp[4200], self[4096], pocl_pack[4200], stub_pack[4200], cache_dir[4200];
static char out[16384];

static int key_load(const char *pack, const char *platform, uint32_t flags, char *text,
                    size_t cap)
{
    cl_device_id dev;
    cl_int rc;
    clcpack *p;
    clcpack_error e;
    if (test_platform_device(platform, 0, &dev) != 0) {
        snprintf(text, cap, "error no device on %s\n", platform);
        return 1;
    }
    if (clcpack_open_file(pack, &p, &e) != CLCPACK_OK) {
        snprintf(text, cap, "error %s\n", e.message);
        return 1;
    }
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
    clcpack_define axis[] = {{"FILTER_WIDTH", "5"}};
    clcpack_key key = {"scale", axis, 1, {0, 0, 0}};
    clcpack_load_options o = {sizeof o, flags};
    clcpack_load_report rep = {.struct_size = sizeof rep};
    cl_program prog = NULL;
    clcpack_status st = clcpack_create_program(p, &key, ctx, dev, &o, &prog, &rep, &e);
    snprintf(text, cap, "status %d\npath %s\nentry %u\nwhy %s\nerror %s\n", (int)st,
             clcpack_path_name(rep.path), rep.entry, rep.why, st == CLCPACK_OK ? "" : e.message);
    if (prog)
        clReleaseProgram(prog);
    clReleaseContext(ctx);
    clcpack_close(p);
    return 0;
}

/* Runs this program as a child: key_load(pack, platform, flags). */
static int child(const char *pack, const char *platform, const char *flags)
{
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "'%s' --child '%s' '%s' %s", self, pack, platform, flags);
    return test_run_capture(cmd, out, sizeof out);
}

static int has(const char *s)
{
    return strstr(out, s) != NULL;
}

/* Builds SOURCE with OPTIONS on dev; the binary (malloc'd) and fingerprint. */
static unsigned char *build_on(cl_device_id dev, size_t *len, clcpack_device_info *info)
{
    cl_int rc;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
    const char *src = SOURCE;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &rc);
    rc = clBuildProgram(prog, 1, &dev, OPTIONS, NULL, NULL);
    *len = 0;
    clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof *len, len, NULL);
    unsigned char *bin = *len ? malloc(*len) : NULL, *bins[1] = {bin};
    if (rc != CL_SUCCESS || !bin ||
        clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) != CL_SUCCESS ||
        clcpack_device_query(dev, info, NULL) != CLCPACK_OK) {
        free(bin);
        bin = NULL;
    }
    clReleaseProgram(prog);
    clReleaseContext(ctx);
    return bin;
}

/* A pack whose native entries are the binaries bins[i] for devices infos[i]. */
static int write_pack(const char *path, const clcpack_device_info *infos,
                      unsigned char *const *bins, const size_t *lens, size_t n)
{
    clcpack_writer *w;
    clcpack_error e;
    uint32_t si;
    clcpack_define defs[] = {{"FILTER_WIDTH", "5"}, {"HALF_FILTER_SIZE", "2"}};
    if (clcpack_writer_new(0, &w, &e) != CLCPACK_OK)
        return -1;
    int ok = clcpack_writer_add_source(w, "scale.cl", SOURCE, strlen(SOURCE), &si, &e) ==
             CLCPACK_OK;
    for (size_t i = 0; ok && i < n; i++) {
        uint32_t di;
        clcpack_entry_spec s;
        memset(&s, 0, sizeof s);
        s.struct_size = sizeof s;
        s.kernel = "scale";
        s.options = OPTIONS;
        s.defines = defs;
        s.define_count = 2;
        s.kind = CLCPACK_KIND_NATIVE;
        s.binary = bins[i];
        s.binary_size = lens[i];
        s.source = si;
        ok = clcpack_writer_add_device(w, &infos[i], &di, &e) == CLCPACK_OK;
        s.device = di;
        ok = ok && clcpack_writer_add_entry(w, &s, &e) == CLCPACK_OK;
    }
    ok = ok && clcpack_writer_write_file(w, path, &e) == CLCPACK_OK;
    clcpack_writer_free(w);
    return ok ? 0 : -1;
}

/* The binary of the one .clcbin file in the cache made for platform's
 * device: the file whose key names that platform. */
static unsigned char *cached_binary(const char *platform, size_t *len)
{
    DIR *d = opendir(cache_dir);
    struct dirent *de;
    unsigned char *found = NULL;
    while (d && !found && (de = readdir(d)) != NULL) {
        if (!strstr(de->d_name, ".clcbin"))
            continue;
        char path[8400];
        size_t n;
        snprintf(path, sizeof path, "%s/%s", cache_dir, de->d_name);
        unsigned char *b = test_read_file(path, &n);
        if (!b || n < 32) {
            free(b);
            continue;
        }
        /* docs/CACHE.md: 32-byte header, key_len at 8, binary_size at 12. */
        uint32_t key_len = (uint32_t)b[8] | (uint32_t)b[9] << 8 | (uint32_t)b[10] << 16 |
                           (uint32_t)b[11] << 24;
        size_t bin_len = n - 32 - key_len;
        char *key = strndup((const char *)b + 32, key_len);
        if (key && strstr(key, platform) && key_len + 32 < n) {
            found = malloc(bin_len);
            memcpy(found, b + 32 + key_len, bin_len);
            *len = bin_len;
        }
        free(key);
        free(b);
    }
    if (d)
        closedir(d);
    return found;
}

/* The log lines of process pid (0: any) that are call (NULL: any); the
 * pid of the last line written into *last when last is not NULL. */
static int lines_of(long pid, const char *call, long *last)
{
    FILE *f = fopen(logp, "r");
    char line[32768];
    int n = 0;
    stub_log_line l;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (stub_log_parse(line, &l) != 0)
            continue;
        if (last)
            *last = l.pid;
        if ((!pid || l.pid == pid) && (!call || !strcmp(l.call, call)))
            n++;
    }
    if (f)
        fclose(f);
    return n;
}

static void check_pocl_pack(void)
{
    cl_device_id pocl;
    clcpack_device_info info = {.struct_size = sizeof info};
    size_t len;
    if (test_platform_device(POCL, 0, &pocl) != 0) {
        CHECK_SKIP("no PoCL device: the PoCL pack's part not run");
        return;
    }
    unsigned char *bin = build_on(pocl, &len, &info);
    if (!CHECK(bin && write_pack(pocl_pack, &info, &bin, &len, 1) == 0, "a pack built on PoCL"))
        return;
    free(bin);
    char text[16384];
    key_load(pocl_pack, POCL, CLCPACK_LOAD_NO_CACHE, text, sizeof text);
    CHECK(strstr(text, "path native"), "on PoCL: native\n%s", text);

    clcpack *p;
    clcpack_open_file(pocl_pack, &p, NULL);
    size_t src_len = 0;
    clcpack_read_source(p, 0, NULL, 0, &src_len, NULL);
    char *src = malloc(src_len + 1);
    clcpack_read_source(p, 0, src, src_len, &src_len, NULL);
    const char *stub_devs[2][2] = {{INTEL, "intel:tgllp"}, {AMD, "amd:gfx1030"}};
    for (int i = 0; i < 2; i++) {
        key_load(pocl_pack, stub_devs[i][0], CLCPACK_LOAD_NO_CACHE, text, sizeof text);
        CHECK(strstr(text, "path source") &&
                  strstr(text, "native entry 0: platform name differs: Portable Computing "
                               "Language in pack") &&
                  strstr(text, "source (entry 0, 'scale.cl'): built"),
              "%s: the source, and why not PoCL's binary:\n%s", stub_devs[i][1], text);
        CHECK(stub_log_count(logp, "binary", stub_devs[i][1], NULL, 0, NULL) == 0 &&
                  stub_log_count_entry(logp, "binary", NULL, p, 0, NULL) == 0,
              "%s: PoCL's binary never reached a stub device (no binary at all)",
              stub_devs[i][1]);
        stub_log_line l;
        CHECK(stub_log_find(logp, "source", stub_devs[i][1], src, src_len, "CL_SUCCESS", &l) ==
                  1,
              "%s: handed exactly the stored source", stub_devs[i][1]);
        CHECK(stub_log_find(logp, "build", stub_devs[i][1], src, src_len, "CL_SUCCESS", &l) ==
                      1 &&
                  strcmp(l.options, OPTIONS) == 0,
              "%s: built with the stored options '%s'", stub_devs[i][1], l.options);
    }
    free(src);
    clcpack_close(p);

    /* The rebuild cache, in fresh processes. */
    setenv("CLCPACK_CACHE_DIR", cache_dir, 1);
    for (int i = 0; i < 2; i++) {
        const char *plat = stub_devs[i][0], *label = stub_devs[i][1];
        CHECK(child(pocl_pack, plat, "0") == 0 && has("path source") && has("cache: stored"),
              "%s, first process: source, stored in the cache:\n%s", label, out);
        size_t clen = 0;
        unsigned char *cbin = cached_binary(plat, &clen);
        CHECK(child(pocl_pack, plat, "0") == 0 && has("path cache") && has("cache: hit"),
              "%s, next process: from the cache:\n%s", label, out);
        long pid = 0;
        lines_of(0, NULL, &pid);
        CHECK(cbin && stub_log_count(logp, "binary", label, cbin, clen, "CL_SUCCESS") == 1 &&
                  lines_of(pid, "source", NULL) == 0 && lines_of(pid, "binary", NULL) == 1,
              "%s: that process handed the device exactly the cache file's binary, no source",
              label);
        free(cbin);
    }
    setenv("CLCSTUB_REFUSE_BINARIES", "1", 1);
    CHECK(child(pocl_pack, INTEL, "0") == 0 && has("path source") &&
              has("cache: driver rejected") && has("CL_INVALID_BINARY") && has("cache: stored"),
          "a driver refusing every binary: the cache file refused, the source built:\n%s", out);
    unsetenv("CLCSTUB_REFUSE_BINARIES");
    setenv("CLCSTUB_FAIL_BUILD", "1", 1);
    CHECK(child(pocl_pack, AMD, "64") == 0 && has("status 11") && has("clcstub: error") &&
              has(OPTIONS),
          "a source that does not build: CLCPACK_E_BUILD with the driver's log:\n%s", out);
    unsetenv("CLCSTUB_FAIL_BUILD");
    unsetenv("CLCPACK_CACHE_DIR");
}

static void check_stub_pack(void)
{
    cl_device_id intel, amd;
    clcpack_device_info infos[2] = {{.struct_size = sizeof infos[0]},
                                    {.struct_size = sizeof infos[1]}};
    unsigned char *bins[2];
    size_t lens[2];
    if (!CHECK(test_platform_device(INTEL, 0, &intel) == 0 &&
                   test_platform_device(AMD, 0, &amd) == 0,
               "the stub's two devices"))
        return;
    bins[0] = build_on(intel, &lens[0], &infos[0]);
    bins[1] = build_on(amd, &lens[1], &infos[1]);
    if (!CHECK(bins[0] && bins[1] && write_pack(stub_pack, infos, bins, lens, 2) == 0,
               "a pack with a native entry for each stub device")) {
        free(bins[0]);
        free(bins[1]);
        return;
    }
    clcpack *p;
    clcpack_open_file(stub_pack, &p, NULL);
    /* Which entry is whose: the entry's device record. */
    size_t e_intel = 0, e_amd = 1;
    clcpack_entry_info ei = {.struct_size = sizeof ei};
    clcpack_device_info di = {.struct_size = sizeof di};
    if (clcpack_get_entry(p, 0, &ei) == CLCPACK_OK &&
        clcpack_get_device(p, ei.device, &di) == CLCPACK_OK && di.vendor_id == 0x1002) {
        e_intel = 1;
        e_amd = 0;
    }
    /* A fresh log: the cache part handed these very bytes (the stub's
     * builds of one source and options are the same). */
    test_write_file(logp, "", 0);
    char text[16384];
    key_load(stub_pack, INTEL, CLCPACK_LOAD_NO_CACHE, text, sizeof text);
    CHECK(strstr(text, "path native"), "intel:tgllp loads its own entry natively:\n%s", text);
    key_load(stub_pack, AMD, CLCPACK_LOAD_NO_CACHE, text, sizeof text);
    CHECK(strstr(text, "path native"), "amd:gfx1030 too:\n%s", text);
    CHECK(stub_log_count_entry(logp, "binary", "intel:tgllp", p, e_intel, "CL_SUCCESS") == 1 &&
              stub_log_count_entry(logp, "binary", "amd:gfx1030", p, e_amd, "CL_SUCCESS") == 1,
          "each device got exactly its own entry's bytes");
    CHECK(stub_log_count_entry(logp, "binary", "intel:tgllp", p, e_amd, NULL) == 0 &&
              stub_log_count_entry(logp, "binary", "amd:gfx1030", p, e_intel, NULL) == 0,
          "and never the other vendor's");
    setenv("CLCSTUB_REFUSE_BINARIES", "intel", 1);
    CHECK(child(stub_pack, INTEL, "64") == 0 && has("path source") &&
              has("driver rejected the binary (CL_INVALID_BINARY (-42))") && has("built"),
          "a driver refusing every binary: its own entry refused, the source built:\n%s", out);
    unsetenv("CLCSTUB_REFUSE_BINARIES");
    clcpack_close(p);
    free(bins[0]);
    free(bins[1]);
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--child") == 0) {
        static char text[16384];
        int rc = key_load(argv[2], argv[3], (uint32_t)strtoul(argv[4], NULL, 10), text,
                          sizeof text);
        fputs(text, stdout);
        return rc;
    }
    if (!realpath(argv[0], self))
        snprintf(self, sizeof self, "%s", argv[0]);
    if (!CHECK(mkdtemp(dir) != NULL, "temporary folder"))
        return check_summary();
    snprintf(pocl_pack, sizeof pocl_pack, "%s/pocl.clcpack", dir);
    snprintf(stub_pack, sizeof stub_pack, "%s/stub.clcpack", dir);
    snprintf(cache_dir, sizeof cache_dir, "%s/cache", dir);
    unsetenv("CLCPACK_CACHE_DIR");
    if (!CHECK(stub_icd_use(dir, "intel:tgllp,amd:gfx1030", logp, sizeof logp, 1) == 0,
               "the stub driver is built (make build/tests/libclcstub.so)"))
        return check_summary();
    check_pocl_pack();
    check_stub_pack();
    int status = check_summary();
    if (status == 0) {
        char cmd[200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            printf("note: %s not removed\n", dir);
    }
    return status;
}
