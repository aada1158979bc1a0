/* task_run.h — n independent tasks over a few threads. */
#ifndef CLC_TASK_RUN_H
#define CLC_TASK_RUN_H

#include <stddef.h>

/* Calls fn(ctx, i) once for each i in [0, n), on up to `threads` threads,
 * the calling one included, each taking the next task when it is free.
 * A thread that cannot start leaves its share to the others, so every
 * task runs whatever the system allows. Returns when all are done. */
void task_run(size_t n, size_t threads, void (*fn)(void *ctx, size_t i), void *ctx);

#endif
