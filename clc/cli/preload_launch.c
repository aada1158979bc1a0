/* preload_launch.c — running an application with the interposer (preload_launch.h). */
#include "preload_launch.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bounded_fmt.h"

#ifndef CLCPACK_LIBDIR
#define CLCPACK_LIBDIR "/usr/local/lib"
#endif

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int absolute(const char *path, char out[PRELOAD_PATH_MAX])
{
    char *r = realpath(path, NULL);
    if (!r)
        return -1;
    int ok = strlen(r) < PRELOAD_PATH_MAX;
    if (ok)
        memcpy(out, r, strlen(r) + 1);
    free(r);
    return ok ? 0 : -1;
}

int preload_find(char out[PRELOAD_PATH_MAX], char *err, size_t cap)
{
    const char *env = getenv("CLCPACK_PRELOAD");
    if (env && *env) {
        if (is_file(env) && absolute(env, out) == 0)
            return 0;
        bfmt(err, cap, "CLCPACK_PRELOAD=%s: not a file", env);
        return -1;
    }
    char exe[PRELOAD_PATH_MAX], cand[PRELOAD_PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            bfmt(cand, sizeof cand, "%s/%s", exe, PRELOAD_NAME);
            if (is_file(cand) && absolute(cand, out) == 0)
                return 0;
            bfmt(cand, sizeof cand, "%s/../lib/%s", exe, PRELOAD_NAME);
            if (is_file(cand) && absolute(cand, out) == 0)
                return 0;
        }
    }
    bfmt(cand, sizeof cand, "%s/%s", CLCPACK_LIBDIR, PRELOAD_NAME);
    if (is_file(cand) && absolute(cand, out) == 0)
        return 0;
    bfmt(err, cap,
         "cannot find %s (looked beside clc-pack, in ../lib beside it and in %s; "
         "set CLCPACK_PRELOAD to its path)",
         PRELOAD_NAME, CLCPACK_LIBDIR);
    return -1;
}

int preload_setenv(const char *lib)
{
    const char *old = getenv("LD_PRELOAD");
    if (!old || !*old)
        return setenv("LD_PRELOAD", lib, 1);
    size_t n = strlen(lib) + strlen(old) + 2;
    char *v = malloc(n);
    if (!v)
        return -1;
    snprintf(v, n, "%s:%s", lib, old);
    int rc = setenv("LD_PRELOAD", v, 1);
    free(v);
    return rc;
}

int preload_run(char **argv, const char *mode, const char *value, int log, char *err,
                size_t cap)
{
    char lib[PRELOAD_PATH_MAX];
    if (preload_find(lib, err, cap) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        bfmt(err, cap, "cannot start %s: fork: %s", argv[0], strerror(errno));
        return -1;
    }
    if (pid == 0) {
        unsetenv(strcmp(mode, "CLCPACK_RECORD") == 0 ? "CLCPACK_PACK" : "CLCPACK_RECORD");
        if (setenv(mode, value, 1) != 0 || preload_setenv(lib) != 0 ||
            (log && setenv("CLCPACK_LOG", "1", 1) != 0))
            _exit(126);
        execvp(argv[0], argv);
        fprintf(stderr, "clc-pack: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            bfmt(err, cap, "waiting for %s: %s", argv[0], strerror(errno));
            return -1;
        }
    }
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}
