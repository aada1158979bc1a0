/*
 * t1_parse.c — t1_expr_compile (t1_expr.h): the tokens of t1_lex.c parsed
 * into the tree of t1_expr_impl.h, one function per precedence level,
 * Python's, from the lowest (x if c else y) to the highest (x[i]);
 * constants folded on the way (-1, [16, 32]); then the names resolved
 * (t1_names.c). Nesting is bounded (T1_EXPR_DEPTH_MAX) where the parser
 * recurses, so no text can exhaust the C stack.
 */
#include "t1_expr_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The current token's text for a message. */
static const char *tok_text(const parser *ps, char *out)
{
    return t1_show_bytes(ps->text + ps->tok.start, ps->tok.end - ps->tok.start, out);
}

static int is_op(const parser *ps, int op) { return ps->tok.kind == TK_OP && ps->tok.code == op; }
static int is_kw(const parser *ps, int kw) { return ps->tok.kind == TK_KW && ps->tok.code == kw; }

static int32_t new_node(parser *ps, int kind, int op, size_t pos, int32_t a, int32_t b, int32_t c)
{
    t1_expr *e = ps->e;
    node *nodes =
        e->n_nodes < INT32_MAX ? t1_grow(e->nodes, &e->nodes_cap, e->n_nodes + 1, sizeof *nodes) : NULL;
    if (!nodes)
        return t1_oom(ps);
    e->nodes = nodes;
    node *n = &e->nodes[e->n_nodes];
    n->kind = (uint8_t)kind;
    n->op = (uint8_t)op;
    n->lop = 0;
    n->pos = (uint32_t)pos;
    n->lpos = 0;
    n->a = a;
    n->b = b;
    n->c = c;
    n->next = -1;
    return (int32_t)e->n_nodes++;
}

static int grow_consts(parser *ps)
{
    t1_expr *e = ps->e;
    t1_value *consts = NULL;
    if (e->n_consts < INT32_MAX)
        consts = t1_grow(e->consts, &e->consts_cap, e->n_consts + 1, sizeof *consts);
    if (!consts)
        return t1_oom(ps);
    e->consts = consts;
    return 0;
}

static int32_t new_const(parser *ps, const t1_value *v, size_t pos)
{
    t1_expr *e = ps->e;
    if (grow_consts(ps))
        return -1;
    e->consts[e->n_consts] = *v;
    return new_node(ps, N_CONST, 0, pos, (int32_t)e->n_consts++, -1, -1);
}

static node *N(const parser *ps, int32_t k) { return &ps->e->nodes[k]; }

/* Enters one level of nesting; 0 past the bound (error recorded). */
static int enter(parser *ps)
{
    if (ps->depth >= T1_EXPR_DEPTH_MAX) {
        t1_perr(ps, ps->tok.start, "nested more than %d deep", T1_EXPR_DEPTH_MAX);
        return 0;
    }
    ps->depth++;
    return 1;
}

static int expect(parser *ps, int op)
{
    if (is_op(ps, op))
        return t1_lex_next(ps);
    return t1_perr(ps, ps->tok.start, "'%s' expected", t1_op_name[op]);
}

static int32_t parse_expr(parser *ps);
static int32_t parse_bool(parser *ps, int kw);

/* Appends next to a sibling list ending at *last, joined by op at pos. */
static void link_sibling(parser *ps, int32_t *last, int32_t next, int op, size_t pos)
{
    N(ps, next)->lop = (uint8_t)op;
    N(ps, next)->lpos = (uint32_t)pos;
    N(ps, *last)->next = next;
    *last = next;
}

/* A run of n operands from first: one binary node for two (the common
 * case evaluation takes fastest), a chain node for more. */
static int32_t finish_run(parser *ps, int32_t first, int n, int kind2, int kindn)
{
    if (n == 1)
        return first;
    int32_t second = N(ps, first)->next;
    int op = N(ps, second)->lop;
    size_t pos = N(ps, second)->lpos;
    if (n == 2) {
        N(ps, first)->next = -1;
        return new_node(ps, kind2, op, pos, first, second, -1);
    }
    return new_node(ps, kindn, op, pos, first, -1, -1);
}

/* Items up to close, after the first (already parsed): the sibling list
 * of a list, tuple or call; *count set. A trailing comma is allowed. */
static int parse_items(parser *ps, int32_t first, int close, int32_t *count)
{
    int32_t last = first, n = 1;
    while (is_op(ps, P_COMMA)) {
        if (t1_lex_next(ps))
            return -1;
        if (is_op(ps, close))
            break;
        int32_t item = parse_expr(ps);
        if (item < 0)
            return -1;
        link_sibling(ps, &last, item, P_COMMA, 0);
        n++;
    }
    *count = n;
    return expect(ps, close);
}

/* The clauses of a comprehension whose item is parsed, up to close. */
static int32_t parse_comp(parser *ps, int32_t item, size_t pos, int close)
{
    int32_t first = -1, last = -1;
    int levels = 0;
    int32_t r = -1;
    char sh[SHOW_MAX + 4];
    while (is_kw(ps, KW_FOR) || (first >= 0 && is_kw(ps, KW_IF))) {
        /* Each clause nests the rest inside its loop. */
        if (!enter(ps))
            goto out;
        levels++;
        int32_t clause;
        if (is_kw(ps, KW_FOR)) {
            if (t1_lex_next(ps))
                goto out;
            if (ps->tok.kind != TK_NAME) {
                t1_perr(ps, ps->tok.start, "a name expected after 'for', not '%s'", tok_text(ps, sh));
                goto out;
            }
            size_t npos = ps->tok.start, nlen = ps->tok.end - ps->tok.start;
            if (t1_lex_next(ps))
                goto out;
            if (!is_kw(ps, KW_IN)) {
                t1_perr(ps, ps->tok.start, "'in' expected");
                goto out;
            }
            if (t1_lex_next(ps))
                goto out;
            int32_t iter = parse_bool(ps, KW_OR);
            if (iter < 0)
                goto out;
            clause = new_node(ps, N_FOR, 0, npos, iter, (int32_t)nlen, -1);
        } else {
            size_t ipos = ps->tok.start;
            if (t1_lex_next(ps))
                goto out;
            int32_t cond = parse_bool(ps, KW_OR);
            if (cond < 0)
                goto out;
            clause = new_node(ps, N_IF, 0, ipos, cond, -1, -1);
        }
        if (clause < 0)
            goto out;
        if (first < 0)
            first = clause;
        else
            link_sibling(ps, &last, clause, 0, 0);
        last = clause;
    }
    if (expect(ps, close) == 0)
        r = new_node(ps, N_COMP, 0, pos, item, first, -1);
out:
    ps->depth -= levels;
    return r;
}

/* A list of constants is made once, here, not at every evaluation: "TS in
 * [16, 32, 64]" then allocates nothing. Its items, like strings, are
 * offsets until the compile ends (the arrays may still move). */
static int32_t fold_list(parser *ps, int32_t list)
{
    if (list < 0)
        return -1;
    for (int32_t k = N(ps, list)->a; k >= 0; k = N(ps, k)->next)
        if (N(ps, k)->kind != N_CONST)
            return list;
    t1_expr *e = ps->e;
    size_t off = e->n_citems, count = (size_t)N(ps, list)->c;
    t1_value *citems = t1_grow(e->citems, &e->citems_cap, off + count, sizeof *citems);
    if (!citems)
        return t1_oom(ps);
    e->citems = citems;
    if (grow_consts(ps))
        return -1;
    for (int32_t k = N(ps, list)->a; k >= 0; k = N(ps, k)->next)
        e->citems[e->n_citems++] = e->consts[N(ps, k)->a];
    e->consts[e->n_consts] = (t1_value){.type = T1_LIST, .i = (int64_t)off, .len = count};
    node *n = N(ps, list);
    n->kind = N_CONST;
    n->a = (int32_t)e->n_consts++;
    return list;
}

/* After '[' or '(': a list, a comprehension, or (for '(') a parenthesized
 * expression or a tuple, which is a list here. */
static int32_t parse_group(parser *ps, int close)
{
    size_t pos = ps->tok.start;
    if (t1_lex_next(ps))
        return -1;
    if (is_op(ps, close)) {
        if (t1_lex_next(ps))
            return -1;
        return new_node(ps, N_LIST, 0, pos, -1, -1, 0);
    }
    int32_t first = parse_expr(ps);
    if (first < 0)
        return -1;
    if (is_kw(ps, KW_FOR))
        return parse_comp(ps, first, pos, close);
    if (close == P_RPAREN && !is_op(ps, P_COMMA)) {
        if (expect(ps, P_RPAREN))
            return -1;
        return first;
    }
    int32_t count;
    if (parse_items(ps, first, close, &count))
        return -1;
    return fold_list(ps, new_node(ps, N_LIST, 0, pos, first, -1, count));
}

static int32_t parse_call(parser *ps)
{
    char sh[SHOW_MAX + 4];
    size_t pos = ps->tok.start, len = ps->tok.end - ps->tok.start;
    int fn = -1;
    for (int k = 0; k < F_COUNT; k++)
        if (strlen(t1_fns[k].name) == len && memcmp(t1_fns[k].name, ps->text + pos, len) == 0)
            fn = k;
    if (fn < 0)
        return t1_perr(ps, pos, "'%s' is not a function", t1_show_bytes(ps->text + pos, len, sh));
    if (t1_lex_next(ps) || t1_lex_next(ps)) /* the name, the '(' */
        return -1;
    int32_t first = -1, count = 0;
    if (is_op(ps, P_RPAREN)) {
        if (t1_lex_next(ps))
            return -1;
    } else {
        first = parse_expr(ps);
        if (first < 0)
            return -1;
        if (is_kw(ps, KW_FOR)) {
            /* max(x for x in L): Python's generator, a list here. */
            first = parse_comp(ps, first, N(ps, first)->pos, P_RPAREN);
            count = 1;
            if (first < 0)
                return -1;
        } else if (parse_items(ps, first, P_RPAREN, &count)) {
            return -1;
        }
    }
    const t1_fn_info *f = &t1_fns[fn];
    if (count < f->min_args || (f->max_args >= 0 && count > f->max_args)) {
        if (f->min_args == f->max_args)
            return t1_perr(ps, pos, "%s() takes %d argument%s, not %d", f->name, f->min_args,
                           f->min_args == 1 ? "" : "s", (int)count);
        if (f->max_args < 0)
            return t1_perr(ps, pos, "%s() takes at least %d argument", f->name, f->min_args);
        return t1_perr(ps, pos, "%s() takes %d to %d arguments, not %d", f->name, f->min_args,
                       f->max_args, (int)count);
    }
    return new_node(ps, N_CALL, fn, pos, first, -1, count);
}

static int32_t parse_atom(parser *ps)
{
    char sh[SHOW_MAX + 4];
    token *t = &ps->tok;
    size_t pos = t->start;
    t1_value v = {0};
    switch (t->kind) {
    case TK_INT:
        v.type = T1_INT;
        v.i = t->i;
        break;
    case TK_FLOAT:
        v.type = T1_FLOAT;
        v.f = t->f;
        break;
    case TK_STR:
        /* The pool may move until the compile ends: s is set then. */
        v.type = T1_STRING;
        v.i = (int64_t)t->str_off;
        v.len = t->str_len;
        break;
    case TK_KW:
        if (t->code != KW_TRUE && t->code != KW_FALSE)
            return t1_perr(ps, pos, "an operand expected, not '%s'", tok_text(ps, sh));
        v.type = T1_BOOL;
        v.i = t->code == KW_TRUE;
        break;
    case TK_NAME:
        if (t1_next_char_is(ps, '('))
            return parse_call(ps);
        {
            int32_t n = new_node(ps, N_NAME, 0, pos, (int32_t)(t->end - t->start), -1, -1);
            return n < 0 || t1_lex_next(ps) ? -1 : n;
        }
    case TK_OP:
        if (t->code == P_LPAREN)
            return parse_group(ps, P_RPAREN);
        if (t->code == P_LBRACK)
            return parse_group(ps, P_RBRACK);
        return t1_perr(ps, pos, "an operand expected, not '%s'", tok_text(ps, sh));
    default:
        return t1_perr(ps, pos, "an operand expected");
    }
    int32_t n = new_const(ps, &v, pos);
    return n < 0 || t1_lex_next(ps) ? -1 : n;
}

static int32_t parse_postfix(parser *ps)
{
    int32_t x = parse_atom(ps);
    int levels = 0;
    while (x >= 0 && is_op(ps, P_LBRACK)) {
        /* a[0][0]...: each index nests the object one level deeper. */
        if (!enter(ps)) {
            x = -1;
            break;
        }
        levels++;
        size_t pos = ps->tok.start;
        int32_t idx = t1_lex_next(ps) ? -1 : parse_expr(ps);
        if (idx < 0 || expect(ps, P_RBRACK)) {
            x = -1;
            break;
        }
        x = new_node(ps, N_INDEX, 0, pos, x, idx, -1);
    }
    ps->depth -= levels;
    return x;
}

static int32_t parse_factor(parser *ps);

static int32_t parse_power(parser *ps)
{
    int32_t base = parse_postfix(ps);
    if (base < 0 || !is_op(ps, OP_POW))
        return base;
    size_t pos = ps->tok.start;
    if (t1_lex_next(ps) || !enter(ps))
        return -1;
    int32_t exp = parse_factor(ps); /* right-associative, and 2**-1 */
    ps->depth--;
    return exp < 0 ? -1 : new_node(ps, N_BIN, OP_POW, pos, base, exp, -1);
}

static int32_t parse_factor(parser *ps)
{
    int code = ps->tok.code;
    if (ps->tok.kind != TK_OP || (code != OP_SUB && code != OP_ADD && code != OP_INV))
        return parse_power(ps);
    int op = code == OP_SUB ? OP_NEG : code == OP_ADD ? OP_POS : OP_INV;
    size_t pos = ps->tok.start;
    if (t1_lex_next(ps) || !enter(ps))
        return -1;
    int32_t a = parse_factor(ps);
    ps->depth--;
    if (a < 0)
        return -1;
    /* -1 is a constant, not a negation done at every evaluation. A literal
     * is 0..INT64_MAX and folding keeps it within +-INT64_MAX, so the
     * negation always fits. */
    node *n = N(ps, a);
    t1_value *v = n->kind == N_CONST ? &ps->e->consts[n->a] : NULL;
    if (v && op != OP_INV && (v->type == T1_INT || v->type == T1_FLOAT)) {
        if (op == OP_NEG && v->type == T1_INT)
            v->i = -v->i;
        else if (op == OP_NEG)
            v->f = -v->f;
        n->pos = (uint32_t)pos;
        return a;
    }
    return new_node(ps, N_UNARY, op, pos, a, -1, -1);
}

/* The operator of a binary level at the current token, or -1. */
enum level { LV_BOR, LV_BXOR, LV_BAND, LV_SHIFT, LV_ARITH, LV_TERM };

static int level_op(const parser *ps, int level)
{
    if (ps->tok.kind != TK_OP)
        return -1;
    int c = ps->tok.code;
    switch (level) {
    case LV_BOR: return c == OP_BOR ? c : -1;
    case LV_BXOR: return c == OP_BXOR ? c : -1;
    case LV_BAND: return c == OP_BAND ? c : -1;
    case LV_SHIFT: return c == OP_SHL || c == OP_SHR ? c : -1;
    case LV_ARITH: return c == OP_ADD || c == OP_SUB ? c : -1;
    default: return c == OP_MUL || c == OP_DIV || c == OP_FDIV || c == OP_MOD ? c : -1;
    }
}

static int32_t parse_binary(parser *ps, int level)
{
    int32_t first = level == LV_TERM ? parse_factor(ps) : parse_binary(ps, level + 1);
    if (first < 0)
        return -1;
    int32_t last = first;
    int n = 1, op;
    while ((op = level_op(ps, level)) >= 0) {
        size_t pos = ps->tok.start;
        if (t1_lex_next(ps))
            return -1;
        int32_t rhs = level == LV_TERM ? parse_factor(ps) : parse_binary(ps, level + 1);
        if (rhs < 0)
            return -1;
        link_sibling(ps, &last, rhs, op, pos);
        n++;
    }
    return finish_run(ps, first, n, N_BIN, N_CHAIN);
}

/* The comparison operator at the current token, consumed; -1 if none. */
static int take_comparison(parser *ps, size_t *pos)
{
    int op = -1;
    *pos = ps->tok.start;
    if (ps->tok.kind == TK_OP && ps->tok.code >= OP_LT && ps->tok.code <= OP_NE)
        op = ps->tok.code;
    else if (is_kw(ps, KW_IN))
        op = OP_IN;
    else if (is_kw(ps, KW_NOT) && t1_next_is_in(ps))
        op = OP_NOTIN;
    if (op < 0)
        return -1;
    if (t1_lex_next(ps) || (op == OP_NOTIN && t1_lex_next(ps)))
        return -2;
    return op;
}

static int32_t parse_comparison(parser *ps)
{
    int32_t first = parse_binary(ps, LV_BOR);
    if (first < 0)
        return -1;
    int32_t last = first;
    int n = 1, op;
    size_t pos;
    while ((op = take_comparison(ps, &pos)) != -1) {
        int32_t rhs = op < 0 ? -1 : parse_binary(ps, LV_BOR);
        if (rhs < 0)
            return -1;
        link_sibling(ps, &last, rhs, op, pos);
        n++;
    }
    return finish_run(ps, first, n, N_CMP, N_CMPCHAIN);
}

static int32_t parse_not(parser *ps)
{
    if (!is_kw(ps, KW_NOT))
        return parse_comparison(ps);
    size_t pos = ps->tok.start;
    if (t1_lex_next(ps) || !enter(ps))
        return -1;
    int32_t a = parse_not(ps);
    ps->depth--;
    return a < 0 ? -1 : new_node(ps, N_NOT, OP_NOT, pos, a, -1, -1);
}

/* kw KW_OR: operands are and-runs; KW_AND: operands are not-expressions. */
static int32_t parse_bool(parser *ps, int kw)
{
    int32_t first = kw == KW_OR ? parse_bool(ps, KW_AND) : parse_not(ps);
    if (first < 0 || !is_kw(ps, kw))
        return first;
    size_t pos = ps->tok.start;
    int32_t last = first;
    while (is_kw(ps, kw)) {
        size_t lpos = ps->tok.start;
        if (t1_lex_next(ps))
            return -1;
        int32_t next = kw == KW_OR ? parse_bool(ps, KW_AND) : parse_not(ps);
        if (next < 0)
            return -1;
        link_sibling(ps, &last, next, kw == KW_OR ? OP_OR : OP_AND, lpos);
    }
    return new_node(ps, N_BOOL, kw == KW_OR ? OP_OR : OP_AND, pos, first, -1, -1);
}

static int32_t parse_ternary(parser *ps)
{
    int32_t then = parse_bool(ps, KW_OR);
    if (then < 0 || !is_kw(ps, KW_IF))
        return then;
    size_t pos = ps->tok.start;
    if (t1_lex_next(ps))
        return -1;
    int32_t cond = parse_bool(ps, KW_OR);
    if (cond < 0)
        return -1;
    if (!is_kw(ps, KW_ELSE))
        return t1_perr(ps, ps->tok.start, "'else' expected");
    if (t1_lex_next(ps))
        return -1;
    int32_t other = parse_expr(ps);
    return other < 0 ? -1 : new_node(ps, N_IFELSE, 0, pos, then, cond, other);
}

static int32_t parse_expr(parser *ps)
{
    if (!enter(ps))
        return -1;
    int32_t r = parse_ternary(ps);
    ps->depth--;
    return r;
}

/* ---------------------------------------------------------------- compile */

void t1_expr_free(t1_expr *e)
{
    if (!e)
        return;
    free(e->text);
    free(e->nodes);
    free(e->consts);
    free(e->pool);
    free(e->citems);
    free(e->slots);
    free(e);
}

static int compile_text(parser *ps)
{
    if (t1_lex_next(ps))
        return -1;
    if (ps->tok.kind == TK_END)
        return t1_perr(ps, ps->tok.start, "an empty expression");
    int32_t root = parse_expr(ps);
    if (root < 0)
        return -1;
    if (ps->tok.kind != TK_END) {
        char sh[SHOW_MAX + 4];
        return t1_perr(ps, ps->tok.start, "unexpected '%s'", tok_text(ps, sh));
    }
    ps->e->root = root;
    return 0;
}

/* A constant's offset into the pool or the items, made a pointer. */
static void fix_const(t1_expr *e, t1_value *v)
{
    if (v->type == T1_STRING)
        v->s = e->pool + v->i;
    else if (v->type == T1_LIST)
        v->items = v->len ? e->citems + v->i : NULL;
    else
        return;
    v->i = 0;
}

t1_expr *t1_expr_compile(const char *text, t1_resolve resolve, void *ctx, char *err, size_t cap)
{
    if (err && cap)
        err[0] = '\0';
    if (!text)
        text = "";
    size_t len = 0;
    while (len <= T1_EXPR_TEXT_MAX && text[len])
        len++;
    if (len > T1_EXPR_TEXT_MAX) {
        char reason[64];
        snprintf(reason, sizeof reason, "longer than %d bytes", T1_EXPR_TEXT_MAX);
        t1_write_error(err, cap, text, len, SIZE_MAX, 1, reason);
        return NULL;
    }
    t1_expr *e = calloc(1, sizeof *e);
    if (e)
        e->text = malloc(len + 1);
    if (!e || !e->text) {
        t1_expr_free(e);
        if (err && cap)
            snprintf(err, cap, "out of memory");
        return NULL;
    }
    memcpy(e->text, text, len + 1);
    e->len = len;
    parser ps = {.text = e->text, .len = len, .err = err, .cap = cap, .e = e};
    if (compile_text(&ps)) {
        t1_expr_free(e);
        return NULL;
    }
    for (size_t k = 0; k < e->n_consts; k++)
        fix_const(e, &e->consts[k]);
    for (size_t k = 0; k < e->n_citems; k++)
        fix_const(e, &e->citems[k]);
    if (t1_resolve_names(e, resolve, ctx, err, cap)) {
        if (err && cap && !err[0])
            snprintf(err, cap, "out of memory");
        t1_expr_free(e);
        return NULL;
    }
    return e;
}

size_t t1_expr_slots(const t1_expr *e, int *out, size_t cap)
{
    if (!e)
        return 0;
    for (size_t k = 0; k < e->n_slots && k < cap; k++)
        out[k] = e->slots[k];
    return e->n_slots;
}

