/* manifest_expr.c — derive expressions (manifest_expr.h). */
#include "manifest_expr.h"

#include "bounded_fmt.h"
#include "manifest.h"

#include <ctype.h>
#include <string.h>

/* Recursive descent over the text; once an error is recorded every level
 * unwinds without doing more. missing: a name had no value, so arithmetic
 * stops but parsing goes on (a syntax error later still counts). */
typedef struct parser {
    const char *expr;
    const char *p;
    int evaluate;
    int missing;
    int failed;
    mfx_lookup lookup;
    void *ctx;
    char *err;
    size_t errlen;
} parser;

static int computing(const parser *ps) { return ps->evaluate && !ps->missing && !ps->failed; }

static long fail(parser *ps, const char *what)
{
    if (!ps->failed)
        bfmt(ps->err, ps->errlen, "%s at column %d of '%s'", what,
             (int)(ps->p - ps->expr) + 1, ps->expr);
    ps->failed = 1;
    return 0;
}

static void skip_space(parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
}

static long checked(parser *ps, long long v)
{
    if (v > MFX_LIMIT || v < -MFX_LIMIT)
        return fail(ps, "value out of range");
    return (long)v;
}

static long parse_sum(parser *ps);

static long parse_primary(parser *ps)
{
    skip_space(ps);
    const char *start = ps->p;
    if (isdigit((unsigned char)*ps->p)) {
        long long v = 0;
        while (isdigit((unsigned char)*ps->p)) {
            v = v * 10 + (*ps->p - '0');
            ps->p++;
            if (v > MFX_LIMIT) {
                ps->p = start;
                return fail(ps, "number too large");
            }
        }
        return (long)v;
    }
    if (isalpha((unsigned char)*ps->p) || *ps->p == '_') {
        char name[MF_NAME_MAX];
        size_t len = 0;
        while (isalnum((unsigned char)*ps->p) || *ps->p == '_') {
            if (len + 1 >= sizeof name) {
                ps->p = start;
                return fail(ps, "name too long");
            }
            name[len++] = *ps->p++;
        }
        name[len] = '\0';
        long v = 0;
        int found = ps->lookup(ps->ctx, name, &v);
        if (found < 0) {
            char what[MF_NAME_MAX + 32];
            bfmt(what, sizeof what, "unknown name %s", name);
            ps->p = start;
            return fail(ps, what);
        }
        if (found == 0 && ps->evaluate)
            ps->missing = 1;
        return v;
    }
    if (*ps->p == '(') {
        ps->p++;
        long v = parse_sum(ps);
        skip_space(ps);
        if (ps->failed)
            return 0;
        if (*ps->p != ')')
            return fail(ps, "missing ')'");
        ps->p++;
        return v;
    }
    if (*ps->p == '\0')
        return fail(ps, "expression ends early");
    return fail(ps, "unexpected character");
}

static long parse_unary(parser *ps)
{
    skip_space(ps);
    if (*ps->p == '-') {
        ps->p++;
        long v = parse_unary(ps);
        return computing(ps) ? -v : 0;
    }
    return parse_primary(ps);
}

static long parse_product(parser *ps)
{
    long v = parse_unary(ps);
    for (;;) {
        skip_space(ps);
        char op = *ps->p;
        if (ps->failed || (op != '*' && op != '/' && op != '%'))
            return v;
        const char *at = ps->p++;
        long rhs = parse_unary(ps);
        if (!computing(ps))
            continue;
        if (op == '*') {
            v = checked(ps, (long long)v * rhs);
        } else if (rhs == 0) {
            ps->p = at;
            return fail(ps, "division by zero");
        } else {
            v = op == '/' ? v / rhs : v % rhs;
        }
    }
}

static long parse_sum(parser *ps)
{
    long v = parse_product(ps);
    for (;;) {
        skip_space(ps);
        char op = *ps->p;
        if (ps->failed || (op != '+' && op != '-'))
            return v;
        ps->p++;
        long rhs = parse_product(ps);
        if (computing(ps))
            v = checked(ps, op == '+' ? (long long)v + rhs : (long long)v - rhs);
    }
}

int mfx_eval(const char *expr, int evaluate, mfx_lookup lookup, void *ctx, long *value,
             char *err, size_t errlen)
{
    parser ps = {expr, expr, evaluate, 0, 0, lookup, ctx, err, errlen};
    long v = parse_sum(&ps);
    skip_space(&ps);
    if (!ps.failed && *ps.p != '\0')
        fail(&ps, *ps.p == ')' ? "unbalanced ')'" : "unexpected character");
    if (ps.failed)
        return -1;
    if (ps.missing)
        return 1;
    if (value)
        *value = evaluate ? v : 0;
    return 0;
}
