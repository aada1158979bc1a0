/*
 * test_fuzz_cli.c — replays the seeds and regression files of the fuzz
 * targets over the command-line side's parsers (tests/fuzz/NAME_target.h,
 * docs/ROBUSTNESS.md) with the project's own compiler, so `make test` runs
 * them without clang or libFuzzer: for each target, every file of
 * tests/fuzz/corpus_NAME/ and of tests/fuzz/regressions_NAME/ (when there
 * is one). Each file runs in a child process, so a crash is named and the
 * rest still run.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fuzz/define_value_target.h"
#include "fuzz/expr_target.h"
#include "fuzz/manifest_target.h"
#include "fuzz/pack_args_target.h"
#include "fuzz/pocl_canon_target.h"
#include "fuzz/ptx_text_target.h"
#include "fuzz/source_fold_target.h"
#include "fuzz/worker_proto_target.h"

typedef int (*target_fn)(const uint8_t *, size_t);

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

/* NULL when the target returned normally on the bytes, else why not. */
static const char *run(target_fn fn, const uint8_t *data, size_t size, char *why, size_t cap)
{
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
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs fn on every regular file of fuzz/sub; returns how many ran, or -1
 * when the folder does not exist. */
static int replay(const char *target, target_fn fn, const char *sub)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/%s", fuzz_dir(), sub);
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? -1 : 0;
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
            const char *fail = run(fn, data, size, why, sizeof why);
            CHECK(fail == NULL, "%s on %s: %s", target, path, fail ? fail : "");
            ran++;
        }
        free(data);
        free(names[i]);
    }
    return ran;
}

int main(void)
{
    static const struct {
        const char *name;
        target_fn fn;
    } targets[] = {
        {"expr", fuzz_expr},
        {"define_value", fuzz_define_value},
        {"pack_args", fuzz_pack_args},
        {"manifest", fuzz_manifest},
        {"source_fold", fuzz_source_fold},
        {"worker_proto", fuzz_worker_proto},
        {"pocl_canon", fuzz_pocl_canon},
        {"ptx_text", fuzz_ptx_text},
    };
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
        char sub[64];
        snprintf(sub, sizeof sub, "corpus_%s", targets[t].name);
        int seeds = replay(targets[t].name, targets[t].fn, sub);
        CHECK(seeds >= 3, "%s: at least 3 seeds in tests/fuzz/%s (%d)", targets[t].name, sub,
              seeds);
        snprintf(sub, sizeof sub, "regressions_%s", targets[t].name);
        int regressions = replay(targets[t].name, targets[t].fn, sub);
        printf("%s: replayed %d seeds and %d regression files\n", targets[t].name, seeds,
               regressions < 0 ? 0 : regressions);
    }
    return check_summary();
}
