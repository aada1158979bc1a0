/*
 * t1_eval.c — t1_expr_eval (t1_expr.h): the tree walked, Python's meaning
 * for each operator, every integer operation checked. The hot path of a
 * condition (a node, its operands, a comparison or an arithmetic operator
 * of ints) stays in this one file, so the compiler sees all of it; calls,
 * x[i], lists and comprehensions are in t1_builtins.c.
 */
#include "t1_expr_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- values */

int t1_alloc_fail(const evctx *c, uint32_t pos, int why)
{
    if (why == A_LIMIT)
        return t1_efail(c, pos, "lists and strings take more than the arena's %zu bytes",
                        t1_arena_limit(c->arena));
    if (c->err && c->cap)
        snprintf(c->err, c->cap, "out of memory");
    return -1;
}

void *t1_alloc(const evctx *c, size_t n, uint32_t pos)
{
    if (!c->arena) {
        t1_efail(c, pos, "a list or string needs an arena, and none was given");
        return NULL;
    }
    int why = A_NOMEM;
    void *p = t1_arena_alloc(c->arena, n, &why);
    if (!p)
        t1_alloc_fail(c, pos, why);
    return p;
}

int t1_value_truth(const t1_value *v) { return v ? t1_truth(v) : 0; }

/* A new NUL-terminated string of a[0..na) then b[0..nb). */
int t1_make_string(const evctx *c, uint32_t pos, const char *a, size_t na, const char *b, size_t nb,
                   t1_value *out)
{
    if (na > SIZE_MAX - 1 - nb)
        return t1_efail(c, pos, "a string too long");
    char *s = t1_alloc(c, na + nb + 1, pos);
    if (!s)
        return -1;
    if (na)
        memcpy(s, a, na);
    if (nb)
        memcpy(s + na, b, nb);
    s[na + nb] = '\0';
    out->type = T1_STRING;
    out->s = s;
    out->len = na + nb;
    return 0;
}

/* ------------------------------------------------------------ comparison */

/* Python compares an int and a float exactly, not through a rounded
 * double: -1, 0, 1, or 2 when unordered (a NaN). */
static int cmp_int_float(int64_t i, double f)
{
    if (isnan(f))
        return 2;
    if (f >= 9223372036854775808.0)
        return -1;
    if (f < -9223372036854775808.0)
        return 1;
    double t = trunc(f);
    int64_t ti = (int64_t)t;
    if (i != ti)
        return i < ti ? -1 : 1;
    return f > t ? -1 : f < t ? 1 : 0;
}

static int num_cmp(const t1_value *l, const t1_value *r)
{
    if (t1_is_int(l) && t1_is_int(r))
        return l->i < r->i ? -1 : l->i > r->i;
    if (t1_is_int(l)) {
        return cmp_int_float(l->i, r->f);
    }
    if (t1_is_int(r)) {
        int k = cmp_int_float(r->i, l->f);
        return k == 2 ? 2 : -k;
    }
    if (isnan(l->f) || isnan(r->f))
        return 2;
    return l->f < r->f ? -1 : l->f > r->f;
}

static int str_cmp(const t1_value *l, const t1_value *r)
{
    size_t n = l->len < r->len ? l->len : r->len;
    int k = n ? memcmp(l->s, r->s, n) : 0;
    if (k)
        return k < 0 ? -1 : 1;
    return l->len < r->len ? -1 : l->len > r->len;
}

static int values_equal(const t1_value *l, const t1_value *r)
{
    if (t1_is_num(l) && t1_is_num(r))
        return num_cmp(l, r) == 0;
    if (l->type != r->type)
        return 0;
    if (l->type == T1_STRING)
        return l->len == r->len && (l->len == 0 || memcmp(l->s, r->s, l->len) == 0);
    if (l->type != T1_LIST || l->len != r->len)
        return 0;
    for (size_t k = 0; k < l->len; k++)
        if (!values_equal(&l->items[k], &r->items[k]))
            return 0;
    return 1;
}

static int ord_holds(int op, int k)
{
    switch (op) {
    case OP_LT: return k == -1;
    case OP_LE: return k == -1 || k == 0;
    case OP_GT: return k == 1;
    case OP_GE: return k == 1 || k == 0;
    case OP_EQ: return k == 0;
    default: return k != 0;
    }
}

static int type_error(const evctx *c, int op, uint32_t pos, const t1_value *l, const t1_value *r)
{
    return t1_efail(c, pos, "'%s' between %s and %s", t1_op_name[op], t1_type_name(l->type),
                    t1_type_name(r->type));
}

/* An ordering (< <= > >=) as Python's: numbers, strings, and lists item by
 * item; anything else is a type error. */
int t1_order(const evctx *c, int op, uint32_t pos, const t1_value *l, const t1_value *r, int *res)
{
    if (t1_is_num(l) && t1_is_num(r)) {
        *res = ord_holds(op, num_cmp(l, r));
        return 0;
    }
    if (l->type == T1_STRING && r->type == T1_STRING) {
        *res = ord_holds(op, str_cmp(l, r));
        return 0;
    }
    if (l->type == T1_LIST && r->type == T1_LIST) {
        size_t k = 0;
        while (k < l->len && k < r->len && values_equal(&l->items[k], &r->items[k]))
            k++;
        if (k < l->len && k < r->len)
            return t1_order(c, op, pos, &l->items[k], &r->items[k], res);
        *res = ord_holds(op, l->len < r->len ? -1 : l->len > r->len);
        return 0;
    }
    return type_error(c, op, pos, l, r);
}

static int contains(const evctx *c, int op, uint32_t pos, const t1_value *l, const t1_value *r, int *res)
{
    int found = 0;
    if (r->type == T1_LIST) {
        for (size_t k = 0; k < r->len && !found; k++)
            found = values_equal(l, &r->items[k]);
    } else if (r->type == T1_STRING && l->type == T1_STRING) {
        found = l->len == 0;
        for (size_t k = 0; !found && k + l->len <= r->len; k++)
            found = memcmp(r->s + k, l->s, l->len) == 0;
    } else {
        return type_error(c, op, pos, l, r);
    }
    *res = op == OP_IN ? found : !found;
    return 0;
}

static int compare(const evctx *c, int op, uint32_t pos, const t1_value *l, const t1_value *r, int *res)
{
    if (t1_is_int(l) && t1_is_int(r)) {
        int64_t a = l->i, b = r->i;
        switch (op) {
        case OP_LT: *res = a < b; return 0;
        case OP_LE: *res = a <= b; return 0;
        case OP_GT: *res = a > b; return 0;
        case OP_GE: *res = a >= b; return 0;
        case OP_EQ: *res = a == b; return 0;
        case OP_NE: *res = a != b; return 0;
        default: break;
        }
    }
    if (op == OP_IN || op == OP_NOTIN)
        return contains(c, op, pos, l, r, res);
    if (op == OP_EQ || op == OP_NE) {
        int eq = values_equal(l, r);
        *res = op == OP_EQ ? eq : !eq;
        return 0;
    }
    return t1_order(c, op, pos, l, r, res);
}

/* ------------------------------------------------------------ arithmetic */

static int overflow(const evctx *c, int op, uint32_t pos, int64_t a, int64_t b)
{
    return t1_efail(c, pos, "'%s' overflows a 64-bit integer: %lld %s %lld", t1_op_name[op],
                    (long long)a, t1_op_name[op], (long long)b);
}

static int int_pow(const evctx *c, uint32_t pos, int64_t a, int64_t b, t1_value *out)
{
    if (b < 0) {
        /* Python: an int to a negative power is a float. */
        if (a == 0)
            return t1_efail(c, pos, "0 cannot be raised to a negative power");
        return t1_set_float(out, pow((double)a, (double)b));
    }
    int64_t r = 1, base = a;
    for (uint64_t e = (uint64_t)b; e; e >>= 1) {
        if ((e & 1) && __builtin_mul_overflow(r, base, &r))
            return overflow(c, OP_POW, pos, a, b);
        /* Squaring once more than needed would overflow for nothing. */
        if (e > 1 && __builtin_mul_overflow(base, base, &base))
            return overflow(c, OP_POW, pos, a, b);
    }
    return t1_set_int(out, r);
}

static int int_shift(const evctx *c, int op, uint32_t pos, int64_t a, int64_t b, t1_value *out)
{
    if (b < 0)
        return t1_efail(c, pos, "'%s' by a negative count (%lld)", t1_op_name[op], (long long)b);
    if (b > 63)
        return t1_efail(c, pos, "'%s' by a count over 63 (%lld)", t1_op_name[op], (long long)b);
    if (op == OP_SHR) /* floor, as Python's, whatever C does with a negative a */
        return t1_set_int(out, a < 0 ? ~(~a >> b) : a >> b);
    int64_t r;
    if (a == 0 || b == 0)
        r = a;
    else if (b == 63 && a == -1)
        r = INT64_MIN;
    else if (b == 63 || __builtin_mul_overflow(a, (int64_t)1 << b, &r))
        return overflow(c, op, pos, a, b);
    return t1_set_int(out, r);
}

static int int_op(const evctx *c, int op, uint32_t pos, const t1_value *l, const t1_value *r,
                  t1_value *out)
{
    int64_t a = l->i, b = r->i, v;
    switch (op) {
    case OP_ADD:
        if (__builtin_add_overflow(a, b, &v))
            return overflow(c, op, pos, a, b);
        return t1_set_int(out, v);
    case OP_SUB:
        if (__builtin_sub_overflow(a, b, &v))
            return overflow(c, op, pos, a, b);
        return t1_set_int(out, v);
    case OP_MUL:
        if (__builtin_mul_overflow(a, b, &v))
            return overflow(c, op, pos, a, b);
        return t1_set_int(out, v);
    case OP_DIV:
        if (b == 0)
            return t1_efail(c, pos, "division by zero");
        return t1_set_float(out, (double)a / (double)b);
    case OP_FDIV:
        if (b == 0)
            return t1_efail(c, pos, "division by zero");
        if (a == INT64_MIN && b == -1)
            return overflow(c, op, pos, a, b);
        v = a / b;
        return t1_set_int(out, v - ((a % b != 0) && ((a < 0) != (b < 0))));
    case OP_MOD:
        if (b == 0)
            return t1_efail(c, pos, "modulo by zero");
        if (b == -1)
            return t1_set_int(out, 0);
        v = a % b;
        return t1_set_int(out, v != 0 && ((v < 0) != (b < 0)) ? v + b : v);
    case OP_POW:
        return int_pow(c, pos, a, b, out);
    case OP_SHL:
    case OP_SHR:
        return int_shift(c, op, pos, a, b, out);
    default:
        break;
    }
    /* & | ^ of two bools is a bool, as in Python. */
    v = op == OP_BAND ? a & b : op == OP_BOR ? a | b : a ^ b;
    if (l->type == T1_BOOL && r->type == T1_BOOL)
        return t1_set_bool(out, (int)v);
    return t1_set_int(out, v);
}

/* Python's float // and %: the quotient floored, the remainder with the
 * divisor's sign, each exact where fmod is. */
static double float_mod(double x, double y)
{
    double m = fmod(x, y);
    if (m != 0.0) {
        if ((y < 0) != (m < 0))
            m += y;
    } else {
        m = copysign(0.0, y);
    }
    return m;
}

static double float_floordiv(double x, double y)
{
    double m = fmod(x, y);
    double d = (x - m) / y;
    if (m != 0.0 && (y < 0) != (m < 0))
        d -= 1.0;
    if (d == 0.0)
        return copysign(0.0, x / y);
    double f = floor(d);
    return d - f > 0.5 ? f + 1.0 : f;
}

static int float_pow(const evctx *c, uint32_t pos, double x, double y, t1_value *out)
{
    if (y == 0.0)
        return t1_set_float(out, 1.0);
    if (x == 0.0 && y < 0.0)
        return t1_efail(c, pos, "0.0 cannot be raised to a negative power");
    if (x < 0.0 && isfinite(x) && isfinite(y) && y != floor(y))
        return t1_efail(c, pos, "a negative number to a fractional power is not a real number");
    double r = pow(x, y);
    if (isinf(r) && isfinite(x) && isfinite(y))
        return t1_efail(c, pos, "'**' overflows a float");
    return t1_set_float(out, r);
}

static int float_op(const evctx *c, int op, uint32_t pos, const t1_value *l, const t1_value *r,
                    t1_value *out)
{
    double x = t1_num_f(l), y = t1_num_f(r);
    switch (op) {
    case OP_ADD: return t1_set_float(out, x + y);
    case OP_SUB: return t1_set_float(out, x - y);
    case OP_MUL: return t1_set_float(out, x * y);
    case OP_DIV:
        if (y == 0.0)
            return t1_efail(c, pos, "division by zero");
        return t1_set_float(out, x / y);
    case OP_FDIV:
        if (y == 0.0)
            return t1_efail(c, pos, "division by zero");
        return t1_set_float(out, float_floordiv(x, y));
    case OP_MOD:
        if (y == 0.0)
            return t1_efail(c, pos, "modulo by zero");
        return t1_set_float(out, float_mod(x, y));
    case OP_POW: return float_pow(c, pos, x, y, out);
    default: return type_error(c, op, pos, l, r);
    }
}

/* l repeated n times (a string or a list). */
static int repeat(const evctx *c, uint32_t pos, const t1_value *l, int64_t n, t1_value *out)
{
    size_t count = n > 0 ? (size_t)n : 0, total;
    if ((uint64_t)n > SIZE_MAX || __builtin_mul_overflow(l->len, count, &total))
        total = SIZE_MAX;
    if (l->type == T1_STRING) {
        if (total == SIZE_MAX)
            return t1_efail(c, pos, "a string too long");
        char *s = t1_alloc(c, total + 1, pos);
        if (!s)
            return -1;
        for (size_t k = 0; total && k < count; k++)
            memcpy(s + k * l->len, l->s, l->len);
        s[total] = '\0';
        out->type = T1_STRING;
        out->s = s;
        out->len = total;
        return 0;
    }
    if (total > T1_EXPR_LIST_MAX)
        return t1_efail(c, pos, "a list of more than %d values", T1_EXPR_LIST_MAX);
    t1_value *items = total ? t1_alloc(c, total * sizeof *items, pos) : NULL;
    if (total && !items)
        return -1;
    for (size_t k = 0; total && k < count; k++)
        memcpy(items + k * l->len, l->items, l->len * sizeof *items);
    t1_set_list(out, items, total);
    return 0;
}

/* + and * of strings and lists. */
static int seq_op(const evctx *c, int op, uint32_t pos, const t1_value *l, const t1_value *r,
                  t1_value *out)
{
    if (op == OP_ADD && l->type == T1_STRING && r->type == T1_STRING)
        return t1_make_string(c, pos, l->s, l->len, r->s, r->len, out);
    if (op == OP_ADD && l->type == T1_LIST && r->type == T1_LIST) {
        size_t n = l->len + r->len;
        if (l->len > T1_EXPR_LIST_MAX || r->len > T1_EXPR_LIST_MAX || n > T1_EXPR_LIST_MAX)
            return t1_efail(c, pos, "a list of more than %d values", T1_EXPR_LIST_MAX);
        t1_value *items = n ? t1_alloc(c, n * sizeof *items, pos) : NULL;
        if (n && !items)
            return -1;
        if (l->len)
            memcpy(items, l->items, l->len * sizeof *items);
        if (r->len)
            memcpy(items + l->len, r->items, r->len * sizeof *items);
        t1_set_list(out, items, n);
        return 0;
    }
    if (op == OP_MUL && (l->type == T1_STRING || l->type == T1_LIST) && t1_is_int(r))
        return repeat(c, pos, l, r->i, out);
    if (op == OP_MUL && (r->type == T1_STRING || r->type == T1_LIST) && t1_is_int(l))
        return repeat(c, pos, r, l->i, out);
    return type_error(c, op, pos, l, r);
}

static int binop(const evctx *c, int op, uint32_t pos, const t1_value *l, const t1_value *r,
                 t1_value *out)
{
    if (t1_is_int(l) && t1_is_int(r))
        return int_op(c, op, pos, l, r, out);
    if (t1_is_num(l) && t1_is_num(r))
        return float_op(c, op, pos, l, r, out);
    return seq_op(c, op, pos, l, r, out);
}

static int unop(const evctx *c, int op, uint32_t pos, const t1_value *v, t1_value *out)
{
    if (t1_is_int(v)) {
        if (op == OP_INV)
            return t1_set_int(out, ~v->i);
        if (op == OP_POS)
            return t1_set_int(out, v->i);
        if (v->i == INT64_MIN)
            return t1_efail(c, pos, "'-' overflows a 64-bit integer: -(%lld)", (long long)v->i);
        return t1_set_int(out, -v->i);
    }
    if (v->type == T1_FLOAT && op != OP_INV)
        return t1_set_float(out, op == OP_NEG ? -v->f : v->f);
    return t1_efail(c, pos, "'%s' of %s", t1_op_name[op], t1_a_type(v->type));
}

/* ------------------------------------------------------------ evaluation */

/* An operand: a leaf is read where it is, with no call and no copy; any
 * other node is evaluated into tmp. NULL on an error. */
static inline const t1_value *operand(evctx *c, int32_t k, t1_value *tmp)
{
    const node *nd = &c->nodes[k];
    switch (nd->kind) {
    case N_CONST: return &c->consts[nd->a];
    case N_SLOT: return &c->slots[nd->a];
    case N_LOCAL: return &c->locals[nd->a];
    default: return t1_eval_node(c, k, tmp) ? NULL : tmp;
    }
}

static int ev_bool(evctx *c, const node *nd, t1_value *out)
{
    /* and/or give the operand that decided, as Python's do. */
    for (int32_t k = nd->a;;) {
        if (t1_eval_node(c, k, out))
            return -1;
        k = c->nodes[k].next;
        if (k < 0 || t1_truth(out) == (nd->op == OP_OR))
            return 0;
    }
}

static int ev_chain(evctx *c, const node *nd, t1_value *out)
{
    t1_value acc, tmp, t;
    if (t1_eval_node(c, nd->a, &acc))
        return -1;
    for (int32_t k = c->nodes[nd->a].next; k >= 0; k = c->nodes[k].next) {
        const node *o = &c->nodes[k];
        const t1_value *r = operand(c, k, &tmp);
        if (!r || binop(c, o->lop, o->lpos, &acc, r, &t))
            return -1;
        acc = t;
    }
    *out = acc;
    return 0;
}

static int ev_cmpchain(evctx *c, const node *nd, t1_value *out)
{
    /* Each operand is computed once: the right one of a link is the left
     * one of the next, so the two temporaries take turns. */
    t1_value tmp[2];
    int res;
    const t1_value *l = operand(c, nd->a, &tmp[0]);
    if (!l)
        return -1;
    for (int32_t k = c->nodes[nd->a].next; k >= 0; k = c->nodes[k].next) {
        const node *o = &c->nodes[k];
        const t1_value *r = operand(c, k, l == &tmp[0] ? &tmp[1] : &tmp[0]);
        if (!r || compare(c, o->lop, o->lpos, l, r, &res))
            return -1;
        if (!res)
            return t1_set_bool(out, 0);
        l = r;
    }
    return t1_set_bool(out, 1);
}

int t1_eval_node(evctx *c, int32_t k, t1_value *out)
{
    const node *nd = &c->nodes[k];
    t1_value lt, rt;
    const t1_value *l, *r;
    int res;
    switch (nd->kind) {
    case N_CONST:
        *out = c->consts[nd->a];
        return 0;
    case N_SLOT:
        *out = c->slots[nd->a];
        return 0;
    case N_LOCAL:
        *out = c->locals[nd->a];
        return 0;
    case N_BIN:
        if (!(l = operand(c, nd->a, &lt)) || !(r = operand(c, nd->b, &rt)))
            return -1;
        return binop(c, nd->op, nd->pos, l, r, out);
    case N_CMP:
        if (!(l = operand(c, nd->a, &lt)) || !(r = operand(c, nd->b, &rt)) ||
            compare(c, nd->op, nd->pos, l, r, &res))
            return -1;
        return t1_set_bool(out, res);
    case N_BOOL:
        return ev_bool(c, nd, out);
    case N_NOT:
        if (!(l = operand(c, nd->a, &lt)))
            return -1;
        return t1_set_bool(out, !t1_truth(l));
    case N_UNARY:
        if (!(l = operand(c, nd->a, &lt)))
            return -1;
        return unop(c, nd->op, nd->pos, l, out);
    case N_CHAIN:
        return ev_chain(c, nd, out);
    case N_CMPCHAIN:
        return ev_cmpchain(c, nd, out);
    case N_IFELSE:
        if (!(l = operand(c, nd->b, &lt)))
            return -1;
        return t1_eval_node(c, t1_truth(l) ? nd->a : nd->c, out);
    case N_INDEX:
        if (!(l = operand(c, nd->a, &lt)) || !(r = operand(c, nd->b, &rt)))
            return -1;
        return t1_index_value(c, nd->pos, l, r, out);
    case N_CALL:
        return t1_call(c, nd, out);
    case N_LIST:
        return t1_make_list(c, nd, out);
    case N_COMP:
        return t1_comprehension(c, nd, out);
    default:
        return t1_efail(c, nd->pos, "cannot evaluate this (node kind %d)", nd->kind);
    }
}

/* ------------------------------------------------------------ the result */

static int in_block(const void *p, const void *base, size_t bytes)
{
    uintptr_t u = (uintptr_t)p, b = (uintptr_t)base;
    return base && u >= b && u < b + bytes;
}

static int needs_copy(const t1_expr *e, const t1_value *v)
{
    if (v->type == T1_STRING)
        return in_block(v->s, e->pool, e->pool_len);
    if (v->type == T1_LIST && in_block(v->items, e->citems, e->n_citems * sizeof *e->citems))
        return 1;
    if (v->type == T1_LIST)
        for (size_t k = 0; k < v->len; k++)
            if (needs_copy(e, &v->items[k]))
                return 1;
    return 0;
}

/* Literals (strings, constant lists) live in e; a result must live in the
 * arena alone (the header's promise), so one that reaches a literal is
 * copied there. */
static int relocate(const evctx *c, t1_value *v, uint32_t pos)
{
    if (!needs_copy(c->e, v))
        return 0;
    if (v->type == T1_STRING)
        return t1_make_string(c, pos, v->s, v->len, NULL, 0, v);
    t1_value *items = t1_alloc(c, v->len * sizeof *items, pos);
    if (!items)
        return -1;
    for (size_t k = 0; k < v->len; k++) {
        items[k] = v->items[k];
        if (relocate(c, &items[k], pos))
            return -1;
    }
    v->items = items;
    return 0;
}

int t1_expr_eval(const t1_expr *e, const t1_value *slots, t1_arena *arena, t1_value *out, char *err,
                 size_t cap)
{
    if (err && cap)
        err[0] = '\0';
    evctx c = {e, e->nodes, e->consts, slots, NULL, arena, err, cap, COMP_STEPS_MAX};
    uint32_t pos = e->nodes[e->root].pos;
    if (e->n_locals) {
        c.locals = t1_alloc(&c, (size_t)e->n_locals * sizeof *c.locals, pos);
        if (!c.locals)
            return -1;
    }
    t1_value v;
    if (t1_eval_node(&c, e->root, &v) || relocate(&c, &v, pos))
        return -1;
    /* Only the fields of its type are meaningful: the others are zeroed
     * so a caller comparing whole values sees no leftovers. */
    t1_value r = {.type = v.type};
    switch (v.type) {
    case T1_INT:
    case T1_BOOL: r.i = v.i; break;
    case T1_FLOAT: r.f = v.f; break;
    case T1_STRING:
        r.s = v.s;
        r.len = v.len;
        break;
    case T1_LIST:
        r.items = v.items;
        r.len = v.len;
        break;
    }
    *out = r;
    return 0;
}
