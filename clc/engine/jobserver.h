/*
 * jobserver.h — joining GNU make's jobserver (docs/CLI.md, "Under make"),
 * so that `make -j N` running clc-pack beside other jobs uses N slots in
 * all, not N plus clc-pack's own -j.
 *
 * make passes the jobserver in MAKEFLAGS as --jobserver-auth=R,W (two
 * inherited pipe descriptors; --jobserver-fds=R,W before make 4.2) or
 * --jobserver-auth=fifo:PATH (make 4.4). Every job make starts holds one
 * implicit slot; each further process it runs at the same time must read
 * one byte (a token) first and write that byte back when it ends. Tokens
 * are always given back: on return, on exit, and on SIGINT, SIGTERM and
 * SIGHUP (a handler writes them back and re-raises the signal).
 */
#ifndef CLC_JOBSERVER_H
#define CLC_JOBSERVER_H

#include <stddef.h>

#define JOBSERVER_MAX_TOKENS 256

typedef struct jobserver jobserver;

/* Parses a MAKEFLAGS value. Returns 1 and fills what it names (*fifo a
 * path, or *rfd and *wfd) when it offers a jobserver, else 0; *slots is the
 * -jN it gives (0 when none). No descriptor is touched. */
int jobserver_parse_makeflags(const char *makeflags, int *rfd, int *wfd, char *fifo, size_t fifo_cap,
                       long *slots);

/* Joins the jobserver MAKEFLAGS (from the environment) offers: NULL when
 * none is offered or it cannot be used (descriptors closed: a rule without
 * '+' when make is not told the command is recursive); then why says so
 * (may be NULL). One at a time per process. */
jobserver *jobserver_open(char *why, size_t cap);

/* The -jN make was started with (0 when MAKEFLAGS does not say). */
long jobserver_slots(const jobserver *js);

/* The descriptor that becomes readable when a token may be there (for
 * poll), or -1. */
int jobserver_poll_fd(const jobserver *js);

/* Takes one token without blocking: 1 when taken, 0 when none free. */
int jobserver_try_take(jobserver *js);

/* Gives one held token back. */
void jobserver_give(jobserver *js);

/* Tokens held now. */
size_t jobserver_held(const jobserver *js);

/* Gives every held token back and closes. NULL is a no-op. */
void jobserver_close(jobserver *js);

#endif /* CLC_JOBSERVER_H */
