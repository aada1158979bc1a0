/*
 * t1_lex.c — the tokens of the expressions (t1_expr.h): numbers as Python
 * writes them, strings with Python's escapes (decoded into the
 * expression's pool), names, keywords and operators. The parser
 * (t1_parse.c) reads them one at a time through t1_lex_next.
 */
#include "t1_expr_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The spelling of each enum kw. */
static const char *const kw_name[] = {"and", "or", "not", "in", "if", "else", "for", "True", "False"};

/* The block p of *cap elements of size, grown (doubling) to hold need:
 * p itself when it does already, NULL when out of memory (p untouched). */
void *t1_grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return p;
    size_t n = *cap ? *cap : 16;
    while (n < need) {
        if (n > SIZE_MAX / 2 / size)
            return NULL;
        n *= 2;
    }
    void *q = realloc(p, n * size);
    if (q)
        *cap = n;
    return q;
}

static int pool_put(parser *ps, char ch)
{
    t1_expr *e = ps->e;
    char *pool = t1_grow(e->pool, &e->pool_cap, e->pool_len + 1, 1);
    if (!pool)
        return t1_oom(ps);
    e->pool = pool;
    e->pool[e->pool_len++] = ch;
    return 0;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

static int digit_value(char c, int base)
{
    int d = -1;
    if (c >= '0' && c <= '9')
        d = c - '0';
    else if (c >= 'a' && c <= 'f')
        d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
        d = c - 'A' + 10;
    return d < base ? d : -1;
}

/* Digits of base from s[p] on, a '_' allowed between two of them as in
 * Python; returns where they end. */
size_t t1_scan_digits(const char *s, size_t n, size_t p, int base)
{
    while (p < n) {
        if (digit_value(s[p], base) >= 0)
            p++;
        else if (s[p] == '_' && p > 0 && digit_value(s[p - 1], base) >= 0 && p + 1 < n &&
                 digit_value(s[p + 1], base) >= 0)
            p++;
        else
            break;
    }
    return p;
}

/* The length of the decimal number at s (digits, '.', exponent) or 0;
 * *is_float when it has a point or an exponent. */
size_t t1_scan_decimal(const char *s, size_t n, int *is_float)
{
    size_t p = t1_scan_digits(s, n, 0, 10);
    int digits = p > 0;
    *is_float = 0;
    if (p < n && s[p] == '.') {
        size_t q = t1_scan_digits(s, n, p + 1, 10);
        digits |= q > p + 1;
        *is_float = 1;
        p = q;
    }
    if (!digits)
        return 0;
    if (p < n && (s[p] == 'e' || s[p] == 'E')) {
        size_t q = p + 1;
        if (q < n && (s[q] == '+' || s[q] == '-'))
            q++;
        size_t r = t1_scan_digits(s, n, q, 10);
        if (r == q)
            return 0;
        *is_float = 1;
        p = r;
    }
    return p;
}

/* The C library reads and writes numbers with the locale's decimal point;
 * the language always uses '.'. */
static char decimal_point(void)
{
    char b[8];
    snprintf(b, sizeof b, "%.1f", 0.5);
    return b[1] ? b[1] : '.';
}

/* The double of a decimal number s[0..n) that scan_decimal accepted
 * (correctly rounded: strtod is). -1 when out of memory. */
int t1_decimal_to_double(const char *s, size_t n, double *out)
{
    char small[64];
    char *buf = n < sizeof small ? small : malloc(n + 1);
    if (!buf)
        return -1;
    char dp = decimal_point();
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '_')
            buf[k++] = s[i] == '.' ? dp : s[i];
    buf[k] = '\0';
    *out = strtod(buf, NULL);
    if (buf != small)
        free(buf);
    return 0;
}

static int set_int_token(parser *ps, size_t start, size_t end, int64_t v)
{
    ps->tok.kind = TK_INT;
    ps->tok.start = start;
    ps->tok.end = end;
    ps->tok.i = v;
    ps->p = end;
    return 0;
}

/* Accumulates digits of s[from..to) (underscores skipped); 0 on overflow. */
static int digits_to_int(const char *s, size_t from, size_t to, int base, int64_t *out)
{
    int64_t v = 0;
    for (size_t i = from; i < to; i++) {
        int d = digit_value(s[i], base);
        if (d < 0)
            continue;
        if (__builtin_mul_overflow(v, (int64_t)base, &v) || __builtin_add_overflow(v, (int64_t)d, &v))
            return 0;
    }
    *out = v;
    return 1;
}

static int lex_number(parser *ps, size_t start)
{
    const char *t = ps->text;
    size_t n = ps->len;
    char sh[SHOW_MAX + 4];
    int base = 0;
    if (t[start] == '0' && (t[start + 1] == 'x' || t[start + 1] == 'X'))
        base = 16;
    else if (t[start] == '0' && (t[start + 1] == 'o' || t[start + 1] == 'O'))
        base = 8;
    else if (t[start] == '0' && (t[start + 1] == 'b' || t[start + 1] == 'B'))
        base = 2;
    size_t end;
    int is_float = 0;
    if (base) {
        end = t1_scan_digits(t, n, start + 2, base);
        if (end == start + 2)
            end = start; /* no digit: refused below */
    } else {
        end = start + t1_scan_decimal(t + start, n - start, &is_float);
    }
    if (end == start || (end < n && (is_ident_char(t[end]) || t[end] == '.'))) {
        size_t e = end > start ? end : start + 1;
        while (e < n && (is_ident_char(t[e]) || t[e] == '.'))
            e++;
        return t1_perr(ps, start, "'%s' is not a number", t1_show_bytes(t + start, e - start, sh));
    }
    if (is_float) {
        ps->tok.kind = TK_FLOAT;
        ps->tok.start = start;
        ps->tok.end = end;
        ps->p = end;
        if (t1_decimal_to_double(t + start, end - start, &ps->tok.f))
            return t1_oom(ps);
        return 0;
    }
    if (!base) {
        /* Python refuses 010 rather than guess C's octal. */
        size_t z = start;
        while (z < end && (t[z] == '0' || t[z] == '_'))
            z++;
        if (t[start] == '0' && z < end)
            return t1_perr(ps, start, "'%s': a decimal number does not start with 0 (0o is octal)",
                           t1_show_bytes(t + start, end - start, sh));
    }
    int64_t v;
    if (!digits_to_int(t, base ? start + 2 : start, end, base ? base : 10, &v))
        return t1_perr(ps, start, "%s does not fit a 64-bit integer",
                       t1_show_bytes(t + start, end - start, sh));
    return set_int_token(ps, start, end, v);
}

static int put_utf8(parser *ps, uint32_t cp)
{
    if (cp < 0x80)
        return pool_put(ps, (char)cp);
    if (cp < 0x800)
        return pool_put(ps, (char)(0xc0 | (cp >> 6))) || pool_put(ps, (char)(0x80 | (cp & 0x3f)));
    if (cp < 0x10000)
        return pool_put(ps, (char)(0xe0 | (cp >> 12))) ||
               pool_put(ps, (char)(0x80 | ((cp >> 6) & 0x3f))) ||
               pool_put(ps, (char)(0x80 | (cp & 0x3f)));
    return pool_put(ps, (char)(0xf0 | (cp >> 18))) || pool_put(ps, (char)(0x80 | ((cp >> 12) & 0x3f))) ||
           pool_put(ps, (char)(0x80 | ((cp >> 6) & 0x3f))) || pool_put(ps, (char)(0x80 | (cp & 0x3f)));
}

/* A \x, \u or \U escape: exactly digits hex digits at t[p] (p after the
 * letter). Returns where it ends, 0 on a bad one (error recorded). */
static size_t hex_escape(parser *ps, size_t p, int digits)
{
    uint32_t cp = 0;
    for (int k = 0; k < digits; k++) {
        int d = p + (size_t)k < ps->len ? digit_value(ps->text[p + (size_t)k], 16) : -1;
        if (d < 0) {
            t1_perr(ps, p - 2, "'\\%c' needs %d hex digits", ps->text[p - 1], digits);
            return 0;
        }
        cp = cp * 16 + (uint32_t)d;
    }
    if (cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000)) {
        t1_perr(ps, p - 2, "'\\%c' names no character", ps->text[p - 1]);
        return 0;
    }
    return put_utf8(ps, cp) ? 0 : p + (size_t)digits;
}

/* One escape after the backslash at t[p]; returns where it ends, 0 on error. */
static size_t lex_escape(parser *ps, size_t p)
{
    static const char plain[] = "\\\\''\"\"n\nt\tr\ra\ab\bf\fv\v";
    const char *t = ps->text;
    char c = t[p + 1];
    if (c == '\n')
        return p + 2; /* a line continued */
    for (size_t k = 0; plain[k]; k += 2)
        if (plain[k] == c)
            return pool_put(ps, plain[k + 1]) ? 0 : p + 2;
    if (c >= '0' && c <= '7') {
        uint32_t cp = 0;
        size_t q = p + 1;
        while (q < p + 4 && t[q] >= '0' && t[q] <= '7')
            cp = cp * 8 + (uint32_t)(t[q++] - '0');
        return put_utf8(ps, cp) ? 0 : q;
    }
    if (c == 'x')
        return hex_escape(ps, p + 2, 2);
    if (c == 'u')
        return hex_escape(ps, p + 2, 4);
    if (c == 'U')
        return hex_escape(ps, p + 2, 8);
    /* Python keeps an unknown escape as it is written. */
    return pool_put(ps, '\\') ? 0 : p + 1;
}

static int lex_string(parser *ps, size_t start)
{
    const char *t = ps->text;
    char quote = t[start];
    size_t off = ps->e->pool_len;
    size_t p = start + 1;
    for (;;) {
        if (p >= ps->len)
            return t1_perr(ps, start, "string never closed");
        if (t[p] == quote)
            break;
        if (t[p] == '\\' && p + 1 < ps->len) {
            p = lex_escape(ps, p);
            if (!p)
                return -1;
            continue;
        }
        if (pool_put(ps, t[p]))
            return -1;
        p++;
    }
    size_t n = ps->e->pool_len - off;
    if (pool_put(ps, '\0'))
        return -1;
    ps->tok.kind = TK_STR;
    ps->tok.start = start;
    ps->tok.end = p + 1;
    ps->tok.str_off = off;
    ps->tok.str_len = n;
    ps->p = p + 1;
    return 0;
}

static int lex_name(parser *ps, size_t start)
{
    size_t p = start;
    while (p < ps->len && is_ident_char(ps->text[p]))
        p++;
    ps->tok.kind = TK_NAME;
    ps->tok.start = start;
    ps->tok.end = p;
    ps->p = p;
    for (int k = 0; k < (int)(sizeof kw_name / sizeof kw_name[0]); k++)
        if (strlen(kw_name[k]) == p - start && memcmp(kw_name[k], ps->text + start, p - start) == 0) {
            ps->tok.kind = TK_KW;
            ps->tok.code = k;
        }
    return 0;
}

static const struct {
    char s[3];
    uint8_t kind, code;
} puncts[] = {
    {"**", TK_OP, OP_POW},    {"//", TK_OP, OP_FDIV},   {"<<", TK_OP, OP_SHL},  {">>", TK_OP, OP_SHR},
    {"<=", TK_OP, OP_LE},     {">=", TK_OP, OP_GE},     {"==", TK_OP, OP_EQ},   {"!=", TK_OP, OP_NE},
    {"&&", TK_KW, KW_AND},    {"||", TK_KW, KW_OR},     {"+", TK_OP, OP_ADD},   {"-", TK_OP, OP_SUB},
    {"*", TK_OP, OP_MUL},     {"/", TK_OP, OP_DIV},     {"%", TK_OP, OP_MOD},   {"&", TK_OP, OP_BAND},
    {"|", TK_OP, OP_BOR},     {"^", TK_OP, OP_BXOR},    {"~", TK_OP, OP_INV},   {"<", TK_OP, OP_LT},
    {">", TK_OP, OP_GT},      {"(", TK_OP, P_LPAREN},   {")", TK_OP, P_RPAREN}, {"[", TK_OP, P_LBRACK},
    {"]", TK_OP, P_RBRACK},   {",", TK_OP, P_COMMA},    {":", TK_OP, P_COLON},  {"!", TK_KW, KW_NOT},
};

/* Reads the next token into ps->tok; -1 on a bad one (error recorded). */
int t1_lex_next(parser *ps)
{
    const char *t = ps->text;
    size_t p = ps->p;
    while (p < ps->len && t1_is_space(t[p]))
        p++;
    ps->tok.start = ps->tok.end = p;
    if (p >= ps->len) {
        ps->tok.kind = TK_END;
        ps->p = p;
        return 0;
    }
    char c = t[p];
    if (is_digit(c) || (c == '.' && is_digit(t[p + 1])))
        return lex_number(ps, p);
    if (c == '\'' || c == '"')
        return lex_string(ps, p);
    if (is_ident_start(c))
        return lex_name(ps, p);
    for (size_t k = 0; k < sizeof puncts / sizeof puncts[0]; k++) {
        size_t n = puncts[k].s[1] ? 2 : 1;
        if (memcmp(t + p, puncts[k].s, n) == 0) {
            ps->tok.kind = puncts[k].kind;
            ps->tok.code = puncts[k].code;
            ps->tok.end = p + n;
            ps->p = p + n;
            return 0;
        }
    }
    if (c == '=')
        return t1_perr(ps, p, "'=' is not an operator ('==' compares)");
    if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f)
        return t1_perr(ps, p, "unexpected character '%c'", c);
    return t1_perr(ps, p, "unexpected byte 0x%02x", (unsigned)(unsigned char)c);
}

/* Whether the word after the current token is "in" (for "not in"). */
int t1_next_is_in(const parser *ps)
{
    size_t q = ps->p;
    while (q < ps->len && t1_is_space(ps->text[q]))
        q++;
    return q + 1 < ps->len && ps->text[q] == 'i' && ps->text[q + 1] == 'n' &&
           !is_ident_char(ps->text[q + 2]);
}

int t1_next_char_is(const parser *ps, char c)
{
    size_t q = ps->p;
    while (q < ps->len && t1_is_space(ps->text[q]))
        q++;
    return q < ps->len && ps->text[q] == c;
}

