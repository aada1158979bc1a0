/*
 * t1_builtins.c — what t1_eval.c hands on: the functions (min, max, abs,
 * int, float, round, len, bool, str, range), x[i], lists and
 * comprehensions, each bounded (T1_EXPR_LIST_MAX values a list,
 * COMP_STEPS_MAX steps an evaluation) before anything is made.
 */
#include "t1_expr_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* By enum fn. */
const t1_fn_info t1_fns[F_COUNT] = {
    {"min", 1, -1}, {"max", 1, -1}, {"abs", 1, 1},  {"int", 1, 1},   {"float", 1, 1},
    {"round", 1, 2}, {"len", 1, 1}, {"bool", 1, 1}, {"str", 1, 1}, {"range", 1, 3},
};

/* A string's len, x[i] and for count UTF-8 characters, as Python's do. */
static size_t utf8_count(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += ((unsigned char)s[i] & 0xc0) != 0x80;
    return k;
}

static size_t utf8_next(const char *s, size_t n, size_t i)
{
    for (i++; i < n && ((unsigned char)s[i] & 0xc0) == 0x80; i++)
        ;
    return i;
}

/* ------------------------------------------------------------ x[i] */

int t1_index_value(const evctx *c, uint32_t pos, const t1_value *obj, const t1_value *idx,
                   t1_value *out)
{
    if (obj->type != T1_LIST && obj->type != T1_STRING)
        return t1_efail(c, pos, "'[]' of %s: only a list or a string has items", t1_a_type(obj->type));
    if (!t1_is_int(idx))
        return t1_efail(c, pos, "an index must be an int, not %s", t1_a_type(idx->type));
    size_t n = obj->type == T1_LIST ? obj->len : utf8_count(obj->s, obj->len);
    int64_t k = idx->i < 0 ? idx->i + (int64_t)n : idx->i;
    if (k < 0 || (uint64_t)k >= n)
        return t1_efail(c, pos, "index %lld out of range for %s of %zu", (long long)idx->i,
                        obj->type == T1_LIST ? "a list" : "a string", n);
    if (obj->type == T1_LIST) {
        *out = obj->items[k];
        return 0;
    }
    size_t from = 0;
    for (int64_t j = 0; j < k; j++)
        from = utf8_next(obj->s, obj->len, from);
    size_t to = utf8_next(obj->s, obj->len, from);
    return t1_make_string(c, pos, obj->s + from, to - from, NULL, 0, out);
}

/* ------------------------------------------------------------ calls */

static int eval_args(evctx *c, const node *nd, t1_value *v)
{
    int32_t k = nd->a;
    for (int i = 0; i < nd->c; i++, k = c->nodes[k].next)
        if (t1_eval_node(c, k, &v[i]))
            return -1;
    return 0;
}

/* range()'s arguments: its first value, step and how many; refused when
 * longer than a list may be, before anything is made. */
static int range_bounds(const evctx *c, const node *nd, const t1_value *v, int64_t *start, int64_t *step,
                        size_t *count)
{
    for (int k = 0; k < nd->c; k++)
        if (!t1_is_int(&v[k]))
            return t1_efail(c, nd->pos, "range() takes ints, not %s", t1_a_type(v[k].type));
    int64_t a = 0, b, s = 1;
    if (nd->c == 1) {
        b = v[0].i;
    } else {
        a = v[0].i;
        b = v[1].i;
        if (nd->c == 3)
            s = v[2].i;
    }
    if (s == 0)
        return t1_efail(c, nd->pos, "range() with a step of 0");
    uint64_t n = 0;
    if (s > 0 && a < b)
        n = ((uint64_t)b - (uint64_t)a - 1) / (uint64_t)s + 1;
    else if (s < 0 && a > b)
        n = ((uint64_t)a - (uint64_t)b - 1) / ((uint64_t)0 - (uint64_t)s) + 1;
    if (n > T1_EXPR_LIST_MAX)
        return t1_efail(c, nd->pos, "range() of %llu values: a list holds at most %d",
                        (unsigned long long)n, T1_EXPR_LIST_MAX);
    *start = a;
    *step = s;
    *count = (size_t)n;
    return 0;
}

/* The k-th value of a range, in modular arithmetic: it lies between the
 * bounds, so it fits. */
static int64_t range_item(int64_t start, int64_t step, size_t k)
{
    return (int64_t)((uint64_t)start + (uint64_t)k * (uint64_t)step);
}

static int call_range(evctx *c, const node *nd, const t1_value *v, t1_value *out)
{
    int64_t start, step;
    size_t n;
    if (range_bounds(c, nd, v, &start, &step, &n))
        return -1;
    t1_value *items = n ? t1_alloc(c, n * sizeof *items, nd->pos) : NULL;
    if (n && !items)
        return -1;
    for (size_t k = 0; k < n; k++) {
        items[k] = (t1_value){.type = T1_INT, .i = range_item(start, step, k)};
    }
    t1_set_list(out, items, n);
    return 0;
}

static int call_minmax(evctx *c, const node *nd, t1_value *out)
{
    int op = nd->op == F_MIN ? OP_LT : OP_GT;
    int better;
    t1_value v;
    if (nd->c == 1) {
        if (t1_eval_node(c, nd->a, &v))
            return -1;
        if (v.type != T1_LIST)
            return t1_efail(c, nd->pos, "%s() of %s: one argument must be a list", t1_fns[nd->op].name,
                            t1_a_type(v.type));
        if (v.len == 0)
            return t1_efail(c, nd->pos, "%s() of an empty list", t1_fns[nd->op].name);
        const t1_value *best = &v.items[0];
        for (size_t k = 1; k < v.len; k++) {
            if (t1_order(c, op, nd->pos, &v.items[k], best, &better))
                return -1;
            if (better)
                best = &v.items[k];
        }
        *out = *best;
        return 0;
    }
    /* The first of equal values wins, as in Python. */
    if (t1_eval_node(c, nd->a, out))
        return -1;
    for (int32_t k = c->nodes[nd->a].next; k >= 0; k = c->nodes[k].next) {
        if (t1_eval_node(c, k, &v) || t1_order(c, op, nd->pos, &v, out, &better))
            return -1;
        if (better)
            *out = v;
    }
    return 0;
}

static int float_to_int(const evctx *c, uint32_t pos, const char *fn, double x, t1_value *out)
{
    if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) {
        char sh[SHOW_MAX + 4];
        t1_value v = {.type = T1_FLOAT, .f = x};
        return t1_efail(c, pos, "%s() of %s: not a 64-bit integer", fn, t1_show_value(&v, sh));
    }
    return t1_set_int(out, (int64_t)x);
}

/* s[0..n) without the spaces Python's int() and float() skip around it. */
static void trim(const char **s, size_t *n)
{
    while (*n && t1_is_space(**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n && t1_is_space((*s)[*n - 1]))
        (*n)--;
}

static int text_to_int(const evctx *c, uint32_t pos, const t1_value *v, t1_value *out)
{
    const char *s = v->s;
    size_t n = v->len, p = 0;
    trim(&s, &n);
    int neg = n && s[0] == '-';
    if (n && (s[0] == '-' || s[0] == '+'))
        p = 1;
    size_t end = t1_scan_digits(s, n, p, 10);
    uint64_t u = 0;
    int ok = end == n && end > p;
    for (size_t i = p; ok && i < end; i++) {
        if (s[i] == '_')
            continue;
        uint64_t d = (uint64_t)(s[i] - '0');
        ok = u <= (UINT64_MAX - d) / 10;
        u = u * 10 + d;
    }
    char sh[SHOW_MAX + 4];
    if (!ok)
        return t1_efail(c, pos, "int() of %s: not an integer", t1_show_value(v, sh));
    if (u > (uint64_t)INT64_MAX + neg)
        return t1_efail(c, pos, "int() of %s: not a 64-bit integer", t1_show_value(v, sh));
    return t1_set_int(out, neg ? (int64_t)(0 - u) : (int64_t)u);
}

static int word_is(const char *s, size_t n, const char *w)
{
    if (strlen(w) != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((s[i] | 0x20) != w[i])
            return 0;
    return 1;
}

static int text_to_float(const evctx *c, uint32_t pos, const t1_value *v, t1_value *out)
{
    const char *s = v->s;
    size_t n = v->len;
    trim(&s, &n);
    double sign = 1.0;
    if (n && (s[0] == '-' || s[0] == '+')) {
        sign = s[0] == '-' ? -1.0 : 1.0;
        s++;
        n--;
    }
    if (word_is(s, n, "inf") || word_is(s, n, "infinity"))
        return t1_set_float(out, sign * INFINITY);
    if (word_is(s, n, "nan"))
        return t1_set_float(out, copysign(NAN, sign));
    int is_float;
    double f;
    if (n == 0 || t1_scan_decimal(s, n, &is_float) != n) {
        char sh[SHOW_MAX + 4];
        return t1_efail(c, pos, "float() of %s: not a number", t1_show_value(v, sh));
    }
    if (t1_decimal_to_double(s, n, &f))
        return t1_alloc_fail(c, pos, A_NOMEM);
    return t1_set_float(out, sign * f);
}

static int to_int(const evctx *c, uint32_t pos, const t1_value *v, t1_value *out)
{
    if (t1_is_int(v))
        return t1_set_int(out, v->i);
    if (v->type == T1_FLOAT)
        return float_to_int(c, pos, "int", trunc(v->f), out);
    if (v->type == T1_STRING)
        return text_to_int(c, pos, v, out);
    return t1_efail(c, pos, "int() of %s", t1_a_type(v->type));
}

static int to_float(const evctx *c, uint32_t pos, const t1_value *v, t1_value *out)
{
    if (t1_is_num(v))
        return t1_set_float(out, t1_num_f(v));
    if (v->type == T1_STRING)
        return text_to_float(c, pos, v, out);
    return t1_efail(c, pos, "float() of %s", t1_a_type(v->type));
}

/* Python 3's round(): halves go to the even neighbour. x - floor(x) is
 * exact, so the tie is seen exactly. */
static double round_half_even(double x)
{
    double f = floor(x), d = x - f;
    if (d > 0.5 || (d == 0.5 && fmod(f, 2.0) != 0.0))
        f += 1.0;
    return f;
}

/* round(a, digits) of an int: a multiple of 10**-digits, halves to even. */
static int round_int(const evctx *c, uint32_t pos, int64_t a, int64_t digits, t1_value *out)
{
    if (digits >= 0)
        return t1_set_int(out, a);
    if (digits < -19)
        return t1_set_int(out, 0);
    if (digits == -19) {
        /* 10**19 does not fit: only 0 or an overflow are possible. */
        if (a > 5000000000000000000LL || a < -5000000000000000000LL)
            return t1_efail(c, pos, "round() overflows a 64-bit integer");
        return t1_set_int(out, 0);
    }
    int64_t p = 1;
    for (int64_t k = 0; k < -digits; k++)
        p *= 10;
    int64_t q = a / p, r = a % p;
    if (r < 0) {
        r += p;
        q--;
    }
    if (2 * r > p || (2 * r == p && (q & 1)))
        q++;
    int64_t v;
    if (__builtin_mul_overflow(q, p, &v))
        return t1_efail(c, pos, "round() overflows a 64-bit integer");
    return t1_set_int(out, v);
}

/* round(x, digits) of a float: printf's %.*f rounds the exact binary value
 * correctly, as Python's own round does. Negative digits go through a
 * division, exact for the usual sizes. */
static int round_float(const evctx *c, uint32_t pos, double x, int64_t digits, t1_value *out)
{
    if (!isfinite(x) || x == 0.0 || digits > 330)
        return t1_set_float(out, x);
    if (digits >= 0) {
        char buf[720];
        snprintf(buf, sizeof buf, "%.*f", (int)digits, x);
        return t1_set_float(out, strtod(buf, NULL));
    }
    if (digits < -330)
        return t1_set_float(out, copysign(0.0, x));
    double p = pow(10.0, (double)-digits);
    if (isinf(p))
        return t1_set_float(out, copysign(0.0, x));
    double y = round_half_even(x / p) * p;
    if (!isfinite(y))
        return t1_efail(c, pos, "round() overflows a float");
    return t1_set_float(out, y == 0.0 ? copysign(0.0, x) : y);
}

static int call_round(const evctx *c, const node *nd, const t1_value *v, t1_value *out)
{
    if (!t1_is_num(&v[0]))
        return t1_efail(c, nd->pos, "round() of %s", t1_a_type(v[0].type));
    if (nd->c == 1) {
        if (t1_is_int(&v[0]))
            return t1_set_int(out, v[0].i);
        return float_to_int(c, nd->pos, "round", round_half_even(v[0].f), out);
    }
    if (!t1_is_int(&v[1]))
        return t1_efail(c, nd->pos, "round()'s digits must be an int, not %s", t1_a_type(v[1].type));
    if (t1_is_int(&v[0]))
        return round_int(c, nd->pos, v[0].i, v[1].i, out);
    return round_float(c, nd->pos, v[0].f, v[1].i, out);
}

static int to_str(const evctx *c, uint32_t pos, const t1_value *v, t1_value *out)
{
    size_t n = t1_value_format(v, 1, NULL, 0);
    char *s = n < SIZE_MAX ? t1_alloc(c, n + 1, pos) : NULL;
    if (!s)
        return -1;
    t1_value_format(v, 1, s, n + 1);
    out->type = T1_STRING;
    out->s = s;
    out->len = n;
    return 0;
}

int t1_call(evctx *c, const node *nd, t1_value *out)
{
    if (nd->op == F_MIN || nd->op == F_MAX)
        return call_minmax(c, nd, out);
    t1_value v[3];
    if (eval_args(c, nd, v))
        return -1;
    switch (nd->op) {
    case F_ABS:
        if (t1_is_int(&v[0])) {
            if (v[0].i == INT64_MIN)
                return t1_efail(c, nd->pos, "abs() overflows a 64-bit integer");
            return t1_set_int(out, v[0].i < 0 ? -v[0].i : v[0].i);
        }
        if (v[0].type == T1_FLOAT)
            return t1_set_float(out, fabs(v[0].f));
        return t1_efail(c, nd->pos, "abs() of %s", t1_a_type(v[0].type));
    case F_INT: return to_int(c, nd->pos, &v[0], out);
    case F_FLOAT: return to_float(c, nd->pos, &v[0], out);
    case F_ROUND: return call_round(c, nd, v, out);
    case F_LEN:
        if (v[0].type == T1_LIST)
            return t1_set_int(out, (int64_t)v[0].len);
        if (v[0].type == T1_STRING)
            return t1_set_int(out, (int64_t)utf8_count(v[0].s, v[0].len));
        return t1_efail(c, nd->pos, "len() of %s", t1_a_type(v[0].type));
    case F_BOOL: return t1_set_bool(out, t1_truth(&v[0]));
    case F_STR: return to_str(c, nd->pos, &v[0], out);
    default: return call_range(c, nd, v, out);
    }
}

/* ------------------------------------------------------------ lists */

int t1_make_list(evctx *c, const node *nd, t1_value *out)
{
    size_t n = (size_t)nd->c;
    t1_value *items = n ? t1_alloc(c, n * sizeof *items, nd->pos) : NULL;
    if (n && !items)
        return -1;
    int32_t k = nd->a;
    for (size_t i = 0; i < n; i++, k = c->nodes[k].next)
        if (t1_eval_node(c, k, &items[i]))
            return -1;
    t1_set_list(out, items, n);
    return 0;
}

typedef struct builder {
    t1_value *items;
    size_t len, cap;
} builder;

static int push(const evctx *c, builder *b, const t1_value *v, uint32_t pos)
{
    if (b->len == b->cap) {
        if (b->len >= T1_EXPR_LIST_MAX)
            return t1_efail(c, pos, "a list of more than %d values", T1_EXPR_LIST_MAX);
        size_t n = b->cap ? b->cap * 2 : 8;
        if (n > T1_EXPR_LIST_MAX)
            n = T1_EXPR_LIST_MAX;
        int why = A_NOMEM;
        if (!c->arena)
            return t1_efail(c, pos, "a list or string needs an arena, and none was given");
        t1_value *p = t1_arena_grow(c->arena, b->items, b->cap * sizeof *p, n * sizeof *p, &why);
        if (!p)
            return t1_alloc_fail(c, pos, why);
        b->items = p;
        b->cap = n;
    }
    b->items[b->len++] = *v;
    return 0;
}

static int step(evctx *c, uint32_t pos)
{
    if (c->steps == 0)
        return t1_efail(c, pos, "comprehensions take more than %llu steps",
                        (unsigned long long)COMP_STEPS_MAX);
    c->steps--;
    return 0;
}

static int comp_run(evctx *c, int32_t k, int32_t item, builder *b, uint32_t pos);

/* for x in range(...): counted, not built. */
static int comp_range(evctx *c, const node *cl, int32_t item, builder *b, uint32_t pos)
{
    const node *it = &c->nodes[cl->a];
    t1_value v[3];
    int64_t start, stepv;
    size_t n;
    if (eval_args(c, it, v) || range_bounds(c, it, v, &start, &stepv, &n))
        return -1;
    t1_value *var = &c->locals[cl->c];
    for (size_t i = 0; i < n; i++) {
        if (step(c, cl->pos))
            return -1;
        *var = (t1_value){.type = T1_INT, .i = range_item(start, stepv, i)};
        if (comp_run(c, cl->next, item, b, pos))
            return -1;
    }
    return 0;
}

static int comp_for(evctx *c, const node *cl, int32_t item, builder *b, uint32_t pos)
{
    const node *it = &c->nodes[cl->a];
    if (it->kind == N_CALL && it->op == F_RANGE)
        return comp_range(c, cl, item, b, pos);
    t1_value seq;
    if (t1_eval_node(c, cl->a, &seq))
        return -1;
    t1_value *var = &c->locals[cl->c];
    if (seq.type == T1_LIST) {
        for (size_t i = 0; i < seq.len; i++) {
            if (step(c, cl->pos))
                return -1;
            *var = seq.items[i];
            if (comp_run(c, cl->next, item, b, pos))
                return -1;
        }
        return 0;
    }
    if (seq.type != T1_STRING)
        return t1_efail(c, it->pos, "'for' over %s: only a list or a string has items",
                        t1_a_type(seq.type));
    for (size_t i = 0; i < seq.len;) {
        size_t j = utf8_next(seq.s, seq.len, i);
        if (step(c, cl->pos) || t1_make_string(c, cl->pos, seq.s + i, j - i, NULL, 0, var) ||
            comp_run(c, cl->next, item, b, pos))
            return -1;
        i = j;
    }
    return 0;
}

/* The clauses from k on, then the item into b. */
static int comp_run(evctx *c, int32_t k, int32_t item, builder *b, uint32_t pos)
{
    t1_value v;
    if (k < 0)
        return t1_eval_node(c, item, &v) || push(c, b, &v, pos) ? -1 : 0;
    const node *cl = &c->nodes[k];
    if (cl->kind == N_FOR)
        return comp_for(c, cl, item, b, pos);
    if (t1_eval_node(c, cl->a, &v))
        return -1;
    return t1_truth(&v) ? comp_run(c, cl->next, item, b, pos) : 0;
}

/* The list grows in place at the arena's end while its items make
 * nothing (push), so [x*2 for x in L] copies no item twice. */
int t1_comprehension(evctx *c, const node *nd, t1_value *out)
{
    builder b = {NULL, 0, 0};
    if (comp_run(c, nd->b, nd->a, &b, nd->pos))
        return -1;
    t1_set_list(out, b.items, b.len);
    return 0;
}
