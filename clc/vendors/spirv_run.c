/* spirv_run.c — SPIR-V with clang and llvm-spirv (spirv_run.h). */
#include "spirv_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "offline_opts.h"

#define SPV_MAX (256u << 20)

int spirv_find(spirv_tools *t, char *msg, size_t cap)
{
    static const char *const clangs[] = {"/usr/bin/clang-15", "/usr/lib/llvm-15/bin/clang", NULL};
    static const char *const spirvs[] = {"/usr/bin/llvm-spirv-15", "/usr/lib/llvm-15/bin/llvm-spirv",
                                         NULL};
    memset(t, 0, sizeof *t);
    if (tool_find("clang-15", clangs, t->clang) != 0 ||
        tool_find("llvm-spirv-15", spirvs, t->llvm_spirv) != 0) {
        bfmt(msg, cap, "--spirv: no %s for SPIR-V: install the Debian packages " SPIRV_PACKAGES
                       " (make deps)", t->clang[0] ? "llvm-spirv-15" : "clang-15");
        return -1;
    }
    return 0;
}

/* The first "version X" of a tool's --version output. */
static int tool_version(const char *tool, char *ver, size_t cap, char *msg, size_t mcap)
{
    char dir[TOOL_PATH_MAX], log[TOOL_PATH_MAX], text[512];
    if (tool_temp_dir("spirv", dir, msg, mcap) != 0)
        return -1;
    bfmt(log, sizeof log, "%s/version.log", dir);
    char *argv[] = {(char *)tool, (char *)"--version", NULL};
    int rc = tool_run(argv, dir, log, msg, mcap);
    tool_read_messages(log, text, sizeof text);
    tool_remove_dir(dir);
    const char *v = strstr(text, "version ");
    char word[64] = "?";
    if (v)
        sscanf(v + 8, "%63s", word);
    bfmt(ver, cap, "%s", word);
    return rc;
}

int spirv_version(const spirv_tools *t, char *buf, size_t buf_cap, char *msg, size_t cap)
{
    char a[64], b[64];
    if (tool_version(t->clang, a, sizeof a, msg, cap) != 0 ||
        tool_version(t->llvm_spirv, b, sizeof b, msg, cap) != 0)
        return -1;
    bfmt(buf, buf_cap, "clang %s; llvm-spirv %s", a, b);
    return 0;
}

int spirv_compile(const spirv_tools *t, const char *source, size_t size, const char *options,
                  unsigned char **spv, size_t *spv_size, char *msg, size_t cap)
{
    *spv = NULL;
    *spv_size = 0;
    offline_opts_args o;
    if (offline_opts_split(options, &o, msg, cap) != 0)
        return -1;
    char dir[TOOL_PATH_MAX], src[TOOL_PATH_MAX], bc[TOOL_PATH_MAX], out[TOOL_PATH_MAX],
        log[TOOL_PATH_MAX];
    int rc = -1;
    if (tool_temp_dir("spirv", dir, msg, cap) != 0) {
        offline_opts_free(&o);
        return -1;
    }
    bfmt(src, sizeof src, "%s/program.cl", dir);
    bfmt(bc, sizeof bc, "%s/program.bc", dir);
    bfmt(out, sizeof out, "%s/program.spv", dir);
    bfmt(log, sizeof log, "%s/clang.log", dir);
    char *argv[OFFLINE_OPTS_MAX_ARGS + 16];
    size_t n = 0;
    argv[n++] = (char *)t->clang;
    argv[n++] = (char *)"-x";
    argv[n++] = (char *)"cl";
    argv[n++] = (char *)"-target";
    argv[n++] = (char *)"spir64";
    /* The driver optimizes when it builds the module for its device; at
     * -O0 clang would also mark every function optnone and noinline,
     * which the module would carry to the driver. */
    argv[n++] = (char *)"-O0";
    argv[n++] = (char *)"-Xclang";
    argv[n++] = (char *)"-disable-O0-optnone";
    argv[n++] = (char *)"-Xclang";
    argv[n++] = (char *)"-finclude-default-header";
    for (size_t i = 0; i < o.n; i++)
        argv[n++] = o.arg[i];
    argv[n++] = (char *)"-c";
    argv[n++] = (char *)"-emit-llvm";
    argv[n++] = (char *)"-o";
    argv[n++] = bc;
    argv[n++] = src;
    argv[n] = NULL;
    char *sargv[] = {(char *)t->llvm_spirv, (char *)"--spirv-max-version=1.0", bc, (char *)"-o",
                     out, NULL};
    if (tool_write_file(src, source, size) != 0)
        bfmt(msg, cap, "cannot write %s", src);
    else if (tool_run(argv, dir, log, msg, cap) == 0 && tool_run(sargv, dir, log, msg, cap) == 0) {
        if (tool_read_file(out, SPV_MAX, spv, spv_size) == 0 && *spv_size)
            rc = 0;
        else
            bfmt(msg, cap, "%s wrote no module", t->llvm_spirv);
    }
    offline_opts_free(&o);
    tool_remove_dir(dir);
    return rc;
}
