/* tool_run.c — running offline compilers (tool_run.h). */
#include "tool_run.h"

#include <ctype.h>
#include <dirent.h>
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
#include "fd_io.h"

int tool_is_executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int tool_find(const char *name, const char *const *fallbacks, char out[TOOL_PATH_MAX])
{
    const char *path = getenv("PATH");
    for (const char *p = path; p;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        char cand[TOOL_PATH_MAX];
        /* An empty PATH element means the current folder. */
        if (n == 0)
            bfmt(cand, sizeof cand, "./%s", name);
        else
            bfmt(cand, sizeof cand, "%.*s/%s", (int)n, p, name);
        if (tool_is_executable(cand)) {
            bfmt(out, TOOL_PATH_MAX, "%s", cand);
            return 0;
        }
        p = colon ? colon + 1 : NULL;
    }
    for (size_t i = 0; fallbacks && fallbacks[i]; i++)
        if (tool_is_executable(fallbacks[i])) {
            bfmt(out, TOOL_PATH_MAX, "%s", fallbacks[i]);
            return 0;
        }
    return -1;
}

int tool_temp_dir(const char *what, char dir[TOOL_PATH_MAX], char *msg, size_t cap)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    bfmt(dir, TOOL_PATH_MAX, "%s/clc-pack-%s-XXXXXX", tmp, what);
    if (!mkdtemp(dir)) {
        bfmt(msg, cap, "cannot make a temporary folder in %s: %s", tmp, strerror(errno));
        return -1;
    }
    return 0;
}

void tool_remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char path[TOOL_PATH_MAX];
            bfmt(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

int tool_write_file(const char *path, const void *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    if (clcpk_fd_write_all(fd, data, size) != 0) {
        close(fd);
        return -1;
    }
    return close(fd);
}

int tool_read_file(const char *path, size_t max, unsigned char **out, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 4096, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            unsigned char *grown = cap >= max ? NULL : realloc(buf, cap * 2);
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

void tool_read_messages(const char *path, char *dst, size_t cap)
{
    unsigned char *text = NULL;
    size_t n = 0;
    dst[0] = '\0';
    if (tool_read_file(path, 1u << 20, &text, &n) != 0)
        return;
    size_t o = 0;
    int space = 1;
    for (size_t i = 0; i < n && o + 1 < cap; i++) {
        char c = (char)text[i];
        if (c == '\0')
            break;
        int ws = c == '\n' || c == '\r' || c == ' ' || c == '\t';
        if (ws && space)
            continue;
        dst[o++] = ws ? ' ' : isprint((unsigned char)c) ? c : '?';
        space = ws;
    }
    while (o && dst[o - 1] == ' ')
        o--;
    dst[o] = '\0';
    free(text);
}

int tool_run(char *const argv[], const char *cwd, const char *log_path, char *msg, size_t cap)
{
    int log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (log_fd < 0) {
        bfmt(msg, cap, "cannot write %s: %s", log_path, strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        bfmt(msg, cap, "cannot run %s: %s", argv[0], strerror(errno));
        close(log_fd);
        return -1;
    }
    if (pid == 0) {
        /* Only async-signal-safe calls between fork and exec. */
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        dup2(log_fd, 1);
        dup2(log_fd, 2);
        if (cwd && chdir(cwd) != 0)
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    close(log_fd);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            bfmt(msg, cap, "cannot wait for %s: %s", argv[0], strerror(errno));
            return -1;
        }
    char out[TOOL_MSG_MAX];
    tool_read_messages(log_path, out, sizeof out);
    if (WIFSIGNALED(status)) {
        bfmt(msg, cap, "%s died of signal %d%s%s", argv[0], WTERMSIG(status), *out ? ": " : "",
             out);
        return -1;
    }
    if (WEXITSTATUS(status) == 127 && !tool_is_executable(argv[0])) {
        bfmt(msg, cap, "cannot run %s", argv[0]);
        return -1;
    }
    if (WEXITSTATUS(status) != 0) {
        bfmt(msg, cap, "%s exited with status %d%s%s", argv[0], WEXITSTATUS(status),
             *out ? ": " : "", out);
        return -1;
    }
    return 0;
}
