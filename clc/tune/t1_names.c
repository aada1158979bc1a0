/*
 * t1_names.c — the names of a parsed expression (t1_expr_impl.h) resolved:
 * a comprehension's loop variable to its local, any other name to the
 * caller's slot (t1_resolve), once per use, so that evaluation never
 * looks a name up; and the slots the expression reads, listed once each
 * in the order evaluation first reads them (t1_expr_slots).
 */
#include "t1_expr_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct scope {
    const struct scope *up;
    size_t pos, len; /* the loop variable's name in the text */
    int32_t local;
} scope;

typedef struct resolver {
    t1_expr *e;
    t1_resolve fn;
    void *ctx;
    char *err;
    size_t cap;
    size_t uses, uses_cap; /* slots as met, repeats included: e->slots */
} resolver;

static int resolve_node(resolver *r, int32_t k, const scope *sc);

static int resolve_list(resolver *r, int32_t k, const scope *sc)
{
    for (; k >= 0; k = r->e->nodes[k].next)
        if (resolve_node(r, k, sc))
            return -1;
    return 0;
}

static int unknown_name(resolver *r, const node *n)
{
    t1_expr *e = r->e;
    char sh[SHOW_MAX + 4];
    char reason[128];
    snprintf(reason, sizeof reason, "'%s' is not a parameter or a name of the spec",
             t1_show_bytes(e->text + n->pos, (size_t)n->a, sh));
    /* When the whole text is the name, the reason already quotes it. */
    size_t from = 0, to = e->len;
    while (from < to && t1_is_space(e->text[from]))
        from++;
    while (to > from && t1_is_space(e->text[to - 1]))
        to--;
    int whole = from == n->pos && to - from == (size_t)n->a;
    t1_write_error(r->err, r->cap, e->text, e->len, n->pos, !whole, reason);
    return -1;
}

static int resolve_name(resolver *r, node *n, const scope *sc)
{
    const char *name = r->e->text + n->pos;
    size_t len = (size_t)n->a;
    for (const scope *s = sc; s; s = s->up)
        if (s->len == len && memcmp(r->e->text + s->pos, name, len) == 0) {
            n->kind = N_LOCAL;
            n->a = s->local;
            return 0;
        }
    int slot = r->fn ? r->fn(r->ctx, name, len) : -1;
    if (slot < 0)
        return unknown_name(r, n);
    int *uses = t1_grow(r->e->slots, &r->uses_cap, r->uses + 1, sizeof *uses);
    if (!uses) {
        if (r->err && r->cap)
            snprintf(r->err, r->cap, "out of memory");
        return -1;
    }
    r->e->slots = uses;
    r->e->slots[r->uses++] = slot;
    n->kind = N_SLOT;
    n->a = slot;
    return 0;
}

/* The clauses from k on, each for-variable in scope of what follows it,
 * then the item: Python's order of evaluation, so the slots come in the
 * order evaluation first reads them. */
static int resolve_comp(resolver *r, int32_t k, int32_t item, const scope *sc)
{
    if (k < 0)
        return resolve_node(r, item, sc);
    node *cl = &r->e->nodes[k];
    if (resolve_node(r, cl->a, sc))
        return -1;
    if (cl->kind == N_IF)
        return resolve_comp(r, cl->next, item, sc);
    scope s = {sc, cl->pos, (size_t)cl->b, r->e->n_locals++};
    cl->c = s.local;
    return resolve_comp(r, cl->next, item, &s);
}

static int resolve_node(resolver *r, int32_t k, const scope *sc)
{
    node *n = &r->e->nodes[k];
    switch (n->kind) {
    case N_NAME:
        return resolve_name(r, n, sc);
    case N_UNARY:
    case N_NOT:
        return resolve_node(r, n->a, sc);
    case N_BIN:
    case N_CMP:
    case N_INDEX:
        return resolve_node(r, n->a, sc) || resolve_node(r, n->b, sc) ? -1 : 0;
    case N_IFELSE:
        return resolve_node(r, n->b, sc) || resolve_node(r, n->a, sc) || resolve_node(r, n->c, sc)
                   ? -1
                   : 0;
    case N_CHAIN:
    case N_CMPCHAIN:
    case N_BOOL:
    case N_CALL:
    case N_LIST:
        return resolve_list(r, n->a, sc);
    case N_COMP:
        return resolve_comp(r, n->b, n->a, sc);
    default:
        return 0;
    }
}

typedef struct slot_use {
    int slot;
    size_t at;
} slot_use;

static int cmp_use(const void *x, const void *y)
{
    const slot_use *a = x, *b = y;
    if (a->slot != b->slot)
        return a->slot < b->slot ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

/* Keeps each slot's first use, in order; sorting keeps a text of tens of
 * thousands of names from costing their square. */
static int dedupe_slots(t1_expr *e, size_t uses)
{
    if (uses < 2) {
        e->n_slots = uses;
        return 0;
    }
    slot_use *u = malloc(uses * sizeof *u);
    if (!u)
        return -1;
    for (size_t k = 0; k < uses; k++) {
        u[k].slot = e->slots[k];
        u[k].at = k;
    }
    qsort(u, uses, sizeof *u, cmp_use);
    /* Mark repeats with -1 where they were met, then compact. */
    for (size_t k = 1; k < uses; k++)
        if (u[k].slot == u[k - 1].slot)
            e->slots[u[k].at] = -1;
    free(u);
    size_t n = 0;
    for (size_t k = 0; k < uses; k++)
        if (e->slots[k] >= 0)
            e->slots[n++] = e->slots[k];
    e->n_slots = n;
    return 0;
}

int t1_resolve_names(t1_expr *e, t1_resolve resolve, void *ctx, char *err, size_t cap)
{
    resolver r = {.e = e, .fn = resolve, .ctx = ctx, .err = err, .cap = cap};
    return resolve_node(&r, e->root, NULL) || dedupe_slots(e, r.uses) ? -1 : 0;
}
