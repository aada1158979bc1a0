/*
 * t1_error.c — the messages of the expressions (t1_expr.h): "'TEXT':
 * REASON (column N)", the quote cut around the error, names and values
 * shown short, for the compile (t1_perr) and the evaluation (t1_efail)
 * alike, so every message has one form whoever finds the error.
 */
#include "t1_expr_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The quoted expression in a message: at most this many bytes of it. */
#define QUOTE_MAX 100

const char *const t1_op_name[] = {
    "+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^",
    "<", "<=", ">", ">=", "==", "!=", "in", "not in",
    "-", "+", "~", "not", "and", "or",
    "(", ")", "[", "]", ",", ":"
};

/* Copies s[0..n) to out, non-printable bytes as '?' (a message is one
 * line of plain text whatever the input); returns n. */
static size_t put_printable(char *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        out[i] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
    }
    return n;
}

/* Copies the part of text around pos that fits room bytes into out (room + 1
 * bytes), with "..." where it is cut; non-printable bytes show as '?'.
 * room must be at least 8 when text is longer than room. */
static void quote_window(const char *text, size_t len, size_t pos, size_t room, char *out)
{
    size_t from = 0, to = len;
    if (len > room) {
        size_t w = room - 6;
        if (pos > len)
            pos = len;
        from = pos > w / 2 ? pos - w / 2 : 0;
        if (from + w > len)
            from = len - w;
        to = from + w;
        /* A window that reaches an end needs no marker there: it gets the room. */
        if (from == 0)
            to += 3;
        else if (to == len)
            from -= 3;
    }
    size_t n = 0;
    if (from > 0) {
        memcpy(out, "...", 3);
        n = 3;
    }
    n += put_printable(out + n, text + from, to - from);
    if (to < len) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    out[n] = '\0';
}

/* Writes "'TEXT': REASON (column N)". The quote shrinks first when cap is
 * small, so the reason is the last thing cut. pos SIZE_MAX: no column;
 * quote 0: the reason alone names what is wrong. */
void t1_write_error(char *err, size_t cap, const char *text, size_t len, size_t pos, int quote,
                    const char *reason)
{
    if (!err || cap == 0)
        return;
    char tail[40] = "";
    if (pos != SIZE_MAX)
        snprintf(tail, sizeof tail, " (column %zu)", pos + 1);
    size_t fixed = strlen(reason) + strlen(tail) + 4;
    size_t room = cap > fixed + 1 ? cap - fixed - 1 : 0;
    if (room > QUOTE_MAX)
        room = QUOTE_MAX;
    if (!quote || (len > room && room < 8)) {
        snprintf(err, cap, "%s%s", reason, tail);
        return;
    }
    char q[QUOTE_MAX + 1];
    quote_window(text, len, pos == SIZE_MAX ? 0 : pos, room, q);
    snprintf(err, cap, "'%s': %s%s", q, reason, tail);
}

/* Bytes s[0..n) for a reason: cut to SHOW_MAX with "...", non-printable
 * bytes as '?'. out holds SHOW_MAX + 4 bytes. */
const char *t1_show_bytes(const char *s, size_t n, char *out)
{
    size_t k = n > SHOW_MAX ? SHOW_MAX - 3 : n, o = put_printable(out, s, k);
    if (k < n) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
    return out;
}

/* A value for a reason, as Python's repr shows it, cut to SHOW_MAX. */
const char *t1_show_value(const t1_value *v, char *out)
{
    char buf[SHOW_MAX + 8];
    size_t n = t1_value_format(v, 0, buf, sizeof buf);
    return t1_show_bytes(buf, n < sizeof buf ? n : sizeof buf - 1, out);
}

const char *t1_type_name(t1_type t)
{
    switch (t) {
    case T1_INT: return "int";
    case T1_FLOAT: return "float";
    case T1_BOOL: return "bool";
    case T1_STRING: return "string";
    case T1_LIST: return "list";
    }
    return "unknown value";
}

/* "an int", "a list": for reasons about one operand. */
const char *t1_a_type(t1_type t)
{
    switch (t) {
    case T1_INT: return "an int";
    case T1_FLOAT: return "a float";
    case T1_BOOL: return "a bool";
    case T1_STRING: return "a string";
    case T1_LIST: return "a list";
    }
    return "an unknown value";
}

/* t1_write_error of text with the reason fmt, ap. */
static void write_reason(char *err, size_t cap, const char *text, size_t len, size_t pos,
                         const char *fmt, va_list ap) T1_PRINTF(6, 0);

static void write_reason(char *err, size_t cap, const char *text, size_t len, size_t pos,
                         const char *fmt, va_list ap)
{
    char reason[256];
    vsnprintf(reason, sizeof reason, fmt, ap);
    t1_write_error(err, cap, text, len, pos, 1, reason);
}

/* The compile's first error only: what follows one is its consequence. */
int t1_perr(parser *ps, size_t pos, const char *fmt, ...)
{
    if (ps->failed)
        return -1;
    ps->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    write_reason(ps->err, ps->cap, ps->text, ps->len, pos, fmt, ap);
    va_end(ap);
    return -1;
}

int t1_oom(parser *ps)
{
    if (!ps->failed && ps->err && ps->cap)
        snprintf(ps->err, ps->cap, "out of memory");
    ps->failed = 1;
    return -1;
}

int t1_efail(const evctx *c, uint32_t pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    write_reason(c->err, c->cap, c->e->text, c->e->len, pos, fmt, ap);
    va_end(ap);
    return -1;
}

