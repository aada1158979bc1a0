/*
 * test_pocl_first_launch.c — no first launch compiles anything after a
 * native load from a pack (docs/vendors/POCL.md), whatever the grid:
 * kernels packed with a fixed work-group (1-D --wg 64, 2-D --wg 16x16) by
 * clc-pack (BUILD/clc-pack, beside BUILD/tests/), loaded natively through
 * the library in a fresh process with PoCL's debug output on
 * (POCL_DEBUG=all, POCL_KERNEL_CACHE=0 and a private POCL_CACHE_DIR, all
 * set before the platform is opened), then launched over a small grid, a
 * large one (a dimension of 65535 work-items or more: PoCL 3.1's
 * "smallgrid" limit, USHRT_MAX), and both with a global offset. After the
 * load, PoCL must print no "Built a ... WG function" line, and "Using a
 * cached WG function" at each launch (so its messages were seen); every
 * launch computes the right values, and the load report says the binary
 * holds every form. A pack made before clc-pack stored the large-grid and
 * offset forms fails here: run this test's binary from an older build's
 * tests/ folder to see the count it gives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cl_device.h"
#include "clcpack.h"
#include "self_run.h"
#include "test_file.h"

static const char SOURCE_1D[] =
    "__kernel void run(__global int *y)\n"
    "{\n"
    "    size_t i = get_global_id(0) - get_global_offset(0);\n"
    "    y[i] = 3 * (int)get_global_id(0) + OFFSET;\n"
    "}\n";

static const char SOURCE_2D[] =
    "__kernel void run2(__global int *y, int w)\n"
    "{\n"
    "    size_t x = get_global_id(0) - get_global_offset(0);\n"
    "    size_t r = get_global_id(1) - get_global_offset(1);\n"
    "    y[r * (size_t)w + x] = 3 * (int)get_global_id(0) + 5 * (int)get_global_id(1) + OFFSET;\n"
    "}\n";

typedef struct launch {
    const char *name;
    size_t global[2], offset[2];
} launch;

/* 65536 items of 256x256 are still a small grid: PoCL looks at the widest
 * dimension, not the count. */
static const launch LAUNCHES_1D[] = {
    {"small grid", {4096, 1}, {0, 0}},
    {"large grid", {65536, 1}, {0, 0}},
    {"small grid with a global offset", {4096, 1}, {64, 0}},
    {"large grid with a global offset", {1u << 20, 1}, {128, 0}},
};
static const launch LAUNCHES_2D[] = {
    {"small grid", {256, 256}, {0, 0}},
    {"large grid", {65536, 16}, {0, 0}},
    {"small grid with a global offset", {256, 256}, {16, 32}},
    {"large grid with a global offset", {65536, 32}, {32, 16}},
};
#define N_LAUNCHES 4
#define OFFSET_DEFINE 7

/* One launch of k into a buffer of its grid, checked. 1 right, 0 wrong,
 * -1 when OpenCL failed. */
static int run_one(cl_context ctx, cl_command_queue q, cl_kernel k, cl_uint dims,
                   const size_t local[2], const launch *l)
{
    size_t n = l->global[0] * (dims == 2 ? l->global[1] : 1);
    int *y = malloc(n * sizeof *y);
    cl_int rc;
    cl_mem buf = y ? clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, n * sizeof *y, NULL, &rc) : NULL;
    if (!buf) {
        free(y);
        return -1;
    }
    int w = (int)l->global[0];
    rc = clSetKernelArg(k, 0, sizeof buf, &buf);
    if (dims == 2 && rc == CL_SUCCESS)
        rc = clSetKernelArg(k, 1, sizeof w, &w);
    if (rc == CL_SUCCESS)
        rc = clEnqueueNDRangeKernel(q, k, dims, l->offset, l->global, local, 0, NULL, NULL);
    if (rc == CL_SUCCESS)
        rc = clEnqueueReadBuffer(q, buf, CL_TRUE, 0, n * sizeof *y, y, 0, NULL, NULL);
    int right = rc == CL_SUCCESS;
    for (size_t i = 0; right && i < n; i++) {
        size_t x = i % l->global[0], r = i / l->global[0];
        int want = 3 * (int)(x + l->offset[0]) + OFFSET_DEFINE;
        if (dims == 2)
            want += 5 * (int)(r + l->offset[1]);
        right = y[i] == want;
    }
    clReleaseMemObject(buf);
    free(y);
    return rc != CL_SUCCESS ? -1 : right;
}

/* The application (a fresh process): loads the key natively, says so on
 * stderr, where PoCL writes, then launches. stdout unbuffered, so the
 * lines of both interleave in order. */
static int application(const char *pack, int dims)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    clcpack_define def = {"OFFSET", "7"};
    clcpack_key key = {dims == 2 ? "run2" : "run", &def, 1,
                       {dims == 2 ? 16 : 64, dims == 2 ? 16 : 1, 1}};
    test_app app;
    if (test_app_load(pack, &key, NULL, &app) != 0)
        return 1;
    printf("path %s\nwhy %s\n", clcpack_path_name(app.report.path), app.report.why);
    fprintf(stderr, "clcpack-test: loaded\n");
    cl_int rc;
    cl_command_queue q = clCreateCommandQueue(app.ctx, app.dev, 0, &rc);
    const size_t local[2] = {key.wg[0], key.wg[1]};
    const launch *ls = dims == 2 ? LAUNCHES_2D : LAUNCHES_1D;
    for (int i = 0; q && i < N_LAUNCHES; i++) {
        printf("launch %d: %s\n", i, ls[i].name);
        int r = run_one(app.ctx, q, app.kernel, (cl_uint)dims, local, &ls[i]);
        printf("result %d: %s\n", i, r > 0 ? "right" : r == 0 ? "wrong" : "OpenCL failed");
    }
    if (q)
        clReleaseCommandQueue(q);
    test_app_close(&app);
    return 0;
}

static char self[PATH_MAX], build[PATH_MAX], clc[PATH_MAX + 16];
static char dir[] = "/tmp/test_pocl_first_launch.XXXXXX";

/* How many times what occurs in text[from, until) (until NULL: to the end). */
static int count_in(char *from, char *until, const char *what)
{
    char keep = until ? *until : '\0';
    if (until)
        *until = '\0';
    int n = sr_count(from, what);
    if (until)
        *until = keep;
    return n;
}

/* Packs src (kernel name, local size wg) and runs the application on it;
 * checks what PoCL printed after the load. */
static void one_case(const char *name, const char *src, const char *wg, int dims)
{
    char cl[700], pack[700], log[700], cmd[9000];
    snprintf(cl, sizeof cl, "%s/%s.cl", dir, name);
    snprintf(pack, sizeof pack, "%s/%s.clcpack", dir, name);
    snprintf(log, sizeof log, "%s/%s.log", dir, name);
    test_write_file(cl, src, strlen(src));
    static char out[16384];
    snprintf(cmd, sizeof cmd, "'%s' '%s' -D OFFSET=%d --wg %s -q -o '%s' 2>&1", clc, cl,
             OFFSET_DEFINE, wg, pack);
    if (!CHECK(test_run_capture(cmd, out, sizeof out) == 0, "%s: clc-pack packs it:\n%s", name,
               out))
        return;
    snprintf(cmd, sizeof cmd,
             "POCL_DEBUG=all POCL_KERNEL_CACHE=0 POCL_CACHE_DIR='%s/app-cache-%s' '%s' "
             "--application '%s' %d >'%s' 2>&1",
             dir, name, self, pack, dims, log);
    int rc = system(cmd);
    char *text = sr_slurp(log, (size_t)16 << 20);
    if (!CHECK(rc == 0 && text, "%s: the application ran (status %d)", name, rc)) {
        free(text);
        return;
    }
    char *loaded = strstr(text, "clcpack-test: loaded");
    if (!CHECK(loaded && strstr(text, "path native"), "%s: loaded natively: %.2000s", name,
               text)) {
        free(text);
        return;
    }
    int specialized = sr_count(loaded, "Built a specialized WG function");
    int generic = sr_count(loaded, "Built a generic WG function");
    printf("%s (--wg %s): after the load PoCL built %d specialized and %d generic "
           "work-group functions\n",
           name, wg, specialized, generic);
    const launch *ls = dims == 2 ? LAUNCHES_2D : LAUNCHES_1D;
    for (int i = 0; i < N_LAUNCHES; i++) {
        char at[32], next[32], res[48];
        snprintf(at, sizeof at, "launch %d:", i);
        snprintf(next, sizeof next, "launch %d:", i + 1);
        snprintf(res, sizeof res, "result %d: right", i);
        char *start = strstr(loaded, at), *end = strstr(loaded, next);
        int built = start ? count_in(start, end, "Built a ") : -1;
        int cached = start ? count_in(start, end, "Using a cached WG function") : -1;
        printf("  %s: %d built, %d from the binary\n", ls[i].name, built, cached);
        CHECK(start && built == 0 && cached >= 1,
              "%s: the first launch over a %s (%zux%zu at offset %zu,%zu) compiles nothing "
              "(%d built, %d cached)",
              name, ls[i].name, ls[i].global[0], ls[i].global[1], ls[i].offset[0],
              ls[i].offset[1], built, cached);
        CHECK(strstr(loaded, res) != NULL, "%s: the %s launch computes the right values", name,
              ls[i].name);
    }
    CHECK(specialized == 0 && generic == 0,
          "%s: no work-group function is built after the load (%d specialized, %d generic)",
          name, specialized, generic);
    CHECK(strstr(text, "PoCL work-group functions") && strstr(text, "every grid"),
          "%s: the load report says the binary holds every form: %.600s", name,
          strstr(text, "why ") ? strstr(text, "why ") : text);
    free(text);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--application") == 0)
        return application(argv[2], atoi(argv[3]));
    if (sr_paths(argv[0], self, build) != 0) {
        CHECK(0, "the test's own path from %s", argv[0]);
        return check_summary();
    }
    sr_fmt(clc, sizeof clc, "%s/clc-pack", build);
    if (access(clc, X_OK) != 0) {
        CHECK(0, "%s is built", clc);
        return check_summary();
    }
    cl_device_id dev;
    cl_context ctx;
    if (test_first_device(&dev, &ctx) != 0) {
        CHECK_SKIP("no OpenCL device");
        return check_summary();
    }
    char version[256] = "";
    clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof version, version, NULL);
    char plat_name[256] = "";
    cl_platform_id plat;
    if (clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL) == CL_SUCCESS)
        clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof plat_name, plat_name, NULL);
    clReleaseContext(ctx);
    if (!strstr(plat_name, "Portable Computing Language")) {
        CHECK_SKIP("the first device is not PoCL's (%s): PoCL's messages are what this counts",
                   plat_name);
        return check_summary();
    }
    if (!CHECK(mkdtemp(dir) != NULL, "temporary folder"))
        return check_summary();
    /* clc-pack's workers keep PoCL's kernel cache in their own folder
     * ($XDG_CACHE_HOME/clc-pack): a fresh one, so that the pack holds what
     * this build compiled, not what an earlier run left. */
    char xdg[700];
    snprintf(xdg, sizeof xdg, "%s/xdg", dir);
    setenv("XDG_CACHE_HOME", xdg, 1);
    one_case("oned", SOURCE_1D, "64", 1);
    one_case("twod", SOURCE_2D, "16x16", 2);
    int status = check_summary();
    if (status == 0) {
        char cmd[800];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            printf("note: %s not removed\n", dir);
    }
    return status;
}
