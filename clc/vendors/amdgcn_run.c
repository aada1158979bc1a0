/* amdgcn_run.c — AMD code objects with clang and the ROCm device libraries (amdgcn_run.h). */
#include "amdgcn_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "bounded_fmt.h"
#include "offline_opts.h"

#define CO_MAX (256u << 20)

int amdgcn_find(amdgcn_tools *t, char *msg, size_t cap)
{
    static const char *const clangs[] = {"/usr/bin/clang-15", "/usr/lib/llvm-15/bin/clang", NULL};
    static const char *const llds[] = {"/usr/lib/llvm-15/bin/ld.lld", NULL};
    char lld[TOOL_PATH_MAX];
    memset(t, 0, sizeof *t);
    if (tool_find("clang-15", clangs, t->clang) != 0 || tool_find("ld.lld", llds, lld) != 0) {
        bfmt(msg, cap, "--amd-gpu: no %s for AMD code objects: install the Debian packages " AMDGCN_PACKAGES
                       " (make deps)", t->clang[0] ? "ld.lld" : "clang-15");
        return -1;
    }
    bfmt(t->bitcode, sizeof t->bitcode, "%s", AMDGCN_BITCODE_DIR);
    char probe[TOOL_PATH_MAX];
    bfmt(probe, sizeof probe, "%s/ockl.bc", t->bitcode);
    FILE *f = fopen(probe, "rb");
    if (!f) {
        bfmt(msg, cap, "--amd-gpu: no ROCm device libraries in %s: install the Debian package "
                       "rocm-device-libs (make deps)", t->bitcode);
        return -1;
    }
    fclose(f);
    return 0;
}

int amdgcn_version(const amdgcn_tools *t, char *buf, size_t buf_cap, char *msg, size_t cap)
{
    char dir[TOOL_PATH_MAX], log[TOOL_PATH_MAX];
    if (tool_temp_dir("amdgcn", dir, msg, cap) != 0)
        return -1;
    bfmt(log, sizeof log, "%s/clang.log", dir);
    char *argv[] = {(char *)t->clang, (char *)"--version", NULL};
    int rc = tool_run(argv, dir, log, msg, cap);
    char text[512];
    tool_read_messages(log, text, sizeof text);
    tool_remove_dir(dir);
    if (rc != 0)
        return -1;
    /* "Debian clang version 15.0.6 Target: ..." */
    const char *v = strstr(text, "version ");
    char ver[64] = "?";
    if (v)
        sscanf(v + 8, "%63s", ver);
    /* The device libraries carry no version: their bytes are it. */
    uLong crc = crc32(0L, Z_NULL, 0);
    static const char *const libs[] = {"ockl.bc", "ocml.bc", "opencl.bc"};
    for (size_t i = 0; i < 3; i++) {
        char path[TOOL_PATH_MAX];
        unsigned char *b = NULL;
        size_t n = 0;
        bfmt(path, sizeof path, "%s/%s", t->bitcode, libs[i]);
        if (tool_read_file(path, 64u << 20, &b, &n) != 0) {
            bfmt(msg, cap, "cannot read %s", path);
            return -1;
        }
        crc = crc32(crc, b, (uInt)n);
        free(b);
    }
    bfmt(buf, buf_cap, "clang %s; rocm-device-libs crc32 %08lx", ver, (unsigned long)crc);
    return 0;
}

/* "gfx90a:xnack-" -> "90a": the digits of the ISA library's name. */
static void isa_digits(const char *target, char out[16])
{
    size_t n = strcspn(target + 3, ":");
    bfmt(out, 16, "%.*s", (int)(n < 8 ? n : 8), target + 3);
}

int amdgcn_has_isa_library(const amdgcn_tools *t, const char *target)
{
    char digits[16], path[TOOL_PATH_MAX];
    isa_digits(target, digits);
    bfmt(path, sizeof path, "%s/oclc_isa_version_%s.bc", t->bitcode, digits);
    FILE *f = fopen(path, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

/* __oclc_ISA_version of a target: major * 1000 + minor * 100 + stepping
 * (what every oclc_isa_version_*.bc defines: 10300 for gfx1030, 9010 for
 * gfx90a). */
static unsigned isa_version(const char *target)
{
    char digits[16];
    isa_digits(target, digits);
    size_t n = strlen(digits);
    if (n < 3)
        return 0;
    char m[2] = {digits[n - 2], 0}, s[2] = {digits[n - 1], 0};
    unsigned major = 0;
    for (size_t i = 0; i + 2 < n; i++)
        major = major * 10 + (unsigned)(digits[i] - '0');
    return major * 1000 + (unsigned)strtoul(m, NULL, 16) * 100 + (unsigned)strtoul(s, NULL, 16);
}

/* argv of a clang run: grows, all strings malloc'd. */
typedef struct argvb {
    size_t n;
    char *v[OFFLINE_OPTS_MAX_ARGS + 64];
} argvb;

static void add(argvb *a, const char *fmt, const char *arg)
{
    if (a->n + 1 >= sizeof a->v / sizeof a->v[0])
        return;
    char buf[TOOL_PATH_MAX + 64];
    bfmt(buf, sizeof buf, fmt, arg);
    a->v[a->n++] = strdup(buf);
    a->v[a->n] = NULL;
}

static void free_argv(argvb *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->v[i]);
    a->n = 0;
}

/* A device library to link as builtin bitcode. */
static void add_lib(argvb *a, const char *path)
{
    add(a, "%s", "-Xclang");
    add(a, "%s", "-mlink-builtin-bitcode");
    add(a, "%s", "-Xclang");
    add(a, "%s", path);
}

int amdgcn_compile(const amdgcn_tools *t, const char *source, size_t size, const char *options,
                   const char *target, unsigned char **bin, size_t *bin_size, char *msg,
                   size_t cap)
{
    *bin = NULL;
    *bin_size = 0;
    offline_opts_args o;
    if (offline_opts_split(options, &o, msg, cap) != 0)
        return -1;
    char dir[TOOL_PATH_MAX], src[TOOL_PATH_MAX], out[TOOL_PATH_MAX], log[TOOL_PATH_MAX],
        isa[TOOL_PATH_MAX], lib[TOOL_PATH_MAX];
    if (tool_temp_dir("amdgcn", dir, msg, cap) != 0) {
        offline_opts_free(&o);
        return -1;
    }
    bfmt(src, sizeof src, "%s/program.cl", dir);
    bfmt(out, sizeof out, "%s/program.co", dir);
    bfmt(log, sizeof log, "%s/clang.log", dir);
    int rc = -1;
    argvb a = {0};
    if (tool_write_file(src, source, size) != 0) {
        bfmt(msg, cap, "cannot write %s", src);
        goto out;
    }
    char digits[16];
    isa_digits(target, digits);
    if (amdgcn_has_isa_library(t, target)) {
        bfmt(isa, sizeof isa, "%s/oclc_isa_version_%s.bc", t->bitcode, digits);
    } else {
        /* The library's one definition, made for this target. */
        char isa_src[TOOL_PATH_MAX], text[96];
        bfmt(isa_src, sizeof isa_src, "%s/isa.cl", dir);
        bfmt(isa, sizeof isa, "%s/isa.bc", dir);
        int len = snprintf(text, sizeof text, "__constant int __oclc_ISA_version = %u;\n",
                           isa_version(target));
        char mcpu[96];
        bfmt(mcpu, sizeof mcpu, "-mcpu=%s", target);
        char *iargv[] = {(char *)t->clang, (char *)"-x", (char *)"cl", (char *)"-cl-std=CL1.2",
                         (char *)"-target", (char *)"amdgcn-amd-amdhsa", mcpu,
                         (char *)"-nogpulib", (char *)"-c", (char *)"-emit-llvm", (char *)"-o",
                         isa, isa_src, NULL};
        if (tool_write_file(isa_src, text, (size_t)len) != 0 ||
            tool_run(iargv, dir, log, msg, cap) != 0)
            goto out;
    }
    add(&a, "%s", t->clang);
    add(&a, "%s", "-x");
    add(&a, "%s", "cl");
    add(&a, "%s", "-target");
    add(&a, "%s", "amdgcn-amd-amdhsa");
    add(&a, "-mcpu=%s", target);
    add(&a, "%s", "-nogpulib");
    /* ROCm's own OpenCL compiler optimizes at -O3 unless told not to. */
    add(&a, "%s", o.opt_disable ? "-O0" : "-O3");
    for (size_t i = 0; i < o.n; i++)
        add(&a, "%s", o.arg[i]);
    static const char *const base[] = {"opencl", "ocml", "ockl"};
    for (size_t i = 0; i < 3; i++) {
        bfmt(lib, sizeof lib, "%s/%s.bc", t->bitcode, base[i]);
        add_lib(&a, lib);
    }
    add_lib(&a, isa);
    /* The control libraries, as ROCm's runtime picks them from the
     * options: wave64 before RDNA (gfx10 and later run wave32). */
    unsigned ver = isa_version(target);
    const struct {
        const char *name;
        int on;
    } ctl[] = {
        {"wavefrontsize64", ver < 10000},
        {"daz_opt", o.denorms_zero},
        {"finite_only", o.finite_only || o.fast_math},
        {"unsafe_math", o.unsafe_math || o.fast_math},
        {"correctly_rounded_sqrt", o.correct_sqrt},
    };
    for (size_t i = 0; i < sizeof ctl / sizeof ctl[0]; i++) {
        bfmt(lib, sizeof lib, "%s/oclc_", t->bitcode);
        size_t n = strlen(lib);
        bfmt(lib + n, sizeof lib - n, "%s_%s.bc", ctl[i].name, ctl[i].on ? "on" : "off");
        add_lib(&a, lib);
    }
    bfmt(lib, sizeof lib, "%s/oclc_abi_version_400.bc", t->bitcode);
    add_lib(&a, lib);
    add(&a, "%s", "-o");
    add(&a, "%s", out);
    add(&a, "%s", src);
    if (a.n + 1 >= sizeof a.v / sizeof a.v[0]) {
        bfmt(msg, cap, "too many build options for clang");
        goto out;
    }
    if (tool_run(a.v, dir, log, msg, cap) != 0)
        goto out;
    if (tool_read_file(out, CO_MAX, bin, bin_size) != 0 || !*bin_size) {
        bfmt(msg, cap, "%s -mcpu=%s wrote no code object", t->clang, target);
        goto out;
    }
    rc = 0;
out:
    free_argv(&a);
    offline_opts_free(&o);
    tool_remove_dir(dir);
    return rc;
}
