/*
 * t1_arena.c — t1_arena (t1_expr.h): the memory of the strings and lists
 * one evaluation makes, handed out from blocks and taken back all at once
 * by t1_arena_reset, so a loop of evaluations allocates nothing once warm
 * and a result needs no freeing of its own.
 */
#include "t1_expr_impl.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_DEFAULT_LIMIT ((size_t)64 << 20)
#define ARENA_MIN_BLOCK ((size_t)4096)
#define ARENA_ALIGN ((size_t)16)

typedef struct ablock {
    struct ablock *next;
    size_t size; /* bytes of data after the header */
    size_t used;
} ablock;

#define ABLOCK_HEAD ((sizeof(ablock) + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1))

static char *block_data(ablock *b) { return (char *)b + ABLOCK_HEAD; }
size_t t1_arena_limit(const t1_arena *a) { return a->limit ? a->limit : ARENA_DEFAULT_LIMIT; }

void *t1_arena_alloc(t1_arena *a, size_t n, int *why)
{
    size_t limit = t1_arena_limit(a);
    if (n > limit || a->used > limit - n) {
        *why = A_LIMIT;
        return NULL;
    }
    n = (n + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
    ablock *b = a->blocks;
    if (!b || b->size - b->used < n) {
        size_t size = b ? b->size * 2 : ARENA_MIN_BLOCK;
        if (size > limit)
            size = limit;
        if (size < n)
            size = n;
        ablock *nb = size <= SIZE_MAX - ABLOCK_HEAD ? malloc(ABLOCK_HEAD + size) : NULL;
        if (!nb) {
            *why = A_NOMEM;
            return NULL;
        }
        nb->next = b;
        nb->size = size;
        nb->used = 0;
        a->blocks = nb;
        b = nb;
    }
    void *p = block_data(b) + b->used;
    b->used += n;
    a->used += n;
    return p;
}

/* Grows the block p of old bytes to n: in place when it is the last one
 * handed out (a list being built while its items allocate nothing). */
void *t1_arena_grow(t1_arena *a, void *p, size_t old, size_t n, int *why)
{
    ablock *b = a->blocks;
    size_t o = (old + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
    size_t m = (n + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
    if (p && b && (char *)p + o == block_data(b) + b->used && m >= o && b->size - b->used >= m - o &&
        n <= t1_arena_limit(a) && a->used <= t1_arena_limit(a) - (m - o)) {
        b->used += m - o;
        a->used += m - o;
        return p;
    }
    void *q = t1_arena_alloc(a, n, why);
    if (q && old)
        memcpy(q, p, old);
    return q;
}

/* Frees the blocks from b on; returns the bytes of data they held. */
static size_t free_blocks(ablock *b)
{
    size_t total = 0;
    while (b) {
        ablock *next = b->next;
        total += b->size;
        free(b);
        b = next;
    }
    return total;
}

void t1_arena_reset(t1_arena *a)
{
    if (!a)
        return;
    ablock *b = a->blocks;
    if (b && b->next) {
        /* One block as large as all of them: the next evaluation like this
         * one then allocates nothing. */
        size_t total = free_blocks(b);
        ablock *nb = total <= SIZE_MAX - ABLOCK_HEAD ? malloc(ABLOCK_HEAD + total) : NULL;
        if (nb) {
            nb->next = NULL;
            nb->size = total;
            nb->used = 0;
        }
        a->blocks = nb;
    } else if (b) {
        b->used = 0;
    }
    a->used = 0;
}

void t1_arena_free(t1_arena *a)
{
    if (!a)
        return;
    free_blocks(a->blocks);
    a->blocks = NULL;
    a->used = 0;
}

