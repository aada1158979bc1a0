/* define_value.c — define names, values and the -D / --variant / --derive
 * arguments (define_value.h). */
#include "define_value.h"

#include "bounded_fmt.h"
#include "expr.h"
#include "value_list.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

/* Up to max bytes of s (n bytes) for a message: non-printable bytes as
 * \xNN, "..." when cut. */
static void shown(const char *s, size_t n, char *buf, size_t cap, size_t max)
{
    size_t o = 0;
    for (size_t i = 0; i < n && i < max && o + 5 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f)
            buf[o++] = (char)c;
        else
            o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", c);
    }
    if (n > max && o + 4 < cap) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o < cap ? o : cap - 1] = '\0';
}

/* ---- names and values ------------------------------------------------------ */

/* The length of the define name at the start of s: an identifier, and the
 * parameter list when '(' follows (up to the first ')', or the end). */
static size_t name_span(const char *s)
{
    size_t n = 0;
    while (s[n] && s[n] != '=' && s[n] != '(' && s[n] != ',')
        n++;
    if (s[n] == '(') {
        while (s[n] && s[n] != ')')
            n++;
        if (s[n] == ')')
            n++;
    }
    return n;
}

/* The parameter after the before bytes of the list is not an identifier. */
static int bad_parameter(const char *opt, const char *show, const char *list, size_t before,
                         char *err, size_t errlen)
{
    size_t k = 1;
    for (size_t j = 0; j < before; j++)
        k += list[j] == ',';
    bfmt(err, errlen, "%s %s: parameter %zu is not an identifier (no blanks)", opt, show, k);
    return -1;
}

static int check_name(const char *opt, const char *name, size_t len, int *is_function,
                      char *err, size_t errlen)
{
    char show[96];
    shown(name, len, show, sizeof show, 60);
    if (is_function)
        *is_function = 0;
    if (len == 0) {
        bfmt(err, errlen, "%s: a define needs a name before '='", opt);
        return -1;
    }
    if (len > DEFINE_VALUE_NAME_MAX) {
        bfmt(err, errlen, "%s %s: a name longer than %d bytes", opt, show, DEFINE_VALUE_NAME_MAX);
        return -1;
    }
    size_t i = 0;
    if (!is_ident_start(name[0])) {
        bfmt(err, errlen, "%s %s: the name is not an identifier (letters, digits, _; not a digit first)",
             opt, show);
        return -1;
    }
    while (i < len && is_ident_char(name[i]))
        i++;
    if (i == len)
        return 0;
    if (name[i] != '(' || name[len - 1] != ')') {
        bfmt(err, errlen,
             "%s %s: the name is not an identifier or a macro head NAME(a,b) (letters, digits, _)",
             opt, show);
        return -1;
    }
    /* Parameters: identifiers separated by commas, none twice. */
    size_t p = i + 1, end = len - 1;
    if (p < end) {
        for (;;) {
            size_t start = p;
            if (p >= end || !is_ident_start(name[p]))
                return bad_parameter(opt, show, name + i + 1, start - i - 1, err, errlen);
            while (p < end && is_ident_char(name[p]))
                p++;
            for (size_t q = i + 1; q < start;) {
                size_t qs = q;
                while (q < start && name[q] != ',')
                    q++;
                if (q - qs == p - start && memcmp(name + qs, name + start, p - start) == 0) {
                    bfmt(err, errlen, "%s %s: parameter %.*s is given twice", opt, show,
                         (int)(p - start), name + start);
                    return -1;
                }
                q++;
            }
            if (p == end)
                break;
            if (name[p] != ',')
                return bad_parameter(opt, show, name + i + 1, start - i - 1, err, errlen);
            p++;
        }
    }
    if (is_function)
        *is_function = 1;
    return 0;
}

int define_value_check_name(const char *name, size_t len, int *is_function, char *err, size_t errlen)
{
    return check_name("-D", name, len, is_function, err, errlen);
}

static int check_value(const char *opt, const char *name, const char *value, char *err,
                       size_t errlen)
{
    size_t len = strlen(value);
    char show[96];
    shown(value, len, show, sizeof show, 60);
    if (len == 0) {
        bfmt(err, errlen, "%s %s=: an empty value (use -D %s for a bare define)", opt, name,
             name);
        return -1;
    }
    if (len > DEFINE_VALUE_VALUE_MAX) {
        bfmt(err, errlen, "%s %s: value '%s' is longer than %d bytes", opt, name, show,
             DEFINE_VALUE_VALUE_MAX);
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)value[i];
        const char *what = NULL;
        if (c == ' ')
            what = "a space";
        else if (c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f')
            what = "whitespace";
        else if (c < 0x20 || c == 0x7f)
            what = "a control character";
        else if (c == '"' || c == '\'')
            what = "a quote";
        else if (c == '\\')
            what = "a backslash";
        else if (c >= 0x80)
            what = "a non-ASCII byte";
        if (what) {
            bfmt(err, errlen, "%s %s: value '%s' holds %s; a build option cannot carry it", opt,
                 name, show, what);
            return -1;
        }
    }
    return 0;
}

int define_value_check_value(const char *name, const char *value, char *err, size_t errlen)
{
    return check_value("-D", name, value, err, errlen);
}

/* ---- top-level lists ------------------------------------------------------- */

long define_value_split_top(const char *text, define_value_span **out, const char *prefix, char *err, size_t errlen)
{
    *out = NULL;
    size_t max = 1;
    for (const char *c = text; *c; c++)
        max += *c == ',';
    define_value_span *items = malloc(max * sizeof *items);
    if (!items) {
        bfmt(err, errlen, "%s: out of memory", prefix);
        return -1;
    }
    size_t n = 0;
    int depth = 0;
    const char *start = text;
    for (const char *c = text;; c++) {
        if (*c == '(') {
            depth++;
        } else if (*c == ')') {
            if (--depth < 0) {
                char show[96];
                shown(text, strlen(text), show, sizeof show, 60);
                bfmt(err, errlen, "%s: ')' without its '(' in '%s'", prefix, show);
                free(items);
                return -1;
            }
        } else if ((*c == ',' && depth == 0) || *c == '\0') {
            const char *a = start, *b = c;
            while (a < b && (*a == ' ' || *a == '\t'))
                a++;
            while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
                b--;
            if (a == b) {
                if (n == 0 && *c == '\0')
                    bfmt(err, errlen, "%s: the list is empty", prefix);
                else if (n == 0)
                    bfmt(err, errlen, "%s: empty item at the start", prefix);
                else
                    bfmt(err, errlen, "%s: empty item after '%.*s'", prefix,
                         (int)(items[n - 1].len > 60 ? 60 : items[n - 1].len), items[n - 1].at);
                free(items);
                return -1;
            }
            items[n].at = a;
            items[n].len = (size_t)(b - a);
            n++;
            if (*c == '\0')
                break;
            start = c + 1;
        }
    }
    if (depth > 0) {
        char show[96];
        shown(text, strlen(text), show, sizeof show, 60);
        bfmt(err, errlen, "%s: '(' is never closed in '%s'", prefix, show);
        free(items);
        return -1;
    }
    *out = items;
    return (long)n;
}

/* ---- -D ------------------------------------------------------------------- */

static int all_digits(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

/* 0: not numeric; 1: a whole number; 2: a range A-B[:S] or "...". */
static int numeric_kind(const char *s, size_t n)
{
    if (n == 3 && memcmp(s, "...", 3) == 0)
        return 2;
    if (all_digits(s, n))
        return 1;
    const char *dash = memchr(s, '-', n);
    if (!dash || dash == s || !all_digits(s, (size_t)(dash - s)))
        return 0;
    const char *rest = dash + 1, *end = s + n;
    const char *colon = memchr(rest, ':', (size_t)(end - rest));
    if (!colon)
        return all_digits(rest, (size_t)(end - rest)) ? 2 : 0;
    return all_digits(rest, (size_t)(colon - rest)) &&
                   all_digits(colon + 1, (size_t)(end - colon - 1))
               ? 2
               : 0;
}

static int push_value(define_value_define *d, size_t *cap, const char *s, size_t n, const char *prefix,
                      char *err, size_t errlen)
{
    if (d->n_values >= DEFINE_VALUE_VALUES_MAX) {
        bfmt(err, errlen, "%s: more than %d values", prefix, DEFINE_VALUE_VALUES_MAX);
        return -1;
    }
    if (d->n_values == *cap) {
        size_t c = *cap ? 2 * *cap : 8;
        char **v = realloc(d->values, c * sizeof *v);
        if (!v) {
            bfmt(err, errlen, "%s: out of memory", prefix);
            return -1;
        }
        d->values = v;
        *cap = c;
    }
    char *copy = malloc(n + 1);
    if (!copy) {
        bfmt(err, errlen, "%s: out of memory", prefix);
        return -1;
    }
    memcpy(copy, s, n);
    copy[n] = '\0';
    d->values[d->n_values++] = copy;
    return 0;
}

/* Items [from, to) are numeric with at least one range or "...": spelled
 * out through value_list, plain numbers kept as written. */
static int push_numeric_run(define_value_define *d, size_t *cap, const define_value_span *items, size_t from,
                            size_t to, const char *prefix, char *err, size_t errlen)
{
    size_t len = 0;
    for (size_t i = from; i < to; i++)
        len += items[i].len + 1;
    char *text = malloc(len + 1);
    if (!text) {
        bfmt(err, errlen, "%s: out of memory", prefix);
        return -1;
    }
    size_t o = 0;
    for (size_t i = from; i < to; i++) {
        if (i > from)
            text[o++] = ',';
        memcpy(text + o, items[i].at, items[i].len);
        o += items[i].len;
    }
    text[o] = '\0';
    value_list_ints list;
    char why[VALUE_LIST_ERR_MAX];
    int rc = value_list_parse_int_array(text, DEFINE_VALUE_VALUES_MAX - d->n_values, &list, why);
    free(text);
    if (rc != 0) {
        bfmt(err, errlen, "%s: %s", prefix, why);
        return -1;
    }
    for (size_t i = 0; i < list.n && rc == 0; i++) {
        const char *tok = list.tokens[i];
        if (all_digits(tok, strlen(tok))) {
            rc = push_value(d, cap, tok, strlen(tok), prefix, err, errlen);
        } else {
            char num[32];
            snprintf(num, sizeof num, "%ld", list.values[i]);
            rc = push_value(d, cap, num, strlen(num), prefix, err, errlen);
        }
    }
    value_list_ints_free(&list);
    return rc;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A value given twice, found by sorting a copy of the pointers. */
static int refuse_duplicates(const define_value_define *d, const char *prefix, char *err, size_t errlen)
{
    if (d->n_values < 2)
        return 0;
    char **sorted = malloc(d->n_values * sizeof *sorted);
    if (!sorted) {
        bfmt(err, errlen, "%s: out of memory", prefix);
        return -1;
    }
    memcpy(sorted, d->values, d->n_values * sizeof *sorted);
    qsort(sorted, d->n_values, sizeof *sorted, compare_strings);
    int rc = 0;
    for (size_t i = 1; i < d->n_values && rc == 0; i++)
        if (strcmp(sorted[i - 1], sorted[i]) == 0) {
            char show[96];
            shown(sorted[i], strlen(sorted[i]), show, sizeof show, 60);
            bfmt(err, errlen, "%s: value %s is given twice", prefix, show);
            rc = -1;
        }
    free(sorted);
    return rc;
}

void define_value_define_free(define_value_define *d)
{
    if (!d)
        return;
    free(d->name);
    for (size_t i = 0; i < d->n_values; i++)
        free(d->values[i]);
    free(d->values);
    memset(d, 0, sizeof *d);
}

int define_value_parse_define(const char *arg, define_value_define *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    size_t name_len = name_span(arg);
    int is_function;
    if (check_name("-D", arg, name_len, &is_function, err, errlen) != 0)
        return -1;
    char prefix[DEFINE_VALUE_NAME_MAX + 8];
    snprintf(prefix, sizeof prefix, "-D %.*s", (int)name_len, arg);
    const char *rest = arg + name_len;
    if (*rest != '\0' && *rest != '=') {
        char show[96];
        shown(arg, strlen(arg), show, sizeof show, 60);
        bfmt(err, errlen, "-D %s: expected NAME, NAME=VALUES or NAME(a,b)=VALUE", show);
        return -1;
    }
    define_value_define d = {.is_function = is_function};
    d.name = malloc(name_len + 1);
    if (!d.name) {
        bfmt(err, errlen, "%s: out of memory", prefix);
        return -1;
    }
    memcpy(d.name, arg, name_len);
    d.name[name_len] = '\0';
    if (*rest == '\0') {
        d.bare = 1;
        *out = d;
        return 0;
    }
    const char *list = rest + 1;
    size_t cap = 0;
    if (is_function) {
        /* One value, commas and all. */
        if (check_value("-D", d.name, list, err, errlen) != 0 ||
            push_value(&d, &cap, list, strlen(list), prefix, err, errlen) != 0) {
            define_value_define_free(&d);
            return -1;
        }
        *out = d;
        return 0;
    }
    if (*list == '\0') {
        bfmt(err, errlen, "-D %s=: an empty value (use -D %s for a bare define)", d.name, d.name);
        define_value_define_free(&d);
        return -1;
    }
    define_value_span *items;
    long n = define_value_split_top(list, &items, prefix, err, errlen);
    if (n < 0) {
        define_value_define_free(&d);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < (size_t)n && rc == 0;) {
        if (numeric_kind(items[i].at, items[i].len)) {
            size_t j = i;
            int ranged = 0;
            while (j < (size_t)n && numeric_kind(items[j].at, items[j].len)) {
                ranged |= numeric_kind(items[j].at, items[j].len) == 2;
                j++;
            }
            if (ranged) {
                rc = push_numeric_run(&d, &cap, items, i, j, prefix, err, errlen);
                i = j;
                continue;
            }
        }
        char value[DEFINE_VALUE_VALUE_MAX + 1];
        size_t len = items[i].len > DEFINE_VALUE_VALUE_MAX ? DEFINE_VALUE_VALUE_MAX + 1 : items[i].len;
        char *big = NULL;
        const char *v = value;
        if (items[i].len > DEFINE_VALUE_VALUE_MAX) {
            big = malloc(items[i].len + 1);
            if (!big) {
                bfmt(err, errlen, "%s: out of memory", prefix);
                rc = -1;
                break;
            }
            memcpy(big, items[i].at, items[i].len);
            big[items[i].len] = '\0';
            v = big;
        } else {
            memcpy(value, items[i].at, len);
            value[len] = '\0';
        }
        rc = check_value("-D", d.name, v, err, errlen);
        if (rc == 0)
            rc = push_value(&d, &cap, items[i].at, items[i].len, prefix, err, errlen);
        free(big);
        i++;
    }
    free(items);
    if (rc == 0)
        rc = refuse_duplicates(&d, prefix, err, errlen);
    if (rc != 0) {
        define_value_define_free(&d);
        return -1;
    }
    *out = d;
    return 0;
}

/* ---- --variant ---------------------------------------------------------------- */

void define_value_variant_free(define_value_variant *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++) {
        free(v->items[i].name);
        free(v->items[i].value);
    }
    free(v->items);
    memset(v, 0, sizeof *v);
}

/* The identifier part of a name: "MOD2" of "MOD2(x,y)". */
static size_t macro_len(const char *name)
{
    size_t n = 0;
    while (name[n] && name[n] != '(')
        n++;
    return n;
}

int define_value_parse_variant(const char *arg, define_value_variant *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char prefix[96];
    char show[96];
    shown(arg, strlen(arg), show, sizeof show, 60);
    bfmt(prefix, sizeof prefix, "--variant '%s'", show);
    define_value_span *items;
    long n = define_value_split_top(arg, &items, prefix, err, errlen);
    if (n < 0)
        return -1;
    define_value_variant v = {0};
    v.items = calloc((size_t)n, sizeof *v.items);
    if (!v.items) {
        free(items);
        bfmt(err, errlen, "%s: out of memory", prefix);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < (size_t)n && rc == 0; i++) {
        char *item = malloc(items[i].len + 1);
        if (!item) {
            bfmt(err, errlen, "%s: out of memory", prefix);
            rc = -1;
            break;
        }
        memcpy(item, items[i].at, items[i].len);
        item[items[i].len] = '\0';
        size_t name_len = name_span(item);
        int is_function;
        define_value_item *it = &v.items[v.n];
        if (check_name("--variant", item, name_len, &is_function, err, errlen) != 0) {
            rc = -1;
        } else if (item[name_len] != '\0' && item[name_len] != '=') {
            char s[96];
            shown(item, strlen(item), s, sizeof s, 60);
            bfmt(err, errlen, "%s: item '%s' is not NAME or NAME=VALUE", prefix, s);
            rc = -1;
        } else {
            it->is_function = is_function;
            it->name = strndup(item, name_len);
            if (item[name_len] == '=')
                it->value = strdup(item + name_len + 1);
            v.n++;
            if (!it->name || (item[name_len] == '=' && !it->value)) {
                bfmt(err, errlen, "%s: out of memory", prefix);
                rc = -1;
            } else if (it->value) {
                rc = check_value("--variant", it->name, it->value, err, errlen);
            }
        }
        for (size_t j = 0; rc == 0 && j + 1 < v.n; j++) {
            size_t a = macro_len(v.items[j].name), b = macro_len(it->name);
            if (a == b && memcmp(v.items[j].name, it->name, a) == 0) {
                bfmt(err, errlen, "%s: %.*s is given twice", prefix, (int)a, it->name);
                rc = -1;
            }
        }
        free(item);
    }
    free(items);
    if (rc != 0) {
        define_value_variant_free(&v);
        return -1;
    }
    *out = v;
    return 0;
}

/* ---- --derive ---------------------------------------------------------------- */

void define_value_derive_free(define_value_derive *d)
{
    if (!d)
        return;
    free(d->name);
    free(d->expr);
    memset(d, 0, sizeof *d);
}

static int ignore_name(void *ctx, const char *name, size_t len)
{
    (void)ctx;
    (void)name;
    (void)len;
    return 0;
}

int define_value_parse_derive(const char *arg, define_value_derive *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    const char *eq = strchr(arg, '=');
    char show[96];
    shown(arg, strlen(arg), show, sizeof show, 60);
    if (!eq) {
        bfmt(err, errlen, "--derive '%s': expected NAME=EXPRESSION", show);
        return -1;
    }
    const char *a = arg, *b = eq;
    while (a < b && (*a == ' ' || *a == '\t'))
        a++;
    while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
        b--;
    size_t name_len = (size_t)(b - a);
    int is_function;
    if (check_name("--derive", a, name_len, &is_function, err, errlen) != 0)
        return -1;
    if (is_function) {
        bfmt(err, errlen, "--derive %.*s: a derived name is an identifier, not a macro head",
             (int)name_len, a);
        return -1;
    }
    const char *e = eq + 1, *f = eq + strlen(eq);
    while (e < f && (*e == ' ' || *e == '\t'))
        e++;
    while (f > e && (f[-1] == ' ' || f[-1] == '\t'))
        f--;
    define_value_derive d = {strndup(a, name_len), strndup(e, (size_t)(f - e))};
    if (!d.name || !d.expr) {
        define_value_derive_free(&d);
        bfmt(err, errlen, "--derive: out of memory");
        return -1;
    }
    char why[EXPR_ERR_MAX];
    if (expr_names(d.expr, ignore_name, NULL, why, sizeof why) != 0) {
        bfmt(err, errlen, "--derive %s: %s", d.name, why);
        define_value_derive_free(&d);
        return -1;
    }
    *out = d;
    return 0;
}
