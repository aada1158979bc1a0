/* ptxas_run.c — locating and running ptxas (ptxas_run.h). */
#include "ptxas_run.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "tool_run.h"

#define DEFAULT_CUDA_PTXAS "/usr/local/cuda/bin/ptxas"
/* A cubin for one kernel is kilobytes; anything near this is not one. */
#define CUBIN_SIZE_MAX (256u << 20)

int ptxas_find(const char *explicit_path, char out[PTXAS_PATH_MAX])
{
    if (explicit_path && *explicit_path) {
        if (tool_is_executable(explicit_path)) {
            bfmt(out, PTXAS_PATH_MAX, "%s", explicit_path);
            return 0;
        }
        bfmt(out, PTXAS_PATH_MAX, "--ptxas %s: not an executable file", explicit_path);
        return -1;
    }
    static const char *const fallbacks[] = {DEFAULT_CUDA_PTXAS, NULL};
    if (tool_find("ptxas", fallbacks, out) == 0)
        return 0;
    bfmt(out, PTXAS_PATH_MAX, "no ptxas on PATH nor at %s", DEFAULT_CUDA_PTXAS);
    return -1;
}

int ptxas_build_argv(const char *ptxas, const char *arch_name, const char *out_path,
                     const char *in_path, char *arch_buf, size_t arch_cap,
                     char *argv[PTXAS_ARGV_MAX])
{
    /* The arch comes from the PTX, i.e. from the driver: keep it to what an
     * sm name can hold so it can never become another option. */
    if (strncmp(arch_name, "sm_", 3) != 0 || arch_name[3] == '\0')
        return -1;
    for (const char *c = arch_name + 3; *c; c++)
        if (!isalnum((unsigned char)*c))
            return -1;
    if ((size_t)snprintf(arch_buf, arch_cap, "-arch=%s", arch_name) >= arch_cap)
        return -1;
    int n = 0;
    argv[n++] = (char *)ptxas;
    argv[n++] = arch_buf;
    argv[n++] = (char *)"-o";
    argv[n++] = (char *)out_path;
    argv[n++] = (char *)in_path;
    argv[n] = NULL;
    return n;
}

/* ptxas_compile and ptxas_accepts: quick adds -O0 (see ptxas_accepts). */
static int run_ptxas(const char *ptxas, const void *ptx, size_t ptx_size, const char *arch_name,
                     int quick, unsigned char **cubin, size_t *cubin_size, char *msg,
                     size_t msg_cap)
{
    *cubin = NULL;
    *cubin_size = 0;
    char dir[TOOL_PATH_MAX], in_path[PTXAS_PATH_MAX], out_path[PTXAS_PATH_MAX],
        log_path[PTXAS_PATH_MAX];
    if (tool_temp_dir("ptxas", dir, msg, msg_cap) != 0)
        return -1;
    bfmt(in_path, sizeof in_path, "%s/program.ptx", dir);
    bfmt(out_path, sizeof out_path, "%s/program.cubin", dir);
    bfmt(log_path, sizeof log_path, "%s/ptxas.log", dir);

    int rc = -1;
    char arch_buf[64], run_msg[TOOL_MSG_MAX + PTXAS_PATH_MAX];
    char *argv[PTXAS_ARGV_MAX];
    int argc =
        ptxas_build_argv(ptxas, arch_name, out_path, in_path, arch_buf, sizeof arch_buf, argv);
    if (argc < 0) {
        bfmt(msg, msg_cap, "'%s' is not an sm_ architecture name", arch_name);
        goto out;
    }
    if (quick) {
        /* After -arch=: { ptxas, -arch=, -O0, -o, out, in, NULL }. */
        memmove(&argv[3], &argv[2], (size_t)(argc - 1) * sizeof argv[0]);
        argv[2] = (char *)"-O0";
    }
    if (tool_write_file(in_path, ptx, ptx_size) != 0) {
        bfmt(msg, msg_cap, "cannot write %s: %s", in_path, strerror(errno));
        goto out;
    }
    if (tool_run(argv, NULL, log_path, run_msg, sizeof run_msg) != 0) {
        /* tool_run names the program and its status; the target too. */
        bfmt(msg, msg_cap, "%s (%s)", run_msg, arch_buf);
        goto out;
    }
    if (tool_read_file(out_path, CUBIN_SIZE_MAX, cubin, cubin_size) != 0) {
        bfmt(msg, msg_cap, "%s %s wrote no readable %s", ptxas, arch_buf, out_path);
        goto out;
    }
    if (*cubin_size < 4 || memcmp(*cubin, "\177ELF", 4) != 0) {
        bfmt(msg, msg_cap, "%s %s wrote %zu bytes that are not an ELF cubin", ptxas, arch_buf,
             *cubin_size);
        free(*cubin);
        *cubin = NULL;
        *cubin_size = 0;
        goto out;
    }
    rc = 0;
out:
    tool_remove_dir(dir);
    return rc;
}

int ptxas_compile(const char *ptxas, const void *ptx, size_t ptx_size, const char *arch_name,
                  unsigned char **cubin, size_t *cubin_size, char *msg, size_t msg_cap)
{
    return run_ptxas(ptxas, ptx, ptx_size, arch_name, 0, cubin, cubin_size, msg, msg_cap);
}

int ptxas_accepts(const char *ptxas, const void *ptx, size_t ptx_size, const char *arch_name,
                  char *msg, size_t msg_cap)
{
    unsigned char *cubin = NULL;
    size_t size = 0;
    int rc = run_ptxas(ptxas, ptx, ptx_size, arch_name, 1, &cubin, &size, msg, msg_cap);
    free(cubin);
    return rc;
}

int ptxas_version(const char *ptxas, char *out, size_t cap)
{
    out[0] = '\0';
    char dir[TOOL_PATH_MAX], log_path[PTXAS_PATH_MAX], msg[TOOL_MSG_MAX + PTXAS_PATH_MAX];
    if (tool_temp_dir("ptxas", dir, msg, sizeof msg) != 0)
        return -1;
    bfmt(log_path, sizeof log_path, "%s/version.log", dir);
    int rc = -1;
    char *argv[] = {(char *)ptxas, (char *)"--version", NULL};
    unsigned char *text = NULL;
    size_t n = 0;
    if (tool_run(argv, NULL, log_path, msg, sizeof msg) == 0 &&
        tool_read_file(log_path, 1u << 16, &text, &n) == 0) {
        /* The last line that is not empty: "Cuda compilation tools,
         * release 12.8, V12.8.93". */
        size_t end = n;
        while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r'))
            end--;
        size_t start = end;
        while (start > 0 && text[start - 1] != '\n')
            start--;
        size_t o = 0;
        for (size_t i = start; i < end && o + 1 < cap; i++)
            out[o++] = isprint(text[i]) ? (char)text[i] : '?';
        out[o] = '\0';
        rc = o ? 0 : -1;
    }
    free(text);
    tool_remove_dir(dir);
    return rc;
}
