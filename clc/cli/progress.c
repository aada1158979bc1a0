/* progress.c — the in-place progress line (progress.h). */
#include "progress.h"

#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "bounded_fmt.h"

#define REFRESH_S 0.25

double progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int progress_wanted(FILE *f) { return isatty(fileno(f)); }

void progress_format_duration(double s, char *buf, size_t cap)
{
    if (s < 0)
        s = 0;
    long t = (long)(s + 0.5);
    if (t >= 3600)
        bfmt(buf, cap, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        bfmt(buf, cap, "%ld:%02ld", t / 60, t % 60);
}

void progress_init(progress *p, FILE *out, size_t total, int enabled)
{
    memset(p, 0, sizeof *p);
    p->out = out;
    p->total = total;
    p->enabled = enabled;
    p->start = progress_now();
    p->last_draw = -1;
}

double progress_elapsed(const progress *p) { return progress_now() - p->start; }

static size_t term_width(FILE *f)
{
    struct winsize ws;
    if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
        return ws.ws_col;
    return 80;
}

static void draw(progress *p)
{
    char elapsed[32], left[32], line[512];
    double e = progress_elapsed(p);
    progress_format_duration(e, elapsed, sizeof elapsed);
    if (p->done > 0 && p->done <= p->total)
        progress_format_duration(e / (double)p->done * (double)(p->total - p->done), left,
                                 sizeof left);
    else
        bfmt(left, sizeof left, "?");
    int w = (int)(p->total >= 1000 ? 4 : p->total >= 100 ? 3 : p->total >= 10 ? 2 : 1);
    bfmt(line, sizeof line, "[%*zu/%zu] %s  %s elapsed, ~%s left", w, p->done, p->total,
         p->current, elapsed, left);
    /* A wrapped line cannot be redrawn in place: cut it to the terminal. */
    size_t max = term_width(p->out) - 1;
    if (strlen(line) > max)
        line[max] = '\0';
    fprintf(p->out, "\r%s\033[K", line);
    fflush(p->out);
    p->drawn = 1;
    p->last_draw = progress_now();
}

void progress_current(progress *p, const char *label)
{
    bfmt(p->current, sizeof p->current, "%s", label);
}

void progress_step(progress *p)
{
    p->done++;
    progress_tick(p);
}

void progress_tick(progress *p)
{
    if (p->enabled && progress_now() - p->last_draw >= REFRESH_S)
        draw(p);
}

void progress_clear(progress *p)
{
    if (p->enabled && p->drawn) {
        fprintf(p->out, "\r\033[K");
        fflush(p->out);
        p->drawn = 0;
    }
}
