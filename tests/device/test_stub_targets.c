/*
 * test_stub_targets.c — a pack made by the offline compilers on this
 * machine (clc-pack --device none --intel-gpu --amd-gpu --spirv:
 * docs/vendors/), loaded through the real ICD loader on the stub driver
 * (tests/stubs/gpu_driver/README.md) playing Intel and AMD GPUs of many
 * identities, each in a fresh process; the stub's log says which bytes
 * reached which device:
 *  - each Intel device of a target in the pack (tgllp, acm-g10, pvc) is
 *    handed exactly its own target's entry, once per key, and nothing
 *    else; each AMD device (gfx90a with its xnack and sramecc settings,
 *    gfx1030, gfx1100) exactly the entry whose target ID fits it, the one
 *    made for its xnack setting before the one for either;
 *  - an Intel device whose IP version the pack lacks (dg1, acm-g10 of
 *    another stepping) gets the SPIR-V (clCreateProgramWithIL, exactly the
 *    module's bytes), the report naming each Intel entry passed over and
 *    why; with no IL on the device, the stored source with the stored
 *    options; an AMD device the pack lacks (gfx1031) the source, no IL;
 *  - a driver that refuses binaries: SPIR-V, then the source, the
 *    driver's refusal in the report;
 *  - no binary of one vendor ever reaches the other's device;
 *  - the rebuild cache after a SPIR-V load serves the next process
 *    (path "cache", exactly a cache file's bytes, no IL);
 *  - clc-pack warm: a key with an entry of the device's target needs no
 *    warming ("native"), a SPIR-V load is warmed into the cache, which the
 *    application's first start then uses;
 *  - a --no-sources pack with SPIR-V loads on Intel from IL and fails on
 *    an AMD device it has no code object for, saying what it holds.
 * Needs ocloc, clang-15, lld-15, llvm-spirv-15 and rocm-device-libs
 * (make deps installs them): skipped, naming what is missing, without.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cl_device.h"
#include "clcpack_write.h"
#include "self_run.h"
#include "gpu_stub.h"
#include "test_file.h"

static const char SOURCE[] =
    "__kernel void twice(__global float *x) { x[get_global_id(0)] *= 2.0f * W; }\n"
    "__kernel void plus(__global float *x) { x[get_global_id(0)] += W; }\n";

#define KEYS 2 /* W=1, W=2 */

/* The pack's offline targets. */
typedef struct target {
    clcpack_binary_kind kind;
    const char *name;
    const char *ip;         /* Intel: the IP version `ocloc ids` gives */
} target;

static const target targets[] = {
    {CLCPACK_KIND_INTEL, "tgllp", "12.0.0"},   {CLCPACK_KIND_INTEL, "acm-g10", "12.55.8"},
    {CLCPACK_KIND_INTEL, "pvc", "12.60.7"},    {CLCPACK_KIND_AMDGCN, "gfx90a", NULL},
    {CLCPACK_KIND_AMDGCN, "gfx90a:xnack+", NULL}, {CLCPACK_KIND_AMDGCN, "gfx1030", NULL},
    {CLCPACK_KIND_AMDGCN, "gfx1100", NULL},    {CLCPACK_KIND_SPIRV, "SPIR-V_1.0", NULL},
};
#define N_TARGETS (sizeof targets / sizeof targets[0])
#define T_SPIRV (N_TARGETS - 1)

static char dir[] = "/tmp/test_stub_targets.XXXXXX";
static char self[PATH_MAX], build[PATH_MAX], logp[4200], cache_dir[4200];
static char pack_path[4200], nosrc_path[4200];
static clcpack *pack;
static size_t ent[KEYS][N_TARGETS]; /* the entry of each key and target */
static char *src;                   /* the stored source */
static size_t src_len;
static char out[65536];

/* What the child said of one key. */
typedef struct loaded {
    int status;
    char path[16];
    unsigned entry;
    char why[CLCPACK_REPORT_MAX];
    char error[CLCPACK_MESSAGE_MAX];
} loaded;
static loaded res[KEYS];

/* ---- the child: an application's start on the stub's first device ---- */

static int child_main(const char *path, const char *cache)
{
    if (strcmp(cache, "-") != 0)
        setenv("CLCPACK_CACHE_DIR", cache, 1);
    else
        unsetenv("CLCPACK_CACHE_DIR");
    cl_device_id dev;
    cl_context ctx;
    clcpack *p;
    clcpack_error e;
    if (test_first_device(&dev, &ctx) != 0) {
        printf("error no device\n");
        return 1;
    }
    if (clcpack_open_file(path, &p, &e) != CLCPACK_OK) {
        printf("error %s\n", e.message);
        return 1;
    }
    for (int k = 0; k < KEYS; k++) {
        char w[16];
        snprintf(w, sizeof w, "%d", k + 1);
        clcpack_define axis = {"W", w};
        clcpack_key key = {"k", &axis, 1, {0, 0, 0}};
        clcpack_load_report rep = {.struct_size = sizeof rep};
        cl_program prog = NULL;
        clcpack_status st = clcpack_create_program(p, &key, ctx, dev, NULL, &prog, &rep, &e);
        printf("key %d status %d path %s entry %u\nwhy %s\nerror %s\n", k, (int)st,
               clcpack_path_name(rep.path), rep.entry, rep.why, st == CLCPACK_OK ? "" : e.message);
        if (prog)
            clReleaseProgram(prog);
    }
    clReleaseContext(ctx);
    clcpack_close(p);
    return 0;
}

/* ---- the parent ---- */

/* The value after "word " on the line starting at s, into buf. */
static void line_value(const char *s, const char *word, char *buf, size_t cap)
{
    buf[0] = '\0';
    size_t wl = strlen(word);
    if (strncmp(s, word, wl) != 0 || s[wl] != ' ')
        return;
    s += wl + 1;
    size_t n = strcspn(s, "\n");
    snprintf(buf, cap, "%.*s", (int)n, s);
}

/* Parses the child's output into res; 0 when every key is there. */
static int parse_out(void)
{
    int seen = 0;
    memset(res, 0, sizeof res);
    for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        int k, st;
        char path[16];
        unsigned e;
        if (sscanf(l, "key %d status %d path %15s entry %u", &k, &st, path, &e) != 4 || k < 0 ||
            k >= KEYS)
            continue;
        res[k].status = st;
        snprintf(res[k].path, sizeof res[k].path, "%s", path);
        res[k].entry = e;
        const char *w = strchr(l, '\n');
        if (w) {
            line_value(w + 1, "why", res[k].why, sizeof res[k].why);
            const char *er = strchr(w + 1, '\n');
            if (er)
                line_value(er + 1, "error", res[k].error, sizeof res[k].error);
        }
        seen |= 1 << k;
    }
    return seen == (1 << KEYS) - 1 ? 0 : -1;
}

/* The stub's switches of a run: NULL leaves one unset. */
typedef struct stub_env {
    const char *il;        /* CLCSTUB_INTEL_IL_VERSION ("": no IL) */
    const char *refuse;    /* CLCSTUB_REFUSE_BINARIES */
} stub_env;

/* A fresh process loading both keys of pack on the stub playing one
 * device; cache: the rebuild cache folder or NULL. The log holds this
 * process's hand-overs only. 0 when it ran and said what it did. */
static int start(const char *device, const char *path, const char *cache, stub_env env)
{
    if (stub_icd_use(dir, device, logp, sizeof logp, 0) != 0)
        return -1;
    if (env.il)
        setenv("CLCSTUB_INTEL_IL_VERSION", env.il, 1);
    else
        unsetenv("CLCSTUB_INTEL_IL_VERSION");
    if (env.refuse)
        setenv("CLCSTUB_REFUSE_BINARIES", env.refuse, 1);
    char cmd[13000];
    sr_fmt(cmd, sizeof cmd, "'%s' --child '%s' '%s' 2>&1", self, path, cache ? cache : "-");
    int rc = test_run_capture(cmd, out, sizeof out);
    unsetenv("CLCSTUB_INTEL_IL_VERSION");
    unsetenv("CLCSTUB_REFUSE_BINARIES");
    return rc == 0 && parse_out() == 0 ? 0 : -1;
}

/* The log's lines of call on dev (NULL: any) with result (NULL: any). */
static int count(const char *call, const char *dev, const char *result)
{
    return stub_log_count(logp, call, dev, NULL, 0, result);
}

/* The build lines on dev of the stored source with exactly options. */
static int source_builds(const char *dev, const char *options)
{
    stub_log_line l;
    int n = 0;
    FILE *f = fopen(logp, "r");
    static char line[32768];
    uint8_t d[CLCPACK_SHA256_SIZE];
    char sha[65];
    clcpack_digest_sha256(src, src_len, d);
    for (int i = 0; i < CLCPACK_SHA256_SIZE; i++)
        snprintf(sha + 2 * i, 3, "%02x", d[i]);
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (stub_log_parse(line, &l) == 0 && !strcmp(l.call, "build") && !strcmp(l.dev, dev) &&
            !strcmp(l.sha256, sha) && l.bytes == src_len && !strcmp(l.result, "CL_SUCCESS") &&
            !strcmp(l.options, options))
            n++;
    }
    if (f)
        fclose(f);
    return n;
}

/* How many times entries of the other vendor's kind reached dev (any call,
 * any result). */
static int other_vendor_bytes(const char *dev, clcpack_binary_kind own)
{
    int n = 0;
    for (int k = 0; k < KEYS; k++)
        for (size_t t = 0; t < N_TARGETS; t++)
            if (targets[t].kind != own && targets[t].kind != CLCPACK_KIND_SPIRV &&
                ent[k][t] != SIZE_MAX)
                for (int c = 0; c < 2; c++)
                    n += stub_log_count_entry(logp, c ? "il" : "binary", dev, pack, ent[k][t],
                                              NULL);
    return n;
}

static size_t target_index(const char *name)
{
    for (size_t t = 0; t < N_TARGETS; t++)
        if (!strcmp(targets[t].name, name))
            return t;
    return SIZE_MAX;
}

/* dev (a stub label) got exactly entry `name` of each key, took it, and
 * nothing else. */
static void expect_target(const char *dev, const char *name)
{
    size_t t = target_index(name);
    if (!CHECK(start(dev, pack_path, NULL, (stub_env){NULL, NULL}) == 0, "%s: the load ran:\n%s",
               dev, out))
        return;
    for (int k = 0; k < KEYS; k++) {
        CHECK(res[k].status == 0 && !strcmp(res[k].path, "target") && res[k].entry == ent[k][t],
              "%s W=%d: path target, entry %zu (%s); got %s entry %u: %s %s", dev, k + 1,
              ent[k][t], name, res[k].path, res[k].entry, res[k].why, res[k].error);
        CHECK(stub_log_count_entry(logp, "binary", dev, pack, ent[k][t], "CL_SUCCESS") == 1,
              "%s W=%d: handed exactly entry %zu's bytes (%s) once, and took them", dev, k + 1,
              ent[k][t], name);
    }
    CHECK(count("binary", dev, NULL) == KEYS && count("il", NULL, NULL) == 0 &&
              count("source", NULL, NULL) == 0 && count("binary", dev, "CL_SUCCESS") == KEYS,
          "%s: nothing else handed over (%d binaries, %d IL, %d sources)", dev,
          count("binary", NULL, NULL), count("il", NULL, NULL), count("source", NULL, NULL));
    CHECK(other_vendor_bytes(dev, targets[t].kind) == 0,
          "%s: no entry of the other vendor reached it", dev);
}

/* dev got the SPIR-V module of each key through clCreateProgramWithIL and
 * no binary; the report names why each Intel entry was passed over
 * (dev_ip: the device's IP version, NULL for a device of another vendor). */
static void expect_spirv(const char *dev, const char *dev_ip, const char *also)
{
    for (int k = 0; k < KEYS; k++) {
        size_t e = ent[k][T_SPIRV];
        CHECK(res[k].status == 0 && !strcmp(res[k].path, "spirv") && res[k].entry == e,
              "%s W=%d: path spirv, entry %zu; got %s entry %u: %s %s", dev, k + 1, e,
              res[k].path, res[k].entry, res[k].why, res[k].error);
        CHECK(stub_log_count_entry(logp, "il", dev, pack, e, "CL_SUCCESS") == 1,
              "%s W=%d: handed exactly the SPIR-V entry's bytes (entry %zu) as IL", dev, k + 1, e);
        for (size_t t = 0; dev_ip && t < N_TARGETS; t++) {
            if (targets[t].kind != CLCPACK_KIND_INTEL)
                continue;
            char why[200];
            snprintf(why, sizeof why, "intel entry %zu (%s): IP version %s, this device's is %s",
                     ent[k][t], targets[t].name, targets[t].ip, dev_ip);
            CHECK(strstr(res[k].why, why), "%s W=%d: the report says '%s': %s", dev, k + 1, why,
                  res[k].why);
        }
        if (also)
            CHECK(strstr(res[k].why, also), "%s W=%d: the report says '%s': %s", dev, k + 1,
                  also, res[k].why);
    }
    CHECK(count("il", dev, NULL) == KEYS && count("source", NULL, NULL) == 0,
          "%s: one IL a key, no source (%d IL, %d sources)", dev, count("il", NULL, NULL),
          count("source", NULL, NULL));
    CHECK(other_vendor_bytes(dev, CLCPACK_KIND_INTEL) == 0,
          "%s: no AMD code object reached it", dev);
}

/* dev built the stored source of each key with the stored options. */
static void expect_source(const char *dev, const char *also1, const char *also2)
{
    for (int k = 0; k < KEYS; k++) {
        clcpack_entry_info ei = {.struct_size = sizeof ei};
        int got = res[k].status == 0 && !strcmp(res[k].path, "source") &&
                  clcpack_get_entry(pack, res[k].entry, &ei) == CLCPACK_OK;
        CHECK(got, "%s W=%d: path source; got %s: %s %s", dev, k + 1, res[k].path, res[k].why,
              res[k].error);
        if (got)
            CHECK(source_builds(dev, ei.options) == 1 && !strcmp(ei.options, k ? "-DW=2" : "-DW=1"),
                  "%s W=%d: the stored source built once with the stored options '%s'", dev,
                  k + 1, ei.options);
        const char *also[2] = {also1, also2};
        for (int a = 0; a < 2; a++)
            if (also[a])
                CHECK(strstr(res[k].why, also[a]), "%s W=%d: the report says '%s': %s", dev,
                      k + 1, also[a], res[k].why);
    }
    CHECK(stub_log_count(logp, "source", dev, src, src_len, "CL_SUCCESS") == KEYS &&
              count("il", NULL, NULL) == 0,
          "%s: handed exactly the stored source once a key, no IL (%d sources, %d IL)", dev,
          count("source", NULL, NULL), count("il", NULL, NULL));
}

/* The pack's entry of each key and target. */
static int map_entries(void)
{
    for (int k = 0; k < KEYS; k++)
        for (size_t t = 0; t < N_TARGETS; t++)
            ent[k][t] = SIZE_MAX;
    for (size_t i = 0; i < clcpack_entry_count(pack); i++) {
        clcpack_entry_info ei = {.struct_size = sizeof ei};
        if (clcpack_get_entry(pack, i, &ei) != CLCPACK_OK || ei.define_count != 1)
            continue;
        int k = atoi(ei.defines[0].value) - 1;
        size_t t = target_index(ei.target);
        if (k >= 0 && k < KEYS && t != SIZE_MAX && targets[t].kind == ei.kind)
            ent[k][t] = i;
    }
    int ok = 1;
    for (int k = 0; k < KEYS; k++)
        for (size_t t = 0; t < N_TARGETS; t++)
            ok &= ent[k][t] != SIZE_MAX;
    return ok ? 0 : -1;
}

/* The offline compilers, or what is missing (make deps installs them). */
static int have_tools(char *missing, size_t cap)
{
    static const struct {
        const char *test, *what;
    } tools[] = {
        {"command -v ocloc", "ocloc (intel-opencl-icd)"},
        {"command -v clang-15", "clang-15"},
        {"test -x /usr/lib/llvm-15/bin/ld.lld", "lld-15"},
        {"command -v llvm-spirv-15", "llvm-spirv-15"},
        {"test -f /usr/lib/x86_64-linux-gnu/amdgcn/bitcode/ockl.bc", "rocm-device-libs"},
    };
    missing[0] = '\0';
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        if (sr_system("%s >/dev/null 2>&1", tools[i].test) != 0)
            snprintf(missing + strlen(missing), cap - strlen(missing), "%s%s",
                     missing[0] ? ", " : "", tools[i].what);
    return missing[0] ? -1 : 0;
}

static int build_packs(void)
{
    char kcl[4200];
    sr_fmt(kcl, sizeof kcl, "%s/k.cl", dir);
    if (test_write_file(kcl, SOURCE, sizeof SOURCE - 1) != 0)
        return -1;
    int rc = sr_system("cd '%s' && XDG_CACHE_HOME='%s/xdg' '%s/clc-pack' k.cl -D W=1,2 "
                       "--device none --intel-gpu=tgllp,acm-g10,pvc "
                       "--amd-gpu=gfx90a,gfx90a:xnack+,gfx1030,gfx1100 --spirv -q -o '%s' "
                       ">build.txt 2>&1",
                       dir, dir, build, pack_path);
    if (!CHECK(rc == 0, "the offline pack builds (status %d)", rc))
        return -1;
    rc = sr_system("cd '%s' && XDG_CACHE_HOME='%s/xdg' '%s/clc-pack' k.cl -D W=1,2 --device none "
                   "--amd-gpu=gfx1030 --spirv --no-sources -q -o '%s' >>build.txt 2>&1",
                   dir, dir, build, nosrc_path);
    if (!CHECK(rc == 0, "the --no-sources pack builds (status %d)", rc))
        return -1;
    clcpack_error e;
    if (!CHECK(clcpack_open_file(pack_path, &pack, &e) == CLCPACK_OK, "open: %s", e.message))
        return -1;
    if (!CHECK(map_entries() == 0, "the pack has an entry of every target for W=1 and W=2"))
        return -1;
    /* ocloc ran with -exclude_ir: the kernels came from the binaries' own
     * kernel headers. */
    for (int k = 0; k < KEYS; k++)
        for (size_t t = 0; t < N_TARGETS; t++) {
            clcpack_entry_info ei = {.struct_size = sizeof ei};
            clcpack_get_entry(pack, ent[k][t], &ei);
            CHECK(ei.kernel_name_count == 2 && !strcmp(ei.kernel_names[0], "plus") &&
                      !strcmp(ei.kernel_names[1], "twice"),
                  "entry %zu (%s) holds the kernels plus and twice", ent[k][t], targets[t].name);
        }
    clcpack_read_source(pack, 0, NULL, 0, &src_len, NULL);
    src = malloc(src_len + 1);
    return CHECK(src && clcpack_read_source(pack, 0, src, src_len, &src_len, NULL) == CLCPACK_OK,
                 "the stored source")
               ? 0
               : -1;
}

static void check_targets(void)
{
    expect_target("intel:tgllp", "tgllp");
    expect_target("intel:acm-g10", "acm-g10");
    expect_target("intel:pvc", "pvc");
    /* gfx90a's devices: "any" fits both xnack settings; gfx90a:xnack+ is
     * made for the xnack+ one and is tried first there. */
    expect_target("amd:gfx90a:sramecc+:xnack-", "gfx90a");
    expect_target("amd:gfx90a:sramecc-:xnack+", "gfx90a:xnack+");
    expect_target("amd:gfx90a", "gfx90a");
    expect_target("amd:gfx1030", "gfx1030");
    expect_target("amd:gfx1100", "gfx1100");
}

static void check_fallbacks(void)
{
    /* An Intel IP version the pack lacks: the SPIR-V. */
    if (CHECK(start("intel:dg1", pack_path, NULL, (stub_env){NULL, NULL}) == 0, "dg1:\n%s", out))
        expect_spirv("intel:dg1", "12.10.0", NULL);
    if (CHECK(start("intel:12.55.4", pack_path, NULL, (stub_env){NULL, NULL}) == 0,
              "acm-g10 of stepping 4:\n%s", out))
        expect_spirv("intel:12.55.4", "12.55.4", NULL);
    CHECK(count("binary", NULL, NULL) == 0,
          "acm-g10 stepping 4: not handed acm-g10's binary (stepping 8), nor any other");
    /* No IL on the device: the source. */
    if (CHECK(start("intel:dg1", pack_path, NULL, (stub_env){"", NULL}) == 0, "dg1 no IL:\n%s",
              out))
        expect_source("intel:dg1", "this device takes no IL (CL_DEVICE_IL_VERSION)",
                      "IP version 12.0.0, this device's is 12.10.0");
    CHECK(count("binary", NULL, NULL) == 0, "dg1 without IL: no binary handed over");
    /* An AMD target the pack lacks: the source; AMD takes no IL. */
    if (CHECK(start("amd:gfx1031", pack_path, NULL, (stub_env){NULL, NULL}) == 0, "gfx1031:\n%s",
              out)) {
        char why[80];
        snprintf(why, sizeof why, "amdgcn entry %zu (gfx1030): this device is gfx1031",
                 ent[0][target_index("gfx1030")]);
        expect_source("amd:gfx1031", "this device takes no IL", NULL);
        CHECK(strstr(res[0].why, why), "gfx1031: the report says '%s': %s", why, res[0].why);
        CHECK(count("binary", NULL, NULL) == 0 &&
                  other_vendor_bytes("amd:gfx1031", CLCPACK_KIND_AMDGCN) == 0,
              "gfx1031: no binary at all, no Intel entry");
    }
}

static void check_refusals(void)
{
    /* Intel: its entry refused by the driver, then the SPIR-V. */
    size_t tg = target_index("tgllp");
    if (CHECK(start("intel:tgllp", pack_path, NULL, (stub_env){NULL, "1"}) == 0,
              "tgllp refusing binaries:\n%s", out)) {
        char why[120];
        snprintf(why, sizeof why, "intel entry %zu (tgllp): driver rejected the binary "
                                  "(CL_INVALID_BINARY (-42))", ent[0][tg]);
        expect_spirv("intel:tgllp", NULL, NULL);
        CHECK(strstr(res[0].why, why), "tgllp refusing: the report says '%s': %s", why,
              res[0].why);
        CHECK(stub_log_count_entry(logp, "binary", "intel:tgllp", pack, ent[0][tg],
                                   "CL_INVALID_BINARY") == 1 &&
                  count("binary", NULL, NULL) == KEYS,
              "tgllp refusing: its own entry was offered (and refused), no other");
    }
    /* ... and without IL: the source, both reasons in the report. */
    if (CHECK(start("intel:tgllp", pack_path, NULL, (stub_env){"", "1"}) == 0,
              "tgllp refusing binaries, no IL:\n%s", out))
        expect_source("intel:tgllp", "driver rejected the binary (CL_INVALID_BINARY (-42))",
                      "this device takes no IL");
    /* AMD: its entry refused, no IL: the source. */
    if (CHECK(start("amd:gfx1030", pack_path, NULL, (stub_env){NULL, "amd"}) == 0,
              "gfx1030 refusing binaries:\n%s", out)) {
        expect_source("amd:gfx1030", "driver rejected the binary (CL_INVALID_BINARY (-42))", NULL);
        CHECK(stub_log_count_entry(logp, "binary", "amd:gfx1030", pack,
                                   ent[0][target_index("gfx1030")], "CL_INVALID_BINARY") == 1,
              "gfx1030 refusing: its own entry was offered, and refused");
    }
}

/* The binaries of the cache folder's .clcbin files (docs/CACHE.md: a
 * 32-byte header, key_len at 8, the key, then the binary) that dev was
 * handed and took. */
static int cache_hits_in_log(const char *dev, int *files)
{
    DIR *d = opendir(cache_dir);
    struct dirent *de;
    int n = 0;
    *files = 0;
    while (d && (de = readdir(d)) != NULL) {
        if (!strstr(de->d_name, ".clcbin"))
            continue;
        char path[8400];
        size_t len;
        snprintf(path, sizeof path, "%s/%s", cache_dir, de->d_name);
        unsigned char *b = test_read_file(path, &len);
        if (b && len > 32) {
            size_t key_len = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 |
                             (size_t)b[11] << 24;
            if (key_len + 32 < len) {
                (*files)++;
                n += stub_log_count(logp, "binary", dev, b + 32 + key_len, len - 32 - key_len,
                                    "CL_SUCCESS");
            }
        }
        free(b);
    }
    if (d)
        closedir(d);
    return n;
}

static void check_cache(void)
{
    if (CHECK(start("intel:dg1", pack_path, cache_dir, (stub_env){NULL, NULL}) == 0,
              "dg1 with the cache:\n%s", out)) {
        expect_spirv("intel:dg1", "12.10.0", "cache: stored");
    }
    if (!CHECK(start("intel:dg1", pack_path, cache_dir, (stub_env){NULL, NULL}) == 0,
               "dg1, next process:\n%s", out))
        return;
    for (int k = 0; k < KEYS; k++)
        CHECK(res[k].status == 0 && !strcmp(res[k].path, "cache") &&
                  strstr(res[k].why, "cache: hit"),
              "dg1 W=%d, next process: from the cache; got %s: %s", k + 1, res[k].path, res[k].why);
    int files = 0, hits = cache_hits_in_log("intel:dg1", &files);
    CHECK(files == KEYS && hits == KEYS && count("binary", NULL, NULL) == KEYS &&
              count("il", NULL, NULL) == 0 && count("source", NULL, NULL) == 0,
          "dg1, next process: handed exactly the cache files' binaries (%d of %d files), no IL, no "
          "source",
          hits, files);
}

/* clc-pack warm on one stub device, its output in out. */
static int warm(const char *device, const char *cache)
{
    if (stub_icd_use(dir, device, logp, sizeof logp, 0) != 0)
        return -1;
    char cmd[13000];
    sr_fmt(cmd, sizeof cmd, "XDG_CACHE_HOME='%s/xdg' '%s/clc-pack' warm '%s' --cache-dir '%s' 2>&1",
           dir, build, pack_path, cache);
    return test_run_capture(cmd, out, sizeof out);
}

static void check_warm(void)
{
    char warm_dir[4300];
    snprintf(warm_dir, sizeof warm_dir, "%s/warm", dir);
    CHECK(warm("intel:tgllp", warm_dir) == 0 && strstr(out, "2 keys: 2 native") &&
              count("il", NULL, NULL) == 0 && count("source", NULL, NULL) == 0,
          "warm on tgllp: the pack's tgllp entries serve both keys, nothing built:\n%s", out);
    int files = 0;
    DIR *d = opendir(warm_dir);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL)
        files += strstr(de->d_name, ".clcbin") != NULL;
    if (d)
        closedir(d);
    CHECK(files == 0, "warm on tgllp: nothing in the cache (%d files)", files);
    CHECK(warm("intel:dg1", warm_dir) == 0 && strstr(out, "2 keys: 2 built") &&
              count("il", "intel:dg1", "CL_SUCCESS") == KEYS && count("source", NULL, NULL) == 0,
          "warm on dg1: both keys built from SPIR-V into the cache:\n%s", out);
    CHECK(warm("intel:dg1", warm_dir) == 0 && strstr(out, "2 keys: 2 already warm") &&
              count("il", NULL, NULL) == 0,
          "warm on dg1 again: already warm, no IL:\n%s", out);
    if (CHECK(start("intel:dg1", pack_path, warm_dir, (stub_env){NULL, NULL}) == 0,
              "the application after warm:\n%s", out))
        for (int k = 0; k < KEYS; k++)
            CHECK(!strcmp(res[k].path, "cache") && count("il", NULL, NULL) == 0,
                  "dg1 W=%d: the application's first start loads from the warmed cache; got "
                  "%s: %s",
                  k + 1, res[k].path, res[k].why);
    CHECK(warm("amd:gfx1031", warm_dir) == 0 && strstr(out, "2 keys: 2 built") &&
              stub_log_count(logp, "source", "amd:gfx1031", src, src_len, "CL_SUCCESS") == KEYS,
          "warm on gfx1031: both keys built from the source:\n%s", out);
}

static void check_no_sources(void)
{
    clcpack *np;
    clcpack_error e;
    if (!CHECK(clcpack_open_file(nosrc_path, &np, &e) == CLCPACK_OK, "open: %s", e.message))
        return;
    size_t spv[KEYS] = {SIZE_MAX, SIZE_MAX};
    for (size_t i = 0; i < clcpack_entry_count(np); i++) {
        clcpack_entry_info ei = {.struct_size = sizeof ei};
        if (clcpack_get_entry(np, i, &ei) == CLCPACK_OK && ei.kind == CLCPACK_KIND_SPIRV &&
            ei.define_count == 1)
            spv[ei.defines[0].value[0] == '2'] = i;
        CHECK(ei.source == CLCPACK_NONE, "--no-sources: entry %zu has no source", i);
    }
    if (CHECK(start("intel:tgllp", nosrc_path, NULL, (stub_env){NULL, NULL}) == 0,
              "--no-sources on tgllp:\n%s", out))
        for (int k = 0; k < KEYS; k++)
            CHECK(res[k].status == 0 && !strcmp(res[k].path, "spirv") && res[k].entry == spv[k] &&
                      stub_log_count_entry(logp, "il", "intel:tgllp", np, spv[k],
                                           "CL_SUCCESS") == 1,
                  "--no-sources on tgllp W=%d: exactly the SPIR-V entry, as IL; got %s: %s %s",
                  k + 1, res[k].path, res[k].why, res[k].error);
    CHECK(count("binary", NULL, NULL) == 0 && count("source", NULL, NULL) == 0,
          "--no-sources on tgllp: no binary, no source");
    if (CHECK(start("amd:gfx1100", nosrc_path, NULL, (stub_env){NULL, NULL}) == 0,
              "--no-sources on gfx1100:\n%s", out))
        for (int k = 0; k < KEYS; k++)
            CHECK(res[k].status == CLCPACK_E_NO_USABLE_FORM &&
                      strstr(res[k].error, "(amdgcn gfx1030)") &&
                      strstr(res[k].error, "(spirv SPIR-V_1.0)") &&
                      strstr(res[k].error, "and no source") &&
                      strstr(res[k].error, "this device is") && strstr(res[k].error, "gfx1100") &&
                      strstr(res[k].why, "this device is gfx1100") &&
                      strstr(res[k].why, "this device takes no IL") &&
                      strstr(res[k].why, "source: none stored"),
                  "--no-sources on gfx1100 W=%d: no usable form, saying what the pack holds and "
                  "why each was passed over; got status %d: %s; why: %s",
                  k + 1, res[k].status, res[k].error, res[k].why);
    /* (Its context is made: a line of the log, but no hand-over.) */
    CHECK(count("binary", NULL, NULL) + count("source", NULL, NULL) + count("il", NULL, NULL) +
                  count("build", NULL, NULL) ==
              0,
          "--no-sources on gfx1100: nothing handed over");
    clcpack_close(np);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--child") == 0)
        return child_main(argv[2], argv[3]);
    char missing[300];
    if (have_tools(missing, sizeof missing) != 0) {
        CHECK_SKIP("the offline compilers are not all installed (missing: %s; make deps "
                   "installs them): the stub-driver tests of offline entries",
                   missing);
        return check_summary();
    }
    if (!CHECK(sr_paths(argv[0], self, build) == 0 && mkdtemp(dir) != NULL,
               "paths and a temporary folder"))
        return check_summary();
    snprintf(pack_path, sizeof pack_path, "%s/t.clcpack", dir);
    snprintf(nosrc_path, sizeof nosrc_path, "%s/nosrc.clcpack", dir);
    snprintf(cache_dir, sizeof cache_dir, "%s/cache", dir);
    unsetenv("CLCPACK_CACHE_DIR");
    if (!CHECK(stub_icd_use(dir, NULL, logp, sizeof logp, 0) == 0,
               "the stub driver is built (make build/tests/libclcstub.so)"))
        return check_summary();
    if (build_packs() == 0) {
        check_targets();
        check_fallbacks();
        check_refusals();
        check_cache();
        check_warm();
        check_no_sources();
    }
    if (pack)
        clcpack_close(pack);
    free(src);
    int status = check_summary();
    if (status == 0)
        sr_system("rm -rf '%s'", dir);
    else
        printf("note: %s kept\n", dir);
    return status;
}
