/*
 * win_loader.c — libclcpack as a Windows program sees it, cross-built with
 * MinGW and run under Wine by tests/cli/cli_windows.sh (docs/PLATFORMS.md).
 * Portable C and the public headers only, so the same file builds on Linux.
 *   win_loader files DIR        driver-free: DIR/données/パック.clcpack
 *                               opened by its UTF-8 path (spelt here: argv
 *                               is in the ANSI code page on Windows), read,
 *                               checked; a short copy refused by name;
 *                               DIR/add.clcpack is the same pack
 *   win_loader native PACK      the entry add_k (SCALE=3) loaded natively
 *                               through OpenCL.dll, run, checked on the CPU
 *   win_loader cache PACK       the same from source through the rebuild
 *                               cache (CLCPACK_CACHE_DIR): prints the path
 *   win_loader race DIR ID N    N atomic replaces of DIR/shared.bin, each
 *                               read back whole, and N files of its own
 * Prints one "ok ..." or "FAIL ..." line per check; exit 1 on a failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clcpack.h"
#include "clcpack_write.h"

static int failed;

static void check(int ok, const char *what, const char *detail)
{
    printf("%s %s%s%s\n", ok ? "ok" : "FAIL", what, detail && *detail ? ": " : "",
           detail ? detail : "");
    failed |= !ok;
}

static unsigned char *slurp(const char *path, size_t *n)
{
    /* Windows refuses to open a file for an instant while it is replaced:
     * that is no torn file, so the open is tried again. */
    FILE *f = NULL;
    for (int i = 0; i < 100000 && !f; i++)
        f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(size > 0 ? (size_t)size : 1);
    *n = buf ? fread(buf, 1, (size_t)size, f) : 0;
    fclose(f);
    return buf;
}

static int files(const char *dir)
{
    char pack[1024];
    snprintf(pack, sizeof pack, "%s/données/パック.clcpack", dir);
    clcpack *p = NULL;
    clcpack_error err;
    clcpack_status st = clcpack_open_file(pack, &p, &err);
    check(st == CLCPACK_OK, "opens the pack by its UTF-8 path", st ? err.message : pack);
    if (st)
        return 1;
    check(clcpack_entry_count(p) > 0, "the pack has entries", NULL);
    check(clcpack_check_index(p, &err) == CLCPACK_OK, "its index checks", err.message);
    size_t size = 0;
    st = clcpack_read_binary(p, 0, NULL, 0, &size, &err);
    unsigned char *bin = malloc(size ? size : 1);
    st = bin ? clcpack_read_binary(p, 0, bin, size, &size, &err) : CLCPACK_E_NOMEM;
    check(st == CLCPACK_OK && size > 0, "entry 0's binary decodes (zlib, CRC-32)", err.message);
    free(bin);
    clcpack_close(p);

    /* The pack cut short, written atomically under a non-ASCII name (its
     * bytes from the ASCII-named copy: fopen takes the ANSI code page). */
    size_t n = 0;
    char ascii[1024];
    snprintf(ascii, sizeof ascii, "%s/add.clcpack", dir);
    unsigned char *all = slurp(ascii, &n);
    char cut[1024];
    snprintf(cut, sizeof cut, "%s/coupé-短い.clcpack", dir);
    st = all ? clcpack_write_file_atomic(cut, all, n / 2, 0, &err) : CLCPACK_E_IO;
    check(st == CLCPACK_OK, "clcpack_write_file_atomic writes a non-ASCII path", err.message);
    p = NULL;
    st = clcpack_open_file(cut, &p, &err);
    check(st != CLCPACK_OK && strstr(err.message, "coupé-短い.clcpack") != NULL,
          "a pack cut short is refused, the message naming it", err.message);
    clcpack_close(p);
    /* Replaced again (the target exists now): still one whole file. */
    st = all ? clcpack_write_file_atomic(cut, all, n, 0, &err) : CLCPACK_E_IO;
    st = st ? st : clcpack_open_file(cut, &p, &err);
    check(st == CLCPACK_OK, "an atomic replace over an existing file opens whole", err.message);
    clcpack_close(p);
    free(all);

    /* A folder named as the pack: what it is, as on Linux, not "access
     * denied" (Windows refuses to open a folder as a file). */
    char folder[1024];
    snprintf(folder, sizeof folder, "%s/données", dir);
    p = NULL;
    st = clcpack_open_file(folder, &p, &err);
    check(st == CLCPACK_E_IO && strstr(err.message, "is not a regular file") != NULL,
          "a folder given as the pack is named as not a regular file", err.message);
    clcpack_close(p);
    return failed;
}

static const char add_src_kernel[] = "add_k";

/* Runs add_k on 1024 floats; 0 when b == a * 3 + 1 throughout. */
static int run_add(cl_context ctx, cl_device_id dev, cl_kernel k)
{
    enum { N = 1024 };
    static float a[N], b[N];
    for (int i = 0; i < N; i++)
        a[i] = (float)i * 0.5f;
    cl_int e;
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &e);
    cl_mem ma = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, a, &e);
    cl_mem mb = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof b, NULL, &e);
    int n = N;
    clSetKernelArg(k, 0, sizeof ma, &ma);
    clSetKernelArg(k, 1, sizeof mb, &mb);
    clSetKernelArg(k, 2, sizeof n, &n);
    size_t global = N;
    e = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
    if (e == CL_SUCCESS)
        e = clEnqueueReadBuffer(q, mb, CL_TRUE, 0, sizeof b, b, 0, NULL, NULL);
    int bad = e != CL_SUCCESS;
    for (int i = 0; i < N && !bad; i++)
        bad = b[i] != a[i] * 3.0f + 1.0f;
    clReleaseMemObject(ma);
    clReleaseMemObject(mb);
    clReleaseCommandQueue(q);
    return bad;
}

static int load(const char *pack, uint32_t flags)
{
    cl_platform_id plat;
    cl_device_id dev;
    cl_uint np = 0;
    if (clGetPlatformIDs(1, &plat, &np) != CL_SUCCESS || np == 0 ||
        clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS) {
        check(0, "an OpenCL device through OpenCL.dll", "none");
        return 1;
    }
    cl_int e;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    clcpack *p = NULL;
    clcpack_error err;
    clcpack_status st = clcpack_open_file(pack, &p, &err);
    check(st == CLCPACK_OK, "opens the pack", err.message);
    if (st)
        return 1;
    clcpack_define d = {"SCALE", "3"};
    clcpack_key key = {add_src_kernel, &d, 1, {0, 0, 0}};
    clcpack_load_options opts;
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.flags = flags;
    clcpack_load_report rep;
    rep.struct_size = sizeof rep;
    cl_program prog = NULL;
    cl_kernel k = NULL;
    st = clcpack_create_kernel(p, &key, ctx, dev, &opts, &prog, &k, &rep, &err);
    check(st == CLCPACK_OK, "clcpack_create_kernel", st ? err.message : rep.why);
    if (st == CLCPACK_OK) {
        printf("path %s\n", clcpack_path_name(rep.path));
        check(run_add(ctx, dev, k) == 0, "the kernel's output matches the CPU", NULL);
        clReleaseKernel(k);
        clReleaseProgram(prog);
    }
    clcpack_close(p);
    clReleaseContext(ctx);
    return failed;
}

/* Each replace writes 64 KiB of one byte (ID and the round), so a torn or
 * mixed file shows as bytes that differ. */
static int race(const char *dir, int id, int rounds)
{
    enum { SIZE = 64 << 10 };
    static unsigned char buf[SIZE];
    char shared[1024], own[1024];
    snprintf(shared, sizeof shared, "%s/shared.bin", dir);
    int torn = 0, errors = 0;
    clcpack_error err;
    for (int r = 0; r < rounds; r++) {
        memset(buf, (id * 64 + r) & 0xff, sizeof buf);
        if (clcpack_write_file_atomic(shared, buf, sizeof buf, 0, &err) != CLCPACK_OK) {
            printf("write: %s\n", err.message);
            errors++;
        }
        snprintf(own, sizeof own, "%s/own-%d-%d.bin", dir, id, r);
        if (clcpack_write_file_atomic(own, buf, 100 + (size_t)r, 0, &err) != CLCPACK_OK)
            errors++;
        size_t n = 0;
        unsigned char *got = slurp(shared, &n);
        if (!got || n != SIZE)
            torn++;
        for (size_t i = 1; got && i < n && !torn; i++)
            torn += got[i] != got[0];
        free(got);
    }
    char detail[64];
    snprintf(detail, sizeof detail, "%d torn reads, %d failed writes", torn, errors);
    check(torn == 0 && errors == 0, "atomic replaces while another process replaces too", detail);
    return failed;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc == 3 && strcmp(argv[1], "files") == 0)
        return files(argv[2]);
    if (argc == 3 && strcmp(argv[1], "native") == 0)
        return load(argv[2], CLCPACK_LOAD_NO_CACHE);
    if (argc == 3 && strcmp(argv[1], "cache") == 0)
        return load(argv[2], CLCPACK_LOAD_NO_NATIVE | CLCPACK_LOAD_CACHE);
    if (argc == 5 && strcmp(argv[1], "race") == 0)
        return race(argv[2], atoi(argv[3]), atoi(argv[4]));
    fprintf(stderr, "usage: win_loader files DIR | native PACK | cache PACK | race DIR ID N\n");
    return 2;
}
