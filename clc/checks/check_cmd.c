/* check_cmd.c — run the user's test on a variant (check_cmd.h). */
#include "check_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "mono_clock.h"

#define CMD_MAX (64u << 10)

static const char *const NAMES[] = {"binary", "defines", "wg", "device", "kernel"};
#define N_NAMES (sizeof NAMES / sizeof NAMES[0])

static const char *var_value(const check_cmd_vars *v, size_t i)
{
    const char *vals[N_NAMES] = {v->binary, v->defines, v->wg, v->device, v->kernel};
    return vals[i] ? vals[i] : "";
}

/* Index of the placeholder at s ("{name}"), its length in *len; -1 if none. */
static int placeholder(const char *s, size_t *len)
{
    for (size_t i = 0; i < N_NAMES; i++) {
        size_t n = strlen(NAMES[i]);
        if (s[0] == '{' && strncmp(s + 1, NAMES[i], n) == 0 && s[1 + n] == '}') {
            *len = n + 2;
            return (int)i;
        }
    }
    return -1;
}

int check_cmd_validate(const char *option, const char *cmd, char msg[CHECK_CMD_MSG_MAX])
{
    if (!cmd[0]) {
        bfmt(msg, CHECK_CMD_MSG_MAX, "%s: empty command", option);
        return -1;
    }
    if (strlen(cmd) > CMD_MAX / 2) {
        bfmt(msg, CHECK_CMD_MSG_MAX, "%s: longer than %u bytes", option, CMD_MAX / 2);
        return -1;
    }
    for (const char *p = cmd; *p; p++) {
        size_t len;
        if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
            p++;
            continue;
        }
        if (*p == '}') {
            bfmt(msg, CHECK_CMD_MSG_MAX, "%s: a lone '}' at offset %zu (write }} for a brace)", option,
                 (size_t)(p - cmd));
            return -1;
        }
        if (*p != '{')
            continue;
        if (placeholder(p, &len) < 0) {
            size_t n = strcspn(p, "} ");
            bfmt(msg, CHECK_CMD_MSG_MAX,
                 "%s: unknown placeholder '%.*s%s' (known: {binary} {defines} {wg} "
                 "{device} {kernel}; write {{ for a brace)",
                 option, (int)(n > 40 ? 40 : n), p, p[n] == '}' ? "}" : "");
            return -1;
        }
        p += len - 1;
    }
    return 0;
}

/* Appends s as one shell word: as it is when every character is one the
 * shell takes literally, else single-quoted. */
static int add_quoted(char *out, size_t *len, const char *s)
{
    if (*s && s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_=,.:/+-")] ==
                  '\0') {
        size_t n = strlen(s);
        if (*len + n + 1 >= CMD_MAX)
            return -1;
        memcpy(out + *len, s, n);
        *len += n;
        return 0;
    }
    if (*len + 2 >= CMD_MAX)
        return -1;
    out[(*len)++] = '\'';
    for (; *s; s++) {
        if (*len + 5 >= CMD_MAX)
            return -1;
        if (*s == '\'') {
            memcpy(out + *len, "'\\''", 4);
            *len += 4;
        } else {
            out[(*len)++] = *s;
        }
    }
    out[(*len)++] = '\'';
    return 0;
}

static char *expand(const char *cmd, const check_cmd_vars *v)
{
    char *out = malloc(CMD_MAX);
    if (!out)
        return NULL;
    size_t len = 0;
    for (const char *p = cmd; *p; p++) {
        size_t plen;
        int i;
        if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
            if (len + 1 >= CMD_MAX)
                goto fail;
            out[len++] = *p++;
        } else if (*p == '{' && (i = placeholder(p, &plen)) >= 0) {
            if (add_quoted(out, &len, var_value(v, (size_t)i)) != 0)
                goto fail;
            p += plen - 1;
        } else {
            if (len + 1 >= CMD_MAX)
                goto fail;
            out[len++] = *p;
        }
    }
    out[len] = '\0';
    return out;
fail:
    free(out);
    return NULL;
}

/* Keeps the last CHECK_CMD_OUTPUT_MAX bytes read. */
static void keep_tail(char *buf, size_t *len, const char *in, size_t n)
{
    if (n > CHECK_CMD_OUTPUT_MAX) {
        in += n - CHECK_CMD_OUTPUT_MAX;
        n = CHECK_CMD_OUTPUT_MAX;
    }
    if (*len + n > CHECK_CMD_OUTPUT_MAX) {
        size_t drop = *len + n - CHECK_CMD_OUTPUT_MAX;
        memmove(buf, buf + drop, *len - drop);
        *len -= drop;
    }
    memcpy(buf + *len, in, n);
    *len += n;
}

/* In the forked child: the command's folder, environment and output, then
 * the shell. Never returns. */
_Noreturn static void exec_child(const char *line, int out_fd, const check_cmd_vars *v, const check_cmd_place *where)
{
    setpgid(0, 0);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0)
        dup2(devnull, 0);
    dup2(out_fd, 1);
    dup2(out_fd, 2);
    if (out_fd > 2)
        close(out_fd);
    if (where && where->dir && where->dir[0] && chdir(where->dir) != 0) {
        dprintf(2, "clc-pack: cannot enter %s: %s\n", where->dir, strerror(errno));
        _exit(127);
    }
    for (size_t i = 0; where && i < where->n_env && i < CHECK_CMD_MAX_ENV; i++) {
        if (where->env_value[i])
            setenv(where->env_name[i], where->env_value[i], 1);
        else
            unsetenv(where->env_name[i]);
    }
    const char *env[N_NAMES] = {"CLCPACK_BINARY", "CLCPACK_DEFINES", "CLCPACK_WG",
                                "CLCPACK_DEVICE", "CLCPACK_KERNEL"};
    for (size_t i = 0; i < N_NAMES; i++)
        setenv(env[i], var_value(v, i), 1);
    execl("/bin/sh", "sh", "-c", line, (char *)NULL);
    _exit(127);
}

/* Reads the command's output into tail (its last CHECK_CMD_OUTPUT_MAX bytes, *tlen
 * of them) until it closes or the deadline passes, then reaps it. Returns
 * 1 when it ran out of time, else 0, with its wait status in *status. */
static int collect(pid_t pid, int fd, int timeout_s, char *tail, size_t *tlen, int *status)
{
    double deadline = mono_clock_s() + (timeout_s > 0 ? timeout_s : 1);
    int timed_out = 0;
    for (;;) {
        double left = deadline - mono_clock_s();
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd pf = {fd, POLLIN, 0};
        int pr = poll(&pf, 1, (int)(left * 1000) + 1);
        if (pr <= 0)
            continue;
        char chunk[4096];
        ssize_t got = read(fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        keep_tail(tail, tlen, chunk, (size_t)got);
    }
    if (timed_out)
        kill(-pid, SIGKILL);
    /* The output closed: the command is ending; bound the wait anyway. */
    double wait_until = mono_clock_s() + 5;
    pid_t w;
    *status = 0;
    while ((w = waitpid(pid, status, WNOHANG)) == 0 && mono_clock_s() < wait_until) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (w == 0) {
        kill(-pid, SIGKILL);
        waitpid(pid, status, 0);
        timed_out = 1;
    }
    return timed_out;
}

int check_cmd_run(const char *what, const char *cmd, const check_cmd_vars *v, const check_cmd_place *where,
           int timeout_s, char **output, char msg[CHECK_CMD_MSG_MAX])
{
    *output = NULL;
    char *line = expand(cmd, v);
    char *tail = malloc(CHECK_CMD_OUTPUT_MAX + 1);
    int fds[2] = {-1, -1};
    if (!line || !tail || pipe(fds) != 0) {
        bfmt(msg, CHECK_CMD_MSG_MAX, "cannot run %s: %s", what,
             line && tail ? strerror(errno) : "too long or out of memory");
        free(line);
        free(tail);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        bfmt(msg, CHECK_CMD_MSG_MAX, "cannot run %s: fork: %s", what, strerror(errno));
        close(fds[0]);
        close(fds[1]);
        free(line);
        free(tail);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        exec_child(line, fds[1], v, where);
    }
    setpgid(pid, pid);
    close(fds[1]);
    free(line);
    size_t tlen = 0;
    int status;
    int timed_out = collect(pid, fds[0], timeout_s, tail, &tlen, &status);
    close(fds[0]);
    tail[tlen] = '\0';
    *output = tail;
    /* Where it ran: a command that is not found there says why. */
    char here[CHECK_CMD_MSG_MAX / 2] = "";
    if (where && where->dir && where->dir[0])
        bfmt(here, sizeof here, "%s", where->dir);
    else if (!getcwd(here, sizeof here))
        bfmt(here, sizeof here, "%s", "an unknown folder");
    if (timed_out) {
        bfmt(msg, CHECK_CMD_MSG_MAX, "%s ran out of time (%d s; ran in %s)", what, timeout_s, here);
        return 1;
    }
    if (WIFSIGNALED(status)) {
        bfmt(msg, CHECK_CMD_MSG_MAX, "%s died of signal %d (ran in %s)", what, WTERMSIG(status), here);
        return 1;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        bfmt(msg, CHECK_CMD_MSG_MAX, "%s exited with status %d (ran in %s)", what, WEXITSTATUS(status),
             here);
        return 1;
    }
    return 0;
}
