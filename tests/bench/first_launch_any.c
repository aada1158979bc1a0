/*
 * first_launch_any — the first launch of a kernel packed by the direct
 * command line (no manifest, no reference: clc-pack knows nothing of it)
 * against its second launch, and against a binary taken after a plain
 * clBuildProgram. A benchmark, not a test (make test does not run it):
 *
 *   build/bench/first_launch_any CLC_PACK_EXE [WORK_DIR [SIZE]]
 *
 * It writes a small kernel of its own (a 3x3 box blur over uchar with a
 * struct argument) to WORK_DIR, packs it with
 *   clc-pack blur_prog.cl -D RADIUS=1 --wg 16x16 -o blur.clcpack
 * (a program named blur_prog holding the kernel blur: the key names the
 * kernel)
 * loads it with clcpack_create_kernel into a fresh context and times the
 * load and two launches (enqueue to finish) on a SIZE x SIZE image (default
 * 2048). Then the same key from the rebuild cache (docs/CACHE.md), with the
 * pack's binary made for another driver (tests/common/pack_edit.h) so that
 * the loader passes it over: once filled by `clc-pack warm`, once by an
 * earlier process's own rebuild from source; and with the binary of a
 * plain build of the same source and options. Each REPEATS times, medians
 * printed. PoCL's kernel cache is off in these processes (POCL_KERNEL_CACHE=0)
 * so nothing compiled earlier can help: what the first launch does not
 * compile must come from the binary. Prints a table; the goal is first <=
 * 1.5 x second.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clcpack.h"
#include "../common/pack_edit.h"

#define REPEATS 5

static int W = 2048, H = 2048;

static const char *SOURCE =
    "typedef struct { float scale; int bias; } blur_params;\n"
    "__kernel void blur(__global const uchar *src, __global uchar *dst, int w, int h,\n"
    "                   blur_params p)\n"
    "{\n"
    "    int x = get_global_id(0), y = get_global_id(1);\n"
    "    if (x >= w || y >= h) return;\n"
    "    int sum = 0, n = 0;\n"
    "    for (int dy = -RADIUS; dy <= RADIUS; dy++)\n"
    "        for (int dx = -RADIUS; dx <= RADIUS; dx++) {\n"
    "            int xx = clamp(x + dx, 0, w - 1), yy = clamp(y + dy, 0, h - 1);\n"
    "            sum += src[yy * w + xx];\n"
    "            n++;\n"
    "        }\n"
    "    dst[y * w + x] = convert_uchar_sat(p.scale * (float)sum / (float)n + (float)p.bias);\n"
    "}\n";

typedef struct {
    float scale;
    int bias;
} blur_params;

static double median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return v[n / 2];
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static char self_path[4096];

static int first_device(cl_device_id *dev)
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    if (clGetPlatformIDs(8, plats, &np) != CL_SUCCESS || np == 0)
        return -1;
    for (cl_uint i = 0; i < np; i++)
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, dev, NULL) == CL_SUCCESS)
            return 0;
    return -1;
}

/* Two timed launches of k; 0, or -1. */
static int two_launches(cl_context ctx, cl_device_id dev, cl_kernel k, double ms[2])
{
    cl_int rc;
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &rc);
    unsigned char *host = malloc((size_t)W * H);
    if (!q || !host)
        return -1;
    for (size_t i = 0; i < (size_t)W * H; i++)
        host[i] = (unsigned char)(i * 2654435761u >> 24);
    cl_mem in = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (size_t)W * H, host,
                               &rc);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, (size_t)W * H, NULL, &rc);
    int w = W, h = H;
    blur_params p = {1.0f, 0};
    clSetKernelArg(k, 0, sizeof in, &in);
    clSetKernelArg(k, 1, sizeof out, &out);
    clSetKernelArg(k, 2, sizeof w, &w);
    clSetKernelArg(k, 3, sizeof h, &h);
    clSetKernelArg(k, 4, sizeof p, &p);
    size_t global[2] = {W, H}, local[2] = {16, 16};
    /* Both buffers are placed on the device before the clock starts: the
     * first launch is timed for what it compiles, not for first touches. */
    unsigned char zero = 0;
    clEnqueueFillBuffer(q, out, &zero, 1, 0, (size_t)W * H, 0, NULL, NULL);
    clEnqueueWriteBuffer(q, in, CL_TRUE, 0, (size_t)W * H, host, 0, NULL, NULL);
    clFinish(q);
    int status = 0;
    for (int i = 0; i < 2; i++) {
        double t0 = now_ms();
        if (clEnqueueNDRangeKernel(q, k, 2, NULL, global, local, 0, NULL, NULL) != CL_SUCCESS ||
            clFinish(q) != CL_SUCCESS)
            status = -1;
        ms[i] = now_ms() - t0;
    }
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clReleaseCommandQueue(q);
    free(host);
    return status;
}

/* A binary of a plain build (no specialization asked for). */
static int plain_binary(cl_device_id dev, unsigned char **bin, size_t *size)
{
    cl_int rc;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
    size_t len = strlen(SOURCE);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &SOURCE, &len, &rc);
    if (!prog || clBuildProgram(prog, 1, &dev, "-DRADIUS=1", NULL, NULL) != CL_SUCCESS)
        return -1;
    clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof *size, size, NULL);
    *bin = malloc(*size);
    unsigned char *ptrs[1] = {*bin};
    rc = clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof ptrs, ptrs, NULL);
    clReleaseProgram(prog);
    clReleaseContext(ctx);
    return rc == CL_SUCCESS ? 0 : -1;
}

/* One measurement in this process: "packed" (through the library, from the
 * pack or the cache, whichever it takes) or "plain": the load and the two
 * launches in ms into out, the load path into path. */
static int measure_one(const char *what, const char *pack, double out[3], char *path,
                       size_t cap)
{
    cl_device_id dev;
    if (first_device(&dev) != 0) {
        fprintf(stderr, "first_launch_any: no OpenCL device\n");
        return -1;
    }
    cl_int rc;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
    cl_program prog = NULL;
    cl_kernel k = NULL;
    double t0 = now_ms();
    snprintf(path, cap, "plain");
    if (strcmp(what, "packed") == 0) {
        clcpack *p = NULL;
        clcpack_error err;
        clcpack_define def = {"RADIUS", "1"};
        clcpack_key key = {"blur", &def, 1, {16, 16, 1}};
        clcpack_load_report rep = {.struct_size = sizeof rep};
        if (clcpack_open_file(pack, &p, &err) != CLCPACK_OK ||
            clcpack_create_kernel(p, &key, ctx, dev, NULL, &prog, &k, &rep, &err) != CLCPACK_OK) {
            fprintf(stderr, "first_launch_any: %s\n", err.message);
            return -1;
        }
        snprintf(path, cap, "%s", clcpack_path_name(rep.path));
        clcpack_close(p);
    } else {
        unsigned char *bin = NULL;
        size_t size = 0;
        if (plain_binary(dev, &bin, &size) != 0)
            return -1;
        t0 = now_ms(); /* the load, not the build that made the binary */
        const unsigned char *ptrs[1] = {bin};
        cl_int st;
        prog = clCreateProgramWithBinary(ctx, 1, &dev, &size, ptrs, &st, &rc);
        free(bin);
        if (!prog || clBuildProgram(prog, 1, &dev, "-DRADIUS=1", NULL, NULL) != CL_SUCCESS ||
            !(k = clCreateKernel(prog, "blur", &rc)))
            return -1;
    }
    out[0] = now_ms() - t0;
    int status = two_launches(ctx, dev, k, out + 1);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseContext(ctx);
    return status;
}

/* REPEATS processes measuring what on pack, each with the environment the
 * caller set; medians into res[3]. The load path must be want. */
static int measure(const char *what, const char *pack, const char *want, double res[3])
{
    double runs[REPEATS][3];
    char cmd[12288];
    for (int r = 0; r < REPEATS; r++) {
        char path[32] = "";
        snprintf(cmd, sizeof cmd, "'%s' --measure %s '%s' %d", self_path, what, pack, W);
        FILE *pp = popen(cmd, "r");
        if (!pp || fscanf(pp, "%lf %lf %lf %31s", &runs[r][0], &runs[r][1], &runs[r][2], path) != 4 ||
            strcmp(path, want) != 0) {
            fprintf(stderr, "first_launch_any: measuring %s failed (path '%s', wanted %s)\n",
                    what, path, want);
            if (pp)
                pclose(pp);
            return -1;
        }
        pclose(pp);
    }
    for (int i = 0; i < 3; i++) {
        double v[REPEATS];
        for (int r = 0; r < REPEATS; r++)
            v[r] = runs[r][i];
        res[i] = median(v, REPEATS);
    }
    return 0;
}

static int run_quiet(const char *cmd)
{
    if (system(cmd) != 0) {
        fprintf(stderr, "first_launch_any: %s failed\n", cmd);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--measure") == 0) {
        W = H = atoi(argv[4]);
        double t[3];
        char path[32];
        if (measure_one(argv[2], argv[3], t, path, sizeof path) != 0)
            return 1;
        printf("%.3f %.3f %.3f %s\n", t[0], t[1], t[2], path);
        return 0;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: first_launch_any CLC_PACK_EXE [WORK_DIR [SIZE]]\n");
        return 2;
    }
    const char *dir = argc > 2 ? argv[2] : "/tmp";
    if (argc > 3) {
        W = H = atoi(argv[3]);
        if (W < 16 || W > 16384) {
            fprintf(stderr, "first_launch_any: SIZE from 16 to 16384\n");
            return 2;
        }
    }
    setenv("POCL_KERNEL_CACHE", "0", 0);
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    if (n <= 0) {
        fprintf(stderr, "first_launch_any: cannot find this program\n");
        return 1;
    }
    self_path[n] = '\0';
    char path[1024], pack[1024], other[1024], warmed[1024], rebuilt[1024], cmd[12288];
    char err[512];
    snprintf(path, sizeof path, "%s/blur_prog.cl", dir);
    snprintf(pack, sizeof pack, "%s/blur.clcpack", dir);
    snprintf(other, sizeof other, "%s/blur-other-driver.clcpack", dir);
    snprintf(warmed, sizeof warmed, "%s/cache-warmed", dir);
    snprintf(rebuilt, sizeof rebuilt, "%s/cache-rebuilt", dir);
    FILE *f = fopen(path, "w");
    if (!f || fputs(SOURCE, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "first_launch_any: cannot write %s\n", path);
        return 1;
    }
    snprintf(cmd, sizeof cmd, "'%s' '%s' -D RADIUS=1 --wg 16x16 -q -o '%s'", argv[1], path, pack);
    if (run_quiet(cmd) != 0)
        return 1;
    if (pack_copy_for_driver(pack, other, "0.0-another-driver", err, sizeof err) != 0) {
        fprintf(stderr, "first_launch_any: %s\n", err);
        return 1;
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' && '%s' warm -q --cache-dir '%s' '%s'", warmed,
             rebuilt, argv[1], warmed, other);
    if (run_quiet(cmd) != 0)
        return 1;
    /* Each measurement in a process of its own: within one, PoCL keeps what
     * a first launch compiled, even across contexts. */
    double res[4][3];
    unsetenv("CLCPACK_CACHE_DIR");
    if (measure("packed", pack, "native", res[0]) != 0)
        return 1;
    setenv("CLCPACK_CACHE_DIR", warmed, 1);
    if (measure("packed", other, "cache", res[1]) != 0)
        return 1;
    /* An application's own rebuild fills the cache: one process, then from it. */
    setenv("CLCPACK_CACHE_DIR", rebuilt, 1);
    snprintf(cmd, sizeof cmd, "'%s' --measure packed '%s' %d >/dev/null", self_path, other, W);
    if (run_quiet(cmd) != 0 || measure("packed", other, "cache", res[2]) != 0)
        return 1;
    unsetenv("CLCPACK_CACHE_DIR");
    if (measure("plain", pack, "plain", res[3]) != 0)
        return 1;
    printf("## First launch of a kernel packed from the command line (%dx%d, wg 16x16, "
           "median of %d processes)\n\n",
           W, H, REPEATS);
    printf("| binary | load ms | first launch ms | second launch ms | first / second | goal |\n");
    printf("|---|---:|---:|---:|---:|---|\n");
    static const char *const rows[4] = {
        "clc-pack direct mode (pack entry)",
        "rebuild cache filled by clc-pack warm",
        "rebuild cache filled by an application's rebuild",
        "plain clBuildProgram binary",
    };
    for (int r = 0; r < 4; r++)
        printf("| %s | %.2f | %.2f | %.2f | %.2f | %s |\n", rows[r], res[r][0], res[r][1],
               res[r][2], res[r][2] > 0 ? res[r][1] / res[r][2] : 0.0, r < 2 ? "<= 1.5" : "");
    return 0;
}
