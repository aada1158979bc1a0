/* The integer expression language (clc/program/expr.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "expr.h"

/* A = 7, B = -3, BIG = INT64_MAX; HOLE is known without a value; ZERO = 0. */
static int lookup(void *ctx, const char *name, size_t len, int64_t *value)
{
    static const struct {
        const char *name;
        int64_t value;
        int has;
    } names[] = {{"A", 7, 1},         {"B", -3, 1},   {"BIG", INT64_MAX, 1},
                 {"HOLE", 0, 0},      {"ZERO", 0, 1}, {"long_name_9", 9, 1}};
    int *calls = ctx;
    if (calls)
        (*calls)++;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == len && memcmp(names[i].name, name, len) == 0) {
            *value = names[i].value;
            return names[i].has;
        }
    return -1;
}

static void expect_value(const char *text, int64_t want)
{
    int64_t v = -12345;
    char err[EXPR_ERR_MAX] = "";
    int rc = expr_eval(text, EXPR_EVALUATE, lookup, NULL, &v, err, sizeof err);
    CHECK(rc == 0 && v == want, "'%s' = %" PRId64 " (got rc %d, %" PRId64 ", %s)", text, want,
          rc, v, err);
    /* Check mode accepts everything that evaluates, and computes nothing. */
    v = -12345;
    rc = expr_eval(text, EXPR_CHECK, lookup, NULL, &v, err, sizeof err);
    CHECK(rc == 0 && v == 0, "'%s' passes the check (rc %d, %s)", text, rc, err);
}

/* Must be refused in evaluate mode with a message holding each of the
 * needles (NULL-terminated list, up to two). */
static void expect_error(const char *text, const char *needle, const char *needle2)
{
    int64_t v = -12345;
    char err[EXPR_ERR_MAX] = "";
    int rc = expr_eval(text, EXPR_EVALUATE, lookup, NULL, &v, err, sizeof err);
    CHECK(rc == -1 && v == -12345 && strstr(err, needle) &&
              (!needle2 || strstr(err, needle2)),
          "'%.60s' refused naming '%s'%s%s: rc %d, err %s", text, needle, needle2 ? " and " : "",
          needle2 ? needle2 : "", rc, err);
}

static void test_operators(void)
{
    static const struct {
        const char *text;
        int64_t value;
    } table[] = {
        /* literals */
        {"0", 0}, {"42", 42}, {"0x1F", 31}, {"0XfF", 255}, {"0x0", 0},
        {"9223372036854775807", INT64_MAX}, {"0x7fffffffffffffff", INT64_MAX},
        {" \t 5 \n", 5},
        /* unary */
        {"-5", -5}, {"+5", 5}, {"!0", 1}, {"!7", 0}, {"~0", -1}, {"~5", -6}, {"- -5", 5},
        {"!!9", 1}, {"-~0", 1}, {"-A", -7},
        /* multiplicative, C truncation */
        {"6 * 7", 42}, {"7 / 2", 3}, {"-7 / 2", -3}, {"7 / -2", -3}, {"7 % 3", 1},
        {"-7 % 3", -1}, {"7 % -3", 1}, {"100 / 10 / 5", 2}, {"100 % 7 % 3", 2},
        {"2 * 3 % 4", 2}, {"-9223372036854775807 - 1", INT64_MIN},
        /* additive */
        {"2 + 3", 5}, {"2 - 3", -1}, {"10 - 2 - 3", 5}, {"2 + 3 * 4", 14},
        {"2 * (3 + 4)", 14}, {"A - -A", 14}, {"BIG - 1 + 1", INT64_MAX},
        /* shifts */
        {"1 << 4", 16}, {"256 >> 4", 16}, {"1 << 62", (int64_t)1 << 62}, {"-16 >> 2", -4},
        {"-1 >> 63", -1}, {"1 << 2 + 1", 8}, {"1 << 2 << 3", 32}, {"0 << 63", 0},
        {"BIG >> 63", 0},
        /* relational and equality */
        {"1 < 2", 1}, {"2 < 1", 0}, {"2 <= 2", 1}, {"3 <= 2", 0}, {"3 > 2", 1}, {"2 > 2", 0},
        {"2 >= 2", 1}, {"1 >= 2", 0}, {"2 == 2", 1}, {"2 == 3", 0}, {"2 != 3", 1},
        {"2 != 2", 0}, {"1 < 2 == 1", 1}, {"3 > 2 > 1", 0}, {"1 << 1 < 3", 1},
        {"B < 0", 1},
        /* bitwise */
        {"12 & 10", 8}, {"12 ^ 10", 6}, {"12 | 10", 14}, {"1 | 2 ^ 3", 1},
        {"6 & 3 == 3", 0}, {"1 | 2 & 0", 1}, {"3 ^ 1 & 1", 2},
        /* logical */
        {"1 && 2", 1}, {"1 && 0", 0}, {"0 && 1", 0}, {"0 || 0", 0}, {"0 || 3", 1},
        {"1 || 0 && 0", 1}, {"2 & 1 && 1", 0}, {"0 | 1 || 0", 1},
        /* conditional, right-associative */
        {"1 ? 2 : 3", 2}, {"0 ? 2 : 3", 3}, {"0 ? 1 : 0 ? 2 : 3", 3}, {"1 ? 0 ? 4 : 5 : 6", 5},
        {"A > 5 ? A * 2 : A", 14}, {"1 || 0 ? 8 : 9", 8}, {"(0 ? 1 : 2) + 1", 3},
        /* names */
        {"A", 7}, {"long_name_9 + A", 16}, {"A*B", -21}, {"((A))", 7},
        /* spaces are optional */
        {"(1<<4)", 16}, {"((7)%(3))", 1}, {"A/2*2==A-A%2", 1},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        expect_value(table[i].text, table[i].value);
}

static void test_short_circuit(void)
{
    expect_value("0 && 1 / 0", 0);
    expect_value("1 || 1 % 0", 1);
    expect_value("1 ? 5 : 1 / 0", 5);
    expect_value("0 ? BIG * 2 : 6", 6);
    expect_value("ZERO != 0 && 10 / ZERO > 1", 0);
    expect_value("0 && (1 << 64)", 0);
    /* The live side is computed. */
    expect_error("1 && 1 / 0", "division by zero", NULL);
    expect_error("0 || 1 % 0", "modulo by zero", NULL);
    expect_error("0 ? 5 : 1 / 0", "division by zero", NULL);
    /* Names on the dead side are still looked up: unknown is an error, a
     * name without a value still means the whole has no value. */
    expect_error("0 && NOPE", "unknown name NOPE", NULL);
    int64_t v = 99;
    char err[EXPR_ERR_MAX] = "";
    CHECK(expr_eval("0 && HOLE", EXPR_EVALUATE, lookup, NULL, &v, err, sizeof err) == 1 &&
              v == 99,
          "a valueless name on the dead side: no value (%s)", err);
}

static void test_errors(void)
{
    expect_error("4294967296 * 4294967296", "4294967296 * 4294967296: ",
                 "overflows a 64-bit integer");
    expect_error("(-9223372036854775807 - 1) / -1", "'/' overflows", NULL);
    expect_error("(-9223372036854775807 - 1) % -1", "'%' overflows", NULL);
    expect_error("-(-9223372036854775807 - 1)", "'-' overflows", NULL);
    expect_error("BIG + 1", "'+' overflows", NULL);
    expect_error("-BIG - 2", "'-' overflows", NULL);
    expect_error("BIG * -2", "'*' overflows", NULL);
    expect_error("1 << 64", "'<<' by a count outside 0..63", "column 3");
    expect_error("1 << -1", "'<<' by a count outside", NULL);
    expect_error("1 >> 64", "'>>' by a count outside", NULL);
    expect_error("1 << 63", "'<<' overflows", NULL);
    expect_error("3 << 62", "'<<' overflows", NULL);
    expect_error("-1 << 1", "'<<' of a negative value", NULL);
    expect_error("1 / 0", "division by zero", "column 3");
    expect_error("5 % ZERO", "modulo by zero", NULL);
    expect_error("9223372036854775808", "does not fit in a 64-bit integer", NULL);
    expect_error("0x8000000000000000", "does not fit", NULL);
    expect_error("99999999999999999999999", "does not fit", NULL);
    expect_error("010", "leading 0", NULL);
    expect_error("0x", "not a whole number", NULL);
    expect_error("12abc", "not a whole number", NULL);
    expect_error("1.5", "not a whole number", NULL);
    expect_error("", "(empty): the expression ends where a value is expected", NULL);
    expect_error("   ", "ends where a value is expected", NULL);
    expect_error("2 +", "ends where a value is expected", NULL);
    expect_error("2 3", "unexpected '3' after a complete value", "column 3");
    expect_error("(2", "'(' is never closed", "column 1");
    expect_error("(2 3)", "'(' is not closed here", NULL);
    expect_error("2)", "')' without its '('", "column 2");
    expect_error("()", "')' where a value is expected", NULL);
    expect_error("1 ? 2", "'?' without its ':'", NULL);
    expect_error("1 : 2", "':' without its '?'", NULL);
    expect_error("A = 2", "'=' is not an operator", NULL);
    expect_error("2 $ 3", "unexpected '$'", NULL);
    expect_error("2 \x01 3", "unexpected byte 0x01", NULL);
    expect_error("NOPE + 1", "unknown name NOPE", "column 1");
    expect_error("A +* 2", "unexpected '*' where a value is expected", NULL);
    expect_error("1 !2", "unexpected '!'", NULL);

    /* A long expression is quoted around the error; the reason is whole. */
    char text[EXPR_TEXT_MAX + 2];
    size_t n = 0;
    for (int i = 0; i < 300; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "1+");
    snprintf(text + n, sizeof text - n, "NOT_A_KNOWN_NAME_AT_ALL");
    char err[EXPR_ERR_MAX] = "";
    int64_t v;
    int rc = expr_eval(text, EXPR_EVALUATE, lookup, NULL, &v, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "unknown name NOT_A_KNOWN_NAME_AT_ALL (column 601)") &&
              strncmp(err, "...", 3) == 0 && strlen(err) < 300,
          "long expression: cut quote, whole reason: %s", err);
    /* Even a small err buffer keeps the reason. */
    char small[96] = "";
    rc = expr_eval(text, EXPR_EVALUATE, lookup, NULL, &v, small, sizeof small);
    CHECK(rc == -1 && strstr(small, "unknown name NOT_A_KNOWN_NAME_AT_ALL (column 601)"),
          "small buffer keeps the reason: %s", small);

    /* Too long. */
    memset(text, '1', EXPR_TEXT_MAX + 1);
    text[EXPR_TEXT_MAX + 1] = '\0';
    rc = expr_eval(text, EXPR_EVALUATE, lookup, NULL, &v, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "longer than 4096 characters"), "too long refused: %s", err);

    /* A name over the bound. */
    char name[EXPR_NAME_MAX + 2];
    memset(name, 'N', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    rc = expr_eval(name, EXPR_EVALUATE, lookup, NULL, &v, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "a name longer than 255 characters"), "long name: %s", err);
}

/* Deep nesting is refused at the bound, not by running out of stack. */
static void test_depth(void)
{
    size_t n = 100000;
    char *deep = malloc(2 * n + 2);
    if (!CHECK(deep != NULL, "memory for the deep expression"))
        return;
    int64_t v;
    char err[EXPR_ERR_MAX] = "";
    /* Within the length bound: 2000 '(' then 1 then ')'s. */
    memset(deep, '(', 2000);
    deep[2000] = '1';
    memset(deep + 2001, ')', 2000);
    deep[4001] = '\0';
    int rc = expr_eval(deep, EXPR_EVALUATE, lookup, NULL, &v, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "nested more than 100 deep"), "2000 '(' refused: %s", err);
    memset(deep, '-', 3000);
    deep[3000] = '1';
    deep[3001] = '\0';
    rc = expr_eval(deep, EXPR_CHECK, lookup, NULL, &v, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "nested more than 100 deep"), "3000 '-' refused: %s", err);
    char *q = deep;
    for (int i = 0; i < 1000; i++)
        q += sprintf(q, "1?");
    sprintf(q, "1");
    rc = expr_eval(deep, EXPR_CHECK, lookup, NULL, &v, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "nested more than 100 deep"), "1000 '?' refused: %s", err);
    /* 100000 '(' : refused (by length) without touching the stack. */
    memset(deep, '(', n);
    deep[n] = '\0';
    rc = expr_eval(deep, EXPR_EVALUATE, lookup, NULL, &v, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "longer than"), "100000 '(' refused: %s", err);
    /* At the bound it works. */
    memset(deep, '(', 99);
    deep[99] = '5';
    memset(deep + 100, ')', 99);
    deep[199] = '\0';
    v = 0;
    rc = expr_eval(deep, EXPR_EVALUATE, lookup, NULL, &v, err, sizeof err);
    CHECK(rc == 0 && v == 5, "99 nested '(' are fine: rc %d %s", rc, err);
    free(deep);
}

static void test_names(void)
{
    int64_t v = 77;
    char err[EXPR_ERR_MAX] = "";
    CHECK(expr_eval("A + HOLE", EXPR_EVALUATE, lookup, NULL, &v, err, sizeof err) == 1 && v == 77,
          "a name without a value gives 1, value untouched");
    CHECK(expr_eval("A + HOLE", EXPR_CHECK, lookup, NULL, &v, err, sizeof err) == 0 && v == 0,
          "check mode: known names are fine (%s)", err);
    CHECK(expr_eval("A + NOPE", EXPR_CHECK, lookup, NULL, &v, err, sizeof err) == -1 &&
              strstr(err, "unknown name NOPE"),
          "check mode: unknown names are refused (%s)", err);
    CHECK(expr_eval("A", EXPR_EVALUATE, NULL, NULL, &v, err, sizeof err) == -1 &&
              strstr(err, "unknown name A"),
          "no lookup, evaluating: every name unknown (%s)", err);
    CHECK(expr_eval("(1<<4)", EXPR_EVALUATE, NULL, NULL, &v, err, sizeof err) == 0 && v == 16,
          "no lookup, evaluating: a constant (%s)", err);
    CHECK(expr_eval("TS / WPT", EXPR_CHECK, NULL, NULL, &v, err, sizeof err) == 0,
          "no lookup, checking: syntax only, any name (%s)", err);
    CHECK(expr_eval("TS / ", EXPR_CHECK, NULL, NULL, &v, err, sizeof err) == -1 &&
              strstr(err, "ends where a value is expected"),
          "no lookup, checking: syntax errors still found (%s)", err);
    /* Check mode does not compute: 1/0 passes. */
    CHECK(expr_eval("1 / 0 + BIG * BIG", EXPR_CHECK, lookup, NULL, &v, err, sizeof err) == 0,
          "check mode computes nothing (%s)", err);
    /* Lookup is called for each use of a name. */
    int calls = 0;
    CHECK(expr_eval("A + A + B", EXPR_EVALUATE, lookup, &calls, &v, err, sizeof err) == 0 &&
              v == 11 && calls == 3,
          "three lookups for three uses (%d)", calls);
    /* NULL value pointer is allowed. */
    CHECK(expr_eval("1", EXPR_EVALUATE, lookup, NULL, NULL, err, sizeof err) == 0,
          "value may be NULL");
}

typedef struct seen {
    char names[8][32];
    int n;
    int stop_after;
} seen;

static int collect(void *ctx, const char *name, size_t len)
{
    seen *s = ctx;
    if (s->n < 8)
        snprintf(s->names[s->n], sizeof s->names[0], "%.*s", (int)len, name);
    s->n++;
    return s->stop_after && s->n == s->stop_after ? 42 : 0;
}

static void test_list_names(void)
{
    seen s = {.n = 0};
    char err[EXPR_ERR_MAX] = "";
    int rc = expr_names("TS / WPT + TS * (X ? WPT : Y_2) + 0x10", collect, &s, err, sizeof err);
    CHECK(rc == 0 && s.n == 4 && strcmp(s.names[0], "TS") == 0 &&
              strcmp(s.names[1], "WPT") == 0 && strcmp(s.names[2], "X") == 0 &&
              strcmp(s.names[3], "Y_2") == 0,
          "names in order of first use, once each: rc %d n %d %s", rc, s.n, err);
    s.n = 0;
    rc = expr_names("1 + 2", collect, &s, err, sizeof err);
    CHECK(rc == 0 && s.n == 0, "no names");
    s.n = 0;
    rc = expr_names("A + (B", collect, &s, err, sizeof err);
    CHECK(rc == -1 && s.n == 0 && strstr(err, "never closed"), "syntax error: %s", err);
    s.n = 0;
    s.stop_after = 2;
    rc = expr_names("P + Q + R", collect, &s, err, sizeof err);
    CHECK(rc == 42 && s.n == 2, "a non-zero from fn stops the walk (rc %d, n %d)", rc, s.n);
}

int main(void)
{
    test_operators();
    test_short_circuit();
    test_errors();
    test_depth();
    test_names();
    test_list_names();
    return check_summary();
}
