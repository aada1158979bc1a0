/* The workers a pool lets go at the end of its run (clc/engine/worker_pool.h,
 * worker_pool_callbacks.exits): with exits given, worker_pool_run returns
 * while they are still exiting (each of this test's workers lingers 2 s
 * after its last job, as a driver's teardown does), their pids in exits;
 * child_exits_reap then waits for every one. Without exits the run waits
 * for them itself. This test is its own worker (argv[1] "--fake-worker"). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "child_exits.h"
#include "fake_worker.h"
#include "wire.h"
#include "worker_pool.h"

static int fake_worker(void)
{
    uint32_t job;
    while (fake_worker_next(&job))
        if (fake_worker_answer(job, NULL) != 0)
            return 1;
    sleep(2); /* its teardown */
    return 0;
}

static void on_finished(void *ctx, size_t job, build_variant_result *r)
{
    (void)job;
    (void)r;
    (*(size_t *)ctx)++;
}

/* Three jobs on three workers; exits NULL or not. The number of results. */
static size_t run(const char *self, child_exits *exits)
{
    strbuf jobs[3];
    for (uint32_t i = 0; i < 3; i++) {
        sb_init(&jobs[i]);
        wire_put_u32(&jobs[i], i);
    }
    char *argv[] = {(char *)self, (char *)"--fake-worker", NULL};
    size_t results = 0;
    worker_pool_callbacks cb = {&results, NULL, on_finished, NULL, NULL, 0, NULL, NULL, NULL, exits};
    char err[256] = "";
    CHECK(worker_pool_run(self, argv, 3, 0, jobs, NULL, 3, &cb, err, sizeof err) == 0,
          "the run ends: %s", err);
    for (size_t i = 0; i < 3; i++)
        sb_free(&jobs[i]);
    return results;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--fake-worker") == 0)
        return fake_worker();
    char self[4096];
    if (worker_pool_self_exe(argv[0], self, sizeof self) != 0) {
        CHECK(0, "cannot find this test's executable");
        return check_summary();
    }
    child_exits e = {NULL, 0};
    CHECK(run(self, &e) == 3, "with exits: every job done");
    CHECK(e.n == 3, "the three workers are left to exit (%zu)", e.n);
    int alive = 0;
    for (size_t i = 0; i < e.n; i++)
        alive += waitpid(e.pid[i], NULL, WNOHANG) == 0;
    CHECK(alive == (int)e.n, "and still exiting when the run returns (%d of %zu)", alive, e.n);
    pid_t first = e.n ? e.pid[0] : -1;
    child_exits_reap(&e);
    CHECK(e.n == 0 && e.pid == NULL, "reaped, the list emptied");
    errno = 0;
    CHECK(first > 0 && waitpid(first, NULL, WNOHANG) < 0 && errno == ECHILD,
          "a reaped worker is gone (no child left to wait for)");

    CHECK(run(self, NULL) == 3, "without exits: every job done");
    errno = 0;
    CHECK(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD,
          "and every worker waited for before the run returned");
    return check_summary();
}
