/*
 * test_warm_pocl.c — `clc-pack warm` on PoCL (docs/CACHE.md, "Warm-up"),
 * with a pack whose native binaries are for another PoCL driver (the state
 * of a pack shipped to a machine the build host did not match):
 *  - without warm-up, the application's first start builds from source;
 *  - after `clc-pack warm`, the application's first start (a fresh process
 *    loading through the library with CLCPACK_CACHE_DIR set) loads from the
 *    cache (report path "cache"), and the kernel computes the right values;
 *  - the warmed binary holds PoCL's work-group function for the key's local
 *    size (so its first launch compiles nothing, docs/bench);
 *  - a second run builds nothing ("already warm"); a pack whose binaries
 *    are for this very driver needs nothing ("native").
 * The bench tests/bench/first_launch_any.c times the first launch.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cl_device.h"
#include "clcpack.h"
#include "pack_edit.h"
#include "test_file.h"

static const char SOURCE[] =
    "__kernel void scale(__global float *x)\n"
    "{\n"
    "    x[get_global_id(0)] *= (float)FACTOR;\n"
    "}\n";

static char dir[] = "/tmp/test_warm_pocl.XXXXXX";
static char self[1024], clc[1100], out[16384];

/* The application: loads scale FACTOR=3 wg=16 and runs it on 32 items. */
static int application(const char *pack)
{
    clcpack_define def = {"FACTOR", "3"};
    clcpack_key key = {"scale", &def, 1, {16, 1, 1}};
    test_app app;
    if (test_app_load(pack, &key, NULL, &app) != 0)
        return 1;
    cl_context ctx = app.ctx;
    cl_kernel k = app.kernel;
    float x[32];
    for (int i = 0; i < 32; i++)
        x[i] = (float)i;
    cl_int rc;
    cl_command_queue q = clCreateCommandQueue(ctx, app.dev, 0, &rc);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof x, x, &rc);
    size_t global = 32, local = 16;
    clSetKernelArg(k, 0, sizeof buf, &buf);
    clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
    clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof x, x, 0, NULL, NULL);
    int right = 1;
    for (int i = 0; i < 32; i++)
        right &= x[i] == 3.0f * (float)i;
    printf("path %s\nresult %s\nwhy %s\n", clcpack_path_name(app.report.path),
           right ? "right" : "wrong", app.report.why);
    clReleaseMemObject(buf);
    clReleaseCommandQueue(q);
    test_app_close(&app);
    return 0;
}

static int start_application(const char *pack)
{
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "'%s' --application '%s'", self, pack);
    return test_run_capture(cmd, out, sizeof out);
}

static int warm(const char *pack, const char *args)
{
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "'%s' warm '%s' %s 2>&1", clc, pack, args);
    return test_run_capture(cmd, out, sizeof out);
}

static int has(const char *s)
{
    return strstr(out, s) != NULL;
}

/* Whether some .clcbin file of folder holds text. */
static int cache_holds(const char *folder, const char *text)
{
    DIR *d = opendir(folder);
    struct dirent *de;
    int found = 0;
    while (d && !found && (de = readdir(d)) != NULL) {
        if (!strstr(de->d_name, ".clcbin"))
            continue;
        char path[8400];
        size_t n;
        snprintf(path, sizeof path, "%s/%s", folder, de->d_name);
        unsigned char *b = test_read_file(path, &n);
        for (size_t i = 0; b && !found && i + strlen(text) <= n; i++)
            found = memcmp(b + i, text, strlen(text)) == 0;
        free(b);
    }
    if (d)
        closedir(d);
    return found;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--application") == 0)
        return application(argv[2]);
    if (!realpath(argv[0], self))
        snprintf(self, sizeof self, "%s", argv[0]);
    snprintf(clc, sizeof clc, "%s", self);
    char *slash = strrchr(clc, '/');
    if (slash)
        snprintf(slash, sizeof clc - (size_t)(slash - clc), "/../clc-pack");
    if (access(clc, X_OK) != 0) {
        CHECK(0, "%s is built", clc);
        return check_summary();
    }
    /* Nothing an earlier run compiled may help: PoCL's kernel cache would
     * put a work-group function compiled then into a binary built now. */
    setenv("POCL_KERNEL_CACHE", "0", 1);
    cl_device_id dev;
    cl_context ctx;
    if (test_first_device(&dev, &ctx) != 0) {
        CHECK_SKIP("no OpenCL device");
        return check_summary();
    }
    clReleaseContext(ctx);
    if (!CHECK(mkdtemp(dir) != NULL, "temporary folder"))
        return check_summary();
    char src[600], native[600], other[600], cache[600], cold[600], cmd[9000], err[512];
    snprintf(src, sizeof src, "%s/app_kernels.cl", dir);
    snprintf(native, sizeof native, "%s/native.clcpack", dir);
    snprintf(other, sizeof other, "%s/other.clcpack", dir);
    snprintf(cache, sizeof cache, "%s/cache", dir);
    snprintf(cold, sizeof cold, "%s/cold-cache", dir);
    test_write_file(src, SOURCE, strlen(SOURCE));
    snprintf(cmd, sizeof cmd, "'%s' '%s' -D FACTOR=2,3 --wg 16 -q -o '%s' 2>&1", clc, src,
             native);
    if (!CHECK(test_run_capture(cmd, out, sizeof out) == 0, "a pack built here:\n%s", out))
        return check_summary();
    err[0] = '\0';
    CHECK(pack_copy_for_driver(native, other, "0.0-another-driver", err, sizeof err) == 0,
          "the same pack for another driver: %s", err);

    setenv("CLCPACK_CACHE_DIR", cold, 1);
    CHECK(start_application(other) == 0 && has("path source") &&
              has("driver version differs") && has("result right"),
          "without warm-up the first start builds from source:\n%s", out);

    setenv("CLCPACK_CACHE_DIR", cache, 1);
    CHECK(warm(other, "") == 0 && has("warm: cache folder") && has("2 built") &&
              has("0 failed"),
          "clc-pack warm builds both keys into the cache:\n%s", out);
    CHECK(start_application(other) == 0 && has("path cache") && has("cache: hit") &&
              has("result right"),
          "after it, the application's first start loads from the cache and computes:\n%s",
          out);
    CHECK(cache_holds(cache, "16-1-1-goffs0"),
          "the warmed binary holds PoCL's work-group function for wg 16");
    CHECK(warm(other, "") == 0 && has("2 already warm") && has("0 built"),
          "a second run builds nothing:\n%s", out);
    CHECK(warm(other, "-q") == 0 && out[0] == '\0', "-q prints nothing: '%s'", out);
    CHECK(warm(native, "") == 0 && has("2 native") && has("0 built"),
          "a pack with this driver's binaries needs nothing:\n%s", out);
    int status = check_summary();
    if (status == 0) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            printf("note: %s not removed\n", dir);
    }
    return status;
}
