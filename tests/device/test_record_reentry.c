/*
 * test_record_reentry.c — an OpenCL call that comes back into the
 * interposer from inside another never hangs (docs/RECORD.md, "Thread
 * safety and callbacks"). The two ways an application froze for good when
 * the interposer held its lock across the driver's clReleaseProgram:
 *
 *  (a) ctxcb: program p1 served from the pack, p2 passed through and the
 *      last holder of context c2, whose destructor callback
 *      (clSetContextDestructorCallback) calls clGetProgramInfo(p1): the
 *      driver runs it inside clReleaseProgram(p2). p2 also has a build
 *      callback and a release callback that call back in.
 *  (b) tracer: another interposer preloaded beside this one, whose
 *      clReleaseProgram calls clGetProgramInfo (tests/stubs/tracer.c).
 *
 * The test runs itself as that application ("--app MODE"): plainly, under
 * clc-pack record (p1 only), then replayed with LD_PRELOAD alone, with
 * clc-pack run (layer, forwarding loader) and with the tracer in both
 * orders; on PoCL and on the stub driver (tests/stubs/callback_driver.c), which
 * calls back synchronously. Every run is under `timeout`: a hang is a
 * failed check, never a blocked `make test`.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_2_2_APIS /* clSetProgramReleaseCallback */
#include <CL/cl.h>

#include "app_launch.h"
#include "check.h"
#include "self_run.h"

#define TIMEOUT "60"

static const char *src1 = "__kernel void first(__global int *y) { y[0] = 1; }\n";
static const char *src2 = "__kernel void second(__global int *y) { y[0] = 2; }\n";

static cl_program g_p1;
static char seen_ctx[256] = "(not called)", seen_build[256] = "(not called)",
            seen_release[256] = "(not called)";

/* Each callback asks the driver, through the interposer, about p1. */
static void ask_p1(char *out)
{
    char names[200] = "";
    cl_int rc = clGetProgramInfo(g_p1, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL);
    snprintf(out, 256, "%s (%d)", names, (int)rc);
}

static void CL_CALLBACK ctx_gone(cl_context c, void *u)
{
    (void)c;
    (void)u;
    ask_p1(seen_ctx);
}

static void CL_CALLBACK built(cl_program p, void *u)
{
    (void)p;
    (void)u;
    ask_p1(seen_build);
}

static void CL_CALLBACK released(cl_program p, void *u)
{
    (void)p;
    (void)u;
    ask_p1(seen_release);
}

static cl_program make(cl_context ctx, cl_device_id dev, const char *src,
                       void(CL_CALLBACK *notify)(cl_program, void *))
{
    cl_int rc;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &rc);
    if (!p || clBuildProgram(p, 1, &dev, "", notify, NULL) != CL_SUCCESS) {
        printf("build failed\n");
        exit(1);
    }
    return p;
}

static int app_main(const char *mode, int only_p1)
{
    cl_device_id dev;
    cl_context c1;
    cl_int rc;
    if (app_launch(&dev, &c1) != 0)
        return 1;
    g_p1 = make(c1, dev, src1, NULL);
    cl_kernel k = clCreateKernel(g_p1, "first", &rc);
    if (strcmp(mode, "ctxcb") == 0 && !only_p1) {
        cl_context c2 = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
        cl_program p2 = make(c2, dev, src2, built);
        int has_release_cb = clSetProgramReleaseCallback(p2, released, NULL) == CL_SUCCESS;
        if (clSetContextDestructorCallback(c2, ctx_gone, NULL) != CL_SUCCESS) {
            printf("no clSetContextDestructorCallback\n");
            return 1;
        }
        clReleaseContext(c2);
        clReleaseProgram(p2); /* the last holder of c2: the callbacks run in here */
        printf("build callback saw: %s\n", seen_build);
        printf("release callback saw: %s\n", has_release_cb ? seen_release : "first (0)");
        printf("context callback saw: %s\n", seen_ctx);
    }
    if (k)
        clReleaseKernel(k);
    clReleaseProgram(g_p1); /* through the tracer when it is loaded */
    clReleaseContext(c1);
    printf("done\n");
    return 0;
}

static int has(const char *text, const char *what)
{
    return text && strstr(text, what) != NULL;
}

static char self[PATH_MAX], dir[64], clc[PATH_MAX + 16], preload[PATH_MAX + 32],
    tracer[PATH_MAX + 32], stub[PATH_MAX + 48];

/* Runs `env... CMD` under timeout with stdout and stderr into dir/out and
 * dir/err; returns the exit status (SR_HUNG: it hung). */
static int sh(const char *env, const char *cmd)
{
    return sr_system("%s timeout -s KILL " TIMEOUT " %s >%s/out 2>%s/err", env, cmd, dir, dir);
}

/* The output of the last sh(). */
static char *out_text, *err_text;
static void read_back(void)
{
    char path[128];
    free(out_text);
    free(err_text);
    snprintf(path, sizeof path, "%s/out", dir);
    out_text = sr_slurp(path, 1 << 16);
    snprintf(path, sizeof path, "%s/err", dir);
    err_text = sr_slurp(path, 1 << 16);
}

/* One run that must end well, not hang, and print "done". */
static void expect_done(const char *driver, const char *what, const char *env, const char *cmd)
{
    int rc = sh(env, cmd);
    read_back();
    CHECK(!SR_HUNG(rc), "%s, %s: ends (no hang)", driver, what);
    CHECK(rc == 0 && has(out_text, "done"), "%s, %s: exit 0, done (exit %d): %s %s", driver,
          what, rc, out_text ? out_text : "", err_text ? err_text : "");
}

static void with_driver(const char *driver, const char *driver_env)
{
    char env[8192], cmd[8192];
    /* (a) the context destructor callback */
    sr_fmt(cmd, sizeof cmd, "'%s' --app ctxcb", self);
    expect_done(driver, "ctxcb, plain", driver_env, cmd);
    char *plain = out_text ? strdup(out_text) : NULL;
    CHECK(has(plain, "context callback saw: first (0)") && has(plain, "build callback saw: first"),
          "%s, ctxcb: the callbacks ran and saw p1: %s", driver, plain ? plain : "");
    sr_fmt(cmd, sizeof cmd, "'%s' record -q -o %s/p1.clcpack -- '%s' --app ctxcb only-p1", clc,
             dir, self);
    expect_done(driver, "ctxcb, record p1", driver_env, cmd);
    sr_fmt(cmd, sizeof cmd, "'%s' record -q -o %s/both.clcpack -- '%s' --app ctxcb", clc, dir,
             self);
    expect_done(driver, "ctxcb, record both (callbacks while recording)", driver_env, cmd);

    sr_fmt(env, sizeof env, "%s CLCPACK_LOG=1 CLCPACK_PACK=%s/p1.clcpack LD_PRELOAD='%s'",
             driver_env, dir, preload);
    sr_fmt(cmd, sizeof cmd, "'%s' --app ctxcb", self);
    expect_done(driver, "ctxcb, replay with LD_PRELOAD", env, cmd);
    CHECK(has(err_text, "served from the pack") && has(err_text, "passed through"),
          "%s, ctxcb: p1 served, p2 passed through: %s", driver, err_text ? err_text : "");
    CHECK(plain && out_text && strcmp(plain, out_text) == 0,
          "%s, ctxcb: replay prints what the plain run did: %s", driver, out_text ? out_text : "");
    sr_fmt(cmd, sizeof cmd, "'%s' run --log %s/p1.clcpack -- '%s' --app ctxcb", clc, dir, self);
    expect_done(driver, "ctxcb, clc-pack run (layer)", driver_env, cmd);
    CHECK(plain && out_text && strcmp(plain, out_text) == 0 && has(err_text, "served from the pack"),
          "%s, ctxcb, clc-pack run: served, same output", driver);
    free(plain);

    /* (b) a tracer interposer beside this one, in both orders */
    sr_fmt(env, sizeof env, "%s CLCPACK_LOG=1 CLCPACK_PACK=%s/p1.clcpack LD_PRELOAD='%s:%s'",
             driver_env, dir, preload, tracer);
    sr_fmt(cmd, sizeof cmd, "'%s' --app tracer", self);
    expect_done(driver, "tracer after the interposer", env, cmd);
    CHECK(has(err_text, "tracer: clReleaseProgram") && has(err_text, "served from the pack"),
          "%s, tracer after: the tracer ran, p1 served: %s", driver, err_text ? err_text : "");
    sr_fmt(env, sizeof env, "%s CLCPACK_LOG=1 CLCPACK_PACK=%s/p1.clcpack LD_PRELOAD='%s:%s'",
             driver_env, dir, tracer, preload);
    expect_done(driver, "tracer before the interposer", env, cmd);
    CHECK(has(err_text, "tracer: clReleaseProgram") && has(err_text, "served from the pack"),
          "%s, tracer before: the tracer ran, p1 served", driver);
    sr_fmt(env, sizeof env, "%s LD_PRELOAD='%s'", driver_env, tracer);
    sr_fmt(cmd, sizeof cmd, "'%s' run --log %s/p1.clcpack -- '%s' --app tracer", clc, dir,
             self);
    expect_done(driver, "tracer, clc-pack run", env, cmd);
    CHECK(has(err_text, "tracer: clReleaseProgram") && has(err_text, "served from the pack"),
          "%s, tracer, clc-pack run: the tracer ran, p1 served", driver);
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--app") == 0)
        return app_main(argv[2], argc > 3 && strcmp(argv[3], "only-p1") == 0);

    char build[PATH_MAX];
    if (sr_paths(argv[0], self, build) != 0) {
        CHECK(0, "cannot resolve %s", argv[0]);
        return check_summary();
    }
    snprintf(clc, sizeof clc, "%s/clc-pack", build);
    snprintf(preload, sizeof preload, "%s/libclcpack-preload.so", build);
    snprintf(tracer, sizeof tracer, "%s/tests/libclcpack_tracer.so", build);
    snprintf(stub, sizeof stub, "%s/tests/libclcpack_callback_driver.so", build);
    if (!CHECK(access(clc, X_OK) == 0 && access(preload, R_OK) == 0 &&
                   access(tracer, R_OK) == 0 && access(stub, R_OK) == 0,
               "%s, %s, %s and %s are built", clc, preload, tracer, stub))
        return check_summary();
    snprintf(dir, sizeof dir, "/tmp/clcpack-reentry-XXXXXX");
    if (!CHECK(mkdtemp(dir) != NULL, "temporary folder"))
        return check_summary();
    char stub_env[PATH_MAX + 80];
    snprintf(stub_env, sizeof stub_env, "OCL_ICD_VENDORS='%s'", stub);
    with_driver("stub driver", stub_env);
    with_driver("PoCL", "POCL_KERNEL_CACHE=0");
    free(out_text);
    free(err_text);
    sr_system("rm -rf '%s'", dir);
    return check_summary();
}
