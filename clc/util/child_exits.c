/* child_exits.c — children left to end, reaped later (child_exits.h). */
#include "child_exits.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>

int child_exits_add(child_exits *e, pid_t pid)
{
    pid_t *grown = realloc(e->pid, (e->n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    e->pid = grown;
    e->pid[e->n++] = pid;
    return 0;
}

void child_exits_reap(child_exits *e)
{
    for (size_t i = 0; i < e->n; i++) {
        int status;
        while (waitpid(e->pid[i], &status, 0) < 0 && errno == EINTR)
            ;
    }
    free(e->pid);
    e->pid = NULL;
    e->n = 0;
}
