/*
 * test_hostile_packs.c — packs made to attack the clc-pack command line,
 * each written through the writer API (so every checksum is right) and
 * given to the clc-pack built beside this test, run as a separate process
 * under timeout(1):
 *
 *  - strings with ESC, CR, LF and a C1 control in the kernel name, a
 *    define's value and a source name: list, verify and extract print them
 *    escaped ("\x1b"), never raw; --json still escapes them its own way;
 *  - a real PoCL binary cut in half (CRC recomputed by the writer): verify
 *    passes it (the checksums match), verify --load reports that entry as
 *    failed (the driver may crash on it: in the load worker, not in
 *    clc-pack), loads the good entry beside it, and exits 1 without being
 *    killed by a signal.
 */
#include <fcntl.h>
#include <libgen.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "cl_device.h"
#include "clcpack_write.h"

extern char **environ;

static const char SOURCE[] =
    "__kernel void scale(__global float *o, const float a)\n"
    "{\n"
    "    const size_t i = get_global_id(0);\n"
    "    o[i] = SCALE * a * (float)i;\n"
    "}\n";

static char dir[] = "/tmp/test_hostile.XXXXXX";
static char tool[4096];
static cl_context ctx;
static cl_device_id dev;
static clcpack_device_info here = {.struct_size = sizeof here};

static const char *in_dir(const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%s", dir, name);
    return buf;
}

/* Runs `timeout 120 clc-pack args...` with stdout and stderr in dir/out and
 * dir/err; returns the wait status (-1 when it cannot start). */
static int run_tool(const char *const *args)
{
    char *argv[32];
    int n = 0;
    argv[n++] = (char *)"timeout";
    argv[n++] = (char *)"120";
    argv[n++] = tool;
    for (; *args && n < 31; args++)
        argv[n++] = (char *)*args;
    argv[n] = NULL;
    char out[512], err[512];
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, in_dir("out", out, sizeof out),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, in_dir("err", err, sizeof err),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    int rc = posix_spawnp(&pid, "timeout", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return -1;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        ;
    return status;
}

/* dir/name read whole, NUL-terminated (NUL bytes inside kept). */
static char *slurp(const char *name, size_t *size)
{
    char path[512];
    FILE *f = fopen(in_dir(name, path, sizeof path), "rb");
    char *b = malloc(1 << 20);
    *size = 0;
    if (f && b)
        *size = fread(b, 1, (1 << 20) - 1, f);
    if (f)
        fclose(f);
    if (b)
        b[*size] = '\0';
    return b;
}

/* 1 when dir/out and dir/err hold no ESC, CR, C1 CSI or BEL byte. */
static int output_is_clean(const char *what)
{
    int clean = 1;
    static const char *const files[] = {"out", "err"};
    for (int f = 0; f < 2; f++) {
        size_t n;
        char *b = slurp(files[f], &n);
        for (size_t i = 0; b && i < n; i++) {
            unsigned char c = (unsigned char)b[i];
            if (c == 0x1b || c == '\r' || c == 0x07 || c == 0x9b) {
                CHECK(0, "%s: raw byte 0x%02x at offset %zu of std%s", what, c, i, files[f]);
                clean = 0;
                break;
            }
        }
        free(b);
    }
    return clean;
}

static int holds(const char *file, const char *text)
{
    size_t n;
    char *b = slurp(file, &n);
    int found = b && strstr(b, text) != NULL;
    free(b);
    return found;
}

static unsigned char *build_binary(size_t *size)
{
    const char *src = SOURCE;
    cl_int rc;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &rc);
    if (rc != CL_SUCCESS || clBuildProgram(prog, 1, &dev, "-DSCALE=2", NULL, NULL) != CL_SUCCESS)
        return NULL;
    clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof *size, size, NULL);
    unsigned char *bin = malloc(*size);
    clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
    clReleaseProgram(prog);
    return bin;
}

typedef struct entry_plan {
    const char *kernel;
    const clcpack_define *defines;
    const void *bytes;
    size_t size;
} entry_plan;

static int write_pack(const char *path, const char *source_name, const entry_plan *pe,
                      size_t n)
{
    clcpack_writer *w = NULL;
    clcpack_error err;
    uint32_t src, d;
    int ok = clcpack_writer_new(0, &w, &err) == CLCPACK_OK &&
             clcpack_writer_add_device(w, &here, &d, &err) == CLCPACK_OK &&
             clcpack_writer_add_source(w, source_name, SOURCE, strlen(SOURCE), &src, &err) ==
                 CLCPACK_OK;
    for (size_t i = 0; ok && i < n; i++) {
        clcpack_entry_spec s;
        memset(&s, 0, sizeof s);
        s.struct_size = sizeof s;
        s.kernel = pe[i].kernel;
        s.options = "-DSCALE=2";
        s.defines = pe[i].defines;
        s.define_count = 1;
        s.device = d;
        s.source = src;
        s.kind = CLCPACK_KIND_NATIVE;
        s.binary = pe[i].bytes;
        s.binary_size = pe[i].size;
        ok = clcpack_writer_add_entry(w, &s, &err) == CLCPACK_OK;
    }
    ok = ok && clcpack_writer_write_file(w, path, &err) == CLCPACK_OK;
    if (!ok)
        CHECK(0, "writing %s: %s", path, err.message);
    clcpack_writer_free(w);
    return ok ? 0 : -1;
}

static void test_escapes(const unsigned char *bin, size_t size)
{
    static const clcpack_define defs[] = {{"SCALE", "2\x1b]0;owned\x07\r\n"}};
    const entry_plan pe[] = {{"scale\x1b[31mred\rX\nY", defs, bin, size}};
    char pack[512], outp[512];
    in_dir("escapes.clcpack", pack, sizeof pack);
    if (write_pack(pack, "s\x1b[2J\xc2\x9b.cl", pe, 1) != 0)
        return;

    const char *list[] = {"list", pack, NULL};
    int st = run_tool(list);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "list of the pack runs (status 0x%x)", st);
    output_is_clean("list");
    CHECK(holds("out", "scale\\x1b[31mred\\x0dX\\x0aY"), "list shows the kernel name escaped");
    CHECK(holds("out", "SCALE=2\\x1b]0;owned\\x07\\x0d\\x0a"), "list shows the value escaped");
    CHECK(holds("out", "s\\x1b[2J\\xc2\\x9b.cl"), "list shows the source name escaped");

    const char *json[] = {"list", "--json", pack, NULL};
    st = run_tool(json);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "list --json runs");
    output_is_clean("list --json");
    CHECK(holds("out", "\\u001b[31mred\\rX\\nY"), "--json keeps its own escapes");

    const char *verify[] = {"verify", pack, NULL};
    st = run_tool(verify);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "verify of the pack passes");
    output_is_clean("verify");

    const char *verify_load[] = {"verify", "--load", pack, NULL};
    st = run_tool(verify_load);
    CHECK(WIFEXITED(st), "verify --load is not killed (status 0x%x)", st);
    output_is_clean("verify --load");
    /* The kernel is not in the binary under that name: not loaded, and
     * the message names the entry escaped. */
    CHECK(holds("err", "entry 0 scale\\x1b[31mred\\x0dX\\x0aY"),
          "verify --load names the entry escaped");

    const char *extract[] = {"extract", pack, "--entry", "0", "-o",
                             in_dir("x.bin", outp, sizeof outp), NULL};
    st = run_tool(extract);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "extract runs");
    output_is_clean("extract");
    CHECK(holds("err", "scale\\x1b[31mred\\x0dX\\x0aY"), "extract names the entry escaped");

    /* --kernel with a name that matches nothing prints no pack string raw
     * either; the one that matches is found by its raw bytes. */
    const char *by_name[] = {"extract", pack, "--kernel", "scale\x1b[31mred\rX\nY", "-o",
                             outp, NULL};
    st = run_tool(by_name);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "extract --kernel finds the raw name");
    output_is_clean("extract --kernel");
}

static void test_cut_binary(const unsigned char *bin, size_t size)
{
    static const clcpack_define two[] = {{"SCALE", "2"}};
    static const clcpack_define three[] = {{"SCALE", "3"}};
    const entry_plan pe[] = {{"scale", two, bin, size}, {"scale", three, bin, size / 2}};
    char pack[512];
    in_dir("cut.clcpack", pack, sizeof pack);
    if (write_pack(pack, "scale.cl", pe, 2) != 0)
        return;
    const char *verify[] = {"verify", pack, NULL};
    int st = run_tool(verify);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
          "verify passes the cut binary (its CRC matches; status 0x%x)", st);

    const char *load[] = {"verify", "--load", pack, NULL};
    st = run_tool(load);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1,
          "verify --load exits 1, not killed by a signal (status 0x%x: %s%d)", st,
          WIFSIGNALED(st) ? "signal " : "exit ", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    CHECK(holds("err", "clc-pack: entry 1 scale SCALE=3"), "the cut entry is named as failed");
    CHECK(holds("err", "the driver crashed (signal") || holds("err", "not loaded"),
          "the reason is given");
    CHECK(holds("out", "entry 0 scale SCALE=2") && holds("out", ": native"),
          "the good entry beside it still loads natively");
    CHECK(holds("out", "loaded 1 of 2") && holds("out", "failed 1"), "the summary counts it");
    if (holds("err", "crashed"))
        printf("note: the driver crashed on the cut binary, in the load worker\n");
}

int main(int argc, char **argv)
{
    (void)argc;
    char self[4096];
    snprintf(self, sizeof self, "%s", argv[0]);
    snprintf(tool, sizeof tool, "%s/../clc-pack", dirname(self));
    if (!CHECK(access(tool, X_OK) == 0, "%s is built", tool))
        return check_summary();
    if (!CHECK(mkdtemp(dir) != NULL, "temporary folder"))
        return check_summary();
    if (!CHECK(test_first_device(&dev, &ctx) == 0, "an OpenCL device"))
        return check_summary();
    clcpack_error err;
    CHECK(clcpack_device_query(dev, &here, &err) == CLCPACK_OK, "device query: %s",
          err.message);
    size_t size = 0;
    unsigned char *bin = build_binary(&size);
    if (CHECK(bin && size > 64, "a native binary of the test kernel (%zu bytes)", size)) {
        test_escapes(bin, size);
        test_cut_binary(bin, size);
    }
    free(bin);
    clReleaseContext(ctx);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("note: could not remove %s\n", dir);
    return check_summary();
}
