/* jobserver.c — GNU make's jobserver (jobserver.h). */
#include "jobserver.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounded_fmt.h"

struct jobserver {
    int rfd, wfd;       /* our own descriptions, non-blocking reads */
    long slots;
};

/* What the signal handler needs: plain statics it may read. */
static jobserver g_js;
static int g_open;
static volatile sig_atomic_t g_held;
static char g_tokens[JOBSERVER_MAX_TOKENS];
static struct sigaction g_old[3];
static const int g_signals[3] = {SIGINT, SIGTERM, SIGHUP};

static void give_all(void)
{
    while (g_held > 0) {
        char t = g_tokens[g_held - 1];
        ssize_t n = write(g_js.wfd, &t, 1);
        if (n < 0 && errno == EINTR)
            continue;
        g_held--;
    }
}

static void on_signal(int sig)
{
    int saved = errno;
    give_all();
    for (int i = 0; i < 3; i++)
        if (g_signals[i] == sig)
            sigaction(sig, &g_old[i], NULL);
    errno = saved;
    raise(sig);
}

static void at_exit_give(void)
{
    if (g_open)
        give_all();
}

/* The value of the last `name` word in flags (make may repeat it). */
static const char *last_word(const char *flags, const char *name, size_t *len)
{
    const char *found = NULL;
    size_t n = strlen(name);
    for (const char *p = flags; (p = strstr(p, name)) != NULL; p += n)
        if (p == flags || p[-1] == ' ')
            found = p + n;
    if (found)
        *len = strcspn(found, " ");
    return found;
}

int jobserver_parse_makeflags(const char *makeflags, int *rfd, int *wfd, char *fifo, size_t fifo_cap,
                       long *slots)
{
    *rfd = *wfd = -1;
    fifo[0] = '\0';
    *slots = 0;
    if (!makeflags)
        return 0;
    /* The first word holds the single-letter flags ("-j3" stands alone). */
    size_t jl;
    const char *j = last_word(makeflags, "-j", &jl);
    if (j && jl > 0 && jl < 8) {
        char num[8];
        memcpy(num, j, jl);
        num[jl] = '\0';
        char *end;
        long v = strtol(num, &end, 10);
        if (*end == '\0' && v > 0)
            *slots = v;
    }
    size_t len;
    const char *auth = last_word(makeflags, "--jobserver-auth=", &len);
    if (!auth)
        auth = last_word(makeflags, "--jobserver-fds=", &len);
    if (!auth || len == 0)
        return 0;
    if (len > 5 && memcmp(auth, "fifo:", 5) == 0) {
        if (len - 5 >= fifo_cap)
            return 0;
        memcpy(fifo, auth + 5, len - 5);
        fifo[len - 5] = '\0';
        return 1;
    }
    char buf[64];
    if (len >= sizeof buf)
        return 0;
    memcpy(buf, auth, len);
    buf[len] = '\0';
    char *end;
    long r = strtol(buf, &end, 10);
    if (end == buf || *end != ',')
        return 0;
    char *w_start = end + 1;
    long w = strtol(w_start, &end, 10);
    if (end == w_start || *end != '\0' || r < 0 || w < 0 || r > 65535 || w > 65535)
        return 0;
    *rfd = (int)r;
    *wfd = (int)w;
    return 1;
}

jobserver *jobserver_open(char *why, size_t cap)
{
    if (why && cap)
        why[0] = '\0';
    if (g_open)
        return NULL;
    int rfd, wfd;
    char fifo[1024];
    long slots;
    if (!jobserver_parse_makeflags(getenv("MAKEFLAGS"), &rfd, &wfd, fifo, sizeof fifo, &slots))
        return NULL;
    int r = -1, w = -1;
    if (fifo[0]) {
        r = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        w = open(fifo, O_WRONLY | O_CLOEXEC);
        if (r < 0 || w < 0) {
            if (why)
                bfmt(why, cap, "make's jobserver %s cannot be opened: %s", fifo, strerror(errno));
            goto fail;
        }
    } else {
        if (fcntl(rfd, F_GETFD) < 0 || fcntl(wfd, F_GETFD) < 0) {
            if (why)
                bfmt(why, cap, "make's jobserver descriptors %d,%d are closed "
                               "(prefix the rule with '+')", rfd, wfd);
            return NULL;
        }
        /* A fresh description of the same pipe, so a non-blocking read
         * does not change make's own descriptor. */
        char path[64];
        bfmt(path, sizeof path, "/proc/self/fd/%d", rfd);
        r = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        w = fcntl(wfd, F_DUPFD_CLOEXEC, 0);
        if (r < 0 || w < 0) {
            if (why)
                bfmt(why, cap, "make's jobserver pipe cannot be reopened: %s", strerror(errno));
            goto fail;
        }
    }
    g_js.rfd = r;
    g_js.wfd = w;
    g_js.slots = slots;
    g_held = 0;
    g_open = 1;
    static int registered;
    if (!registered && atexit(at_exit_give) == 0)
        registered = 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; i++)
        sigaction(g_signals[i], &sa, &g_old[i]);
    return &g_js;
fail:
    if (r >= 0)
        close(r);
    if (w >= 0)
        close(w);
    return NULL;
}

long jobserver_slots(const jobserver *js)
{
    return js ? js->slots : 0;
}

int jobserver_poll_fd(const jobserver *js)
{
    return js ? js->rfd : -1;
}

int jobserver_try_take(jobserver *js)
{
    if (!js || g_held >= JOBSERVER_MAX_TOKENS)
        return 0;
    char t;
    for (;;) {
        ssize_t n = read(js->rfd, &t, 1);
        if (n == 1)
            break;
        if (n < 0 && errno == EINTR)
            continue;
        return 0;
    }
    /* Blocked while recording, so a signal never sees a token half-held. */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    g_tokens[g_held] = t;
    g_held++;
    sigprocmask(SIG_SETMASK, &old, NULL);
    return 1;
}

void jobserver_give(jobserver *js)
{
    if (!js || g_held == 0)
        return;
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    char t = g_tokens[g_held - 1];
    while (write(js->wfd, &t, 1) < 0 && errno == EINTR)
        ;
    g_held--;
    sigprocmask(SIG_SETMASK, &old, NULL);
}

size_t jobserver_held(const jobserver *js)
{
    return js ? (size_t)g_held : 0;
}

void jobserver_close(jobserver *js)
{
    if (!js)
        return;
    while (g_held > 0)
        jobserver_give(js);
    for (int i = 0; i < 3; i++)
        sigaction(g_signals[i], &g_old[i], NULL);
    close(js->rfd);
    close(js->wfd);
    g_open = 0;
}
