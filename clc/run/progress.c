/* progress.c — the in-place progress line (progress.h). */
#include "progress.h"

#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "mono_clock.h"

#define REFRESH_S 0.25

double progress_now(void) { return mono_clock_s(); }

int progress_wanted(FILE *f) { return isatty(fileno(f)); }

int progress_mode(FILE *f, int quiet)
{
    return quiet ? PROGRESS_OFF : progress_wanted(f) ? PROGRESS_LINE : PROGRESS_LOG;
}

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
    p->enabled = enabled == PROGRESS_LOG ? PROGRESS_LOG : enabled ? PROGRESS_LINE : PROGRESS_OFF;
    p->start = progress_now();
    p->last_draw = -1;
    p->last_log = p->start;
}

double progress_elapsed(const progress *p) { return progress_now() - p->start; }

static size_t term_width(FILE *f)
{
    struct winsize ws;
    if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
        return ws.ws_col;
    return 80;
}

static void format_line(const progress *p, char *line, size_t cap)
{
    char elapsed[32], left[32];
    double e = progress_elapsed(p);
    progress_format_duration(e, elapsed, sizeof elapsed);
    if (p->done > 0 && p->done <= p->total)
        progress_format_duration(e / (double)p->done * (double)(p->total - p->done), left,
                                 sizeof left);
    else
        bfmt(left, sizeof left, "?");
    int w = (int)(p->total >= 1000 ? 4 : p->total >= 100 ? 3 : p->total >= 10 ? 2 : 1);
    bfmt(line, cap, "[%*zu/%zu] %s  %s elapsed, ~%s left", w, p->done, p->total, p->current,
         elapsed, left);
}

static void draw(progress *p)
{
    char line[1280];
    format_line(p, line, sizeof line);
    /* A wrapped line cannot be redrawn in place: cut it to the terminal,
     * marked as cut. */
    size_t max = term_width(p->out) - 1;
    if (strlen(line) > max) {
        line[max] = '\0';
        memcpy(line + max - 3, "...", 3);
    }
    fprintf(p->out, "\r%s\033[K", line);
    fflush(p->out);
    p->drawn = 1;
    p->last_draw = progress_now();
}

void progress_current(progress *p, const char *label)
{
    bfmt(p->current, sizeof p->current, "%s", label);
}

/* A whole line for a log: the variant just finished is the one named. */
static void log_line(progress *p)
{
    char line[1280];
    format_line(p, line, sizeof line);
    fprintf(p->out, "%s\n", line);
    fflush(p->out);
    p->last_log = progress_now();
}

void progress_step(progress *p)
{
    p->done++;
    if (p->enabled == PROGRESS_LOG &&
        (p->done == p->total || progress_now() - p->last_log >= PROGRESS_LOG_S))
        log_line(p);
    progress_tick(p);
}

void progress_tick(progress *p)
{
    /* A long variant: a line now and then says the build still runs. */
    if (p->enabled == PROGRESS_LOG && progress_now() - p->last_log >= PROGRESS_QUIET_S)
        log_line(p);
    if (p->enabled == PROGRESS_LINE && progress_now() - p->last_draw >= REFRESH_S)
        draw(p);
}

void progress_clear(progress *p)
{
    if (p->enabled == PROGRESS_LINE && p->drawn) {
        fprintf(p->out, "\r\033[K");
        fflush(p->out);
        p->drawn = 0;
    }
}
