/*
 * test_rebuild_cache.c — the rebuild cache (docs/CACHE.md) on a real
 * OpenCL device (PoCL here). A pack whose only binary was built for
 * another driver version (the fingerprint edited through the writer API)
 * is loaded by fresh processes (this program run again as a child):
 *  - the first rebuilds from source and stores the binary in the cache;
 *  - the next loads it from the cache (path "cache"), natively;
 *  - a cache file with a flipped byte, cut short or not a cache file at
 *    all is refused (the driver never sees it) and rebuilt;
 *  - CLCPACK_LOAD_NO_CACHE ignores the cache; CLCPACK_LOAD_CACHE turns it
 *    on without CLCPACK_CACHE_DIR, in $XDG_CACHE_HOME/clcpack;
 *  - the folder is kept under CLCPACK_CACHE_MAX_MB, oldest files first.
 * The key gives FILTER_WIDTH only; the entry also has HALF_FILTER_SIZE.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "check.h"
#include "cl_device.h"
#include "clcpack_write.h"
#include "test_file.h"

static const char SOURCE[] =
    "__kernel void scale(__global float *x)\n"
    "{\n"
    "    x[get_global_id(0)] *= (float)(FILTER_WIDTH + HALF_FILTER_SIZE);\n"
    "}\n";
static const char OPTIONS[] = "-DFILTER_WIDTH=5 -DHALF_FILTER_SIZE=2";

/* Child: load the key from PACK, print the path and the report. */
static int child(char **argv)
{
    const char *mode = argv[3];
    clcpack_define axis[] = {{"FILTER_WIDTH", "5"}};
    clcpack_key key;
    memset(&key, 0, sizeof key);
    key.kernel = "scale";
    key.defines = axis;
    key.define_count = 1;
    clcpack_load_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    if (strcmp(mode, "nocache") == 0)
        o.flags = CLCPACK_LOAD_NO_CACHE;
    if (strcmp(mode, "flag") == 0)
        o.flags = CLCPACK_LOAD_CACHE;
    test_app app;
    if (test_app_load(argv[2], &key, &o, &app) != 0)
        return 1;
    cl_kernel k = app.kernel;
    /* The program computes: x * (5 + 2). */
    float x[4] = {1, 2, 3, 4};
    cl_int rc;
    cl_command_queue q = clCreateCommandQueue(app.ctx, app.dev, 0, &rc);
    cl_mem buf = clCreateBuffer(app.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof x, x, &rc);
    size_t n = 4;
    clSetKernelArg(k, 0, sizeof buf, &buf);
    clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL);
    clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof x, x, 0, NULL, NULL);
    printf("path %s\nresult %g %g %g %g\nwhy %s\n", clcpack_path_name(app.report.path), x[0],
           x[1], x[2], x[3], app.report.why);
    clReleaseMemObject(buf);
    clReleaseCommandQueue(q);
    test_app_close(&app);
    return 0;
}

static char self[4096], pack_path[256], cache_dir[256];
static char out[8192];

/* Runs the child with mode (and arg); its output in out. */
static int run_child(const char *mode, const char *arg)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' --child '%s' %s %s", self, pack_path, mode, arg ? arg : "");
    return test_run_capture(cmd, out, sizeof out);
}

static int has(const char *s)
{
    return strstr(out, s) != NULL;
}

/* The one .clcbin file in dir (name into buf); the count of them. */
static int cache_files(const char *dir, char *buf, size_t cap, off_t *total)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *de;
    if (total)
        *total = 0;
    while (d && (de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len > 7 && strcmp(de->d_name + len - 7, ".clcbin") == 0) {
            n++;
            if (buf)
                snprintf(buf, cap, "%s/%s", dir, de->d_name);
            struct stat st;
            char full[1024];
            snprintf(full, sizeof full, "%s/%s", dir, de->d_name);
            if (total && stat(full, &st) == 0)
                *total += st.st_size;
        }
    }
    if (d)
        closedir(d);
    return n;
}

static int build_pack(void)
{
    cl_device_id dev;
    cl_context ctx;
    if (!CHECK(test_first_device(&dev, &ctx) == 0, "an OpenCL device"))
        return -1;
    const char *src = SOURCE;
    cl_int rc;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &rc);
    rc = clBuildProgram(prog, 1, &dev, OPTIONS, NULL, NULL);
    size_t len = 0;
    clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, NULL);
    unsigned char *bin = malloc(len ? len : 1), *bins[1] = {bin};
    clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL);
    clReleaseProgram(prog);
    clcpack_device_info info = {.struct_size = sizeof info};
    clcpack_error e;
    int ok = CHECK(rc == CL_SUCCESS && len > 0, "the kernel builds here") &&
             CHECK(clcpack_device_query(dev, &info, &e) == CLCPACK_OK, "fingerprint: %s",
                   e.message);
    clReleaseContext(ctx);
    if (!ok) {
        free(bin);
        return -1;
    }
    /* The pack's binary is for another driver version: not loadable here. */
    snprintf(info.driver_version, sizeof info.driver_version, "%s", "0.0-another-driver");
    clcpack_writer *w;
    uint32_t di, si;
    clcpack_define defs[] = {{"FILTER_WIDTH", "5"}, {"HALF_FILTER_SIZE", "2"}};
    clcpack_entry_spec s;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    s.kernel = "scale";
    s.options = OPTIONS;
    s.defines = defs;
    s.define_count = 2;
    s.kind = CLCPACK_KIND_NATIVE;
    s.binary = bin;
    s.binary_size = len;
    ok = clcpack_writer_new(0, &w, &e) == CLCPACK_OK &&
         clcpack_writer_add_device(w, &info, &di, &e) == CLCPACK_OK &&
         clcpack_writer_add_source(w, "scale.cl", SOURCE, strlen(SOURCE), &si, &e) == CLCPACK_OK;
    s.device = di;
    s.source = si;
    ok = ok && clcpack_writer_add_entry(w, &s, &e) == CLCPACK_OK &&
         clcpack_writer_write_file(w, pack_path, &e) == CLCPACK_OK;
    clcpack_writer_free(w);
    free(bin);
    return CHECK(ok, "pack for another driver written: %s", ok ? "" : e.message) ? 0 : -1;
}

static void flip_byte_at_end(const char *path)
{
    FILE *f = fopen(path, "r+b");
    if (!f)
        return;
    fseek(f, -1, SEEK_END);
    int c = fgetc(f);
    fseek(f, -1, SEEK_END);
    fputc(c ^ 0x40, f);
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "--child") == 0)
        return child(argv);
    if (!realpath(argv[0], self))
        snprintf(self, sizeof self, "%s", argv[0]);
    char dir[] = "/tmp/test_rebuild_cache.XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL, "temporary folder"))
        return check_summary();
    snprintf(pack_path, sizeof pack_path, "%s/other-driver.clcpack", dir);
    snprintf(cache_dir, sizeof cache_dir, "%s/cache/sub", dir);
    if (build_pack() != 0)
        return check_summary();
    setenv("CLCPACK_CACHE_DIR", cache_dir, 1);
    unsetenv("CLCPACK_CACHE_MAX_MB");

    CHECK(run_child("env", NULL) == 0 && has("path source") && has("cache: miss") &&
              has("cache: stored") && has("driver version differs") && has("result 7 14 21 28"),
          "first process: rebuilt from source, stored in the cache:\n%s", out);
    char file[1024] = "";
    CHECK(cache_files(cache_dir, file, sizeof file, NULL) == 1, "one file in %s", cache_dir);
    CHECK(run_child("env", NULL) == 0 && has("path cache") && has("cache: hit") &&
              has("result 7 14 21 28") && !has("stored"),
          "next process: loaded from the cache, and it computes:\n%s", out);

    flip_byte_at_end(file);
    CHECK(run_child("env", NULL) == 0 && has("path source") &&
              has("binary checksum mismatch") && has("cache: stored") && has("result 7 14"),
          "a flipped byte is refused before the driver, and the file rebuilt:\n%s", out);
    CHECK(run_child("env", NULL) == 0 && has("path cache"), "... then loads from it:\n%s", out);

    CHECK(truncate(file, 40) == 0, "cache file cut short");
    CHECK(run_child("env", NULL) == 0 && has("path source") && has("does not match its header") &&
              has("cache: stored"),
          "a file cut short is refused and rebuilt:\n%s", out);
    FILE *f = fopen(file, "wb");
    if (f) {
        fputs("not a cache file, but long enough to have a header: 0123456789", f);
        fclose(f);
    }
    CHECK(run_child("env", NULL) == 0 && has("path source") && has("(magic)"),
          "another file in its place is refused:\n%s", out);
    CHECK(run_child("env", NULL) == 0 && has("path cache"), "and replaced:\n%s", out);

    CHECK(run_child("nocache", NULL) == 0 && has("path source") && !has("cache:"),
          "CLCPACK_LOAD_NO_CACHE: the cache is not looked at:\n%s", out);

    char folder[400];
    size_t flen = 0;
    CHECK(clcpack_cache_folder(folder, sizeof folder, &flen, NULL) == CLCPACK_OK &&
              strcmp(folder, cache_dir) == 0 && flen == strlen(cache_dir),
          "clcpack_cache_folder: $CLCPACK_CACHE_DIR (%s)", folder);
    CHECK(clcpack_cache_folder(folder, 4, &flen, NULL) == CLCPACK_E_BUFFER &&
              flen == strlen(cache_dir),
          "clcpack_cache_folder: a small buffer says the length");
    unsetenv("CLCPACK_CACHE_DIR");
    char xdg[300], flag_dir[320];
    snprintf(xdg, sizeof xdg, "%s/xdg", dir);
    snprintf(flag_dir, sizeof flag_dir, "%s/clcpack", xdg);
    setenv("XDG_CACHE_HOME", xdg, 1);
    CHECK(clcpack_cache_folder(folder, sizeof folder, NULL, NULL) == CLCPACK_OK &&
              strcmp(folder, flag_dir) == 0,
          "clcpack_cache_folder: $XDG_CACHE_HOME/clcpack (%s)", folder);
    {
        char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
        setenv("XDG_CACHE_HOME", "relative", 1);
        setenv("HOME", "/home/someone", 1);
        CHECK(clcpack_cache_folder(folder, sizeof folder, NULL, NULL) == CLCPACK_OK &&
                  strcmp(folder, "/home/someone/.cache/clcpack") == 0,
              "clcpack_cache_folder: a relative XDG_CACHE_HOME is passed over for $HOME (%s)",
              folder);
        unsetenv("HOME");
        clcpack_error fe;
        CHECK(clcpack_cache_folder(folder, sizeof folder, NULL, &fe) == CLCPACK_E_NOT_FOUND &&
                  strstr(fe.message, "CLCPACK_CACHE_DIR"),
              "clcpack_cache_folder: none set: %s", fe.message);
        if (home)
            setenv("HOME", home, 1);
        free(home);
        setenv("XDG_CACHE_HOME", xdg, 1);
    }
    CHECK(run_child("none", NULL) == 0 && has("path source") && !has("cache:"),
          "no flag, no environment: no cache:\n%s", out);
    CHECK(run_child("flag", NULL) == 0 && has("path source") && has("cache: stored") &&
              cache_files(flag_dir, NULL, 0, NULL) == 1,
          "CLCPACK_LOAD_CACHE stores in $XDG_CACHE_HOME/clcpack:\n%s", out);
    CHECK(run_child("flag", NULL) == 0 && has("path cache"), "and loads from there:\n%s", out);

    /* The bound: three stale 400 KiB files and a 1 MiB bound. */
    setenv("CLCPACK_CACHE_DIR", cache_dir, 1);
    setenv("CLCPACK_CACHE_MAX_MB", "1", 1);
    unlink(file);
    static char big[400 * 1024];
    for (int i = 0; i < 3; i++) {
        char name[512];
        snprintf(name, sizeof name, "%s/old%d.clcbin", cache_dir, i);
        FILE *g = fopen(name, "wb");
        if (g) {
            fwrite(big, 1, sizeof big, g);
            fclose(g);
        }
        struct timeval tv[2] = {{1000000 + i * 10, 0}, {1000000 + i * 10, 0}};
        utimes(name, tv);
    }
    CHECK(run_child("env", NULL) == 0 && has("cache: stored"), "stored beside old files:\n%s",
          out);
    off_t total;
    int n = cache_files(cache_dir, NULL, 0, &total);
    char old0[512], old2[512];
    snprintf(old0, sizeof old0, "%s/old0.clcbin", cache_dir);
    snprintf(old2, sizeof old2, "%s/old2.clcbin", cache_dir);
    CHECK(total <= 1024 * 1024 && access(old0, F_OK) != 0 && access(old2, F_OK) == 0 && n == 3,
          "the folder is trimmed to 1 MiB, oldest first (%d files, %lld bytes)", n,
          (long long)total);
    CHECK(run_child("env", NULL) == 0 && has("path cache"), "the new file stayed:\n%s", out);

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("note: %s not removed\n", dir);
    return check_summary();
}
