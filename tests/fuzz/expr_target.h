/*
 * expr_target.h — the fuzz target over the expression language (expr.h):
 * the input, up to its first NUL, as an expression. It is checked and
 * evaluated with and without a lookup (names starting with N are known
 * without a value, with X unknown, the others take a value chosen by the
 * name among 0, 1, -1, 63, 64, INT64_MIN, INT64_MAX, 2^32), its names are
 * listed, and the answers must agree: a syntax error is one in every mode,
 * a value is the same twice, a message is never empty, and an error buffer
 * of 9 bytes holds a cut, terminated message. Shared by fuzz_expr.c and
 * tests/unit/test_fuzz_targets.c.
 */
#ifndef CLC_EXPR_TARGET_H
#define CLC_EXPR_TARGET_H

#include <stdint.h>
#include <string.h>

#include "cli_fuzz.h"
#include "expr.h"

static inline int ex_lookup(void *ctx, const char *name, size_t len, int64_t *value)
{
    static const int64_t table[8] = {0, 1, -1, 63, 64, INT64_MIN, INT64_MAX, INT64_C(1) << 32};
    (*(int *)ctx)++;
    cf_require(len > 0 && len <= EXPR_NAME_MAX);
    if (name[0] == 'N')
        return 0;
    if (name[0] == 'X')
        return -1;
    unsigned h = 0;
    for (size_t i = 0; i < len; i++)
        h = h * 31 + (unsigned char)name[i];
    *value = table[h % 8];
    return 1;
}

typedef struct ex_names {
    size_t n;
    size_t total;
} ex_names;

static inline int ex_name(void *ctx, const char *name, size_t len)
{
    ex_names *c = ctx;
    cf_require(len > 0 && len <= EXPR_NAME_MAX);
    cf_require(name[0] == '_' || (name[0] >= 'A' && name[0] <= 'Z') ||
               (name[0] >= 'a' && name[0] <= 'z'));
    c->n++;
    c->total += len;
    return c->n > 200 ? 7 : 0;
}

static inline int fuzz_expr(const uint8_t *data, size_t size)
{
    char *text = cf_string(data, size);
    if (!text)
        return 0;
    char err[EXPR_ERR_MAX];
    int64_t v1 = 0, v2 = 0;
    int calls = 0;

    /* Syntax alone: the reference for every other mode. */
    err[0] = '\0';
    int syntax = expr_eval(text, EXPR_CHECK, NULL, NULL, &v1, err, sizeof err);
    cf_require(syntax == 0 || syntax == -1);
    if (syntax == -1)
        cf_require_message(err, sizeof err);
    else
        cf_require(v1 == 0);

    err[0] = '\0';
    int checked = expr_eval(text, EXPR_CHECK, ex_lookup, &calls, NULL, err, sizeof err);
    cf_require(checked == 0 || checked == -1);
    if (syntax == -1)
        cf_require(checked == -1);
    if (checked == -1)
        cf_require_message(err, sizeof err);

    err[0] = '\0';
    int r1 = expr_eval(text, EXPR_EVALUATE, ex_lookup, &calls, &v1, err, sizeof err);
    err[0] = '\0';
    int r2 = expr_eval(text, EXPR_EVALUATE, ex_lookup, &calls, &v2, err, sizeof err);
    cf_require(r1 >= -1 && r1 <= 1 && r1 == r2);
    if (r1 == 0)
        cf_require(v1 == v2 && checked == 0);
    if (r1 == -1)
        cf_require_message(err, sizeof err);
    if (syntax == -1 || checked == -1)
        cf_require(r1 == -1);

    /* No lookup: every name is unknown, so a value means a constant. */
    err[0] = '\0';
    int64_t v3 = 0;
    int r3 = expr_eval(text, EXPR_EVALUATE, NULL, NULL, &v3, err, sizeof err);
    cf_require(r3 == 0 || r3 == -1);
    if (syntax == -1)
        cf_require(r3 == -1);
    if (r3 == -1)
        cf_require_message(err, sizeof err);

    /* A tiny buffer: cut, terminated, the canary untouched. */
    char small[10];
    small[9] = 'Z';
    int r4 = expr_eval(text, EXPR_EVALUATE, ex_lookup, &calls, &v2, small, 9);
    cf_require(r4 == r1 && small[9] == 'Z');
    if (r4 == -1)
        cf_require(memchr(small, 0, 9) != NULL);

    ex_names names = {0, 0};
    err[0] = '\0';
    int rn = expr_names(text, ex_name, &names, err, sizeof err);
    if (rn == -1)
        cf_require(syntax == -1 && err[0] != '\0');
    else if (rn == 0)
        cf_require(syntax == 0);
    else
        cf_require(rn == 7 && names.n == 201);
    cf_require(names.total <= strlen(text));
    free(text);
    return 0;
}

#endif /* CLC_EXPR_TARGET_H */
