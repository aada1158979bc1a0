/* task_run.c — n independent tasks over a few threads (task_run.h). */
#include "task_run.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct task_queue {
    size_t n, next;
    void (*fn)(void *ctx, size_t i);
    void *ctx;
    pthread_mutex_t lock;
} task_queue;

static void *take_tasks(void *arg)
{
    task_queue *q = arg;
    for (;;) {
        pthread_mutex_lock(&q->lock);
        size_t i = q->next < q->n ? q->next++ : q->n;
        pthread_mutex_unlock(&q->lock);
        if (i == q->n)
            return NULL;
        q->fn(q->ctx, i);
    }
}

void task_run(size_t n, size_t threads, void (*fn)(void *ctx, size_t i), void *ctx)
{
    task_queue q = {n, 0, fn, ctx, PTHREAD_MUTEX_INITIALIZER};
    size_t extra = threads > n ? n : threads;
    extra = extra > 1 ? extra - 1 : 0;
    pthread_t *th = extra ? malloc(extra * sizeof *th) : NULL;
    size_t started = 0;
    while (th && started < extra && pthread_create(&th[started], NULL, take_tasks, &q) == 0)
        started++;
    take_tasks(&q);
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    pthread_mutex_destroy(&q.lock);
}
