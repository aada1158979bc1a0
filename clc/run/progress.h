/*
 * progress.h — the one-line progress display of a clc-pack build:
 *   [ 37/204] reda_local FILTER_WIDTH=13 wg=16x16  0:41 elapsed, ~2:10 left
 * redrawn in place (\r) at most a few times a second when stderr is a
 * terminal. A log or a build system (stderr not a terminal) gets the same
 * text as whole lines instead: one when a variant finishes, at most one
 * every PROGRESS_LOG_S seconds, the last one, and one every
 * PROGRESS_QUIET_S seconds while nothing finishes. -q silences both.
 */
#ifndef CLC_PROGRESS_H
#define CLC_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

#define PROGRESS_LOG_S 5.0
#define PROGRESS_QUIET_S 30.0

enum { PROGRESS_OFF = 0, PROGRESS_LINE = 1, PROGRESS_LOG = 2 };

typedef struct progress {
    FILE *out;
    int enabled;               /* PROGRESS_OFF, _LINE (in place) or _LOG (lines) */
    double last_log;
    size_t total, done;
    double start, last_draw;
    int drawn;                 /* a line is on the screen */
    char current[1024];          /* the variant being built: its whole label */
} progress;

/* 1 when a progress line belongs on f (a terminal). */
int progress_wanted(FILE *f);

/* The mode for f: PROGRESS_LINE on a terminal, else PROGRESS_LOG; OFF when
 * quiet. */
int progress_mode(FILE *f, int quiet);

/* enabled is a mode; any other non-zero value means PROGRESS_LINE. */
void progress_init(progress *p, FILE *out, size_t total, int enabled);
/* The variant now being built. */
void progress_current(progress *p, const char *label);
/* One more variant done; redraws when the refresh period has passed. */
void progress_step(progress *p);
/* Redraws when the last drawing is older than the refresh period. */
void progress_tick(progress *p);
/* Erases the line, so a message can be printed; the next tick redraws. */
void progress_clear(progress *p);
double progress_elapsed(const progress *p);

/* Seconds as "0:41", "12:05" or "1:02:03". */
void progress_format_duration(double s, char *buf, size_t cap);

/* Monotonic clock in seconds. */
double progress_now(void);

#endif /* CLC_PROGRESS_H */
