/*
 * t1_value.c — t1_value_format (t1_expr.h): values as Python's repr and
 * str print them, for -D defines, T4 results and error messages.
 */
#include "t1_expr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Output that counts what it could not store, so a caller learns the size
 * it needs from one call with cap 0. */
typedef struct sink {
    char *buf;
    size_t cap, n;
} sink;

static void put(sink *o, const char *s, size_t n)
{
    if (o->buf && o->cap && o->n < o->cap - 1) {
        size_t room = o->cap - 1 - o->n;
        memcpy(o->buf + o->n, s, n < room ? n : room);
    }
    o->n = n > SIZE_MAX - o->n ? SIZE_MAX : o->n + n;
}

static void puts_(sink *o, const char *s) { put(o, s, strlen(s)); }

static void put_int(sink *o, int64_t v)
{
    char d[24];
    size_t k = sizeof d;
    /* The magnitude as unsigned: -INT64_MIN does not fit an int64_t. */
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        d[--k] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        d[--k] = '-';
    put(o, d + k, sizeof d - k);
}

static void put_zeros(sink *o, int n)
{
    for (; n > 0; n--)
        put(o, "0", 1);
}

/* The shortest digits that read back as x, as Python's repr finds them: the
 * first precision whose %e round-trips. The digits and the exponent are
 * taken apart so the locale's decimal point never shows. */
static int shortest_digits(double x, char *digits, int *exp10)
{
    char buf[48];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec - 1, x);
        if (strtod(buf, NULL) == x || prec == 17)
            break;
    }
    int nd = 0;
    const char *p = buf;
    while (*p && *p != 'e') {
        if (*p >= '0' && *p <= '9')
            digits[nd++] = *p;
        p++;
    }
    *exp10 = *p == 'e' ? atoi(p + 1) : 0;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    return nd;
}

/* Python's float repr: fixed notation for 1e-4 <= |x| < 1e16, else
 * d.ddde+XX; an integral value keeps its ".0". */
static void put_float(sink *o, double x)
{
    if (isnan(x)) {
        puts_(o, "nan");
        return;
    }
    if (isinf(x)) {
        puts_(o, x < 0 ? "-inf" : "inf");
        return;
    }
    char digits[24];
    int exp10;
    int nd = shortest_digits(x, digits, &exp10);
    if (signbit(x))
        put(o, "-", 1);
    int decpt = exp10 + 1; /* digits are 0.DIGITS times 10**decpt */
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            put(o, "0.", 2);
            put_zeros(o, -decpt);
            put(o, digits, (size_t)nd);
        } else if (decpt >= nd) {
            put(o, digits, (size_t)nd);
            put_zeros(o, decpt - nd);
            put(o, ".0", 2);
        } else {
            put(o, digits, (size_t)decpt);
            put(o, ".", 1);
            put(o, digits + decpt, (size_t)(nd - decpt));
        }
        return;
    }
    put(o, digits, 1);
    if (nd > 1) {
        put(o, ".", 1);
        put(o, digits + 1, (size_t)(nd - 1));
    }
    int e = decpt - 1;
    put(o, e < 0 ? "e-" : "e+", 2);
    if (e > -10 && e < 10)
        put(o, "0", 1);
    put_int(o, e < 0 ? -e : e);
}

/* Python's repr of a string: single quotes unless only double quotes
 * avoid escaping; bytes from 0x80 on are UTF-8 and shown as they are. */
static void put_quoted(sink *o, const char *s, size_t n)
{
    int has_single = memchr(s, '\'', n) != NULL, has_double = memchr(s, '"', n) != NULL;
    char q = has_single && !has_double ? '"' : '\'';
    put(o, &q, 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        char esc[5] = {'\\', 0, 0, 0, 0};
        size_t len = 2;
        if (ch == (unsigned char)q || ch == '\\')
            esc[1] = (char)ch;
        else if (ch == '\n')
            esc[1] = 'n';
        else if (ch == '\t')
            esc[1] = 't';
        else if (ch == '\r')
            esc[1] = 'r';
        else if (ch < 0x20 || ch == 0x7f) {
            static const char hex[] = "0123456789abcdef";
            esc[1] = 'x';
            esc[2] = hex[ch >> 4];
            esc[3] = hex[ch & 15];
            len = 4;
        } else {
            put(o, s + i, 1);
            continue;
        }
        put(o, esc, len);
    }
    put(o, &q, 1);
}

static void put_value(sink *o, const t1_value *v, int bare)
{
    switch (v->type) {
    case T1_INT:
        put_int(o, v->i);
        break;
    case T1_FLOAT:
        put_float(o, v->f);
        break;
    case T1_BOOL:
        puts_(o, v->i ? "True" : "False");
        break;
    case T1_STRING:
        if (bare)
            put(o, v->s, v->len);
        else
            put_quoted(o, v->s, v->len);
        break;
    case T1_LIST:
        /* Items always quoted, as Python's str of a list shows them. */
        put(o, "[", 1);
        for (size_t k = 0; k < v->len; k++) {
            if (k)
                put(o, ", ", 2);
            put_value(o, &v->items[k], 0);
        }
        put(o, "]", 1);
        break;
    default:
        puts_(o, "<unknown value>");
        break;
    }
}

size_t t1_value_format(const t1_value *v, int bare_strings, char *buf, size_t cap)
{
    sink o = {buf, cap, 0};
    if (v)
        put_value(&o, v, bare_strings);
    if (buf && cap)
        buf[o.n < cap - 1 ? o.n : cap - 1] = '\0';
    return o.n;
}
