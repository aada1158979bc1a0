/* table.c — the programs the application made from source (preload.h).
 *
 * The interposer's only lock lives here, and nothing here calls out of this
 * file while holding it: no driver call, no callback, no capture. A
 * function that needs an entry outside the lock pins it; an entry that
 * leaves the table while pinned is freed by its last unpin. So a call that
 * comes back into the interposer from inside the driver (a destructor or
 * release callback run by clReleaseProgram, a build callback, another
 * interposer) never waits for this lock longer than a table update. */
#include "preload.h"

#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static prog *progs;
static int n_served;   /* changed under the lock (atomically); read without it as a hint */
static int n_deferred; /* the same, for deferred compiles */

void prog_free_compiled(prog *r)
{
    free(r->compile_norm);
    for (size_t i = 0; i < r->n_headers; i++) {
        free(r->header_names[i]);
        free(r->header_srcs[i]);
    }
    free(r->header_names);
    free(r->header_srcs);
    free(r->header_sizes);
    r->compile_norm = NULL;
    r->header_names = r->header_srcs = NULL;
    r->header_sizes = NULL;
    r->n_headers = 0;
}

void prog_free(prog *r)
{
    if (!r)
        return;
    free(r->source);
    prog_free_compiled(r);
    free(r->deferred_options);
    free(r->deferred_devs);
    free(r->deferred_headers);
    free(r);
}

static prog **find_locked(cl_program p)
{
    prog **pp = &progs;
    while (*pp && (*pp)->app != p)
        pp = &(*pp)->next;
    return pp;
}

/* Takes r out of the list; 1 when it can be freed now (nobody pins it). */
static int unlink_locked(prog **pp)
{
    prog *r = *pp;
    *pp = r->next;
    r->next = NULL;
    r->unlinked = 1;
    if (r->served)
        __atomic_sub_fetch(&n_served, 1, __ATOMIC_RELAXED);
    if (r->deferred)
        __atomic_sub_fetch(&n_deferred, 1, __ATOMIC_RELAXED);
    return r->pins == 0;
}

void program_table_forget(cl_program p)
{
    prog *dead = NULL;
    pthread_mutex_lock(&lock);
    prog **pp = find_locked(p);
    if (*pp) {
        prog *o = *pp;
        if (unlink_locked(pp))
            dead = o;
    }
    pthread_mutex_unlock(&lock);
    prog_free(dead);
}

void program_table_add(prog *r)
{
    r->app_refs = 1;
    r->next = NULL;
    prog *old = NULL;
    pthread_mutex_lock(&lock);
    prog **pp = find_locked(r->app);
    if (*pp) {
        prog *o = *pp;
        if (unlink_locked(pp))
            old = o;
    }
    r->next = progs;
    progs = r;
    pthread_mutex_unlock(&lock);
    prog_free(old);
}

prog *program_table_pin(cl_program p)
{
    pthread_mutex_lock(&lock);
    prog *r = *find_locked(p);
    if (r)
        r->pins++;
    pthread_mutex_unlock(&lock);
    return r;
}

void program_table_unpin(prog *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&lock);
    int dead = --r->pins == 0 && r->unlinked;
    pthread_mutex_unlock(&lock);
    if (dead)
        prog_free(r);
}

int program_table_any_served(void)
{
    return __atomic_load_n(&n_served, __ATOMIC_RELAXED) != 0;
}

int program_table_any_deferred(void)
{
    return __atomic_load_n(&n_deferred, __ATOMIC_RELAXED) != 0;
}

void program_table_set_deferred_locked(prog *r, int deferred)
{
    if (!r->deferred == !deferred)
        return;
    r->deferred = deferred;
    if (!r->unlinked)
        __atomic_add_fetch(&n_deferred, deferred ? 1 : -1, __ATOMIC_RELAXED);
}

cl_program program_table_answering(cl_program p)
{
    if (!program_table_any_served())
        return p;
    pthread_mutex_lock(&lock);
    prog *r = *find_locked(p);
    cl_program q = r && r->served ? r->served : p;
    pthread_mutex_unlock(&lock);
    return q;
}

cl_program program_table_app_handle(cl_program q)
{
    if (!program_table_any_served())
        return q;
    pthread_mutex_lock(&lock);
    cl_program p = q;
    for (prog *r = progs; r; r = r->next)
        if (r->served == q) {
            p = r->app;
            break;
        }
    pthread_mutex_unlock(&lock);
    return p;
}

void program_table_retain(cl_program p)
{
    pthread_mutex_lock(&lock);
    prog *r = *find_locked(p);
    if (r)
        r->app_refs++;
    pthread_mutex_unlock(&lock);
}

prog *program_table_release(cl_program p)
{
    pthread_mutex_lock(&lock);
    prog **pp = find_locked(p);
    prog *r = *pp;
    if (r && r->app_refs > 1) {
        r->app_refs--;
        r = NULL;
    } else if (r) {
        r->app_refs = 0;
        unlink_locked(pp);
        r->pins++; /* the caller's */
    }
    pthread_mutex_unlock(&lock);
    return r;
}

int program_table_set_served(prog *r, cl_program q)
{
    pthread_mutex_lock(&lock);
    int ok = !r->served && !r->unlinked;
    if (ok) {
        r->served = q;
        __atomic_add_fetch(&n_served, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&lock);
    return ok ? 0 : -1;
}

void program_table_update(prog *r, void (*fn)(prog *r, void *arg), void *arg)
{
    pthread_mutex_lock(&lock);
    fn(r, arg);
    pthread_mutex_unlock(&lock);
}
