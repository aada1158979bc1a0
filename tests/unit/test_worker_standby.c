/* A worker started ahead of its run (clc/engine/worker_pool.h,
 * worker_pool_standby_start): the run takes it for its first worker when
 * its command line is the run's, so the first job runs in the process that
 * was started early and no extra worker starts; with another command line
 * it is stopped and runs no job. The fake workers are sh scripts that log
 * their start and the job they read, then exit (a worker that dies is
 * replaced, so each job runs in a process of its own). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "wire.h"
#include "worker_pool.h"

static void on_finished(void *ctx, size_t job, build_variant_result *r)
{
    (void)job;
    (void)r;
    (*(size_t *)ctx)++;
}

/* What the log says: processes started, the pid of the first start, the
 * pid that ran job 0, and the jobs run. */
typedef struct log_view {
    int starts, jobs;
    long first_pid, job0_pid;
} log_view;

static log_view read_log(const char *path)
{
    log_view v = {0, 0, -1, -1};
    FILE *f = fopen(path, "r");
    char word[16];
    long a, b;
    while (f && fscanf(f, "%15s %ld %ld", word, &a, &b) == 3) {
        if (strcmp(word, "start") == 0 && v.starts++ == 0)
            v.first_pid = a;
        if (strcmp(word, "job") == 0) {
            v.jobs++;
            if (b == 0)
                v.job0_pid = a;
        }
    }
    if (f)
        fclose(f);
    return v;
}

/* Waits (at most 5 s) for the log to show n starts. */
static int wait_starts(const char *path, int n)
{
    for (int i = 0; i < 500; i++) {
        if (read_log(path).starts >= n)
            return 1;
        usleep(10000);
    }
    return 0;
}

/* Two jobs on one worker, after a standby started with standby_tag in its
 * script (the run's is "run"). */
static log_view run_with_standby(const char *standby_tag, size_t *results)
{
    char log[] = "/tmp/test_worker_standby_log.XXXXXX";
    int lfd = mkstemp(log);
    if (lfd >= 0)
        close(lfd);
    char script[2][512];
    const char *tags[2] = {"run", standby_tag};
    for (int i = 0; i < 2; i++)
        snprintf(script[i], sizeof script[i],
                 "echo \"start $$ 0\" >>%s; id=$(od -An -tu4 -N4 | tr -d ' ');"
                 " [ -n \"$id\" ] && echo \"job $$ $id\" >>%s; exit 3 # %s",
                 log, log, tags[i]);
    char *run_argv[] = {(char *)"sh", (char *)"-c", script[0], NULL};
    char *standby_argv[] = {(char *)"sh", (char *)"-c", script[1], NULL};
    char err[256] = "";
    worker_pool_standby *s = worker_pool_standby_start("/bin/sh", standby_argv, 0, err, sizeof err);
    CHECK(s != NULL, "a standby worker starts: %s", err);
    CHECK(wait_starts(log, 1), "the standby worker started before the run");
    strbuf jobs[2];
    for (uint32_t i = 0; i < 2; i++) {
        sb_init(&jobs[i]);
        wire_put_u32(&jobs[i], i);
    }
    *results = 0;
    worker_pool_callbacks cb = {results, NULL, on_finished, NULL, NULL, 0, NULL, NULL, s, NULL};
    CHECK(worker_pool_run("/bin/sh", run_argv, 1, 0, jobs, NULL, 2, &cb, err, sizeof err) == 0,
          "the run ends: %s", err);
    for (size_t i = 0; i < 2; i++)
        sb_free(&jobs[i]);
    log_view v = read_log(log);
    unlink(log);
    return v;
}

int main(void)
{
    size_t results;
    log_view v = run_with_standby("run", &results);
    CHECK(results == 2 && v.jobs == 2, "both jobs ran (%zu results, %d in the log)", results,
          v.jobs);
    CHECK(v.job0_pid == v.first_pid,
          "the same command line: job 0 ran in the standby worker (pid %ld, job 0 in %ld)",
          v.first_pid, v.job0_pid);
    CHECK(v.starts == 2, "and no extra worker started: the standby and one for job 1 (%d)",
          v.starts);

    v = run_with_standby("other", &results);
    CHECK(results == 2 && v.jobs == 2, "another command line: both jobs ran (%zu, %d)", results,
          v.jobs);
    CHECK(v.job0_pid != v.first_pid && v.starts == 3,
          "in workers of the run's own, the standby stopped without a job (%d starts)", v.starts);

    char err[256] = "";
    char *argv[] = {(char *)"x", NULL};
    CHECK(worker_pool_standby_start("/nonexistent/worker", argv, 0, err, sizeof err) == NULL &&
              strstr(err, "/nonexistent/worker"),
          "an executable that is not there: no standby, and the error names it: %s", err);
    worker_pool_standby_stop(NULL);
    return check_summary();
}
