/*
 * t1_expr.c — the expressions of T1 tuning specs (t1_expr.h): the lexer,
 * the parser into a flat tree, name resolution and the evaluator.
 *
 * The tree is one array of nodes joined by indices, so a compiled
 * expression is a few blocks that evaluation only reads (several threads
 * may evaluate one at once). The operands of a run of one precedence level
 * (a + b - c, a and b and c, a < b < c) hang off one node as a sibling
 * list that evaluation walks in a loop: the C stack then grows with the
 * nesting the parser bounds (T1_EXPR_DEPTH_MAX), never with the length of
 * a sum. t1_value_format lives in t1_value.c.
 */
#include "t1_expr.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__MINGW32__)
#define T1_PRINTF(a, b) __attribute__((format(gnu_printf, a, b)))
#elif defined(__GNUC__)
#define T1_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define T1_PRINTF(a, b)
#endif

/* The quoted expression in a message: at most this many bytes of it. */
#define QUOTE_MAX 100
/* A name or a value inside a reason: at most this many bytes, so a reason
 * never outgrows T1_EXPR_ERR_MAX whatever the input. */
#define SHOW_MAX 40
/* Iterations all comprehensions of one evaluation may take: a filter that
 * keeps nothing builds no list, so the list bound alone would not stop
 * [0 for a in range(1000000) for b in range(1000000) if 0]. */
#define COMP_STEPS_MAX ((uint64_t)16 * T1_EXPR_LIST_MAX)
#define ARENA_DEFAULT_LIMIT ((size_t)64 << 20)
#define ARENA_MIN_BLOCK ((size_t)4096)
#define ARENA_ALIGN ((size_t)16)

/* Operators; the punctuation after OP_OR never reaches a node. */
enum op {
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FDIV, OP_MOD, OP_POW,
    OP_SHL, OP_SHR, OP_BAND, OP_BOR, OP_BXOR,
    OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE, OP_IN, OP_NOTIN,
    OP_NEG, OP_POS, OP_INV, OP_NOT, OP_AND, OP_OR,
    P_LPAREN, P_RPAREN, P_LBRACK, P_RBRACK, P_COMMA, P_COLON
};

static const char *const op_name[] = {
    "+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^",
    "<", "<=", ">", ">=", "==", "!=", "in", "not in",
    "-", "+", "~", "not", "and", "or",
    "(", ")", "[", "]", ",", ":"
};

enum kw { KW_AND, KW_OR, KW_NOT, KW_IN, KW_IF, KW_ELSE, KW_FOR, KW_TRUE, KW_FALSE };
static const char *const kw_name[] = {"and", "or", "not", "in", "if", "else", "for", "True", "False"};

enum tok { TK_END, TK_INT, TK_FLOAT, TK_STR, TK_NAME, TK_OP, TK_KW };

enum fn { F_MIN, F_MAX, F_ABS, F_INT, F_FLOAT, F_ROUND, F_LEN, F_BOOL, F_STR, F_RANGE };
static const struct {
    const char *name;
    int min_args, max_args; /* max_args -1: any number */
} fns[] = {
    {"min", 1, -1}, {"max", 1, -1}, {"abs", 1, 1},  {"int", 1, 1},   {"float", 1, 1},
    {"round", 1, 2}, {"len", 1, 1}, {"bool", 1, 1}, {"str", 1, 1}, {"range", 1, 3},
};

/* Node kinds. N_NAME exists only between parsing and resolution, which
 * turns each into N_SLOT or N_LOCAL. */
enum kind {
    N_CONST,    /* a: index in consts */
    N_SLOT,     /* a: the resolver's slot */
    N_LOCAL,    /* a: a comprehension variable's index in the locals */
    N_NAME,     /* pos: where the name starts, a: its length */
    N_UNARY,    /* op, a */
    N_NOT,      /* a */
    N_BIN,      /* op, a, b */
    N_CHAIN,    /* a: first operand; the others follow by next, each with its lop, lpos */
    N_CMP,      /* op, a, b */
    N_CMPCHAIN, /* as N_CHAIN, with comparison operators */
    N_BOOL,     /* op (OP_AND, OP_OR), a: first operand, the others by next */
    N_IFELSE,   /* a if b else c */
    N_INDEX,    /* a[b] */
    N_CALL,     /* op: enum fn, a: first argument (the others by next), c: how many */
    N_LIST,     /* a: first item (the others by next), c: how many */
    N_COMP,     /* a: the item, b: first clause (the others by next) */
    N_FOR,      /* for NAME in a: pos, b: the name, c: its index in the locals */
    N_IF        /* if a */
};

typedef struct node {
    uint8_t kind;
    uint8_t op;
    uint8_t lop;   /* in a sibling list: the operator joining this node to the one before */
    uint32_t pos;  /* byte offset shown as the column of an error here */
    uint32_t lpos; /* where lop is */
    int32_t a, b, c;
    int32_t next; /* the next sibling, or -1 */
} node;

struct t1_expr {
    char *text;
    size_t len;
    node *nodes;
    size_t n_nodes, nodes_cap;
    t1_value *consts;
    size_t n_consts, consts_cap;
    char *pool; /* the bytes of string literals, each NUL-terminated */
    size_t pool_len, pool_cap;
    t1_value *citems; /* the items of constant lists */
    size_t n_citems, citems_cap;
    int *slots;
    size_t n_slots;
    int32_t n_locals;
    int32_t root;
};

/* ---------------------------------------------------------------- errors */

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
    for (size_t i = from; i < to; i++) {
        unsigned char ch = (unsigned char)text[i];
        out[n++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
    }
    if (to < len) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    out[n] = '\0';
}

/* Writes "'TEXT': REASON (column N)". The quote shrinks first when cap is
 * small, so the reason is the last thing cut. pos SIZE_MAX: no column;
 * quote 0: the reason alone names what is wrong. */
static void write_error(char *err, size_t cap, const char *text, size_t len, size_t pos,
                        int quote, const char *reason)
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
static const char *show_bytes(const char *s, size_t n, char *out)
{
    size_t k = n > SHOW_MAX ? SHOW_MAX - 3 : n, o = 0;
    for (size_t i = 0; i < k; i++) {
        unsigned char ch = (unsigned char)s[i];
        out[o++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
    }
    if (k < n) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
    return out;
}

/* A value for a reason, as Python's repr shows it, cut to SHOW_MAX. */
static const char *show_value(const t1_value *v, char *out)
{
    char buf[SHOW_MAX + 8];
    size_t n = t1_value_format(v, 0, buf, sizeof buf);
    return show_bytes(buf, n < sizeof buf ? n : sizeof buf - 1, out);
}

static const char *type_name(t1_type t)
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
static const char *a_type(t1_type t)
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

/* ---------------------------------------------------------------- lexer */

typedef struct token {
    int kind;        /* enum tok */
    int code;        /* TK_OP: enum op; TK_KW: enum kw */
    size_t start, end;
    int64_t i;       /* TK_INT */
    double f;        /* TK_FLOAT */
    size_t str_off;  /* TK_STR: the decoded bytes in the pool */
    size_t str_len;
} token;

typedef struct parser {
    const char *text;
    size_t len;
    size_t p; /* where the lexer reads next */
    token tok;
    int depth;
    int failed;
    char *err;
    size_t cap;
    t1_expr *e;
} parser;

static int perr(parser *ps, size_t pos, const char *fmt, ...) T1_PRINTF(3, 4);

static int perr(parser *ps, size_t pos, const char *fmt, ...)
{
    if (ps->failed)
        return -1;
    ps->failed = 1;
    char reason[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    write_error(ps->err, ps->cap, ps->text, ps->len, pos, 1, reason);
    return -1;
}

static int oom(parser *ps)
{
    if (!ps->failed && ps->err && ps->cap)
        snprintf(ps->err, ps->cap, "out of memory");
    ps->failed = 1;
    return -1;
}

/* The block p of *cap elements of size, grown (doubling) to hold need:
 * p itself when it does already, NULL when out of memory (p untouched). */
static void *grow(void *p, size_t *cap, size_t need, size_t size)
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
    char *pool = grow(e->pool, &e->pool_cap, e->pool_len + 1, 1);
    if (!pool)
        return oom(ps);
    e->pool = pool;
    e->pool[e->pool_len++] = ch;
    return 0;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
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
static size_t scan_digits(const char *s, size_t n, size_t p, int base)
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
static size_t scan_decimal(const char *s, size_t n, int *is_float)
{
    size_t p = scan_digits(s, n, 0, 10);
    int digits = p > 0;
    *is_float = 0;
    if (p < n && s[p] == '.') {
        size_t q = scan_digits(s, n, p + 1, 10);
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
        size_t r = scan_digits(s, n, q, 10);
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
static int decimal_to_double(const char *s, size_t n, double *out)
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
        end = scan_digits(t, n, start + 2, base);
        if (end == start + 2)
            end = start; /* no digit: refused below */
    } else {
        end = start + scan_decimal(t + start, n - start, &is_float);
    }
    if (end == start || (end < n && (is_ident_char(t[end]) || t[end] == '.'))) {
        size_t e = end > start ? end : start + 1;
        while (e < n && (is_ident_char(t[e]) || t[e] == '.'))
            e++;
        return perr(ps, start, "'%s' is not a number", show_bytes(t + start, e - start, sh));
    }
    if (is_float) {
        ps->tok.kind = TK_FLOAT;
        ps->tok.start = start;
        ps->tok.end = end;
        ps->p = end;
        if (decimal_to_double(t + start, end - start, &ps->tok.f))
            return oom(ps);
        return 0;
    }
    if (!base) {
        /* Python refuses 010 rather than guess C's octal. */
        size_t z = start;
        while (z < end && (t[z] == '0' || t[z] == '_'))
            z++;
        if (t[start] == '0' && z < end)
            return perr(ps, start, "'%s': a decimal number does not start with 0 (0o is octal)",
                        show_bytes(t + start, end - start, sh));
    }
    int64_t v;
    if (!digits_to_int(t, base ? start + 2 : start, end, base ? base : 10, &v))
        return perr(ps, start, "%s does not fit a 64-bit integer",
                    show_bytes(t + start, end - start, sh));
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
            perr(ps, p - 2, "'\\%c' needs %d hex digits", ps->text[p - 1], digits);
            return 0;
        }
        cp = cp * 16 + (uint32_t)d;
    }
    if (cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000)) {
        perr(ps, p - 2, "'\\%c' names no character", ps->text[p - 1]);
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
            return perr(ps, start, "string never closed");
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
static int lex(parser *ps)
{
    const char *t = ps->text;
    size_t p = ps->p;
    while (p < ps->len && is_space(t[p]))
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
        return perr(ps, p, "'=' is not an operator ('==' compares)");
    if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f)
        return perr(ps, p, "unexpected character '%c'", c);
    return perr(ps, p, "unexpected byte 0x%02x", (unsigned)(unsigned char)c);
}

/* The current token's text for a message. */
static const char *tok_text(const parser *ps, char *out)
{
    return show_bytes(ps->text + ps->tok.start, ps->tok.end - ps->tok.start, out);
}

static int is_op(const parser *ps, int op) { return ps->tok.kind == TK_OP && ps->tok.code == op; }
static int is_kw(const parser *ps, int kw) { return ps->tok.kind == TK_KW && ps->tok.code == kw; }

/* Whether the word after the current token is "in" (for "not in"). */
static int next_is_in(const parser *ps)
{
    size_t q = ps->p;
    while (q < ps->len && is_space(ps->text[q]))
        q++;
    return q + 1 < ps->len && ps->text[q] == 'i' && ps->text[q + 1] == 'n' &&
           !is_ident_char(ps->text[q + 2]);
}

static int next_char_is(const parser *ps, char c)
{
    size_t q = ps->p;
    while (q < ps->len && is_space(ps->text[q]))
        q++;
    return q < ps->len && ps->text[q] == c;
}

/* ---------------------------------------------------------------- parser */

static int32_t new_node(parser *ps, int kind, int op, size_t pos, int32_t a, int32_t b, int32_t c)
{
    t1_expr *e = ps->e;
    node *nodes =
        e->n_nodes < INT32_MAX ? grow(e->nodes, &e->nodes_cap, e->n_nodes + 1, sizeof *nodes) : NULL;
    if (!nodes)
        return oom(ps);
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
        consts = grow(e->consts, &e->consts_cap, e->n_consts + 1, sizeof *consts);
    if (!consts)
        return oom(ps);
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
        perr(ps, ps->tok.start, "nested more than %d deep", T1_EXPR_DEPTH_MAX);
        return 0;
    }
    ps->depth++;
    return 1;
}

static int expect(parser *ps, int op)
{
    if (is_op(ps, op))
        return lex(ps);
    return perr(ps, ps->tok.start, "'%s' expected", op_name[op]);
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
        if (lex(ps))
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
            if (lex(ps))
                goto out;
            if (ps->tok.kind != TK_NAME) {
                perr(ps, ps->tok.start, "a name expected after 'for', not '%s'", tok_text(ps, sh));
                goto out;
            }
            size_t npos = ps->tok.start, nlen = ps->tok.end - ps->tok.start;
            if (lex(ps))
                goto out;
            if (!is_kw(ps, KW_IN)) {
                perr(ps, ps->tok.start, "'in' expected");
                goto out;
            }
            if (lex(ps))
                goto out;
            int32_t iter = parse_bool(ps, KW_OR);
            if (iter < 0)
                goto out;
            clause = new_node(ps, N_FOR, 0, npos, iter, (int32_t)nlen, -1);
        } else {
            size_t ipos = ps->tok.start;
            if (lex(ps))
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
    t1_value *citems = grow(e->citems, &e->citems_cap, off + count, sizeof *citems);
    if (!citems)
        return oom(ps);
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
    if (lex(ps))
        return -1;
    if (is_op(ps, close)) {
        if (lex(ps))
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
    for (int k = 0; k < (int)(sizeof fns / sizeof fns[0]); k++)
        if (strlen(fns[k].name) == len && memcmp(fns[k].name, ps->text + pos, len) == 0)
            fn = k;
    if (fn < 0)
        return perr(ps, pos, "'%s' is not a function", show_bytes(ps->text + pos, len, sh));
    if (lex(ps) || lex(ps)) /* the name, the '(' */
        return -1;
    int32_t first = -1, count = 0;
    if (is_op(ps, P_RPAREN)) {
        if (lex(ps))
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
    if (count < fns[fn].min_args || (fns[fn].max_args >= 0 && count > fns[fn].max_args)) {
        if (fns[fn].min_args == fns[fn].max_args)
            return perr(ps, pos, "%s() takes %d argument%s, not %d", fns[fn].name, fns[fn].min_args,
                        fns[fn].min_args == 1 ? "" : "s", (int)count);
        if (fns[fn].max_args < 0)
            return perr(ps, pos, "%s() takes at least %d argument", fns[fn].name, fns[fn].min_args);
        return perr(ps, pos, "%s() takes %d to %d arguments, not %d", fns[fn].name, fns[fn].min_args,
                    fns[fn].max_args, (int)count);
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
            return perr(ps, pos, "an operand expected, not '%s'", tok_text(ps, sh));
        v.type = T1_BOOL;
        v.i = t->code == KW_TRUE;
        break;
    case TK_NAME:
        if (next_char_is(ps, '('))
            return parse_call(ps);
        {
            int32_t n = new_node(ps, N_NAME, 0, pos, (int32_t)(t->end - t->start), -1, -1);
            return n < 0 || lex(ps) ? -1 : n;
        }
    case TK_OP:
        if (t->code == P_LPAREN)
            return parse_group(ps, P_RPAREN);
        if (t->code == P_LBRACK)
            return parse_group(ps, P_RBRACK);
        return perr(ps, pos, "an operand expected, not '%s'", tok_text(ps, sh));
    default:
        return perr(ps, pos, "an operand expected");
    }
    int32_t n = new_const(ps, &v, pos);
    return n < 0 || lex(ps) ? -1 : n;
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
        int32_t idx = lex(ps) ? -1 : parse_expr(ps);
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
    if (lex(ps) || !enter(ps))
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
    if (lex(ps) || !enter(ps))
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
        if (lex(ps))
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
    else if (is_kw(ps, KW_NOT) && next_is_in(ps))
        op = OP_NOTIN;
    if (op < 0)
        return -1;
    if (lex(ps) || (op == OP_NOTIN && lex(ps)))
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
    if (lex(ps) || !enter(ps))
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
        if (lex(ps))
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
    if (lex(ps))
        return -1;
    int32_t cond = parse_bool(ps, KW_OR);
    if (cond < 0)
        return -1;
    if (!is_kw(ps, KW_ELSE))
        return perr(ps, ps->tok.start, "'else' expected");
    if (lex(ps))
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

/* ---------------------------------------------------------------- names */

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
             show_bytes(e->text + n->pos, (size_t)n->a, sh));
    /* When the whole text is the name, the reason already quotes it. */
    size_t from = 0, to = e->len;
    while (from < to && is_space(e->text[from]))
        from++;
    while (to > from && is_space(e->text[to - 1]))
        to--;
    int whole = from == n->pos && to - from == (size_t)n->a;
    write_error(r->err, r->cap, e->text, e->len, n->pos, !whole, reason);
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
    int *uses = grow(r->e->slots, &r->uses_cap, r->uses + 1, sizeof *uses);
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
    if (lex(ps))
        return -1;
    if (ps->tok.kind == TK_END)
        return perr(ps, ps->tok.start, "an empty expression");
    int32_t root = parse_expr(ps);
    if (root < 0)
        return -1;
    if (ps->tok.kind != TK_END) {
        char sh[SHOW_MAX + 4];
        return perr(ps, ps->tok.start, "unexpected '%s'", tok_text(ps, sh));
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
        write_error(err, cap, text, len, SIZE_MAX, 1, reason);
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
    resolver r = {.e = e, .fn = resolve, .ctx = ctx, .err = err, .cap = cap};
    if (resolve_node(&r, e->root, NULL) || dedupe_slots(e, r.uses)) {
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

/* ---------------------------------------------------------------- arena */

typedef struct ablock {
    struct ablock *next;
    size_t size; /* bytes of data after the header */
    size_t used;
} ablock;

#define ABLOCK_HEAD ((sizeof(ablock) + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1))

enum { A_LIMIT = 1, A_NOMEM = 2 };

static char *block_data(ablock *b) { return (char *)b + ABLOCK_HEAD; }
static size_t arena_limit(const t1_arena *a) { return a->limit ? a->limit : ARENA_DEFAULT_LIMIT; }

static void *arena_alloc(t1_arena *a, size_t n, int *why)
{
    size_t limit = arena_limit(a);
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
static void *arena_grow(t1_arena *a, void *p, size_t old, size_t n, int *why)
{
    ablock *b = a->blocks;
    size_t o = (old + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
    size_t m = (n + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
    if (p && b && (char *)p + o == block_data(b) + b->used && m >= o && b->size - b->used >= m - o &&
        n <= arena_limit(a) && a->used <= arena_limit(a) - (m - o)) {
        b->used += m - o;
        a->used += m - o;
        return p;
    }
    void *q = arena_alloc(a, n, why);
    if (q && old)
        memcpy(q, p, old);
    return q;
}

void t1_arena_reset(t1_arena *a)
{
    if (!a)
        return;
    ablock *b = a->blocks;
    if (b && b->next) {
        /* One block as large as all of them: the next evaluation like this
         * one then allocates nothing. */
        size_t total = 0;
        while (b) {
            ablock *next = b->next;
            total += b->size;
            free(b);
            b = next;
        }
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
    for (ablock *b = a->blocks; b;) {
        ablock *next = b->next;
        free(b);
        b = next;
    }
    a->blocks = NULL;
    a->used = 0;
}

/* ---------------------------------------------------------------- values */

typedef struct evctx {
    const t1_expr *e;
    const node *nodes;
    const t1_value *consts;
    const t1_value *slots;
    t1_value *locals;
    t1_arena *arena;
    char *err;
    size_t cap;
    uint64_t steps; /* comprehension iterations left */
} evctx;

static int efail(const evctx *c, uint32_t pos, const char *fmt, ...) T1_PRINTF(3, 4);

static int efail(const evctx *c, uint32_t pos, const char *fmt, ...)
{
    char reason[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    write_error(c->err, c->cap, c->e->text, c->e->len, pos, 1, reason);
    return -1;
}

static int alloc_fail(const evctx *c, uint32_t pos, int why)
{
    if (why == A_LIMIT)
        return efail(c, pos, "lists and strings take more than the arena's %zu bytes",
                     arena_limit(c->arena));
    if (c->err && c->cap)
        snprintf(c->err, c->cap, "out of memory");
    return -1;
}

static void *alloc(const evctx *c, size_t n, uint32_t pos)
{
    if (!c->arena) {
        efail(c, pos, "a list or string needs an arena, and none was given");
        return NULL;
    }
    int why = A_NOMEM;
    void *p = arena_alloc(c->arena, n, &why);
    if (!p)
        alloc_fail(c, pos, why);
    return p;
}

static int is_int(const t1_value *v) { return v->type == T1_INT || v->type == T1_BOOL; }
static int is_num(const t1_value *v) { return is_int(v) || v->type == T1_FLOAT; }
static double num_f(const t1_value *v) { return v->type == T1_FLOAT ? v->f : (double)v->i; }

static int set_int(t1_value *out, int64_t i)
{
    out->type = T1_INT;
    out->i = i;
    return 0;
}

static int set_bool(t1_value *out, int b)
{
    out->type = T1_BOOL;
    out->i = b != 0;
    return 0;
}

static int set_float(t1_value *out, double f)
{
    out->type = T1_FLOAT;
    out->f = f;
    return 0;
}

static void set_list(t1_value *out, const t1_value *items, size_t n)
{
    out->type = T1_LIST;
    out->items = items;
    out->len = n;
}

static int truth(const t1_value *v)
{
    switch (v->type) {
    case T1_INT:
    case T1_BOOL: return v->i != 0;
    case T1_FLOAT: return v->f != 0.0;
    case T1_STRING:
    case T1_LIST: return v->len != 0;
    }
    return 0;
}

int t1_value_truth(const t1_value *v) { return v ? truth(v) : 0; }

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

/* A new NUL-terminated string of a[0..na) then b[0..nb). */
static int make_string(const evctx *c, uint32_t pos, const char *a, size_t na, const char *b, size_t nb,
                       t1_value *out)
{
    if (na > SIZE_MAX - 1 - nb)
        return efail(c, pos, "a string too long");
    char *s = alloc(c, na + nb + 1, pos);
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
    if (is_int(l) && is_int(r))
        return l->i < r->i ? -1 : l->i > r->i;
    if (is_int(l)) {
        return cmp_int_float(l->i, r->f);
    }
    if (is_int(r)) {
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
    if (is_num(l) && is_num(r))
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
    return efail(c, pos, "'%s' between %s and %s", op_name[op], type_name(l->type), type_name(r->type));
}

/* An ordering (< <= > >=) as Python's: numbers, strings, and lists item by
 * item; anything else is a type error. */
static int order(const evctx *c, int op, uint32_t pos, const t1_value *l, const t1_value *r, int *res)
{
    if (is_num(l) && is_num(r)) {
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
            return order(c, op, pos, &l->items[k], &r->items[k], res);
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
    if (is_int(l) && is_int(r)) {
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
    return order(c, op, pos, l, r, res);
}

/* ------------------------------------------------------------ arithmetic */

static int overflow(const evctx *c, int op, uint32_t pos, int64_t a, int64_t b)
{
    return efail(c, pos, "'%s' overflows a 64-bit integer: %lld %s %lld", op_name[op], (long long)a,
                 op_name[op], (long long)b);
}

static int int_pow(const evctx *c, uint32_t pos, int64_t a, int64_t b, t1_value *out)
{
    if (b < 0) {
        /* Python: an int to a negative power is a float. */
        if (a == 0)
            return efail(c, pos, "0 cannot be raised to a negative power");
        return set_float(out, pow((double)a, (double)b));
    }
    int64_t r = 1, base = a;
    for (uint64_t e = (uint64_t)b; e; e >>= 1) {
        if ((e & 1) && __builtin_mul_overflow(r, base, &r))
            return overflow(c, OP_POW, pos, a, b);
        /* Squaring once more than needed would overflow for nothing. */
        if (e > 1 && __builtin_mul_overflow(base, base, &base))
            return overflow(c, OP_POW, pos, a, b);
    }
    return set_int(out, r);
}

static int int_shift(const evctx *c, int op, uint32_t pos, int64_t a, int64_t b, t1_value *out)
{
    if (b < 0)
        return efail(c, pos, "'%s' by a negative count (%lld)", op_name[op], (long long)b);
    if (b > 63)
        return efail(c, pos, "'%s' by a count over 63 (%lld)", op_name[op], (long long)b);
    if (op == OP_SHR) /* floor, as Python's, whatever C does with a negative a */
        return set_int(out, a < 0 ? ~(~a >> b) : a >> b);
    int64_t r;
    if (a == 0 || b == 0)
        r = a;
    else if (b == 63 && a == -1)
        r = INT64_MIN;
    else if (b == 63 || __builtin_mul_overflow(a, (int64_t)1 << b, &r))
        return overflow(c, op, pos, a, b);
    return set_int(out, r);
}

static int int_op(const evctx *c, int op, uint32_t pos, const t1_value *l, const t1_value *r,
                  t1_value *out)
{
    int64_t a = l->i, b = r->i, v;
    switch (op) {
    case OP_ADD:
        if (__builtin_add_overflow(a, b, &v))
            return overflow(c, op, pos, a, b);
        return set_int(out, v);
    case OP_SUB:
        if (__builtin_sub_overflow(a, b, &v))
            return overflow(c, op, pos, a, b);
        return set_int(out, v);
    case OP_MUL:
        if (__builtin_mul_overflow(a, b, &v))
            return overflow(c, op, pos, a, b);
        return set_int(out, v);
    case OP_DIV:
        if (b == 0)
            return efail(c, pos, "division by zero");
        return set_float(out, (double)a / (double)b);
    case OP_FDIV:
        if (b == 0)
            return efail(c, pos, "division by zero");
        if (a == INT64_MIN && b == -1)
            return overflow(c, op, pos, a, b);
        v = a / b;
        return set_int(out, v - ((a % b != 0) && ((a < 0) != (b < 0))));
    case OP_MOD:
        if (b == 0)
            return efail(c, pos, "modulo by zero");
        if (b == -1)
            return set_int(out, 0);
        v = a % b;
        return set_int(out, v != 0 && ((v < 0) != (b < 0)) ? v + b : v);
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
        return set_bool(out, (int)v);
    return set_int(out, v);
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
        return set_float(out, 1.0);
    if (x == 0.0 && y < 0.0)
        return efail(c, pos, "0.0 cannot be raised to a negative power");
    if (x < 0.0 && isfinite(x) && isfinite(y) && y != floor(y))
        return efail(c, pos, "a negative number to a fractional power is not a real number");
    double r = pow(x, y);
    if (isinf(r) && isfinite(x) && isfinite(y))
        return efail(c, pos, "'**' overflows a float");
    return set_float(out, r);
}

static int float_op(const evctx *c, int op, uint32_t pos, const t1_value *l, const t1_value *r,
                    t1_value *out)
{
    double x = num_f(l), y = num_f(r);
    switch (op) {
    case OP_ADD: return set_float(out, x + y);
    case OP_SUB: return set_float(out, x - y);
    case OP_MUL: return set_float(out, x * y);
    case OP_DIV:
        if (y == 0.0)
            return efail(c, pos, "division by zero");
        return set_float(out, x / y);
    case OP_FDIV:
        if (y == 0.0)
            return efail(c, pos, "division by zero");
        return set_float(out, float_floordiv(x, y));
    case OP_MOD:
        if (y == 0.0)
            return efail(c, pos, "modulo by zero");
        return set_float(out, float_mod(x, y));
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
            return efail(c, pos, "a string too long");
        char *s = alloc(c, total + 1, pos);
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
        return efail(c, pos, "a list of more than %d values", T1_EXPR_LIST_MAX);
    t1_value *items = total ? alloc(c, total * sizeof *items, pos) : NULL;
    if (total && !items)
        return -1;
    for (size_t k = 0; total && k < count; k++)
        memcpy(items + k * l->len, l->items, l->len * sizeof *items);
    set_list(out, items, total);
    return 0;
}

/* + and * of strings and lists. */
static int seq_op(const evctx *c, int op, uint32_t pos, const t1_value *l, const t1_value *r,
                  t1_value *out)
{
    if (op == OP_ADD && l->type == T1_STRING && r->type == T1_STRING)
        return make_string(c, pos, l->s, l->len, r->s, r->len, out);
    if (op == OP_ADD && l->type == T1_LIST && r->type == T1_LIST) {
        size_t n = l->len + r->len;
        if (l->len > T1_EXPR_LIST_MAX || r->len > T1_EXPR_LIST_MAX || n > T1_EXPR_LIST_MAX)
            return efail(c, pos, "a list of more than %d values", T1_EXPR_LIST_MAX);
        t1_value *items = n ? alloc(c, n * sizeof *items, pos) : NULL;
        if (n && !items)
            return -1;
        if (l->len)
            memcpy(items, l->items, l->len * sizeof *items);
        if (r->len)
            memcpy(items + l->len, r->items, r->len * sizeof *items);
        set_list(out, items, n);
        return 0;
    }
    if (op == OP_MUL && (l->type == T1_STRING || l->type == T1_LIST) && is_int(r))
        return repeat(c, pos, l, r->i, out);
    if (op == OP_MUL && (r->type == T1_STRING || r->type == T1_LIST) && is_int(l))
        return repeat(c, pos, r, l->i, out);
    return type_error(c, op, pos, l, r);
}

static int binop(const evctx *c, int op, uint32_t pos, const t1_value *l, const t1_value *r,
                 t1_value *out)
{
    if (is_int(l) && is_int(r))
        return int_op(c, op, pos, l, r, out);
    if (is_num(l) && is_num(r))
        return float_op(c, op, pos, l, r, out);
    return seq_op(c, op, pos, l, r, out);
}

static int unop(const evctx *c, int op, uint32_t pos, const t1_value *v, t1_value *out)
{
    if (is_int(v)) {
        if (op == OP_INV)
            return set_int(out, ~v->i);
        if (op == OP_POS)
            return set_int(out, v->i);
        if (v->i == INT64_MIN)
            return efail(c, pos, "'-' overflows a 64-bit integer: -(%lld)", (long long)v->i);
        return set_int(out, -v->i);
    }
    if (v->type == T1_FLOAT && op != OP_INV)
        return set_float(out, op == OP_NEG ? -v->f : v->f);
    return efail(c, pos, "'%s' of %s", op_name[op], a_type(v->type));
}

/* ------------------------------------------------------------ evaluation */

static int ev(evctx *c, int32_t k, t1_value *out);

static int index_value(const evctx *c, uint32_t pos, const t1_value *obj, const t1_value *idx,
                       t1_value *out)
{
    if (obj->type != T1_LIST && obj->type != T1_STRING)
        return efail(c, pos, "'[]' of %s: only a list or a string has items", a_type(obj->type));
    if (!is_int(idx))
        return efail(c, pos, "an index must be an int, not %s", a_type(idx->type));
    size_t n = obj->type == T1_LIST ? obj->len : utf8_count(obj->s, obj->len);
    int64_t k = idx->i < 0 ? idx->i + (int64_t)n : idx->i;
    if (k < 0 || (uint64_t)k >= n)
        return efail(c, pos, "index %lld out of range for %s of %zu", (long long)idx->i,
                     obj->type == T1_LIST ? "a list" : "a string", n);
    if (obj->type == T1_LIST) {
        *out = obj->items[k];
        return 0;
    }
    size_t from = 0;
    for (int64_t j = 0; j < k; j++)
        from = utf8_next(obj->s, obj->len, from);
    size_t to = utf8_next(obj->s, obj->len, from);
    return make_string(c, pos, obj->s + from, to - from, NULL, 0, out);
}

static int eval_args(evctx *c, const node *nd, t1_value *v)
{
    int32_t k = nd->a;
    for (int i = 0; i < nd->c; i++, k = c->nodes[k].next)
        if (ev(c, k, &v[i]))
            return -1;
    return 0;
}

/* range()'s arguments: its first value, step and how many; refused when
 * longer than a list may be, before anything is made. */
static int range_bounds(const evctx *c, const node *nd, const t1_value *v, int64_t *start, int64_t *step,
                        size_t *count)
{
    for (int k = 0; k < nd->c; k++)
        if (!is_int(&v[k]))
            return efail(c, nd->pos, "range() takes ints, not %s", a_type(v[k].type));
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
        return efail(c, nd->pos, "range() with a step of 0");
    uint64_t n = 0;
    if (s > 0 && a < b)
        n = ((uint64_t)b - (uint64_t)a - 1) / (uint64_t)s + 1;
    else if (s < 0 && a > b)
        n = ((uint64_t)a - (uint64_t)b - 1) / ((uint64_t)0 - (uint64_t)s) + 1;
    if (n > T1_EXPR_LIST_MAX)
        return efail(c, nd->pos, "range() of %llu values: a list holds at most %d",
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
    t1_value *items = n ? alloc(c, n * sizeof *items, nd->pos) : NULL;
    if (n && !items)
        return -1;
    for (size_t k = 0; k < n; k++) {
        items[k] = (t1_value){.type = T1_INT, .i = range_item(start, step, k)};
    }
    set_list(out, items, n);
    return 0;
}

static int call_minmax(evctx *c, const node *nd, t1_value *out)
{
    int op = nd->op == F_MIN ? OP_LT : OP_GT;
    int better;
    t1_value v;
    if (nd->c == 1) {
        if (ev(c, nd->a, &v))
            return -1;
        if (v.type != T1_LIST)
            return efail(c, nd->pos, "%s() of %s: one argument must be a list", fns[nd->op].name,
                         a_type(v.type));
        if (v.len == 0)
            return efail(c, nd->pos, "%s() of an empty list", fns[nd->op].name);
        const t1_value *best = &v.items[0];
        for (size_t k = 1; k < v.len; k++) {
            if (order(c, op, nd->pos, &v.items[k], best, &better))
                return -1;
            if (better)
                best = &v.items[k];
        }
        *out = *best;
        return 0;
    }
    /* The first of equal values wins, as in Python. */
    if (ev(c, nd->a, out))
        return -1;
    for (int32_t k = c->nodes[nd->a].next; k >= 0; k = c->nodes[k].next) {
        if (ev(c, k, &v) || order(c, op, nd->pos, &v, out, &better))
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
        return efail(c, pos, "%s() of %s: not a 64-bit integer", fn, show_value(&v, sh));
    }
    return set_int(out, (int64_t)x);
}

/* s[0..n) without the spaces Python's int() and float() skip around it. */
static void trim(const char **s, size_t *n)
{
    while (*n && is_space(**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n && is_space((*s)[*n - 1]))
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
    size_t end = scan_digits(s, n, p, 10);
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
        return efail(c, pos, "int() of %s: not an integer", show_value(v, sh));
    if (u > (uint64_t)INT64_MAX + neg)
        return efail(c, pos, "int() of %s: not a 64-bit integer", show_value(v, sh));
    return set_int(out, neg ? (int64_t)(0 - u) : (int64_t)u);
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
        return set_float(out, sign * INFINITY);
    if (word_is(s, n, "nan"))
        return set_float(out, copysign(NAN, sign));
    int is_float;
    double f;
    if (n == 0 || scan_decimal(s, n, &is_float) != n) {
        char sh[SHOW_MAX + 4];
        return efail(c, pos, "float() of %s: not a number", show_value(v, sh));
    }
    if (decimal_to_double(s, n, &f))
        return alloc_fail(c, pos, A_NOMEM);
    return set_float(out, sign * f);
}

static int to_int(const evctx *c, uint32_t pos, const t1_value *v, t1_value *out)
{
    if (is_int(v))
        return set_int(out, v->i);
    if (v->type == T1_FLOAT)
        return float_to_int(c, pos, "int", trunc(v->f), out);
    if (v->type == T1_STRING)
        return text_to_int(c, pos, v, out);
    return efail(c, pos, "int() of %s", a_type(v->type));
}

static int to_float(const evctx *c, uint32_t pos, const t1_value *v, t1_value *out)
{
    if (is_num(v))
        return set_float(out, num_f(v));
    if (v->type == T1_STRING)
        return text_to_float(c, pos, v, out);
    return efail(c, pos, "float() of %s", a_type(v->type));
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
        return set_int(out, a);
    if (digits < -19)
        return set_int(out, 0);
    if (digits == -19) {
        /* 10**19 does not fit: only 0 or an overflow are possible. */
        if (a > 5000000000000000000LL || a < -5000000000000000000LL)
            return efail(c, pos, "round() overflows a 64-bit integer");
        return set_int(out, 0);
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
        return efail(c, pos, "round() overflows a 64-bit integer");
    return set_int(out, v);
}

/* round(x, digits) of a float: printf's %.*f rounds the exact binary value
 * correctly, as Python's own round does. Negative digits go through a
 * division, exact for the usual sizes. */
static int round_float(const evctx *c, uint32_t pos, double x, int64_t digits, t1_value *out)
{
    if (!isfinite(x) || x == 0.0 || digits > 330)
        return set_float(out, x);
    if (digits >= 0) {
        char buf[720];
        snprintf(buf, sizeof buf, "%.*f", (int)digits, x);
        return set_float(out, strtod(buf, NULL));
    }
    if (digits < -330)
        return set_float(out, copysign(0.0, x));
    double p = pow(10.0, (double)-digits);
    if (isinf(p))
        return set_float(out, copysign(0.0, x));
    double y = round_half_even(x / p) * p;
    if (!isfinite(y))
        return efail(c, pos, "round() overflows a float");
    return set_float(out, y == 0.0 ? copysign(0.0, x) : y);
}

static int call_round(const evctx *c, const node *nd, const t1_value *v, t1_value *out)
{
    if (!is_num(&v[0]))
        return efail(c, nd->pos, "round() of %s", a_type(v[0].type));
    if (nd->c == 1) {
        if (is_int(&v[0]))
            return set_int(out, v[0].i);
        return float_to_int(c, nd->pos, "round", round_half_even(v[0].f), out);
    }
    if (!is_int(&v[1]))
        return efail(c, nd->pos, "round()'s digits must be an int, not %s", a_type(v[1].type));
    if (is_int(&v[0]))
        return round_int(c, nd->pos, v[0].i, v[1].i, out);
    return round_float(c, nd->pos, v[0].f, v[1].i, out);
}

static int to_str(const evctx *c, uint32_t pos, const t1_value *v, t1_value *out)
{
    size_t n = t1_value_format(v, 1, NULL, 0);
    char *s = n < SIZE_MAX ? alloc(c, n + 1, pos) : NULL;
    if (!s)
        return -1;
    t1_value_format(v, 1, s, n + 1);
    out->type = T1_STRING;
    out->s = s;
    out->len = n;
    return 0;
}

static int call(evctx *c, const node *nd, t1_value *out)
{
    if (nd->op == F_MIN || nd->op == F_MAX)
        return call_minmax(c, nd, out);
    t1_value v[3];
    if (eval_args(c, nd, v))
        return -1;
    switch (nd->op) {
    case F_ABS:
        if (is_int(&v[0])) {
            if (v[0].i == INT64_MIN)
                return efail(c, nd->pos, "abs() overflows a 64-bit integer");
            return set_int(out, v[0].i < 0 ? -v[0].i : v[0].i);
        }
        if (v[0].type == T1_FLOAT)
            return set_float(out, fabs(v[0].f));
        return efail(c, nd->pos, "abs() of %s", a_type(v[0].type));
    case F_INT: return to_int(c, nd->pos, &v[0], out);
    case F_FLOAT: return to_float(c, nd->pos, &v[0], out);
    case F_ROUND: return call_round(c, nd, v, out);
    case F_LEN:
        if (v[0].type == T1_LIST)
            return set_int(out, (int64_t)v[0].len);
        if (v[0].type == T1_STRING)
            return set_int(out, (int64_t)utf8_count(v[0].s, v[0].len));
        return efail(c, nd->pos, "len() of %s", a_type(v[0].type));
    case F_BOOL: return set_bool(out, truth(&v[0]));
    case F_STR: return to_str(c, nd->pos, &v[0], out);
    default: return call_range(c, nd, v, out);
    }
}

static int make_list(evctx *c, const node *nd, t1_value *out)
{
    size_t n = (size_t)nd->c;
    t1_value *items = n ? alloc(c, n * sizeof *items, nd->pos) : NULL;
    if (n && !items)
        return -1;
    int32_t k = nd->a;
    for (size_t i = 0; i < n; i++, k = c->nodes[k].next)
        if (ev(c, k, &items[i]))
            return -1;
    set_list(out, items, n);
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
            return efail(c, pos, "a list of more than %d values", T1_EXPR_LIST_MAX);
        size_t n = b->cap ? b->cap * 2 : 8;
        if (n > T1_EXPR_LIST_MAX)
            n = T1_EXPR_LIST_MAX;
        int why = A_NOMEM;
        if (!c->arena)
            return efail(c, pos, "a list or string needs an arena, and none was given");
        t1_value *p = arena_grow(c->arena, b->items, b->cap * sizeof *p, n * sizeof *p, &why);
        if (!p)
            return alloc_fail(c, pos, why);
        b->items = p;
        b->cap = n;
    }
    b->items[b->len++] = *v;
    return 0;
}

static int step(evctx *c, uint32_t pos)
{
    if (c->steps == 0)
        return efail(c, pos, "comprehensions take more than %llu steps",
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
    if (ev(c, cl->a, &seq))
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
        return efail(c, it->pos, "'for' over %s: only a list or a string has items", a_type(seq.type));
    for (size_t i = 0; i < seq.len;) {
        size_t j = utf8_next(seq.s, seq.len, i);
        if (step(c, cl->pos) || make_string(c, cl->pos, seq.s + i, j - i, NULL, 0, var) ||
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
        return ev(c, item, &v) || push(c, b, &v, pos) ? -1 : 0;
    const node *cl = &c->nodes[k];
    if (cl->kind == N_FOR)
        return comp_for(c, cl, item, b, pos);
    if (ev(c, cl->a, &v))
        return -1;
    return truth(&v) ? comp_run(c, cl->next, item, b, pos) : 0;
}

/* An operand: a leaf is read where it is, with no call and no copy; any
 * other node is evaluated into tmp. NULL on an error. */
static inline const t1_value *operand(evctx *c, int32_t k, t1_value *tmp)
{
    const node *nd = &c->nodes[k];
    switch (nd->kind) {
    case N_CONST: return &c->consts[nd->a];
    case N_SLOT: return &c->slots[nd->a];
    case N_LOCAL: return &c->locals[nd->a];
    default: return ev(c, k, tmp) ? NULL : tmp;
    }
}

static int ev_bool(evctx *c, const node *nd, t1_value *out)
{
    /* and/or give the operand that decided, as Python's do. */
    for (int32_t k = nd->a;;) {
        if (ev(c, k, out))
            return -1;
        k = c->nodes[k].next;
        if (k < 0 || truth(out) == (nd->op == OP_OR))
            return 0;
    }
}

static int ev_chain(evctx *c, const node *nd, t1_value *out)
{
    t1_value acc, tmp, t;
    if (ev(c, nd->a, &acc))
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
            return set_bool(out, 0);
        l = r;
    }
    return set_bool(out, 1);
}

static int ev(evctx *c, int32_t k, t1_value *out)
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
        return set_bool(out, res);
    case N_BOOL:
        return ev_bool(c, nd, out);
    case N_NOT:
        if (!(l = operand(c, nd->a, &lt)))
            return -1;
        return set_bool(out, !truth(l));
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
        return ev(c, truth(l) ? nd->a : nd->c, out);
    case N_INDEX:
        if (!(l = operand(c, nd->a, &lt)) || !(r = operand(c, nd->b, &rt)))
            return -1;
        return index_value(c, nd->pos, l, r, out);
    case N_CALL:
        return call(c, nd, out);
    case N_LIST:
        return make_list(c, nd, out);
    case N_COMP: {
        builder b = {NULL, 0, 0};
        if (comp_run(c, nd->b, nd->a, &b, nd->pos))
            return -1;
        set_list(out, b.items, b.len);
        return 0;
    }
    default:
        return efail(c, nd->pos, "cannot evaluate this (node kind %d)", nd->kind);
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
        return make_string(c, pos, v->s, v->len, NULL, 0, v);
    t1_value *items = alloc(c, v->len * sizeof *items, pos);
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
        c.locals = alloc(&c, (size_t)e->n_locals * sizeof *c.locals, pos);
        if (!c.locals)
            return -1;
    }
    t1_value v;
    if (ev(&c, e->root, &v) || relocate(&c, &v, pos))
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
