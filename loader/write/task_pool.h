/*
 * task_pool.h — a few threads that run queued tasks, for the pack encoder
 * (pack_encode.c, clcpack_writer_set_threads).
 *
 * A task is any struct whose first member is a tp_task. Urgent tasks are
 * taken before the others (the encoder waits for an entry's ranks before
 * it can choose the next entry, while a level-9 stream is awaited only
 * when its turn to be written comes). Each thread has a state of its own
 * (zeroed, freed at the end), which the run function gets with each task.
 * The threads block every signal: the caller's signals stay with the
 * caller's thread. Nothing here prints.
 */
#ifndef CLCPACK_TASK_POOL_H
#define CLCPACK_TASK_POOL_H

#include <stddef.h>

typedef struct tp_task {
    int urgent;           /* set by the submitter */
    int done;             /* read with tp_is_done or tp_await */
    struct tp_task *next; /* in its queue */
} tp_task;

typedef void (*tp_run_fn)(void *ctx, tp_task *t, void *state);

typedef struct tp_pool tp_pool;

/* Starts up to n threads running run(ctx, task, state). NULL when n < 2 or
 * when not even one thread can start (memory, the system's limit): the
 * caller then runs its tasks itself. */
tp_pool *tp_start(unsigned n, tp_run_fn run, void *ctx, size_t state_size,
                  void (*state_free)(void *state));

/* How many threads run. */
size_t tp_threads(const tp_pool *p);

/* Queues t (its done flag cleared). */
void tp_submit(tp_pool *p, tp_task *t);

/* Waits until t has run. */
void tp_await(tp_pool *p, tp_task *t);

/* Whether t has run, without waiting. */
int tp_is_done(tp_pool *p, const tp_task *t);

/* Drops the tasks not started, waits for those running, ends the threads
 * and frees their states. NULL is a no-op. */
void tp_stop(tp_pool *p);

#endif /* CLCPACK_TASK_POOL_H */
