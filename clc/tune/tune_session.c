/* tune_session.c — the tuning loop (tune_session.h): worker processes,
 * the queues between them, and the budget. */
#include "tune_session.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "sha256.h"
#include "strbuf.h"
#include "tune_measure.h"
#include "tune_procs.h"
#include "tune_strategy.h"
#include "mono_clock.h"

static double epoch_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- workers ---- */

typedef tune_proc proc;

/* The timing worker's start: it says when it is ready (the device opened,
 * the arguments made and uploaded), so that a configuration's time limit
 * counts from its request, not from the worker's start. */
#define TIMER_STARTING SIZE_MAX
#define TIMER_START_S 300.0

typedef struct built {
    size_t pos;
    unsigned char *binary;
    size_t size;
    double compile_s;
} built;

typedef struct session {
    const tune_session_options *o;
    const t1_spec *s;
    const tune_space *sp;
    tune_results *out;
    tune_strategy *st;
    char sha[65];
    char pi[16], di[16], runs[16], tol[32];
    proc *builders;
    size_t n_builders;     /* slots: -j */
    size_t allowed;        /* the slots that may be used now (see more_builders) */
    size_t planned;        /* configurations this run may try at most */
    proc timer;
    int timer_building;    /* the timing worker holds a build request */
    size_t *todo;          /* positions to build, a FIFO */
    size_t todo_head, todo_n, todo_cap;
    built *ready;          /* built, to time, a FIFO */
    size_t ready_head, ready_n, ready_cap;
    size_t n_asked;        /* configurations handed out by the strategy */
    size_t budget;         /* most configurations to try now (SIZE_MAX: no bound) */
    double deadline;       /* TuningDuration's end, or INFINITY */
    int need_reference;    /* no reference output yet (and the spec gives none) */
    long long reference_pos; /* the configuration whose outputs are to be the reference */
    size_t *asked;         /* the positions handed out, in order: the reference
                              candidates, first to last */
    size_t n_asked_list, cap_asked, ref_next;
    unsigned char *finished; /* bit per position: recorded */
    double t0;
    char *err;
} session;

static int start_proc(session *ss, proc *p, const char *mode)
{
    char *argv[] = {(char *)"clc-pack", (char *)"--tune-worker", (char *)mode,
                    (char *)ss->s->path, ss->sha, ss->pi, ss->di, ss->runs, ss->tol,
                    (char *)ss->o->workdir, NULL};
    return tune_proc_start(p, ss->o->exe, argv, ss->o->show_worker_output);
}

static int read_reply(session *ss, proc *p, int builder, double compile_s);
static int lost(session *ss, proc *p, int hung, int builder);

/* Starts the timing worker; its ready answer comes later (TIMER_STARTING). */
static int timer_start(session *ss)
{
    if (start_proc(ss, &ss->timer, "time") != 0) {
        bfmt(ss->err, TUNE_SESSION_ERR_MAX, "cannot start a tune worker (%s): %s", ss->o->exe,
             strerror(errno));
        return -1;
    }
    ss->timer.busy = 1;
    ss->timer.pos = TIMER_STARTING;
    ss->timer.started = mono_clock_s();
    ss->timer.deadline = ss->timer.started + TIMER_START_S;
    return 0;
}

/* A timing worker started again after a crash, waited for until ready. */
static int timer_restart(session *ss)
{
    if (timer_start(ss) != 0)
        return -1;
    struct pollfd fd = {ss->timer.from, POLLIN, 0};
    int rc;
    while ((rc = poll(&fd, 1, (int)(TIMER_START_S * 1000))) < 0 && errno == EINTR)
        ;
    if (rc <= 0)
        return lost(ss, &ss->timer, 1, 0);
    return read_reply(ss, &ss->timer, 0, 0);
}

static int send_request(session *ss, proc *p, const char *mode, const tune_request *rq, size_t pos,
                        double timeout)
{
    if (p == &ss->timer && p->pid <= 0 && timer_restart(ss) != 0)
        return -1;
    if (p->pid <= 0) {
        if (start_proc(ss, p, mode) != 0) {
            bfmt(ss->err, TUNE_SESSION_ERR_MAX, "cannot start a tune worker (%s): %s", ss->o->exe,
                 strerror(errno));
            return -1;
        }
        if (p != &ss->timer)
            ss->out->n_builders++;
    }
    strbuf b;
    sb_init(&b);
    tune_proto_put_request(&b, rq);
    int rc = tune_proto_write(p->to, &b);
    sb_free(&b);
    p->busy = 1;
    p->pos = pos;
    p->started = mono_clock_s();
    p->deadline = p->started + timeout;
    /* A write to a worker that died is seen as its end when its reply is
     * read (the poll below): nothing more to do here. */
    (void)rc;
    return 0;
}

/* ---- the queues ---- */

static int push_todo(session *ss, size_t pos, int front)
{
    if (ss->todo_n == ss->todo_cap) {
        size_t cap = ss->todo_cap ? ss->todo_cap * 2 : 64;
        size_t *g = malloc(cap * sizeof *g);
        if (!g)
            return -1;
        for (size_t i = 0; i < ss->todo_n; i++)
            g[i] = ss->todo[(ss->todo_head + i) % (ss->todo_cap ? ss->todo_cap : 1)];
        free(ss->todo);
        ss->todo = g;
        ss->todo_cap = cap;
        ss->todo_head = 0;
    }
    if (front) {
        ss->todo_head = (ss->todo_head + ss->todo_cap - 1) % ss->todo_cap;
        ss->todo[ss->todo_head] = pos;
    } else {
        ss->todo[(ss->todo_head + ss->todo_n) % ss->todo_cap] = pos;
    }
    ss->todo_n++;
    return 0;
}

static size_t pop_todo(session *ss)
{
    size_t pos = ss->todo[ss->todo_head];
    ss->todo_head = (ss->todo_head + 1) % ss->todo_cap;
    ss->todo_n--;
    return pos;
}

static int push_ready(session *ss, built b)
{
    if (ss->ready_n == ss->ready_cap) {
        size_t cap = ss->ready_cap ? ss->ready_cap * 2 : 64;
        built *g = malloc(cap * sizeof *g);
        if (!g)
            return -1;
        for (size_t i = 0; i < ss->ready_n; i++)
            g[i] = ss->ready[(ss->ready_head + i) % (ss->ready_cap ? ss->ready_cap : 1)];
        free(ss->ready);
        ss->ready = g;
        ss->ready_cap = cap;
        ss->ready_head = 0;
    }
    ss->ready[(ss->ready_head + ss->ready_n) % ss->ready_cap] = b;
    ss->ready_n++;
    return 0;
}

/* The ready configuration to time next: the reference first while there
 * is none. SIZE_MAX when none may go now. */
/* The next reference candidate without a reference: the first position
 * handed out that is not finished, so that the reference is the same
 * configuration whatever order the builds end in. */
static void next_candidate(session *ss)
{
    while (ss->ref_next < ss->n_asked_list &&
           (ss->finished[ss->asked[ss->ref_next] / 8] >> (ss->asked[ss->ref_next] % 8) & 1))
        ss->ref_next++;
    ss->reference_pos = ss->ref_next < ss->n_asked_list ? (long long)ss->asked[ss->ref_next] : -1;
}

static size_t pick_ready(session *ss)
{
    if (!ss->ready_n)
        return SIZE_MAX;
    if (!ss->need_reference)
        return 0;
    if (ss->reference_pos < 0)
        next_candidate(ss);
    for (size_t i = 0; i < ss->ready_n; i++)
        if (ss->ready[(ss->ready_head + i) % ss->ready_cap].pos == (size_t)ss->reference_pos)
            return i;
    return SIZE_MAX; /* the others wait for the reference */
}

static built take_ready(session *ss, size_t i)
{
    size_t at = (ss->ready_head + i) % ss->ready_cap;
    built b = ss->ready[at];
    /* Close the gap: the FIFO keeps its order. */
    for (size_t k = i; k > 0; k--)
        ss->ready[(ss->ready_head + k) % ss->ready_cap] =
            ss->ready[(ss->ready_head + k - 1) % ss->ready_cap];
    ss->ready_head = (ss->ready_head + 1) % ss->ready_cap;
    ss->ready_n--;
    return b;
}

/* ---- outcomes ---- */

static int record(session *ss, size_t pos, tune_verdict v, const tune_reply *r, double compile_s,
                  const char *message)
{
    tune_result res;
    memset(&res, 0, sizeof res);
    res.raw = ss->sp->valid[pos];
    res.verdict = v;
    res.timestamp = epoch_s();
    res.compile_s = compile_s;
    res.median_ns = INFINITY;
    if (r) {
        res.load_s = r->load_s;
        res.validation_s = r->validation_s;
        res.error = r->error;
        if (v == TUNE_CORRECT) {
            res.n_runs = r->n_runs;
            res.runs_ns = (double *)r->runs_ns;
            res.median_ns = tune_median_ns(r->runs_ns, r->n_runs);
        }
    }
    res.message = message && message[0] ? (char *)message : NULL;
    if (tune_results_add(ss->out, &res) != 0) {
        bfmt(ss->err, TUNE_SESSION_ERR_MAX, "out of memory recording results");
        return -1;
    }
    tune_strategy_tell(ss->st, pos, res.median_ns);
    ss->finished[pos / 8] |= (unsigned char)(1u << (pos % 8));
    if (ss->need_reference && ss->reference_pos == (long long)pos && v != TUNE_CORRECT &&
        !ss->o->reference)
        ss->reference_pos = -1; /* the next candidate takes its place */
    if (ss->o->done)
        ss->o->done(ss->o->ctx, &ss->out->r[ss->out->n - 1], ss->out->n,
                    ss->budget == SIZE_MAX ? ss->sp->n_valid : ss->budget);
    return 0;
}

static const char *died_text(int status, char *buf, size_t cap)
{
    if (WIFSIGNALED(status))
        bfmt(buf, cap, "the worker died of signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        bfmt(buf, cap, "the worker exited with status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return buf;
}

/* The worker p ended or hung while holding a configuration. */
static int lost(session *ss, proc *p, int hung, int builder)
{
    size_t pos = p->pos;
    char why[300];
    if (!builder && pos == TIMER_STARTING) {
        int status = tune_proc_close(p, 1);
        bfmt(ss->err, TUNE_SESSION_ERR_MAX, "the timing worker did not start: %s (run with "
             "-v -v to see what the driver said)",
             hung ? "no answer in 300 s" : died_text(status, why, sizeof why));
        return -1;
    }
    if (hung) {
        bfmt(why, sizeof why, "no answer in %.0f s: the worker was stopped",
             builder ? ss->o->build_timeout_s : ss->o->run_timeout_s);
        tune_proc_close(p, 1);
    } else {
        died_text(tune_proc_close(p, 1), why, sizeof why);
    }
    if (!builder && ss->need_reference && ss->reference_pos == (long long)pos && ss->o->reference) {
        bfmt(ss->err, TUNE_SESSION_ERR_MAX, "the --reference configuration failed: %s", why);
        return -1;
    }
    return record(ss, pos, hung ? TUNE_TIMEOUT : builder ? TUNE_COMPILE : TUNE_RUNTIME, NULL, 0, why);
}

size_t tune_session_builders_wanted(size_t left, double per_build, double builder_setup_s,
                                    double timer_setup_s, size_t max)
{
    /* Before any build worker has said how long its start took, the
     * timing worker's start (the same process on the same device, plus
     * its arguments' upload) is the estimate: the first build back may be
     * the timing worker's, and guessing 0.05 s then started every worker
     * at once (eleven NVIDIA contexts starting together: 3.3 s each). */
    double setup = builder_setup_s > 0 ? builder_setup_s : timer_setup_s;
    if (!(setup > 0.05))
        setup = 0.05;
    double want = ceil((double)left * per_build / setup);
    return want > (double)max ? max : (size_t)want;
}

/* A build worker is worth starting while the builds left would take it
 * longer than its own start (a GPU driver's context can take seconds,
 * while a build takes a tenth of one): from what the first builds took,
 * as many workers as the builds left need, at most -j. */
static void more_builders(session *ss)
{
    if (!ss->out->n_built || ss->allowed >= ss->n_builders)
        return;
    double per_build = ss->out->build_s / (double)ss->out->n_built;
    size_t left = ss->todo_n + (ss->planned > ss->n_asked ? ss->planned - ss->n_asked : 0);
    size_t want = tune_session_builders_wanted(left, per_build, ss->out->builder_setup_s,
                                               ss->out->timer_setup_s, ss->n_builders);
    if (want > ss->allowed)
        ss->allowed = want;
}

static int build_done(session *ss, proc *p, tune_reply *r)
{
    p->busy = 0;
    if (p == &ss->timer)
        ss->out->n_timer_built++;
    else if (r->setup_s > ss->out->builder_setup_s)
        ss->out->builder_setup_s = r->setup_s;
    ss->out->build_s += r->compile_s;
    ss->out->n_built++;
    more_builders(ss);
    if (r->verdict != TUNE_CORRECT) {
        if (ss->reference_pos == (long long)p->pos && ss->o->reference) {
            bfmt(ss->err, TUNE_SESSION_ERR_MAX, "the --reference configuration failed to build: %s",
                 r->message);
            return -1;
        }
        return record(ss, p->pos, r->verdict, r, r->compile_s, r->message);
    }
    built b = {p->pos, r->binary, r->binary_size, r->compile_s};
    r->binary = NULL;
    if (push_ready(ss, b) != 0) {
        free(b.binary);
        bfmt(ss->err, TUNE_SESSION_ERR_MAX, "out of memory");
        return -1;
    }
    return 0;
}

static int time_done(session *ss, proc *p, tune_reply *r, double compile_s)
{
    p->busy = 0;
    ss->out->n_timed++;
    ss->out->timer_setup_s = r->setup_s;
    ss->out->time_s += mono_clock_s() - p->started;
    int was_reference = ss->need_reference && ss->reference_pos == (long long)p->pos;
    if (was_reference) {
        if (r->verdict == TUNE_CORRECT)
            ss->need_reference = 0;
        else if (ss->o->reference) {
            bfmt(ss->err, TUNE_SESSION_ERR_MAX, "the --reference configuration failed (%s): %s",
                 tune_verdict_name(r->verdict), r->message);
            return -1;
        }
    }
    return record(ss, p->pos, r->verdict, r, compile_s, r->message);
}

static int read_reply(session *ss, proc *p, int builder, double compile_s)
{
    unsigned char *payload;
    size_t size;
    if (tune_proto_read(p->from, &payload, &size) != 0)
        return lost(ss, p, 0, builder);
    tune_reply r; /* filled whole by tune_proto_get_reply */
    int bad = tune_proto_get_reply(payload, size, &r);
    free(payload);
    if (bad)
        return lost(ss, p, 0, builder);
    if (!builder && p->pos == TIMER_STARTING) {
        p->busy = 0;
        ss->out->timer_setup_s = r.setup_s;
        free(r.binary);
        r.binary = NULL;
        return 0;
    }
    int rc = builder ? build_done(ss, p, &r) : time_done(ss, p, &r, compile_s);
    free(r.binary);
    r.binary = NULL;
    return rc;
}

/* ---- the loop ---- */

static int budget_left(const session *ss)
{
    return ss->n_asked < ss->budget && mono_clock_s() < ss->deadline;
}

static int note_asked(session *ss, size_t pos)
{
    if (ss->n_asked_list == ss->cap_asked) {
        size_t cap = ss->cap_asked ? ss->cap_asked * 2 : 256;
        size_t *g = realloc(ss->asked, cap * sizeof *g);
        if (!g)
            return -1;
        ss->asked = g;
        ss->cap_asked = cap;
    }
    ss->asked[ss->n_asked_list++] = pos;
    return 0;
}

static int refill(session *ss)
{
    if (ss->todo_n || !budget_left(ss))
        return 0;
    size_t want = ss->n_builders * 4;
    if (want > ss->budget - ss->n_asked)
        want = ss->budget - ss->n_asked;
    size_t *got = malloc((want ? want : 1) * sizeof *got);
    if (!got)
        return -1;
    size_t n = tune_strategy_next(ss->st, want, got);
    for (size_t i = 0; i < n; i++)
        if (push_todo(ss, got[i], 0) != 0 || note_asked(ss, got[i]) != 0) {
            free(got);
            return -1;
        }
    ss->n_asked += n;
    free(got);
    return 0;
}

static size_t busy_builders(const session *ss)
{
    size_t n = 0;
    for (size_t i = 0; i < ss->n_builders; i++)
        n += ss->builders[i].busy;
    return n;
}

static int dispatch(session *ss, double *timer_compile)
{
    for (size_t i = 0; i < ss->allowed && ss->todo_n; i++) {
        proc *p = &ss->builders[i];
        if (p->busy)
            continue;
        /* On a CPU device no build may run while a kernel is timed. */
        if (ss->o->cpu_device && ss->timer.busy)
            break;
        size_t pos = pop_todo(ss);
        tune_request rq = {TUNE_OP_BUILD, ss->sp->valid[pos], 0, NULL, 0};
        if (send_request(ss, p, "build", &rq, pos, ss->o->build_timeout_s) != 0)
            return -1;
    }
    if (ss->timer.busy)
        return 0;
    /* On a CPU device nothing is timed while a build runs or waits. */
    int may_time = !(ss->o->cpu_device && (busy_builders(ss) || ss->todo_n));
    size_t i = may_time ? pick_ready(ss) : SIZE_MAX;
    if (i == SIZE_MAX) {
        if (!ss->todo_n)
            return 0;
        /* Nothing to time yet: the timing worker builds the next
         * configuration meanwhile, in the context it already holds. A
         * small space is then built by one more worker without the start
         * of another (an NVIDIA context: 1.5-3.5 s), and on a CPU device
         * it is one more build of the build phase. */
        size_t pos = pop_todo(ss);
        tune_request brq = {TUNE_OP_BUILD, ss->sp->valid[pos], 0, NULL, 0};
        ss->timer_building = 1;
        return send_request(ss, &ss->timer, "time", &brq, pos, ss->o->build_timeout_s);
    }
    built b = take_ready(ss, i);
    *timer_compile = b.compile_s;
    tune_request rq = {TUNE_OP_TIME, ss->sp->valid[b.pos],
                       ss->need_reference && ss->reference_pos == (long long)b.pos, b.binary, b.size};
    int rc = send_request(ss, &ss->timer, "time", &rq, b.pos, ss->o->run_timeout_s);
    free(b.binary);
    return rc;
}

static int wait_some(session *ss, double timer_compile)
{
    struct pollfd *fds = calloc(ss->n_builders + 1, sizeof *fds);
    proc **who = calloc(ss->n_builders + 1, sizeof *who);
    if (!fds || !who) {
        free(fds);
        free(who);
        bfmt(ss->err, TUNE_SESSION_ERR_MAX, "out of memory");
        return -1;
    }
    size_t n = 0;
    double now = mono_clock_s(), next = now + 1.0;
    for (size_t i = 0; i <= ss->n_builders; i++) {
        proc *p = i < ss->n_builders ? &ss->builders[i] : &ss->timer;
        if (!p->busy)
            continue;
        fds[n] = (struct pollfd){p->from, POLLIN, 0};
        who[n++] = p;
        if (p->deadline < next)
            next = p->deadline;
    }
    int ms = next <= now ? 0 : (int)((next - now) * 1000) + 1;
    int rc = n ? poll(fds, n, ms) : 0;
    int out = 0;
    if (rc < 0 && errno != EINTR) {
        bfmt(ss->err, TUNE_SESSION_ERR_MAX, "poll: %s", strerror(errno));
        out = -1;
    }
    now = mono_clock_s();
    for (size_t i = 0; out == 0 && i < n; i++) {
        proc *p = who[i];
        int builder = p != &ss->timer || ss->timer_building;
        if (p == &ss->timer && ((rc > 0 && fds[i].revents) || now > p->deadline))
            ss->timer_building = 0;
        if (rc > 0 && fds[i].revents)
            out = read_reply(ss, p, builder, timer_compile);
        else if (now > p->deadline)
            out = lost(ss, p, 1, builder);
    }
    free(fds);
    free(who);
    return out;
}

static int tell_previous(session *ss)
{
    const tune_results *prev = ss->o->previous;
    for (size_t i = 0; prev && i < prev->n; i++) {
        long long pos = tune_space_find(ss->sp, prev->r[i].raw);
        if (pos < 0)
            continue;
        tune_result c = prev->r[i];
        c.resumed = 1;
        if (tune_results_add(ss->out, &c) != 0)
            return -1;
        tune_strategy_tell(ss->st, (size_t)pos, c.verdict == TUNE_CORRECT ? c.median_ns : INFINITY);
    }
    return 0;
}

static int by_raw(const void *a, const void *b)
{
    uint64_t x = ((const tune_result *)a)->raw, y = ((const tune_result *)b)->raw;
    return x < y ? -1 : x > y;
}

/* The simulation: what the strategy asks for is answered from the
 * recorded results, in its order, until it or the budget is done. */
static int simulate(session *ss)
{
    const tune_results *src = ss->o->simulate;
    tune_result *sorted = malloc((src->n ? src->n : 1) * sizeof *sorted);
    if (!sorted) {
        bfmt(ss->err, TUNE_SESSION_ERR_MAX, "out of memory");
        return -1;
    }
    memcpy(sorted, src->r, src->n * sizeof *sorted);
    qsort(sorted, src->n, sizeof *sorted, by_raw);
    int rc = 0;
    while (rc == 0) {
        if ((rc = refill(ss)) != 0 || !ss->todo_n)
            break;
        while (rc == 0 && ss->todo_n) {
            size_t pos = pop_todo(ss);
            tune_result key = {.raw = ss->sp->valid[pos]};
            const tune_result *r = bsearch(&key, sorted, src->n, sizeof *sorted, by_raw);
            if (!r) {
                rc = record(ss, pos, TUNE_RUNTIME, NULL, 0, "not in the simulation's results");
                continue;
            }
            tune_reply rep;
            memset(&rep, 0, sizeof rep);
            rep.load_s = r->load_s;
            rep.validation_s = r->validation_s;
            rep.n_runs = r->n_runs < TUNE_PROTO_RUNS_MAX ? r->n_runs : TUNE_PROTO_RUNS_MAX;
            memcpy(rep.runs_ns, r->runs_ns, rep.n_runs * sizeof *rep.runs_ns);
            rc = record(ss, pos, r->verdict, &rep, r->compile_s, r->message);
            if (rc == 0 && r->verdict == TUNE_CORRECT)
                ss->out->r[ss->out->n - 1].median_ns = r->median_ns;
        }
    }
    free(sorted);
    return rc;
}

static void drop_queues(session *ss)
{
    while (ss->ready_n) {
        built b = take_ready(ss, 0);
        free(b.binary);
    }
    free(ss->ready);
    free(ss->todo);
}

int tune_session_run(const tune_session_options *o, const t1_spec *s, const tune_space *sp,
                     tune_results *out, char err[TUNE_SESSION_ERR_MAX])
{
    session ss;
    memset(&ss, 0, sizeof ss);
    ss.o = o;
    ss.s = s;
    ss.sp = sp;
    ss.out = out;
    ss.err = err;
    ss.t0 = mono_clock_s();
    ss.timer.pid = -1;
    ss.reference_pos = -1;
    clcpk_hex(s->sha256, 32, ss.sha);
    bfmt(ss.pi, sizeof ss.pi, "%u", o->platform_index);
    bfmt(ss.di, sizeof ss.di, "%u", o->device_index);
    bfmt(ss.runs, sizeof ss.runs, "%u", o->runs);
    bfmt(ss.tol, sizeof ss.tol, "%.17g", o->tolerance);
    t1_budget_kind bk = o->budget_kind != T1_BUDGET_NONE ? o->budget_kind : s->budget_kind;
    double bv = o->budget_kind != T1_BUDGET_NONE ? o->budget_value : s->budget_value;
    ss.budget = SIZE_MAX;
    ss.deadline = INFINITY;
    if (bk == T1_BUDGET_COUNT)
        ss.budget = (size_t)bv;
    else if (bk == T1_BUDGET_FRACTION)
        ss.budget = (size_t)ceil(bv * (double)sp->n_valid);
    else if (bk == T1_BUDGET_SECONDS)
        ss.deadline = ss.t0 + bv;
    char serr[TUNE_STRATEGY_ERR_MAX];
    ss.st = tune_strategy_new(o->strategy ? o->strategy : s->search, s->search_attrs, sp, o->seed,
                              ss.budget == SIZE_MAX ? 0 : ss.budget, serr);
    if (!ss.st) {
        bfmt(err, TUNE_SESSION_ERR_MAX, "%s", serr);
        return -1;
    }
    ss.need_reference = s->n_refs == 0;
    ss.finished = calloc(sp->n_valid / 8 + 1, 1);
    int rc = ss.finished ? tell_previous(&ss) : -1;
    if (rc == 0 && o->reference) {
        long long pos = tune_space_find_config(sp, o->reference, err, TUNE_SESSION_ERR_MAX);
        rc = pos < 0 ? -1 : 0;
        ss.reference_pos = pos;
        if (rc == 0 && ss.need_reference)
            rc = push_todo(&ss, (size_t)pos, 1);
        /* Told to the strategy as handed out, so it is not tried twice. */
        if (rc == 0 && ss.need_reference) {
            tune_strategy_tell(ss.st, (size_t)pos, INFINITY);
            ss.n_asked++;
        }
    }
    ss.n_builders = o->jobs ? o->jobs : 1;
    /* A CPU device's workers start in a tenth of a second: all at once.
     * Elsewhere one first, and more as the builds show they pay. */
    ss.allowed = o->cpu_device ? ss.n_builders : 1;
    ss.planned = ss.budget < sp->n_valid ? ss.budget : sp->n_valid;
    ss.builders = calloc(ss.n_builders, sizeof *ss.builders);
    if (!ss.builders)
        rc = -1;
    for (size_t i = 0; i < ss.n_builders && rc == 0; i++)
        ss.builders[i].pid = -1;
    if (rc == 0 && o->simulate) {
        rc = simulate(&ss);
        goto done;
    }
    signal(SIGPIPE, SIG_IGN);
    /* The timing worker opens the device and uploads the arguments while
     * the first configurations build. */
    if (rc == 0 && timer_start(&ss) != 0)
        rc = -1;
    double timer_compile = 0;
    while (rc == 0) {
        if ((rc = refill(&ss)) != 0 || (rc = dispatch(&ss, &timer_compile)) != 0)
            break;
        /* Nothing running and nothing queued right after the strategy was
         * asked: the search is over. */
        if (!ss.timer.busy && !busy_builders(&ss) && !ss.todo_n && !ss.ready_n)
            break;
        rc = wait_some(&ss, timer_compile);
    }
done:
    for (size_t i = 0; i < ss.n_builders; i++)
        tune_proc_close_later(&ss.builders[i], 1, o->exits);
    tune_proc_close_later(&ss.timer, 0, o->exits);
    free(ss.builders);
    drop_queues(&ss);
    free(ss.asked);
    free(ss.finished);
    tune_strategy_free(ss.st);
    out->wall_s = mono_clock_s() - ss.t0;
    return rc;
}
