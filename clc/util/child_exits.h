/*
 * child_exits.h — child processes told to end and not yet waited for.
 * A worker that holds an OpenCL context takes tenths of a second to exit
 * (an NVIDIA context's teardown; sixteen of them, about a second in all):
 * its parent lets it go, does what comes next (the pack's encoding, the
 * pack of the tuned configurations), and reaps it afterwards.
 */
#ifndef CLC_CHILD_EXITS_H
#define CLC_CHILD_EXITS_H

#include <stddef.h>
#include <sys/types.h>

typedef struct child_exits {
    pid_t *pid;
    size_t n;
} child_exits;

/* Remembers pid for child_exits_reap: 0, or -1 (no memory: the caller
 * waits for it now). */
int child_exits_add(child_exits *e, pid_t pid);

/* Waits for every child in e, then empties it. */
void child_exits_reap(child_exits *e);

#endif /* CLC_CHILD_EXITS_H */
