/* expr.c — the integer expression evaluator (expr.h). */
#include "expr.h"

#include "bounded_fmt.h"

#include <stdio.h>
#include <string.h>

/* Recursive descent, one function per C precedence level. live says whether
 * the current sub-expression is computed (false in check mode, on the dead
 * side of && || ?:, and once a name had no value); it is passed down rather
 * than stored so a dead branch cannot switch computing back on. Once an
 * error is recorded every level unwinds without doing more. */
typedef struct parser {
    const char *text;
    const char *p;
    int evaluate;
    int depth;
    int missing;
    int failed;
    expr_lookup lookup;
    void *ctx;
    char *err;
    size_t errlen;
} parser;

/* The quoted expression in a message: at most this many bytes of it. */
#define QUOTE_MAX 120

/* Writes "EXPR: reason (column N)" with EXPR cut around the column when it
 * does not fit, so the reason always does. Non-printable bytes show as '?'. */
static void fail_at(parser *ps, const char *at, const char *reason)
{
    if (ps->failed)
        return;
    ps->failed = 1;
    if (!ps->err || ps->errlen == 0)
        return;
    size_t len = strlen(ps->text);
    size_t col = (size_t)(at - ps->text);
    char tail[48];
    snprintf(tail, sizeof tail, " (column %zu)", col + 1);
    size_t fixed = strlen(reason) + strlen(tail) + 3;
    size_t room = ps->errlen > fixed + 8 ? ps->errlen - fixed - 8 : 8;
    if (room > QUOTE_MAX)
        room = QUOTE_MAX;
    size_t from = 0, to = len;
    if (len > room) {
        from = col > room / 2 ? col - room / 2 : 0;
        to = from + room < len ? from + room : len;
        if (to == len)
            from = len > room ? len - room : 0;
    }
    char quote[QUOTE_MAX + 8];
    size_t q = 0;
    if (from > 0) {
        memcpy(quote, "...", 3);
        q = 3;
    }
    for (size_t i = from; i < to; i++) {
        unsigned char c = (unsigned char)ps->text[i];
        quote[q++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    if (to < len) {
        memcpy(quote + q, "...", 3);
        q += 3;
    }
    quote[q] = '\0';
    bfmt(ps->err, ps->errlen, "%s: %s%s", len ? quote : "(empty)", reason, tail);
}

static int64_t fail(parser *ps, const char *at, const char *reason)
{
    fail_at(ps, at, reason);
    return 0;
}

static void skip_space(parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
        ps->p++;
}

static int is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Enters one nesting level; 0 when the bound is reached (error recorded). */
static int enter(parser *ps)
{
    if (ps->depth >= EXPR_DEPTH_MAX) {
        char why[64];
        snprintf(why, sizeof why, "nested more than %d deep", EXPR_DEPTH_MAX);
        fail(ps, ps->p, why);
        return 0;
    }
    ps->depth++;
    return 1;
}

static int64_t parse_cond(parser *ps, int live);

static int64_t parse_number(parser *ps)
{
    const char *start = ps->p;
    uint64_t v = 0;
    int hex = ps->p[0] == '0' && (ps->p[1] == 'x' || ps->p[1] == 'X');
    int digits = 0, too_big = 0;
    if (hex) {
        ps->p += 2;
        for (int d; (d = hex_digit(*ps->p)) >= 0; ps->p++, digits++) {
            if (v > ((uint64_t)INT64_MAX - (uint64_t)d) / 16)
                too_big = 1;
            else
                v = v * 16 + (uint64_t)d;
        }
    } else {
        for (; *ps->p >= '0' && *ps->p <= '9'; ps->p++, digits++) {
            uint64_t d = (uint64_t)(*ps->p - '0');
            if (v > ((uint64_t)INT64_MAX - d) / 10)
                too_big = 1;
            else
                v = v * 10 + d;
        }
    }
    if (digits == 0 || is_ident_char(*ps->p) || *ps->p == '.')
        return fail(ps, start, "not a whole number (decimal, or hexadecimal as 0x1F)");
    if (!hex && digits > 1 && start[0] == '0')
        return fail(ps, start, "a number with a leading 0 (C would read it as octal)");
    if (too_big)
        return fail(ps, start, "the number does not fit in a 64-bit integer");
    return (int64_t)v;
}

static int64_t parse_name(parser *ps, int live)
{
    const char *start = ps->p;
    while (is_ident_char(*ps->p))
        ps->p++;
    size_t len = (size_t)(ps->p - start);
    if (len > EXPR_NAME_MAX) {
        char why[64];
        snprintf(why, sizeof why, "a name longer than %d characters", EXPR_NAME_MAX);
        return fail(ps, start, why);
    }
    int64_t v = 0;
    /* Without a lookup: checking is syntax only, evaluating knows no name. */
    int found = ps->lookup ? ps->lookup(ps->ctx, start, len, &v) : ps->evaluate ? -1 : 0;
    if (found < 0) {
        char why[EXPR_NAME_MAX + 32];
        snprintf(why, sizeof why, "unknown name %.*s", (int)len, start);
        return fail(ps, start, why);
    }
    if (found == 0) {
        ps->missing = ps->evaluate;
        return 0;
    }
    return live ? v : 0;
}

static int64_t parse_primary(parser *ps, int live)
{
    skip_space(ps);
    char c = *ps->p;
    if (c >= '0' && c <= '9')
        return parse_number(ps);
    if (is_ident_start(c))
        return parse_name(ps, live);
    if (c == '(') {
        const char *open = ps->p++;
        if (!enter(ps))
            return 0;
        int64_t v = parse_cond(ps, live);
        ps->depth--;
        if (ps->failed)
            return 0;
        skip_space(ps);
        if (*ps->p != ')')
            return fail(ps, open, *ps->p ? "'(' is not closed here" : "'(' is never closed");
        ps->p++;
        return v;
    }
    if (c == '\0')
        return fail(ps, ps->p, "the expression ends where a value is expected");
    if (c == ')')
        return fail(ps, ps->p, "')' where a value is expected");
    char why[64];
    if (c > 0x20 && c < 0x7f)
        snprintf(why, sizeof why, "unexpected '%c' where a value is expected", c);
    else
        snprintf(why, sizeof why, "unexpected byte 0x%02x", (unsigned)(unsigned char)c);
    return fail(ps, ps->p, why);
}

static int64_t parse_unary(parser *ps, int live)
{
    skip_space(ps);
    char op = *ps->p;
    if (op != '-' && op != '+' && op != '!' && op != '~')
        return parse_primary(ps, live);
    const char *at = ps->p++;
    if (!enter(ps))
        return 0;
    int64_t v = parse_unary(ps, live);
    ps->depth--;
    if (ps->failed || !live || ps->missing)
        return 0;
    switch (op) {
    case '-': {
        int64_t r;
        if (__builtin_sub_overflow((int64_t)0, v, &r))
            return fail(ps, at, "'-' overflows a 64-bit integer");
        return r;
    }
    case '!':
        return !v;
    case '~':
        return ~v;
    default:
        return v;
    }
}

static int live_now(const parser *ps, int live) { return live && !ps->missing && !ps->failed; }

static int64_t parse_mul(parser *ps, int live)
{
    int64_t v = parse_unary(ps, live);
    for (;;) {
        skip_space(ps);
        char op = *ps->p;
        if (ps->failed || (op != '*' && op != '/' && op != '%'))
            return v;
        const char *at = ps->p++;
        int64_t rhs = parse_unary(ps, live);
        if (!live_now(ps, live))
            continue;
        if (op == '*') {
            if (__builtin_mul_overflow(v, rhs, &v))
                return fail(ps, at, "'*' overflows a 64-bit integer");
        } else if (rhs == 0) {
            return fail(ps, at, op == '/' ? "division by zero" : "modulo by zero");
        } else if (v == INT64_MIN && rhs == -1) {
            return fail(ps, at,
                        op == '/' ? "'/' overflows a 64-bit integer" : "'%' overflows a 64-bit integer");
        } else {
            v = op == '/' ? v / rhs : v % rhs;
        }
    }
}

static int64_t parse_add(parser *ps, int live)
{
    int64_t v = parse_mul(ps, live);
    for (;;) {
        skip_space(ps);
        char op = *ps->p;
        if (ps->failed || (op != '+' && op != '-'))
            return v;
        const char *at = ps->p++;
        int64_t rhs = parse_mul(ps, live);
        if (!live_now(ps, live))
            continue;
        int over = op == '+' ? __builtin_add_overflow(v, rhs, &v) : __builtin_sub_overflow(v, rhs, &v);
        if (over)
            return fail(ps, at, op == '+' ? "'+' overflows a 64-bit integer"
                                          : "'-' overflows a 64-bit integer");
    }
}

static int64_t parse_shift(parser *ps, int live)
{
    int64_t v = parse_add(ps, live);
    for (;;) {
        skip_space(ps);
        int left = ps->p[0] == '<' && ps->p[1] == '<';
        if (ps->failed || !(left || (ps->p[0] == '>' && ps->p[1] == '>')))
            return v;
        const char *at = ps->p;
        ps->p += 2;
        int64_t n = parse_add(ps, live);
        if (!live_now(ps, live))
            continue;
        if (n < 0 || n > 63)
            return fail(ps, at, left ? "'<<' by a count outside 0..63" : "'>>' by a count outside 0..63");
        if (!left) {
            v >>= n; /* arithmetic for negative values, as gcc and clang do */
        } else if (v < 0) {
            return fail(ps, at, "'<<' of a negative value");
        } else if (v > (INT64_MAX >> n)) {
            return fail(ps, at, "'<<' overflows a 64-bit integer");
        } else {
            v = (int64_t)((uint64_t)v << n);
        }
    }
}

static int64_t parse_rel(parser *ps, int live)
{
    int64_t v = parse_shift(ps, live);
    for (;;) {
        skip_space(ps);
        char c = ps->p[0];
        if (ps->failed || (c != '<' && c != '>') || ps->p[1] == c)
            return v;
        int eq = ps->p[1] == '=';
        ps->p += eq ? 2 : 1;
        int64_t rhs = parse_shift(ps, live);
        if (c == '<')
            v = eq ? v <= rhs : v < rhs;
        else
            v = eq ? v >= rhs : v > rhs;
    }
}

static int64_t parse_eq(parser *ps, int live)
{
    int64_t v = parse_rel(ps, live);
    for (;;) {
        skip_space(ps);
        char c = ps->p[0];
        if (ps->failed || (c != '=' && c != '!'))
            return v;
        if (ps->p[1] != '=') {
            if (c == '=')
                return fail(ps, ps->p, "'=' is not an operator (== compares)");
            return v; /* '!' alone: trailing garbage, reported by the caller */
        }
        ps->p += 2;
        int64_t rhs = parse_rel(ps, live);
        v = c == '=' ? v == rhs : v != rhs;
    }
}

/* The three bitwise levels: & (tighter) then ^ then |. A doubled & or | is
 * the logical operator of a looser level. */
static int64_t parse_band(parser *ps, int live)
{
    int64_t v = parse_eq(ps, live);
    for (;;) {
        skip_space(ps);
        if (ps->failed || ps->p[0] != '&' || ps->p[1] == '&')
            return v;
        ps->p++;
        v &= parse_eq(ps, live);
    }
}

static int64_t parse_bxor(parser *ps, int live)
{
    int64_t v = parse_band(ps, live);
    for (;;) {
        skip_space(ps);
        if (ps->failed || ps->p[0] != '^')
            return v;
        ps->p++;
        v ^= parse_band(ps, live);
    }
}

static int64_t parse_bor(parser *ps, int live)
{
    int64_t v = parse_bxor(ps, live);
    for (;;) {
        skip_space(ps);
        if (ps->failed || ps->p[0] != '|' || ps->p[1] == '|')
            return v;
        ps->p++;
        v |= parse_bxor(ps, live);
    }
}

static int64_t parse_land(parser *ps, int live)
{
    int64_t v = parse_bor(ps, live);
    for (;;) {
        skip_space(ps);
        if (ps->failed || ps->p[0] != '&' || ps->p[1] != '&')
            return v;
        ps->p += 2;
        int64_t rhs = parse_bor(ps, live && v != 0);
        v = v != 0 && rhs != 0;
    }
}

static int64_t parse_lor(parser *ps, int live)
{
    int64_t v = parse_land(ps, live);
    for (;;) {
        skip_space(ps);
        if (ps->failed || ps->p[0] != '|' || ps->p[1] != '|')
            return v;
        ps->p += 2;
        int64_t rhs = parse_land(ps, live && v == 0);
        v = v != 0 || rhs != 0;
    }
}

/* cond ? expr : cond, right-associative as in C. */
static int64_t parse_cond(parser *ps, int live)
{
    int64_t c = parse_lor(ps, live);
    skip_space(ps);
    if (ps->failed || *ps->p != '?')
        return c;
    const char *q = ps->p++;
    if (!enter(ps))
        return 0;
    int64_t a = parse_cond(ps, live && c != 0);
    skip_space(ps);
    if (ps->failed || *ps->p != ':') {
        ps->depth--;
        return fail(ps, q, "'?' without its ':'");
    }
    ps->p++;
    int64_t b = parse_cond(ps, live && c == 0);
    ps->depth--;
    return c != 0 ? a : b;
}

static int parse_all(parser *ps, int64_t *value)
{
    size_t len = strnlen(ps->text, EXPR_TEXT_MAX + 1);
    if (len > EXPR_TEXT_MAX) {
        char why[64];
        snprintf(why, sizeof why, "longer than %d characters", EXPR_TEXT_MAX);
        /* Quote only the start: the text may be huge. */
        if (ps->err && ps->errlen)
            bfmt(ps->err, ps->errlen, "%.60s...: %s", ps->text, why);
        for (char *c = ps->err; c && *c; c++)
            if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
                *c = '?';
        return -1;
    }
    int64_t v = parse_cond(ps, ps->evaluate);
    skip_space(ps);
    if (!ps->failed && *ps->p != '\0') {
        char why[64];
        if (*ps->p == ')')
            snprintf(why, sizeof why, "')' without its '('");
        else if (*ps->p == ':')
            snprintf(why, sizeof why, "':' without its '?'");
        else if (*ps->p > 0x20 && *ps->p < 0x7f)
            snprintf(why, sizeof why, "unexpected '%c' after a complete value", *ps->p);
        else
            snprintf(why, sizeof why, "unexpected byte 0x%02x", (unsigned)(unsigned char)*ps->p);
        fail(ps, ps->p, why);
    }
    if (ps->failed)
        return -1;
    *value = v;
    return ps->missing ? 1 : 0;
}

int expr_eval(const char *text, expr_mode mode, expr_lookup lookup, void *ctx, int64_t *value,
              char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    parser ps = {text, text, mode == EXPR_EVALUATE, 0, 0, 0, lookup, ctx, err, errlen};
    int64_t v = 0;
    int rc = parse_all(&ps, &v);
    if (rc == 0 && value)
        *value = mode == EXPR_EVALUATE ? v : 0;
    return rc;
}

/* expr_names: a check-mode parse whose lookup records where each name is. */
typedef struct name_spots {
    size_t n;
    struct {
        const char *at;
        size_t len;
    } spot[EXPR_TEXT_MAX / 2 + 1];
} name_spots;

static int record_name(void *ctx, const char *name, size_t len, int64_t *value)
{
    name_spots *ns = ctx;
    (void)value;
    ns->spot[ns->n].at = name;
    ns->spot[ns->n].len = len;
    ns->n++; /* a name takes a byte and needs a byte apart from the next: room for all */
    return 0;
}

int expr_names(const char *text, expr_name_fn fn, void *ctx, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    name_spots ns;
    ns.n = 0;
    parser ps = {text, text, 0, 0, 0, 0, record_name, &ns, err, errlen};
    int64_t v;
    if (parse_all(&ps, &v) < 0)
        return -1;
    for (size_t i = 0; i < ns.n; i++) {
        size_t j = 0;
        while (j < i && (ns.spot[j].len != ns.spot[i].len ||
                         memcmp(ns.spot[j].at, ns.spot[i].at, ns.spot[i].len) != 0))
            j++;
        if (j < i)
            continue;
        int rc = fn(ctx, ns.spot[i].at, ns.spot[i].len);
        if (rc != 0)
            return rc;
    }
    return 0;
}
