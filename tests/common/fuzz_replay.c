/*
 * fuzz_replay.c — replaying the fuzz targets' files (fuzz_replay.h).
 */
#include "fuzz_replay.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <sys/wait.h>
#include <unistd.h>
#endif

#include "check.h"

const char *fuzz_replay_dir(void)
{
    static char dir[4096];
    const char *f = __FILE__; /* tests/common/fuzz_replay.c */
    const char *slash = strrchr(f, '/');
    if (!slash)
        snprintf(dir, sizeof dir, "../fuzz");
    else
        snprintf(dir, sizeof dir, "%.*s/../fuzz", (int)(slash - f), f);
    return dir;
}

uint8_t *fuzz_replay_read(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap + 1);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *bigger = realloc(buf, cap * 2 + 1);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    *size = n;
    return buf;
}

const char *fuzz_replay_run(fuzz_replay_target fn, const uint8_t *data, size_t size, char *why,
                            size_t cap)
{
#ifdef _WIN32
    /* No fork: the target runs in this process, so a crash ends the whole
     * test (no closing "checks:" line: a failure, never a pass) instead of
     * naming the one file. */
    (void)why;
    (void)cap;
    return fn(data, size) == 0 ? NULL : "the target returned non-zero";
#else
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return "fork failed";
    if (pid == 0)
        _exit(fn(data, size) == 0 ? 0 : 3);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return NULL;
    if (WIFSIGNALED(status))
        snprintf(why, cap, "killed by signal %d", WTERMSIG(status));
    else
        snprintf(why, cap, "exited with status %d", WEXITSTATUS(status));
    return why;
#endif
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int fuzz_replay_each(const char *sub, fuzz_replay_visit on_file, void *ctx)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/%s", fuzz_replay_dir(), sub);
    DIR *d = opendir(dir);
    if (!CHECK(d != NULL, "%s: cannot open: %s", dir, strerror(errno)))
        return 0;
    char *names[4096];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < sizeof names / sizeof names[0])
        if (de->d_name[0] != '.')
            names[n++] = strdup(de->d_name);
    closedir(d);
    qsort(names, n, sizeof names[0], by_name);
    int ran = 0;
    for (size_t i = 0; i < n; i++) {
        char path[8400];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        size_t size = 0;
        uint8_t *data = fuzz_replay_read(path, &size);
        if (CHECK(data != NULL, "%s: cannot read", path)) {
            on_file(path, names[i], data, size, ctx);
            ran++;
        }
        free(data);
        free(names[i]);
    }
    return ran;
}
