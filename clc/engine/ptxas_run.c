/* ptxas_run.c — locating and running ptxas (ptxas_run.h). */
#include "ptxas_run.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bounded_fmt.h"

#define DEFAULT_CUDA_PTXAS "/usr/local/cuda/bin/ptxas"
/* A cubin for one kernel is kilobytes; anything near this is not one. */
#define CUBIN_SIZE_MAX (256u << 20)

static int is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int ptxas_find(const char *explicit_path, char out[PTXAS_PATH_MAX])
{
    if (explicit_path && *explicit_path) {
        if (is_executable_file(explicit_path)) {
            bfmt(out, PTXAS_PATH_MAX, "%s", explicit_path);
            return 0;
        }
        bfmt(out, PTXAS_PATH_MAX, "--ptxas %s: not an executable file", explicit_path);
        return -1;
    }
    const char *path = getenv("PATH");
    if (path) {
        const char *p = path;
        for (;;) {
            const char *colon = strchr(p, ':');
            size_t n = colon ? (size_t)(colon - p) : strlen(p);
            /* An empty PATH element means the current folder. */
            char cand[PTXAS_PATH_MAX];
            if (n == 0)
                bfmt(cand, sizeof cand, "./ptxas");
            else
                bfmt(cand, sizeof cand, "%.*s/ptxas", (int)n, p);
            if (is_executable_file(cand)) {
                bfmt(out, PTXAS_PATH_MAX, "%s", cand);
                return 0;
            }
            if (!colon)
                break;
            p = colon + 1;
        }
    }
    if (is_executable_file(DEFAULT_CUDA_PTXAS)) {
        bfmt(out, PTXAS_PATH_MAX, "%s", DEFAULT_CUDA_PTXAS);
        return 0;
    }
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

static int write_all(int fd, const void *data, size_t size)
{
    const unsigned char *p = data;
    while (size > 0) {
        ssize_t w = write(fd, p, size);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        size -= (size_t)w;
    }
    return 0;
}

/* Reads a whole file (at most max bytes) into a malloc'd buffer. */
static int read_file(const char *path, size_t max, unsigned char **out, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 4096, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            if (cap >= max) {
                free(buf);
                buf = NULL;
                break;
            }
            unsigned char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        return -1;
    }
    *out = buf;
    *size = n;
    return 0;
}

/* ptxas's messages, one line, cut to fit: they end up in a one-line report. */
static void read_messages(const char *path, char *dst, size_t cap)
{
    unsigned char *text = NULL;
    size_t n = 0;
    dst[0] = '\0';
    if (read_file(path, 1u << 20, &text, &n) != 0)
        return;
    size_t o = 0;
    for (size_t i = 0; i < n && o + 1 < cap; i++) {
        char c = (char)text[i];
        if (c == '\n' || c == '\r')
            c = (i + 1 < n) ? ' ' : '\0';
        if (c == '\0')
            break;
        dst[o++] = isprint((unsigned char)c) ? c : '?';
    }
    dst[o] = '\0';
    free(text);
}

/* Runs argv with stdout and stderr into log_fd; returns the wait status or -1. */
static int run_program(char *const argv[], int log_fd)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        /* Only async-signal-safe calls between fork and exec: the parent may
         * run OpenCL driver threads. */
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        dup2(log_fd, 1);
        dup2(log_fd, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return -1;
    }
    return status;
}

/* ptxas_compile and ptxas_accepts: quick adds -O0 (see ptxas_accepts). */
static int run_ptxas(const char *ptxas, const void *ptx, size_t ptx_size, const char *arch_name,
                     int quick, unsigned char **cubin, size_t *cubin_size, char *msg,
                     size_t msg_cap)
{
    *cubin = NULL;
    *cubin_size = 0;
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    char dir[PTXAS_PATH_MAX], in_path[PTXAS_PATH_MAX], out_path[PTXAS_PATH_MAX],
        log_path[PTXAS_PATH_MAX];
    bfmt(dir, sizeof dir, "%s/clc-pack-ptxas-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        bfmt(msg, msg_cap, "cannot make a temporary folder in %s: %s", tmp, strerror(errno));
        return -1;
    }
    bfmt(in_path, sizeof in_path, "%s/program.ptx", dir);
    bfmt(out_path, sizeof out_path, "%s/program.cubin", dir);
    bfmt(log_path, sizeof log_path, "%s/ptxas.log", dir);

    int rc = -1;
    char arch_buf[64];
    char *argv[PTXAS_ARGV_MAX];
    int in_fd, log_fd = -1;
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
    in_fd = open(in_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    int written = in_fd >= 0 && write_all(in_fd, ptx, ptx_size) == 0;
    if (in_fd >= 0 && close(in_fd) != 0)
        written = 0;
    if (!written) {
        bfmt(msg, msg_cap, "cannot write %s: %s", in_path, strerror(errno));
        goto out;
    }
    log_fd = open(log_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (log_fd < 0) {
        bfmt(msg, msg_cap, "cannot write %s: %s", log_path, strerror(errno));
        goto out;
    }
    int status = run_program(argv, log_fd);
    close(log_fd);
    log_fd = -1;
    char out_text[1024];
    read_messages(log_path, out_text, sizeof out_text);
    if (status < 0) {
        bfmt(msg, msg_cap, "cannot run %s: %s", ptxas, strerror(errno));
        goto out;
    }
    if (WIFSIGNALED(status)) {
        bfmt(msg, msg_cap, "%s %s died of signal %d%s%s", ptxas, arch_buf, WTERMSIG(status),
             *out_text ? ": " : "", out_text);
        goto out;
    }
    if (WEXITSTATUS(status) == 127 && access(ptxas, X_OK) != 0) {
        bfmt(msg, msg_cap, "cannot run %s", ptxas);
        goto out;
    }
    if (WEXITSTATUS(status) != 0) {
        bfmt(msg, msg_cap, "%s %s exited with status %d%s%s", ptxas, arch_buf,
             WEXITSTATUS(status), *out_text ? ": " : "", out_text);
        goto out;
    }
    if (read_file(out_path, CUBIN_SIZE_MAX, cubin, cubin_size) != 0) {
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
    if (log_fd >= 0)
        close(log_fd);
    unlink(in_path);
    unlink(out_path);
    unlink(log_path);
    rmdir(dir);
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
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    char dir[PTXAS_PATH_MAX], log_path[PTXAS_PATH_MAX];
    bfmt(dir, sizeof dir, "%s/clc-pack-ptxas-XXXXXX", tmp);
    if (!mkdtemp(dir))
        return -1;
    bfmt(log_path, sizeof log_path, "%s/version.log", dir);
    int rc = -1;
    int log_fd = open(log_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (log_fd >= 0) {
        char *argv[] = {(char *)ptxas, (char *)"--version", NULL};
        int status = run_program(argv, log_fd);
        close(log_fd);
        unsigned char *text = NULL;
        size_t n = 0;
        if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
            read_file(log_path, 1u << 16, &text, &n) == 0) {
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
    }
    unlink(log_path);
    rmdir(dir);
    return rc;
}
