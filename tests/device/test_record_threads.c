/*
 * test_record_threads.c — the record/replay interposer (docs/RECORD.md)
 * under threads: an application whose threads build programs at the same
 * time on one context (some the same source, some other sources, one with
 * options), checks their kernels' output and that the program handles it
 * holds answer as built programs (kernel names, CL_KERNEL_PROGRAM, the
 * reference count with a kernel alive, retain and release). The test runs itself as that application ("--app") three
 * times: plainly, under `clc-pack record`, and with CLCPACK_PACK +
 * LD_PRELOAD; the outputs must be identical and every program served.
 * Under `make test-tsan` all three are built with ThreadSanitizer. PoCL.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CL/cl.h>

#include "app_launch.h"
#include "check.h"
#include "self_run.h"

#define THREADS 4
#define PER_THREAD 3
#define SOURCES 5
#define N 64

typedef struct job {
    cl_context ctx;
    cl_device_id dev;
    int thread;
    long sums[PER_THREAD];
    cl_uint refs[PER_THREAD]; /* the program's reference count with a kernel */
    int ok[PER_THREAD];
    char error[256];
} job;

static void *worker(void *arg)
{
    job *j = arg;
    cl_int rc;
    cl_command_queue q = clCreateCommandQueue(j->ctx, j->dev, 0, &rc);
    cl_mem buf = clCreateBuffer(j->ctx, CL_MEM_WRITE_ONLY, N * sizeof(cl_int), NULL, &rc);
    for (int k = 0; k < PER_THREAD && q && buf; k++) {
        /* Sources shared between threads, and one with options per thread. */
        int s = (j->thread + k) % SOURCES;
        int with_options = k == PER_THREAD - 1;
        char src[512];
        snprintf(src, sizeof src,
                 "__kernel void fill(__global int *y) {\n"
                 "    int i = get_global_id(0);\n"
                 "    y[i] = i * %d + OFFSET;\n"
                 "}\n"
                 "__kernel void unused(__global int *y) { y[0] = %d; }\n",
                 s + 2, s);
        const char *text = src;
        cl_program p = clCreateProgramWithSource(j->ctx, 1, &text, NULL, &rc);
        const char *opts = with_options ? "-DOFFSET=7 -cl-mad-enable" : "-DOFFSET=1";
        if (!p || clBuildProgram(p, 1, &j->dev, opts, NULL, NULL) != CL_SUCCESS) {
            snprintf(j->error, sizeof j->error, "build %d failed", k);
            break;
        }
        char names[128] = "";
        size_t nk = 0;
        clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, NULL);
        clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL);
        cl_kernel kern = clCreateKernel(p, "fill", &rc);
        cl_program owner = NULL;
        if (kern)
            clGetKernelInfo(kern, CL_KERNEL_PROGRAM, sizeof owner, &owner, NULL);
        clGetProgramInfo(p, CL_PROGRAM_REFERENCE_COUNT, sizeof j->refs[k], &j->refs[k], NULL);
        clRetainProgram(p);
        clReleaseProgram(p);
        size_t global = N;
        cl_int out[N];
        long sum = 0;
        if (kern && clSetKernelArg(kern, 0, sizeof buf, &buf) == CL_SUCCESS &&
            clEnqueueNDRangeKernel(q, kern, 1, NULL, &global, NULL, 0, NULL, NULL) ==
                CL_SUCCESS &&
            clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL) ==
                CL_SUCCESS) {
            int good = 1;
            for (int i = 0; i < N; i++) {
                good &= out[i] == i * (s + 2) + (with_options ? 7 : 1);
                sum += out[i];
            }
            j->ok[k] = good && nk == 2 && owner == p &&
                       (strcmp(names, "fill;unused") == 0 || strcmp(names, "unused;fill") == 0);
        }
        j->sums[k] = sum;
        if (kern)
            clReleaseKernel(kern);
        clReleaseProgram(p);
    }
    if (buf)
        clReleaseMemObject(buf);
    if (q)
        clReleaseCommandQueue(q);
    return NULL;
}

/* The application: prints one line per program, in a fixed order. */
static int app_main(void)
{
    cl_device_id dev;
    cl_context ctx;
    if (app_launch(&dev, &ctx) != 0)
        return 1;
    job jobs[THREADS];
    pthread_t tids[THREADS];
    memset(jobs, 0, sizeof jobs);
    for (int t = 0; t < THREADS; t++) {
        jobs[t].ctx = ctx;
        jobs[t].dev = dev;
        jobs[t].thread = t;
        pthread_create(&tids[t], NULL, worker, &jobs[t]);
    }
    int bad = 0;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(tids[t], NULL);
        if (jobs[t].error[0]) {
            printf("thread %d: %s\n", t, jobs[t].error);
            bad = 1;
        }
        for (int k = 0; k < PER_THREAD; k++) {
            printf("thread %d program %d: sum %ld, %u references, %s\n", t, k, jobs[t].sums[k],
                   (unsigned)jobs[t].refs[k], jobs[t].ok[k] ? "ok" : "WRONG");
            bad |= !jobs[t].ok[k];
        }
    }
    clReleaseContext(ctx);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--app") == 0)
        return app_main();

    char self[PATH_MAX], build[PATH_MAX], clc[PATH_MAX + 16], preload[PATH_MAX + 32];
    if (sr_paths(argv[0], self, build) != 0) {
        CHECK(0, "cannot resolve %s", argv[0]);
        return check_summary();
    }
    snprintf(clc, sizeof clc, "%s/clc-pack", build);
    snprintf(preload, sizeof preload, "%s/libclcpack-preload.so", build);
    if (!CHECK(access(clc, X_OK) == 0 && access(preload, R_OK) == 0,
               "%s and %s are built", clc, preload))
        return check_summary();
    char dir[] = "/tmp/clcpack-threads-XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL, "temporary folder"))
        return check_summary();

    CHECK(sr_system("'%s' --app >%s/plain.out", self, dir) == 0, "plain run");
    CHECK(sr_system("'%s' record -q -o %s/t.clcpack -- '%s' --app >%s/rec.out", clc, dir, self,
                    dir) == 0,
          "clc-pack record");
    char env[PATH_MAX * 2 + 64];
    snprintf(env, sizeof env, "CLCPACK_LOG=1 CLCPACK_PACK=%s/t.clcpack LD_PRELOAD='%s'", dir,
             preload);
    CHECK(sr_system("%s '%s' --app >%s/run.out 2>%s/run.err", env, self, dir, dir) == 0,
          "replay with CLCPACK_PACK + LD_PRELOAD");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/plain.out", dir);
    char *plain = sr_slurp(path, 1 << 20);
    snprintf(path, sizeof path, "%s/rec.out", dir);
    char *rec = sr_slurp(path, 1 << 20);
    snprintf(path, sizeof path, "%s/run.out", dir);
    char *out = sr_slurp(path, 1 << 20);
    snprintf(path, sizeof path, "%s/run.err", dir);
    char *err = sr_slurp(path, 1 << 20);
    CHECK(plain && sr_count(plain, " ok\n") == THREADS * PER_THREAD, "every program right: %s",
          plain ? plain : "(none)");
    CHECK(plain && rec && strcmp(plain, rec) == 0, "record keeps the output");
    CHECK(plain && out && strcmp(plain, out) == 0, "replay keeps the output: %s",
          out ? out : "(none)");
    CHECK(err && sr_count(err, "served from the pack") == THREADS * PER_THREAD,
          "every program served (%d of %d): %s", err ? sr_count(err, "served from the pack") : 0,
          THREADS * PER_THREAD, err ? err : "");
    CHECK(err && sr_count(err, "passed through") == 0, "nothing passed through");
    free(plain);
    free(rec);
    free(out);
    free(err);
    sr_system("rm -rf '%s'", dir);
    return check_summary();
}
