/*
 * test_fuzz_replay.c — runs the fuzz target (tests/fuzz/fuzz_target.h) on
 * every seed in tests/fuzz/corpus/ and every crasher kept in
 * tests/fuzz/regressions/, with the project's own compiler, so `make test`
 * holds what fuzzing found without needing clang or libFuzzer. Each file
 * runs in a child process: a file that crashes the target is named and
 * counted, and the others still run. Seeds must also open cleanly (they
 * are valid packs); regressions only have to be survived.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "clcpack.h"
#include "fuzz/fuzz_target.h"

/* The folder of this source file, so the test runs from any directory. */
static const char *fuzz_dir(void)
{
    static char dir[4096];
    const char *f = __FILE__;
    const char *slash = strrchr(f, '/');
    if (!slash)
        snprintf(dir, sizeof dir, "fuzz");
    else
        snprintf(dir, sizeof dir, "%.*s/fuzz", (int)(slash - f), f);
    return dir;
}

static uint8_t *read_whole(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *bigger = realloc(buf, cap * 2);
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

/* 0 when the target returned normally on the file, else a description. */
static const char *run_target(const uint8_t *data, size_t size, char *why, size_t cap)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return "fork failed";
    if (pid == 0)
        _exit(LLVMFuzzerTestOneInput(data, size) == 0 ? 0 : 3);
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
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays every regular file of dir/sub; returns how many ran. */
static int replay(const char *sub, int must_open)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/%s", fuzz_dir(), sub);
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
        char path[8400], why[64];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        size_t size = 0;
        uint8_t *data = read_whole(path, &size);
        if (CHECK(data != NULL, "%s: cannot read", path)) {
            const char *fail = run_target(data, size, why, sizeof why);
            CHECK(fail == NULL, "%s: the fuzz target %s", path, fail ? fail : "");
            if (must_open) {
                clcpack *p = NULL;
                clcpack_error err;
                CHECK(clcpack_open_memory(data, size, &p, &err) == CLCPACK_OK &&
                          clcpack_entry_count(p) > 0,
                      "seed %s is a valid pack with entries (%s)", names[i],
                      p ? "ok" : err.message);
                clcpack_close(p);
            }
            ran++;
        }
        free(data);
        free(names[i]);
    }
    return ran;
}

int main(void)
{
    int seeds = replay("corpus", 1);
    int regressions = replay("regressions", 0);
    CHECK(seeds >= 3, "the seed corpus has at least 3 packs (%d)", seeds);
    printf("replayed %d seeds and %d regression files\n", seeds, regressions);
    return check_summary();
}
