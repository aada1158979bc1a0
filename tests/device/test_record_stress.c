/*
 * test_record_stress.c — the interposer (docs/RECORD.md) under many threads
 * that build, compile, link, retain and release programs while callbacks
 * call back into the OpenCL API from inside the driver: build callbacks,
 * program release callbacks, context destructor callbacks (the last
 * clReleaseProgram of a program destroys its context). On the stub driver
 * (tests/stubs/callback_driver.c), which runs every callback synchronously inside
 * the call, so thousands of such nestings take seconds. The test runs
 * itself as that application ("--app") plainly, recording (LD_PRELOAD
 * form), and replaying from the recorded pack with LD_PRELOAD and as a
 * layer; each run under `timeout` (a hang fails), each must give the same
 * output, and the replays serve every program and link. Under
 * `make test-tsan` the test, the interposer and the stub are built with
 * ThreadSanitizer, which also reports any lock taken in two orders.
 */
#include <limits.h>
#include <pthread.h>
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

#define THREADS 8
#define ROUNDS 60
#define SOURCES 4
#define TIMEOUT "120"

static cl_device_id dev;
static cl_program anchor; /* built once, alive to the end: what callbacks ask about */
static long callbacks;    /* callbacks that got an answer from inside the driver */

static void ask_anchor(void)
{
    char names[64] = "";
    if (clGetProgramInfo(anchor, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL) ==
            CL_SUCCESS &&
        strcmp(names, "anchor") == 0)
        __atomic_add_fetch(&callbacks, 1, __ATOMIC_RELAXED);
}

static void CL_CALLBACK on_build(cl_program p, void *u)
{
    (void)u;
    size_t n = 0;
    clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof n, &n, NULL);
    ask_anchor();
}

static void CL_CALLBACK on_release(cl_program p, void *u)
{
    (void)p;
    (void)u;
    ask_anchor();
}

static void CL_CALLBACK on_context_gone(cl_context c, void *u)
{
    (void)c;
    (void)u;
    ask_anchor();
}

typedef struct job {
    int thread;
    long sum;   /* of what the programs' kernels are named: the same every run */
    int errors;
} job;

static void *worker(void *arg)
{
    job *j = arg;
    cl_int rc;
    for (int round = 0; round < ROUNDS; round++) {
        int s = (j->thread + round) % SOURCES;
        cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
        if (!ctx || clSetContextDestructorCallback(ctx, on_context_gone, NULL) != CL_SUCCESS) {
            j->errors++;
            continue;
        }
        char src[256];
        cl_program p;
        if (round % 3 == 2) {
            /* Separate compilation: two inputs, one with a header program. */
            char a_src[128], b_src[128];
            snprintf(a_src, sizeof a_src, "#include \"h.h\"\nint f%d(int x);\n", s);
            snprintf(b_src, sizeof b_src, "__kernel void linked%d(__global int *y) {}\n", s);
            const char *hs = "#define H 1\n", *as = a_src, *bs = b_src, *names[] = {"h.h"};
            cl_program h = clCreateProgramWithSource(ctx, 1, &hs, NULL, &rc);
            cl_program a = clCreateProgramWithSource(ctx, 1, &as, NULL, &rc);
            cl_program b = clCreateProgramWithSource(ctx, 1, &bs, NULL, &rc);
            cl_program in[2] = {a, b};
            if (clCompileProgram(a, 1, &dev, "-DA", 1, &h, names, on_build, NULL) != CL_SUCCESS ||
                clCompileProgram(b, 1, &dev, "", 0, NULL, NULL, NULL, NULL) != CL_SUCCESS ||
                !(p = clLinkProgram(ctx, 1, &dev, "", 2, in, NULL, NULL, &rc))) {
                j->errors++;
                clReleaseContext(ctx);
                continue;
            }
            clReleaseProgram(h);
            clReleaseProgram(a);
            clReleaseProgram(b);
            snprintf(src, sizeof src, "linked%d", s);
        } else {
            snprintf(src, sizeof src, "__kernel void k%d(__global int *y) { y[0] = %d; }\n", s,
                     s);
            const char *text = src;
            p = clCreateProgramWithSource(ctx, 1, &text, NULL, &rc);
            if (!p || clBuildProgram(p, 1, &dev, "-DX=1", on_build, NULL) != CL_SUCCESS) {
                j->errors++;
                clReleaseContext(ctx);
                continue;
            }
            snprintf(src, sizeof src, "k%d", s);
        }
        clSetProgramReleaseCallback(p, on_release, NULL);
        cl_kernel k = clCreateKernel(p, src, &rc);
        cl_program owner = NULL;
        if (!k || clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof owner, &owner, NULL) != CL_SUCCESS ||
            owner != p)
            j->errors++;
        char names[64] = "";
        clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL);
        j->sum += (long)strlen(names) * (s + 1);
        clReleaseContext(ctx); /* the program holds it now */
        clRetainProgram(p);
        clReleaseProgram(p);
        if (k)
            clReleaseKernel(k);
        clReleaseProgram(p); /* the last one: release callback, then the context's */
    }
    return NULL;
}

static int app_main(void)
{
    cl_context ctx;
    cl_int rc;
    if (app_launch(&dev, &ctx) != 0)
        return 1;
    const char *src = "__kernel void anchor(__global int *y) { y[0] = 0; }\n";
    anchor = clCreateProgramWithSource(ctx, 1, &src, NULL, &rc);
    if (clBuildProgram(anchor, 1, &dev, "", NULL, NULL) != CL_SUCCESS) {
        printf("anchor build failed\n");
        return 1;
    }
    job jobs[THREADS];
    pthread_t tids[THREADS];
    memset(jobs, 0, sizeof jobs);
    for (int t = 0; t < THREADS; t++) {
        jobs[t].thread = t;
        pthread_create(&tids[t], NULL, worker, &jobs[t]);
    }
    int errors = 0;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(tids[t], NULL);
        printf("thread %d: sum %ld, %d errors\n", t, jobs[t].sum, jobs[t].errors);
        errors += jobs[t].errors;
    }
    long want = (long)THREADS * ROUNDS * 3; /* three callbacks per round */
    printf("callbacks answered: %s\n", callbacks >= want ? "all" : "NOT ALL");
    clReleaseProgram(anchor);
    clReleaseContext(ctx);
    return errors != 0 || callbacks < want;
}

static char dir[64];

/* Runs `ENV CMD` under timeout, output into dir/NAME.out and .err; the
 * exit status (SR_HUNG: it hung). */
static int sh(const char *name, const char *env, const char *cmd)
{
    return sr_system("%s timeout -s KILL " TIMEOUT " %s >%s/%s.out 2>%s/%s.err", env, cmd, dir,
                     name, dir, name);
}

static char *read_file(const char *name, const char *ext)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
    return sr_slurp(path, 1 << 22);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--app") == 0)
        return app_main();

    char self[PATH_MAX], build[PATH_MAX], clc[PATH_MAX + 16], preload[PATH_MAX + 32],
        stub[PATH_MAX + 48];
    if (sr_paths(argv[0], self, build) != 0) {
        CHECK(0, "cannot resolve %s", argv[0]);
        return check_summary();
    }
    snprintf(clc, sizeof clc, "%s/clc-pack", build);
    snprintf(preload, sizeof preload, "%s/libclcpack-preload.so", build);
    snprintf(stub, sizeof stub, "%s/tests/libclcpack_callback_driver.so", build);
    if (!CHECK(access(clc, X_OK) == 0 && access(preload, R_OK) == 0 && access(stub, R_OK) == 0,
               "%s, %s and %s are built", clc, preload, stub))
        return check_summary();
    snprintf(dir, sizeof dir, "/tmp/clcpack-stress-XXXXXX");
    if (!CHECK(mkdtemp(dir) != NULL, "temporary folder"))
        return check_summary();
    char env[8192], cmd[8192];
    sr_fmt(cmd, sizeof cmd, "'%s' --app", self);
    const char *names[] = {"plain", "record", "replay", "layer"};
    for (int i = 0; i < 4; i++) {
        switch (i) {
        case 0:
            sr_fmt(env, sizeof env, "OCL_ICD_VENDORS='%s'", stub);
            break;
        case 1:
            sr_fmt(env, sizeof env, "mkdir %s/caps && OCL_ICD_VENDORS='%s' CLCPACK_RECORD=%s/caps LD_PRELOAD='%s'",
                dir, stub, dir, preload);
            break;
        case 2:
            sr_fmt(env, sizeof env, "OCL_ICD_VENDORS='%s' CLCPACK_LOG=1 CLCPACK_PACK=%s/s.clcpack LD_PRELOAD='%s'",
                stub, dir, preload);
            break;
        default:
            sr_fmt(env, sizeof env, "OCL_ICD_VENDORS='%s' CLCPACK_LOG=1 CLCPACK_PACK=%s/s.clcpack OPENCL_LAYERS='%s'",
                stub, dir, preload);
        }
        int rc = sh(names[i], env, cmd);
        CHECK(!SR_HUNG(rc), "%s: ends (no hang)", names[i]);
        char *out = read_file(names[i], "out"), *plain = read_file("plain", "out");
        CHECK(rc == 0, "%s: exit 0 (exit %d): %s", names[i], rc, out ? out : "");
        CHECK(out && sr_count(out, ", 0 errors") == THREADS && strstr(out, "callbacks answered: all"),
              "%s: every program right, every callback answered", names[i]);
        CHECK(out && plain && strcmp(out, plain) == 0, "%s: the plain run's output", names[i]);
        if (i == 1) {
            char pack_cmd[8192];
            sr_fmt(pack_cmd, sizeof pack_cmd, "'%s' record -q -o %s/s.clcpack --keep-captures %s/caps -- true",
                clc, dir, dir);
            CHECK(sh("pack", "", pack_cmd) == 0, "the captures make a pack");
        }
        if (i >= 2) {
            char *err = read_file(names[i], "err");
            int builds = THREADS * ROUNDS - THREADS * (ROUNDS / 3), links = THREADS * (ROUNDS / 3);
            CHECK(err && sr_count(err, "clcpack: program") - sr_count(err, "compile deferred") ==
                             builds + 1 &&
                      sr_count(err, "served from the pack") == builds + 1 + links,
                  "%s: all %d builds and %d links served (%d lines say so)", names[i], builds + 1,
                  links, err ? sr_count(err, "served from the pack") : 0);
            CHECK(err && sr_count(err, "passed through") == 0, "%s: nothing passed through",
                  names[i]);
            free(err);
        }
        free(out);
        free(plain);
    }
    sr_system("rm -rf '%s'", dir);
    return check_summary();
}
