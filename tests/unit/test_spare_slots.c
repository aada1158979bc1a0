/* Slots idle build workers lend (clc/engine/spare_slots.h): taking and
 * giving on a pipe, what a worker accepts as the pipe, and the worker pool
 * lending the slots of idle workers once no job is left, to a worker still
 * busy, and from the start the slots of -j no worker holds; no pipe with
 * one worker of -j 1 or for a pool that does not lend. This
 * test is its own fake worker (argv[1] "--fake-worker"): each job is a u32; job 0
 * takes the slots lent to it for 2 s (or until it has `want`) and answers
 * with how many it got. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "spare_slots.h"
#include "fake_worker.h"
#include "wire.h"
#include "worker_proto.h"
#include "worker_pool.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int fake_worker(int want)
{
    spare_slots s;
    spare_inherit(&s);
    uint32_t job;
    while (fake_worker_next(&job)) {
        int got = 0;
        if (job == 0) {
            double end = now_s() + 2;
            while (got < want && now_s() < end) {
                got += spare_take(&s, want - got);
                usleep(10000);
            }
            spare_give(&s, got);
        }
        /* A standby worker (started with this variable set) says that it
         * ran job 0, and what it was lent. */
        const char *log = getenv("SPARE_TEST_STANDBY_LOG");
        FILE *f = log && job == 0 ? fopen(log, "w") : NULL;
        if (f) {
            fprintf(f, "lent %d", got);
            fclose(f);
        }
        char msg[64];
        snprintf(msg, sizeof msg, "lent %d, pipe %s", got, s.rd >= 0 ? "yes" : "no");
        if (fake_worker_answer(job, msg) != 0)
            return 1;
    }
    return 0;
}

static void on_finished(void *ctx, size_t job, build_variant_result *r)
{
    if (job == 0 && r->message)
        snprintf((char *)ctx, 64, "%s", r->message);
}

/* Runs n_jobs jobs (job 0 first) on n_workers fake workers; job 0 waits
 * for `want` slots. Its answer goes to got. */
static void run_pool_standby(const char *self, size_t n_workers, size_t n_jobs, int want,
                             int lend, worker_pool_standby *standby, char got[64])
{
    strbuf jobs[8];
    size_t order[8];
    for (uint32_t i = 0; i < n_jobs; i++) {
        sb_init(&jobs[i]);
        wire_put_u32(&jobs[i], i);
        order[i] = i;
    }
    char want_text[16];
    snprintf(want_text, sizeof want_text, "%d", want);
    char *argv[] = {(char *)self, (char *)"--fake-worker", want_text, NULL};
    worker_pool_callbacks cb = {got, NULL, on_finished, NULL, NULL, lend, NULL, NULL, standby, NULL};
    char err[256] = "";
    got[0] = '\0';
    CHECK(worker_pool_run_order(self, argv, n_workers, 0, jobs, NULL, order, n_jobs, &cb, err,
                          sizeof err) == 0,
          "the run ends: %s", err);
    for (size_t i = 0; i < n_jobs; i++)
        sb_free(&jobs[i]);
}

static void run_pool(const char *self, size_t n_workers, size_t n_jobs, int want, int lend,
                     char got[64])
{
    run_pool_standby(self, n_workers, n_jobs, want, lend, NULL, got);
}

/* A standby worker taken by a run that lends: its pipe is the run's, so
 * it too is lent the slots no worker holds (the pack `clc-pack tune`
 * writes is one job, built by the worker started with the search). */
static void test_standby(const char *self)
{
    char log[] = "/tmp/test_spare_slots_standby.XXXXXX";
    int fd = mkstemp(log);
    if (!CHECK(fd >= 0, "a temporary file"))
        return;
    close(fd);
    char *argv[] = {(char *)self, (char *)"--fake-worker", (char *)"5", NULL};
    char err[256] = "";
    setenv("SPARE_TEST_STANDBY_LOG", log, 1);
    worker_pool_standby *s = worker_pool_standby_start(self, argv, 0, err, sizeof err);
    unsetenv("SPARE_TEST_STANDBY_LOG");
    CHECK(s != NULL, "a standby starts: %s", err);
    char got[64];
    run_pool_standby(self, 4, 1, 5, 1, s, got);
    char said[64] = "";
    FILE *f = fopen(log, "r");
    if (f) {
        if (!fgets(said, sizeof said, f))
            said[0] = '\0';
        fclose(f);
    }
    unlink(log);
    CHECK(strcmp(said, "lent 3") == 0 && strcmp(got, "lent 3, pipe yes") == 0,
          "the standby ran the job and borrowed the three slots (it said '%s'; the run got '%s')",
          said, got);
}

static void test_pipe_calls(void)
{
    spare_slots none = {-1, -1};
    CHECK(spare_take(&none, 4) == 0, "no pipe: nothing to take");
    spare_give(&none, 2); /* a no-op */

    int p[2];
    if (!CHECK(pipe(p) == 0, "pipe"))
        return;
    fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
    spare_slots s = {p[0], p[1]};
    CHECK(spare_take(&s, 3) == 0, "an empty pipe: nothing taken, no wait");
    spare_give(&s, 3);
    CHECK(spare_take(&s, 2) == 2, "two of three taken");
    CHECK(spare_take(&s, 0) == 0, "taking none takes none");
    CHECK(spare_take(&s, 5) == 1, "the last one taken");
    CHECK(spare_take(&s, 5) == 0, "then none");
    spare_give(&s, 100);
    CHECK(spare_take(&s, 100) == 64 && spare_take(&s, 100) == 36,
          "a hundred given back, taken in reads of at most 64");
    close(p[0]);
    close(p[1]);
}

/* What spare_inherit accepts: a pipe on fds 4 and 5 whose read end does
 * not block; then both are close-on-exec. */
static void test_inherit(void)
{
    int saved_rd = dup(SPARE_RD_FD), saved_wr = dup(SPARE_WR_FD);
    int p[2];
    if (!CHECK(pipe(p) == 0, "pipe"))
        return;
    dup2(p[0], SPARE_RD_FD);
    dup2(p[1], SPARE_WR_FD);
    spare_slots s;
    spare_inherit(&s);
    CHECK(s.rd == -1 && s.wr == -1, "a blocking read end is refused (a take could wait)");
    fcntl(SPARE_RD_FD, F_SETFL, fcntl(SPARE_RD_FD, F_GETFL) | O_NONBLOCK);
    spare_inherit(&s);
    CHECK(s.rd == SPARE_RD_FD && s.wr == SPARE_WR_FD, "a non-blocking pipe is taken");
    CHECK((fcntl(SPARE_RD_FD, F_GETFD) & FD_CLOEXEC) && (fcntl(SPARE_WR_FD, F_GETFD) & FD_CLOEXEC),
          "both ends close-on-exec");
    int f = open("/dev/null", O_RDONLY);
    dup2(f, SPARE_WR_FD);
    spare_inherit(&s);
    CHECK(s.rd == -1, "a file that is not a pipe is refused");
    close(f);
    close(p[0]);
    close(p[1]);
    close(SPARE_RD_FD);
    close(SPARE_WR_FD);
    if (saved_rd >= 0)
        dup2(saved_rd, SPARE_RD_FD), close(saved_rd);
    if (saved_wr >= 0)
        dup2(saved_wr, SPARE_WR_FD), close(saved_wr);
}

static void test_pool(const char *self)
{
    char got[64];
    /* Three workers, three jobs: the two short ones end, their workers find
     * the queue empty and lend their slots to job 0's worker, which asks
     * for three: it gets the two, no more. */
    run_pool(self, 3, 3, 3, 1, got);
    CHECK(strcmp(got, "lent 2, pipe yes") == 0, "two idle workers lend two slots (%s)", got);
    /* One worker: no pipe at all. */
    run_pool(self, 1, 2, 0, 1, got);
    CHECK(strcmp(got, "lent 0, pipe no") == 0, "one worker has no pipe (%s)", got);
    /* Workers that do not lend (verify's load workers) get no pipe. */
    run_pool(self, 3, 3, 0, 0, got);
    CHECK(strcmp(got, "lent 0, pipe no") == 0, "a pool that does not lend has no pipe (%s)",
          got);
    /* -j 4 with one job: one worker, and the three slots no worker holds
     * are lent to it from the start (it asks for five). */
    run_pool(self, 4, 1, 5, 1, got);
    CHECK(strcmp(got, "lent 3, pipe yes") == 0,
          "a lone job borrows the three slots of -j 4 no worker holds (%s)", got);
    /* ... and none when it does not lend. */
    run_pool(self, 4, 1, 5, 0, got);
    CHECK(strcmp(got, "lent 0, pipe no") == 0, "nor when the pool does not lend (%s)", got);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--fake-worker") == 0)
        return fake_worker(atoi(argv[2]));
    char self[4096];
    if (worker_pool_self_exe(argv[0], self, sizeof self) != 0) {
        printf("cannot find this test's executable\n");
        return 1;
    }
    test_pipe_calls();
    test_inherit();
    test_pool(self);
    test_standby(self);
    return check_summary();
}
