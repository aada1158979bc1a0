/* task_pool.c — threads that run queued tasks (task_pool.h). */
#include "task_pool.h"

#include <pthread.h>
#include <stdlib.h>

#include "clcpack_write.h"
#include "platform.h"

typedef struct task_queue {
    tp_task *head, *tail;
} task_queue;

typedef struct worker {
    tp_pool *pool;
    pthread_t th;
    void *state;
} worker;

struct tp_pool {
    tp_run_fn run;
    void *ctx;
    void (*state_free)(void *);
    unsigned char *states;
    pthread_mutex_t mu;
    pthread_cond_t work; /* a task queued, or stop */
    pthread_cond_t done; /* a task done */
    task_queue urgent, normal;
    int stop;
    size_t n; /* threads running */
    worker workers[CLCPACK_MAX_WRITE_THREADS];
};

static tp_task *queue_pop(task_queue *q)
{
    tp_task *t = q->head;
    if (t && !(q->head = t->next))
        q->tail = NULL;
    return t;
}

static void *worker_main(void *arg)
{
    worker *wk = arg;
    tp_pool *p = wk->pool;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        tp_task *t = queue_pop(&p->urgent);
        if (!t)
            t = queue_pop(&p->normal);
        if (!t) {
            if (p->stop)
                break;
            pthread_cond_wait(&p->work, &p->mu);
            continue;
        }
        pthread_mutex_unlock(&p->mu);
        p->run(p->ctx, t, wk->state);
        pthread_mutex_lock(&p->mu);
        t->done = 1;
        pthread_cond_broadcast(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void destroy(tp_pool *p, int sync)
{
    if (sync >= 3)
        pthread_cond_destroy(&p->done);
    if (sync >= 2)
        pthread_cond_destroy(&p->work);
    if (sync >= 1)
        pthread_mutex_destroy(&p->mu);
    free(p->states);
    free(p);
}

tp_pool *tp_start(unsigned n, tp_run_fn run, void *ctx, size_t state_size,
                  void (*state_free)(void *state))
{
    if (n < 2)
        return NULL;
    if (n > CLCPACK_MAX_WRITE_THREADS)
        n = CLCPACK_MAX_WRITE_THREADS;
    tp_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->run = run;
    p->ctx = ctx;
    p->state_free = state_free;
    p->states = calloc(n, state_size ? state_size : 1);
    if (!p->states) {
        destroy(p, 0);
        return NULL;
    }
    if (pthread_mutex_init(&p->mu, NULL) != 0) {
        destroy(p, 0);
        return NULL;
    }
    if (pthread_cond_init(&p->work, NULL) != 0) {
        destroy(p, 1);
        return NULL;
    }
    if (pthread_cond_init(&p->done, NULL) != 0) {
        destroy(p, 2);
        return NULL;
    }
    void *signals = clcpk_os_signals_block();
    for (; p->n < n; p->n++) {
        worker *wk = &p->workers[p->n];
        wk->pool = p;
        wk->state = p->states + p->n * state_size;
        if (pthread_create(&wk->th, NULL, worker_main, wk) != 0)
            break;
    }
    clcpk_os_signals_restore(signals);
    if (p->n == 0) {
        destroy(p, 3);
        return NULL;
    }
    return p;
}

size_t tp_threads(const tp_pool *p)
{
    return p ? p->n : 0;
}

void tp_submit(tp_pool *p, tp_task *t)
{
    t->done = 0;
    t->next = NULL;
    pthread_mutex_lock(&p->mu);
    task_queue *q = t->urgent ? &p->urgent : &p->normal;
    if (q->tail)
        q->tail->next = t;
    else
        q->head = t;
    q->tail = t;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->mu);
}

void tp_await(tp_pool *p, tp_task *t)
{
    pthread_mutex_lock(&p->mu);
    while (!t->done)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

int tp_is_done(tp_pool *p, const tp_task *t)
{
    pthread_mutex_lock(&p->mu);
    int d = t->done;
    pthread_mutex_unlock(&p->mu);
    return d;
}

void tp_stop(tp_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->urgent.head = p->urgent.tail = p->normal.head = p->normal.tail = NULL;
    p->stop = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (size_t i = 0; i < p->n; i++) {
        pthread_join(p->workers[i].th, NULL);
        if (p->state_free)
            p->state_free(p->workers[i].state);
    }
    destroy(p, 3);
}
