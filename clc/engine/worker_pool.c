/* worker_pool.c — parallel builds in worker processes (worker_pool.h). */
#include "worker_pool.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "fd_io.h"
#include "jobserver.h"
#include "child_exits.h"
#include "spare_slots.h"
#include "worker_proto.h"

extern char **environ;

#define MAX_WORKERS 256
#define TICK_MS 200
/* Above the descriptors a child gets (0-3), so dup2 never meets itself. */
#define FD_FLOOR 10

typedef struct worker {
    pid_t pid;
    int job_fd;      /* we write jobs here (the worker's fd 0) */
    int result_fd;   /* we read results here (the worker's fd 3) */
    long job;        /* job in flight, -1 when idle */
    int lent;        /* its slot is in the spare pipe (spare_slots.h) */
} worker;

int worker_pool_self_exe(const char *argv0, char *out, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", out, cap - 1);
    if (n > 0) {
        out[n] = '\0';
        return 0;
    }
    if (argv0 && strchr(argv0, '/')) {
        if (!realpath(argv0, out))
            return -1;
        return 0;
    }
    const char *path = getenv("PATH");
    if (!argv0 || !path)
        return -1;
    for (const char *p = path;;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        char cand[4096];
        bfmt(cand, sizeof cand, "%.*s/%s", (int)len, p, argv0);
        if (access(cand, X_OK) == 0 && realpath(cand, out))
            return 0;
        if (!colon)
            return -1;
        p = colon + 1;
    }
}

static int raise_fd(int fd)
{
    int high = fcntl(fd, F_DUPFD_CLOEXEC, FD_FLOOR);
    close(fd);
    return high;
}

/* Starts one worker; 0 or -1 with err. */
static int spawn_worker(const char *exe, char *const argv[], int show_output,
                        const int spare[2], worker *w, char *err, size_t cap)
{
    int jp[2], rp[2];
    if (pipe(jp) != 0) {
        bfmt(err, cap, "pipe: %s", strerror(errno));
        return -1;
    }
    if (pipe(rp) != 0) {
        bfmt(err, cap, "pipe: %s", strerror(errno));
        close(jp[0]);
        close(jp[1]);
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        jp[i] = raise_fd(jp[i]);
        rp[i] = raise_fd(rp[i]);
    }
    if (jp[0] < 0 || jp[1] < 0 || rp[0] < 0 || rp[1] < 0) {
        bfmt(err, cap, "fcntl(F_DUPFD_CLOEXEC): %s", strerror(errno));
        for (int i = 0; i < 2; i++) {
            if (jp[i] >= 0)
                close(jp[i]);
            if (rp[i] >= 0)
                close(rp[i]);
        }
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, jp[0], 0);
    posix_spawn_file_actions_adddup2(&fa, rp[1], WORKER_PROTO_RESULT_FD);
    if (spare[0] >= 0) {
        posix_spawn_file_actions_adddup2(&fa, spare[0], SPARE_RD_FD);
        posix_spawn_file_actions_adddup2(&fa, spare[1], SPARE_WR_FD);
    }
    /* Driver chatter must not mix into the parent's stdout, nor, unless
     * asked for, into its diagnostics. */
    if (show_output) {
        posix_spawn_file_actions_adddup2(&fa, 2, 1);
    } else {
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
    }
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t dflt;
    sigemptyset(&dflt);
    sigaddset(&dflt, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &dflt);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
    pid_t pid;
    int rc = posix_spawn(&pid, exe, &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(jp[0]);
    close(rp[1]);
    if (rc != 0) {
        bfmt(err, cap, "cannot start a worker (%s): %s", exe, strerror(rc));
        close(jp[1]);
        close(rp[0]);
        return -1;
    }
    w->pid = pid;
    w->job_fd = jp[1];
    w->result_fd = rp[0];
    w->job = -1;
    w->lent = 0;
    return 0;
}

static void close_spare(const int spare[2])
{
    for (int i = 0; i < 2; i++)
        if (spare[i] >= 0)
            close(spare[i]);
}

/* The pipe of spare_slots.h, its read end non-blocking for the workers;
 * {-1, -1} when it cannot be made (workers then lend nothing). */
static void open_spare(int spare[2])
{
    int p[2];
    spare[0] = spare[1] = -1;
    if (pipe(p) != 0)
        return;
    p[0] = raise_fd(p[0]);
    p[1] = raise_fd(p[1]);
    int fl = p[0] >= 0 ? fcntl(p[0], F_GETFL) : -1;
    if (p[1] < 0 || fl < 0 || fcntl(p[0], F_SETFL, fl | O_NONBLOCK) != 0) {
        if (p[0] >= 0)
            close(p[0]);
        if (p[1] >= 0)
            close(p[1]);
        return;
    }
    spare[0] = p[0];
    spare[1] = p[1];
}

/* Closes the worker's pipes: it sees the end of its jobs and exits. */
static void let_go(worker *w)
{
    if (w->job_fd >= 0)
        close(w->job_fd);
    if (w->result_fd >= 0)
        close(w->result_fd);
    w->job_fd = w->result_fd = -1;
}

/* Closes the job pipe (the worker then exits), reaps it; returns the wait status. */
static int stop_worker(worker *w)
{
    let_go(w);
    int status = 0;
    if (w->pid > 0)
        while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
            ;
    w->pid = 0;
    return status;
}

static void describe_exit(int status, char *buf, size_t cap)
{
    if (WIFSIGNALED(status))
        bfmt(buf, cap, "was killed by signal %d (%s)", WTERMSIG(status),
             strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status))
        bfmt(buf, cap, "exited with status %d", WEXITSTATUS(status));
    else
        bfmt(buf, cap, "stopped");
}

/* Returns 1 when the job is to go back to the queue (cb->retry, asked only
 * when room), else 0 after its finished call. */
static int report_death(worker *w, const worker_pool_callbacks *cb, const char *why, int room)
{
    long job = w->job;
    int status = stop_worker(w);
    if (job < 0)
        return 0;
    char how[128];
    describe_exit(status, how, sizeof how);
    build_variant_result r;
    memset(&r, 0, sizeof r);
    r.status = BUILD_VARIANT_ERROR;
    r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    char msg[512];
    bfmt(msg, sizeof msg, "the worker process running it %s%s%s", how, why ? ": " : "",
         why ? why : "");
    r.message = strdup(msg);
    int again = room && cb->retry && cb->retry(cb->ctx, (size_t)job, &r, 1);
    if (!again)
        cb->finished(cb->ctx, (size_t)job, &r);
    build_variant_result_free(&r);
    return again;
}

/* Whether a job of this group is running on one of the workers. */
static int group_busy(const worker *ws, size_t n, const size_t *group, size_t job)
{
    if (!group)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (ws[i].pid > 0 && ws[i].job >= 0 && group[ws[i].job] == group[job])
            return 1;
    return 0;
}

static size_t running_jobs(const worker *ws, size_t n)
{
    size_t busy = 0;
    for (size_t i = 0; i < n; i++)
        busy += ws[i].pid > 0 && ws[i].job >= 0;
    return busy;
}

/* The first job runs on make's implicit slot; each further one holds a
 * token. Gives back the tokens no running job needs. */
static void give_spare_tokens(jobserver *js, const worker *ws, size_t n)
{
    size_t busy = running_jobs(ws, n);
    while (jobserver_held(js) > 0 && jobserver_held(js) + 1 > busy)
        jobserver_give(js);
}

struct worker_pool_standby {
    char *exe;
    char **argv;
    int show_output;
    worker w;
    int spare[2]; /* its spare-slot pipe, the run's if it takes w */
};

worker_pool_standby *worker_pool_standby_start(const char *exe, char *const worker_argv[],
                                               int show_output, char *err, size_t cap)
{
    size_t n = 0;
    while (worker_argv[n])
        n++;
    worker_pool_standby *s = calloc(1, sizeof *s);
    char **argv = s ? calloc(n + 1, sizeof *argv) : NULL;
    if (s)
        s->argv = argv;
    int ok = argv && (s->exe = strdup(exe)) != NULL;
    for (size_t i = 0; ok && i < n; i++)
        ok = (argv[i] = strdup(worker_argv[i])) != NULL;
    if (s)
        s->spare[0] = s->spare[1] = -1;
    if (!ok) {
        bfmt(err, cap, "out of memory");
    } else if (access(exe, X_OK) != 0) {
        bfmt(err, cap, "cannot start a worker: %s: %s", exe, strerror(errno));
        ok = 0;
    } else {
        /* A pipe of its own, as any run's first worker gets: a run that
         * lends takes it, so that this worker too can borrow the slots
         * idle ones lend (none is written before the run starts). Its
         * first write is the pool's, which ignores SIGPIPE by then. */
        open_spare(s->spare);
        ok = spawn_worker(exe, argv, show_output, s->spare, &s->w, err, cap) == 0;
    }
    if (!ok) {
        if (s) {
            s->w.pid = 0;
            worker_pool_standby_stop(s);
        }
        return NULL;
    }
    s->show_output = show_output;
    return s;
}

void worker_pool_standby_stop(worker_pool_standby *s)
{
    if (!s)
        return;
    if (s->w.pid > 0)
        stop_worker(&s->w);
    close_spare(s->spare);
    for (size_t i = 0; s->argv && s->argv[i]; i++)
        free(s->argv[i]);
    free(s->argv);
    free(s->exe);
    free(s);
}

int worker_pool_run(const char *exe, char *const worker_argv[], size_t n_workers, int show_output,
              const strbuf *jobs, const size_t *group, size_t n_jobs,
              const worker_pool_callbacks *cb, char *err, size_t cap)
{
    return worker_pool_run_order(exe, worker_argv, n_workers, show_output, jobs, group, NULL, n_jobs,
                           cb, err, cap);
}

/* One run of the pool: its workers, and the queue of jobs not yet handed
 * out (a job whose worker died before reading it, or that is retried,
 * goes back at its end). */
typedef struct pool {
    const char *exe;
    char *const *argv;
    int show_output;
    const strbuf *jobs;
    const size_t *group;
    const worker_pool_callbacks *cb;
    worker ws[MAX_WORKERS];
    size_t started;
    int spare[2];
    /* Slots of -j no worker holds (fewer jobs than -j): lent from the
     * start, so that a lone build's ptxas runs use them. */
    size_t unused_slots;
    size_t *queue, q_cap, q_head, q_tail;
    size_t n_jobs, done;
    /* Each death costs a respawn; a worker that cannot start at all must
     * not loop forever. */
    size_t respawns_left;
    char spawn_err[512];
} pool;

/* Whether the run of p can take s for its first worker: the same
 * command line and output. */
static int standby_fits(const pool *p, const worker_pool_standby *s)
{
    if (s->w.pid <= 0 || s->show_output != p->show_output ||
        strcmp(s->exe, p->exe) != 0)
        return 0;
    size_t i = 0;
    for (; s->argv[i] && p->argv[i]; i++)
        if (strcmp(s->argv[i], p->argv[i]) != 0)
            return 0;
    return !s->argv[i] && !p->argv[i];
}

/* Hands w the first queued job whose group is idle (respawning w when it
 * died). 1 when w is busy afterwards or cannot be, 0 to stop handing out
 * (no token, no job whose group is idle). */
static int hand_one(pool *p, worker *w)
{
    const worker_pool_callbacks *cb = p->cb;
    if (w->pid == 0) {
        if (p->respawns_left == 0)
            return 1;
        p->respawns_left--;
        if (spawn_worker(p->exe, p->argv, p->show_output, p->spare, w, p->spawn_err,
                         sizeof p->spawn_err) != 0)
            return 1;
    }
    if (w->job >= 0)
        return 1;
    if (cb->slots && running_jobs(p->ws, p->started) >= 1 + jobserver_held(cb->slots) &&
        !jobserver_try_take(cb->slots))
        return 0;
    size_t pick = p->q_head;
    while (pick < p->q_tail && group_busy(p->ws, p->started, p->group, p->queue[pick]))
        pick++;
    if (pick == p->q_tail)
        return 0;
    size_t job = p->queue[pick];
    memmove(p->queue + p->q_head + 1, p->queue + p->q_head, (pick - p->q_head) * sizeof *p->queue);
    p->q_head++;
    if (clcpk_fd_write_all(w->job_fd, p->jobs[job].data, p->jobs[job].len) != 0) {
        /* It died before reading: the job was not tried, so it goes back;
         * remember why, for when no worker ever takes it. */
        char how[128];
        describe_exit(stop_worker(w), how, sizeof how);
        /* Name the executable: where posix_spawn cannot report a failed
         * exec (under valgrind, say) this is the only sign. */
        bfmt(p->spawn_err, sizeof p->spawn_err, "a worker (%s) %s before reading its job", p->exe,
             how);
        if (p->q_tail < p->q_cap)
            p->queue[p->q_tail++] = job;
        return 1;
    }
    w->job = (long)job;
    if (cb->started)
        cb->started(cb->ctx, job, (size_t)(w - p->ws));
    return 1;
}

/* Queued jobs to idle workers; then, with nothing left to hand out, idle
 * workers lend their slots. */
static void hand_out(pool *p, int stopping)
{
    for (size_t i = 0; i < p->started && !stopping && p->q_head != p->q_tail; i++)
        if (!hand_one(p, &p->ws[i]))
            break;
    if (p->cb->slots)
        give_spare_tokens(p->cb->slots, p->ws, p->started);
    for (size_t i = 0; p->spare[1] >= 0 && p->q_head == p->q_tail && i < p->started; i++)
        if (p->ws[i].pid > 0 && p->ws[i].job < 0 && !p->ws[i].lent)
            p->ws[i].lent = write(p->spare[1], "", 1) == 1;
}

/* A worker died, or sent what is not a result: its job is retried (back
 * in the queue) or finished as failed. */
static void worker_lost(pool *p, worker *w, const char *why)
{
    long died = w->job;
    if (report_death(w, p->cb, why, p->q_tail < p->q_cap))
        p->queue[p->q_tail++] = (size_t)died;
    else
        p->done++;
}

/* Reads the result w has ready, and finishes or retries its job. */
static void take_result(pool *p, worker *w)
{
    const worker_pool_callbacks *cb = p->cb;
    unsigned char *payload;
    size_t size;
    char ferr[WORKER_PROTO_ERR_MAX];
    int fr = worker_proto_read_frame(w->result_fd, WORKER_PROTO_RESULT_MAGIC, WORKER_PROTO_RESULT_MAX, &payload, &size, ferr);
    if (fr != 0) {
        worker_lost(p, w, fr == 1 ? NULL : ferr);
        return;
    }
    uint32_t job;
    build_variant_result r;
    if (worker_proto_decode_result(payload, size, &job, &r, ferr) != 0 || (long)job != w->job) {
        free(payload);
        build_variant_result_free(&r); /* decoding always initializes r */
        worker_lost(p, w, "it sent a malformed result");
        return;
    }
    free(payload);
    w->job = -1;
    if (r.status != BUILD_VARIANT_OK && cb->retry && p->q_tail < p->q_cap && cb->retry(cb->ctx, job, &r, 0)) {
        p->queue[p->q_tail++] = job;
        build_variant_result_free(&r);
        stop_worker(w); /* a fresh one takes its place */
        return;
    }
    cb->finished(cb->ctx, job, &r);
    build_variant_result_free(&r);
    p->done++;
}

/* Waits (at most a tick) for results and takes them. 0 to go on, 1 when
 * no job runs (the loop ends), -1 with err. */
static int wait_results(pool *p, int stopping, char *err, size_t cap)
{
    const worker_pool_callbacks *cb = p->cb;
    size_t busy = 0;
    struct pollfd pf[MAX_WORKERS + 1];
    size_t who[MAX_WORKERS];
    for (size_t i = 0; i < p->started; i++) {
        if (p->ws[i].pid > 0 && p->ws[i].job >= 0) {
            pf[busy] = (struct pollfd){p->ws[i].result_fd, POLLIN, 0};
            who[busy++] = i;
        }
    }
    if (busy == 0) {
        if (p->done < p->n_jobs && !stopping) {
            /* Nobody can run the rest: every respawn failed. */
            bfmt(err, cap, "%zu job(s) not run: no worker could take them%s%s",
                 p->n_jobs - p->done, p->spawn_err[0] ? ": " : "", p->spawn_err);
            return -1;
        }
        return 1;
    }
    /* Waiting for a token too: wake when one may be free. */
    nfds_t n_poll = (nfds_t)busy;
    if (cb->slots && p->q_head != p->q_tail && busy < p->started)
        pf[n_poll++] = (struct pollfd){jobserver_poll_fd(cb->slots), POLLIN, 0};
    int n = poll(pf, n_poll, TICK_MS);
    if (cb->tick)
        cb->tick(cb->ctx);
    if (n < 0 && errno != EINTR) {
        bfmt(err, cap, "poll: %s", strerror(errno));
        return -1;
    }
    for (size_t k = 0; n > 0 && k < busy; k++)
        if (pf[k].revents)
            take_result(p, &p->ws[who[k]]);
    return 0;
}

/* The workers started (n of them, at least one), the queue filled. 0, or
 * -1 with err after undoing what was done. */
static int pool_start(pool *p, size_t n_workers, const size_t *order, char *err, size_t cap)
{
    p->spare[0] = p->spare[1] = -1;
    int lend = p->cb->lend_idle && !p->cb->slots && (n_workers > 1 || p->unused_slots > 0);
    worker_pool_standby *s = p->cb->standby;
    if (s && standby_fits(p, s)) {
        p->ws[p->started++] = s->w;
        s->w.pid = 0;
        if (lend) {
            memcpy(p->spare, s->spare, sizeof p->spare);
            s->spare[0] = s->spare[1] = -1;
        }
    }
    worker_pool_standby_stop(s);
    if (lend && p->spare[0] < 0)
        open_spare(p->spare);
    for (size_t i = p->started; i < n_workers; i++) {
        if (spawn_worker(p->exe, p->argv, p->show_output, p->spare, &p->ws[p->started], err,
                         cap) != 0)
            break;
        p->started++;
    }
    for (size_t i = 0; p->spare[1] >= 0 && i < p->unused_slots; i++)
        if (write(p->spare[1], "", 1) != 1)
            break;
    p->q_cap = 3 * p->n_jobs + 2 * n_workers + 1; /* room for a retry of each job */
    p->queue = p->started ? malloc(p->q_cap * sizeof *p->queue) : NULL;
    if (!p->queue) {
        if (p->started)
            bfmt(err, cap, "out of memory");
        for (size_t i = 0; i < p->started; i++)
            stop_worker(&p->ws[i]);
        close_spare(p->spare);
        return -1;
    }
    for (size_t i = 0; i < p->n_jobs; i++)
        p->queue[p->q_tail++] = order ? order[i] : i;
    p->respawns_left = p->n_jobs + n_workers;
    return 0;
}

static void pool_stop(pool *p)
{
    /* Every worker is told first, then each is waited for: a driver's
     * teardown (an NVIDIA context: about 0.1 s) runs in all of them at
     * once, not one after the other. With cb->exits none is waited for
     * here: the teardowns (about 1.1 s for sixteen NVIDIA workers, the
     * driver taking them one at a time) overlap the pack's encoding. */
    for (size_t i = 0; i < p->started; i++)
        if (p->ws[i].pid > 0)
            let_go(&p->ws[i]);
    for (size_t i = 0; i < p->started; i++)
        if (p->ws[i].pid > 0 && (!p->cb->exits || child_exits_add(p->cb->exits, p->ws[i].pid) != 0))
            stop_worker(&p->ws[i]);
    if (p->cb->slots)
        while (jobserver_held(p->cb->slots) > 0)
            jobserver_give(p->cb->slots);
    free(p->queue);
    close_spare(p->spare);
}

int worker_pool_run_order(const char *exe, char *const worker_argv[], size_t n_workers,
                    int show_output, const strbuf *jobs, const size_t *group,
                    const size_t *order, size_t n_jobs, const worker_pool_callbacks *cb, char *err,
                    size_t cap)
{
    if (n_jobs == 0) {
        worker_pool_standby_stop(cb->standby);
        return 0;
    }
    /* posix_spawn does not always report a failed exec (under valgrind it
     * cannot), and a worker that exits 127 after taking its job looks like
     * a crashed build: say what is wrong before starting any. */
    if (access(exe, X_OK) != 0) {
        bfmt(err, cap, "cannot start workers: %s: %s", exe, strerror(errno));
        worker_pool_standby_stop(cb->standby);
        return -1;
    }
    size_t slots = n_workers > MAX_WORKERS ? MAX_WORKERS : n_workers;
    if (n_workers > n_jobs)
        n_workers = n_jobs;
    if (n_workers > MAX_WORKERS)
        n_workers = MAX_WORKERS;
    if (n_workers == 0)
        n_workers = 1;
    /* A worker that dies makes our next write fail with EPIPE instead of
     * killing us. */
    struct sigaction ign, old_pipe;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &old_pipe);
    pool p;
    memset(&p, 0, sizeof p);
    p.exe = exe;
    p.argv = worker_argv;
    p.show_output = show_output;
    p.jobs = jobs;
    p.group = group;
    p.cb = cb;
    p.n_jobs = n_jobs;
    p.unused_slots = slots > n_workers ? slots - n_workers : 0;
    int rc = pool_start(&p, n_workers, order, err, cap);
    while (rc == 0 && p.done < n_jobs) {
        int stopping = cb->stop && cb->stop(cb->ctx);
        hand_out(&p, stopping);
        rc = wait_results(&p, stopping, err, cap);
    }
    if (p.queue)
        pool_stop(&p);
    sigaction(SIGPIPE, &old_pipe, NULL);
    return rc < 0 ? -1 : 0;
}
