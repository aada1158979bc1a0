/*
 * progress.h — the one-line progress display of a clc-pack build:
 *   [ 37/204] reda_local FILTER_WIDTH=13 wg=16x16  0:41 elapsed, ~2:10 left
 * redrawn in place (\r) at most a few times a second, and only when it is
 * enabled (stderr is a terminal and -q was not given): logs and pipes get
 * nothing of the kind.
 */
#ifndef CLC_PROGRESS_H
#define CLC_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

typedef struct progress {
    FILE *out;
    int enabled;
    size_t total, done;
    double start, last_draw;
    int drawn;                 /* a line is on the screen */
    char current[160];
} progress;

/* 1 when a progress line belongs on f (a terminal). */
int progress_wanted(FILE *f);

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
