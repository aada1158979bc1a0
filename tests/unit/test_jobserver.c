/* Joining GNU make's jobserver (clc/engine/jobserver.h): MAKEFLAGS parsing,
 * and the worker pool (clc/engine/worker_pool.h) running no more jobs at
 * once than it holds tokens for (plus make's implicit slot), with every
 * token back in the pipe or fifo afterwards — on a normal end and when the
 * process is killed by a signal while holding tokens. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "jobserver.h"
#include "wire.h"
#include "worker_pool.h"

static void test_parse(void)
{
    int r = 0, w = 0;
    char fifo[64] = "";
    long slots = 0;
    CHECK(jobserver_parse_makeflags(" -j3 --jobserver-auth=3,4", &r, &w, fifo, sizeof fifo, &slots) &&
              r == 3 && w == 4 && !fifo[0] && slots == 3,
          "make 4.3: -j3 --jobserver-auth=3,4 (%d,%d, %ld slots)", r, w, slots);
    CHECK(jobserver_parse_makeflags("-j --jobserver-fds=5,6 -j", &r, &w, fifo, sizeof fifo, &slots) &&
              r == 5 && w == 6 && slots == 0,
          "make 4.1: --jobserver-fds, -j without a number (%d,%d, %ld)", r, w, slots);
    CHECK(jobserver_parse_makeflags("-j8 --jobserver-auth=fifo:/tmp/GMfifo12", &r, &w, fifo,
                             sizeof fifo, &slots) &&
              strcmp(fifo, "/tmp/GMfifo12") == 0 && r == -1 && slots == 8,
          "make 4.4: fifo:PATH (%s)", fifo);
    CHECK(jobserver_parse_makeflags("--jobserver-auth=3,4 --jobserver-auth=7,8", &r, &w, fifo,
                             sizeof fifo, &slots) &&
              r == 7 && w == 8,
          "the last --jobserver-auth counts (%d,%d)", r, w);
    CHECK(!jobserver_parse_makeflags("ks -- FOO=bar", &r, &w, fifo, sizeof fifo, &slots),
          "no jobserver offered");
    CHECK(!jobserver_parse_makeflags(NULL, &r, &w, fifo, sizeof fifo, &slots), "no MAKEFLAGS");
    const char *bad[] = {"--jobserver-auth=", "--jobserver-auth=3", "--jobserver-auth=3,",
                         "--jobserver-auth=x,4", "--jobserver-auth=3,4x",
                         "--jobserver-auth=-1,4", "--jobserver-auth=99999999999,4"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(!jobserver_parse_makeflags(bad[i], &r, &w, fifo, sizeof fifo, &slots),
              "malformed '%s' is no jobserver", bad[i]);
    char long_fifo[200];
    memset(long_fifo, 'a', sizeof long_fifo);
    memcpy(long_fifo, "--jobserver-auth=fifo:", 22);
    long_fifo[sizeof long_fifo - 1] = '\0';
    CHECK(!jobserver_parse_makeflags(long_fifo, &r, &w, fifo, sizeof fifo, &slots),
          "a fifo path too long for the buffer is refused");
}

static void on_finished(void *ctx, size_t job, build_variant_result *r)
{
    (void)job;
    (void)r;
    (*(size_t *)ctx)++;
}

/* Tokens left in a pipe or fifo (read without blocking, then put back). */
static size_t count_tokens(const char *path, int rfd, int wfd)
{
    int fd = path ? open(path, O_RDONLY | O_NONBLOCK) : rfd;
    if (!path)
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    char buf[64];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0 && write(wfd, buf, (size_t)n) != n)
        n = -1;
    if (path)
        close(fd);
    else
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return n > 0 ? (size_t)n : 0;
}

/* Runs 6 jobs on up to 6 fake workers that log their start and end, under
 * the jobserver MAKEFLAGS names; returns the most that ran at once. */
static int most_at_once(size_t *results)
{
    char log[] = "/tmp/test_jobserver_log.XXXXXX";
    int lfd = mkstemp(log);
    if (lfd >= 0)
        close(lfd);
    strbuf jobs[6];
    for (uint32_t i = 0; i < 6; i++) {
        sb_init(&jobs[i]);
        wire_put_u32(&jobs[i], i);
    }
    char script[512];
    snprintf(script, sizeof script,
             "id=$(od -An -tu4 -N4 | tr -d ' '); echo \"start $id\" >>%s; sleep 0.2;"
             " echo \"end $id\" >>%s; exit 3",
             log, log);
    char *argv[] = {(char *)"sh", (char *)"-c", script, NULL};
    char why[256], err[256];
    jobserver *js = jobserver_open(why, sizeof why);
    CHECK(js != NULL, "the jobserver MAKEFLAGS names is joined: %s", why);
    *results = 0;
    worker_pool_callbacks cb = {results, NULL, on_finished, NULL, js, 0, NULL, NULL, NULL, NULL};
    CHECK(worker_pool_run("/bin/sh", argv, 6, 0, jobs, NULL, 6, &cb, err, sizeof err) == 0,
          "the run ends: %s", err);
    CHECK(jobserver_held(js) == 0, "no token held after the run");
    jobserver_close(js);
    int running = 0, most = 0, lines = 0;
    FILE *f = fopen(log, "r");
    char word[16];
    unsigned id;
    while (f && fscanf(f, "%15s %u", word, &id) == 2) {
        lines++;
        running += strcmp(word, "start") == 0 ? 1 : -1;
        if (running > most)
            most = running;
    }
    if (f)
        fclose(f);
    unlink(log);
    CHECK(lines == 12, "every job started and ended once (%d lines)", lines);
    for (size_t i = 0; i < 6; i++)
        sb_free(&jobs[i]);
    return most;
}

static void test_pipe(void)
{
    int p[2];
    if (!CHECK(pipe(p) == 0, "pipe"))
        return;
    if (write(p[1], "++", 2) != 2)
        CHECK(0, "tokens written");
    char flags[64];
    snprintf(flags, sizeof flags, " -j3 --jobserver-auth=%d,%d", p[0], p[1]);
    setenv("MAKEFLAGS", flags, 1);
    size_t results;
    int most = most_at_once(&results);
    CHECK(results == 6, "six results (%zu)", results);
    CHECK(most >= 2 && most <= 3, "with 2 tokens, at most 3 jobs at once, and more than 1 (%d)",
          most);
    CHECK(count_tokens(NULL, p[0], p[1]) == 2, "both tokens are back in the pipe");

    /* No free token: one job at a time on the implicit slot. */
    char drain[2];
    CHECK(read(p[0], drain, 2) == 2, "tokens taken by someone else");
    most = most_at_once(&results);
    CHECK(results == 6 && most == 1, "with no free token, one job at a time (%d)", most);
    if (write(p[1], drain, 2) != 2)
        CHECK(0, "tokens put back");

    /* Killed while holding tokens: the handler writes them back. */
    pid_t pid = fork();
    if (pid == 0) {
        jobserver *js = jobserver_open(NULL, 0);
        int took = js && jobserver_try_take(js) && jobserver_try_take(js);
        if (!took)
            _exit(9);
        raise(SIGTERM);
        _exit(8);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
          "the child holding two tokens dies of SIGTERM (status %d)", status);
    CHECK(count_tokens(NULL, p[0], p[1]) == 2, "its tokens are back in the pipe");

    /* Descriptors make did not pass on (a rule without '+'). */
    close(p[0]);
    close(p[1]);
    char why[256];
    CHECK(jobserver_open(why, sizeof why) == NULL && strstr(why, "closed"),
          "closed jobserver descriptors are named: %s", why);
    unsetenv("MAKEFLAGS");
}

static void test_fifo(void)
{
    char dir[] = "/tmp/test_jobserver.XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL, "temporary folder"))
        return;
    char path[64];
    snprintf(path, sizeof path, "%s/fifo", dir);
    if (!CHECK(mkfifo(path, 0600) == 0, "mkfifo"))
        return;
    /* Held open read-write, as make holds it, so tokens stay in it. */
    int keep = open(path, O_RDWR);
    if (write(keep, "+", 1) != 1)
        CHECK(0, "token written");
    char flags[128];
    snprintf(flags, sizeof flags, "-j2 --jobserver-auth=fifo:%s", path);
    setenv("MAKEFLAGS", flags, 1);
    size_t results;
    int most = most_at_once(&results);
    CHECK(results == 6 && most == 2, "fifo with 1 token: 2 jobs at once at most (%d)", most);
    CHECK(count_tokens(path, -1, keep) == 1, "the token is back in the fifo");
    close(keep);
    unlink(path);
    rmdir(dir);
    unsetenv("MAKEFLAGS");
    CHECK(jobserver_open(NULL, 0) == NULL, "no MAKEFLAGS, no jobserver");
}

int main(void)
{
    test_parse();
    test_pipe();
    test_fifo();
    return check_summary();
}
