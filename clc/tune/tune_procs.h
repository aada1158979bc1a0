/*
 * tune_procs.h — the tuning loop's worker processes (tune_session.c): each
 * started with a pipe for its requests (its fd 0) and one for its replies
 * (TUNE_PROTO_REPLY_FD), and ended either now or in the background, so
 * that a driver's teardown (an NVIDIA context: tenths of a second) does
 * not hold up what the caller does next.
 */
#ifndef CLC_TUNE_PROCS_H
#define CLC_TUNE_PROCS_H

#include <stddef.h>
#include <sys/types.h>

#include "child_exits.h"

typedef struct tune_proc {
    pid_t pid;             /* -1 or 0: none */
    int to, from;          /* its fd 0 and fd TUNE_PROTO_REPLY_FD */
    int busy;
    size_t pos;            /* the configuration it holds */
    double deadline;
    double started;
} tune_proc;

/* Starts exe with argv (NULL-terminated); its stdout and stderr go to
 * /dev/null unless show_output. 0, or -1 with errno. */
int tune_proc_start(tune_proc *p, const char *exe, char *const argv[], int show_output);

/* Ends p's worker (SIGKILL first when kill_it, else it sees the end of its
 * requests) and waits for it: its wait status (0 when there was none). */
int tune_proc_close(tune_proc *p, int kill_it);

/* The same, the wait left to child_exits_reap when e is given (and there
 * is memory to remember it). */
void tune_proc_close_later(tune_proc *p, int kill_it, child_exits *e);

#endif /* CLC_TUNE_PROCS_H */
