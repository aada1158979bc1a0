/* Define names and values, -D, --variant and --derive arguments
 * (clc/program/define_value.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "define_value.h"

/* Values joined with '|' for comparing. */
static void joined(const define_value_define *d, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < d->n_values && o + 1 < cap; i++)
        o += (size_t)snprintf(buf + o, cap - o, "%s%s", i ? "|" : "", d->values[i]);
}

static void expect_define(const char *arg, const char *name, int bare, const char *values)
{
    define_value_define d;
    char err[DEFINE_VALUE_ERR_MAX] = "";
    int rc = define_value_parse_define(arg, &d, err, sizeof err);
    if (!CHECK(rc == 0, "-D %s parses: %s", arg, err))
        return;
    char got[2048];
    joined(&d, got, sizeof got);
    CHECK(strcmp(d.name, name) == 0 && d.bare == bare && strcmp(got, values) == 0,
          "-D %s: name %s bare %d values '%s' (got %s %d '%s')", arg, name, bare, values, d.name,
          d.bare, got);
    define_value_define_free(&d);
}

static void expect_define_error(const char *arg, const char *needle)
{
    define_value_define d;
    char err[DEFINE_VALUE_ERR_MAX] = "";
    int rc = define_value_parse_define(arg, &d, err, sizeof err);
    CHECK(rc == -1 && d.name == NULL && d.n_values == 0 && strstr(err, needle),
          "-D %.60s refused naming '%s': %s", arg, needle, err);
    define_value_define_free(&d);
}

static void test_values(void)
{
    static const char *const good[] = {"5",    "-1",     "0x10",     "1.5f",  "uchar",
                                       "float4", "((x)%(y))", "(1<<4)", "a=b", "-3-5",
                                       "MAX(a,b)", "1e-3", "~0u", "x[2]", "{1,2}"};
    char err[DEFINE_VALUE_ERR_MAX];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        CHECK(define_value_check_value("V", good[i], err, sizeof err) == 0, "value %s accepted: %s",
              good[i], err);
    static const struct {
        const char *value, *needle;
    } bad[] = {
        {"a b", "value 'a b' holds a space; a build option cannot carry it"},
        {"a\tb", "holds whitespace"},
        {"a\nb", "holds whitespace"},
        {"a\x01", "value 'a\\x01' holds a control character"},
        {"\"s\"", "holds a quote"},
        {"'c'", "holds a quote"},
        {"a\\b", "holds a backslash"},
        {"caf\xc3\xa9", "holds a non-ASCII byte"},
        {"", "-D V=: an empty value (use -D V for a bare define)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        CHECK(define_value_check_value("V", bad[i].value, err, sizeof err) == -1 &&
                  strstr(err, bad[i].needle) && strstr(err, "-D V"),
              "value refused naming '%s': %s", bad[i].needle, err);
    }
    char longv[DEFINE_VALUE_VALUE_MAX + 2];
    memset(longv, '7', sizeof longv - 1);
    longv[sizeof longv - 1] = '\0';
    CHECK(define_value_check_value("V", longv, err, sizeof err) == -1 &&
              strstr(err, "is longer than 256 bytes"),
          "257 bytes refused: %s", err);
    longv[DEFINE_VALUE_VALUE_MAX] = '\0';
    CHECK(define_value_check_value("V", longv, err, sizeof err) == 0, "256 bytes accepted");
}

static void test_names(void)
{
    static const char *const good[] = {"TS", "_x", "a9", "MOD2(x,y)", "F()", "G(a)", "H(_1,b2,c)"};
    char err[DEFINE_VALUE_ERR_MAX];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int fn = -1;
        CHECK(define_value_check_name(good[i], strlen(good[i]), &fn, err, sizeof err) == 0 &&
                  fn == (strchr(good[i], '(') != NULL),
              "name %s accepted (function %d): %s", good[i], fn, err);
    }
    static const struct {
        const char *name, *needle;
    } bad[] = {
        {"9X", "not an identifier"},      {"A-B", "not an identifier"},
        {"A B", "not an identifier"},     {"F(x", "macro head"},
        {"F(x,)", "parameter 2 is not"},  {"F(,x)", "parameter 1 is not"},
        {"F(x, y)", "parameter 2 is not"}, {"F(1)", "parameter 1 is not"},
        {"F(x,x)", "parameter x is given twice"}, {"F(x)y", "macro head"},
        {"", "needs a name"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        CHECK(define_value_check_name(bad[i].name, strlen(bad[i].name), NULL, err, sizeof err) == -1 &&
                  strstr(err, bad[i].needle),
              "name '%s' refused naming '%s': %s", bad[i].name, bad[i].needle, err);
    }
    char longn[DEFINE_VALUE_NAME_MAX + 2];
    memset(longn, 'N', sizeof longn - 1);
    CHECK(define_value_check_name(longn, sizeof longn - 1, NULL, err, sizeof err) == -1 &&
              strstr(err, "longer than 256"),
          "long name refused: %s", err);
}

static void test_define_lists(void)
{
    expect_define("USE_LOCAL", "USE_LOCAL", 1, "");
    expect_define("TS=32", "TS", 0, "32");
    expect_define("TS=8,16,32", "TS", 0, "8|16|32");
    expect_define("TS=8, 16 ,32", "TS", 0, "8|16|32");
    expect_define("T=uchar,float4,int", "T", 0, "uchar|float4|int");
    expect_define("N=3-7", "N", 0, "3|4|5|6|7");
    expect_define("N=3-11:4", "N", 0, "3|7|11");
    expect_define("N=3,5,...,11", "N", 0, "3|5|7|9|11");
    expect_define("N=010,3-4", "N", 0, "010|3|4"); /* plain numbers kept as written */
    expect_define("N=-1,0-2,x", "N", 0, "-1|0|1|2|x");
    expect_define("N=4294967296,12", "N", 0, "4294967296|12"); /* no range: plain */
    expect_define("E=(1<<4),((x)%(y)),MAX(a,b)", "E", 0, "(1<<4)|((x)%(y))|MAX(a,b)");
    expect_define("A=B=C", "A", 0, "B=C");
    expect_define("MOD2(x,y)=((x)%(y))", "MOD2(x,y)", 0, "((x)%(y))");
    expect_define("F(a,b)=a,b", "F(a,b)", 0, "a,b"); /* one value, commas and all */
    expect_define("F(a)", "F(a)", 1, "");
    define_value_define d;
    char err[DEFINE_VALUE_ERR_MAX] = "";
    if (CHECK(define_value_parse_define("MOD2(x,y)=((x)%(y))", &d, err, sizeof err) == 0, "%s", err))
        CHECK(d.is_function == 1 && d.n_values == 1, "a macro head: is_function");
    define_value_define_free(&d);
    if (CHECK(define_value_parse_define("TS=1", &d, err, sizeof err) == 0, "%s", err))
        CHECK(d.is_function == 0, "an identifier: not a function");
    define_value_define_free(&d);

    /* Real tuning spaces: thousands of values. */
    int rc = define_value_parse_define("X=1-4096", &d, err, sizeof err);
    CHECK(rc == 0 && d.n_values == 4096 && strcmp(d.values[4095], "4096") == 0,
          "1-4096: 4096 values (%s)", err);
    define_value_define_free(&d);
    size_t cap = 5000 * 8;
    char *many = malloc(cap);
    if (CHECK(many != NULL, "memory")) {
        size_t o = 0;
        for (int i = 0; i < 5000; i++)
            o += (size_t)snprintf(many + o, cap - o, "%sv%d", i ? "," : "", i);
        char *full = malloc(o + 16);
        if (full) {
            snprintf(full, o + 16, "T=%s", many);
            rc = define_value_parse_define(full, &d, err, sizeof err);
            CHECK(rc == 0 && d.n_values == 5000 && strcmp(d.values[4999], "v4999") == 0,
                  "5000 plain values (%s)", err);
            define_value_define_free(&d);
            /* A duplicate far from its first is found. */
            snprintf(full, o + 16, "T=%s,v17", many);
            expect_define_error(full, "value v17 is given twice");
            free(full);
        }
        free(many);
    }
}

static void test_define_errors(void)
{
    expect_define_error("TS=", "-D TS=: an empty value (use -D TS for a bare define)");
    expect_define_error("TS=8,,16", "-D TS: empty item after '8'");
    expect_define_error("TS=,8", "empty item at the start");
    expect_define_error("TS=8,", "empty item after '8'");
    expect_define_error("TS=8,16,8", "-D TS: value 8 is given twice");
    expect_define_error("T=uchar,int,uchar", "value uchar is given twice");
    expect_define_error("N=3-7,5", "'5': value 5 is already given by '3-7'");
    expect_define_error("N=3-7,x,5", "value 5 is given twice");
    expect_define_error("N=7-3", "'7-3' is an empty range");
    expect_define_error("N=3-9:0", "the step must be at least 1");
    expect_define_error("N=3,5,...,30", "'30' cannot be reached");
    expect_define_error("N=a,...,5", "'...' needs two plain values");
    expect_define_error("N=1-70000", "a list holds at most 65536");
    expect_define_error("T=a b", "-D T: value 'a b' holds a space");
    expect_define_error("T=x,\"s\"", "holds a quote");
    expect_define_error("E=(1,2", "-D E: '(' is never closed in '(1,2'");
    expect_define_error("E=1),2", "-D E: ')' without its '('");
    expect_define_error("9X=1", "not an identifier");
    expect_define_error("=1", "needs a name");
    expect_define_error("A,B", "expected NAME, NAME=VALUES or NAME(a,b)=VALUE");
    expect_define_error("F(x,x)=1", "parameter x is given twice");
    expect_define_error("F(a,b)=a, b", "holds a space");
    expect_define_error("F(a)=", "an empty value");
    char arg[DEFINE_VALUE_VALUE_MAX + 16];
    snprintf(arg, sizeof arg, "V=1,");
    memset(arg + 4, 'z', DEFINE_VALUE_VALUE_MAX + 1);
    arg[4 + DEFINE_VALUE_VALUE_MAX + 1] = '\0';
    expect_define_error(arg, "is longer than 256 bytes");
}

static void test_variants(void)
{
    define_value_variant v;
    char err[DEFINE_VALUE_ERR_MAX] = "";
    int rc = define_value_parse_variant("KERNEL=3,TS=32,USE_LOCAL,F(a,b)=((a)+(b)),T=float4", &v, err,
                              sizeof err);
    if (CHECK(rc == 0 && v.n == 5, "variant parses into 5 items: %s", err)) {
        CHECK(strcmp(v.items[0].name, "KERNEL") == 0 && strcmp(v.items[0].value, "3") == 0 &&
                  strcmp(v.items[1].name, "TS") == 0 && strcmp(v.items[1].value, "32") == 0 &&
                  strcmp(v.items[2].name, "USE_LOCAL") == 0 && v.items[2].value == NULL &&
                  strcmp(v.items[3].name, "F(a,b)") == 0 && v.items[3].is_function == 1 &&
                  strcmp(v.items[3].value, "((a)+(b))") == 0 &&
                  strcmp(v.items[4].value, "float4") == 0 && v.items[0].is_function == 0,
              "variant items in order");
    }
    define_value_variant_free(&v);
    static const struct {
        const char *arg, *needle;
    } bad[] = {
        {"TS=32,TS=64", "TS is given twice"},
        {"F(a)=1,F=2", "F is given twice"},
        {"TS=a b", "--variant TS: value 'a b' holds a space"},
        {"TS=", "an empty value"},
        {"", "the list is empty"},
        {"A=1,,B", "empty item after 'A=1'"},
        {"9=1", "not an identifier"},
        {"A=(1,B=2", "'(' is never closed"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        rc = define_value_parse_variant(bad[i].arg, &v, err, sizeof err);
        CHECK(rc == -1 && v.n == 0 && v.items == NULL && strstr(err, bad[i].needle),
              "--variant '%s' refused naming '%s': %s", bad[i].arg, bad[i].needle, err);
        define_value_variant_free(&v);
    }
}

static void test_derives(void)
{
    define_value_derive d;
    char err[DEFINE_VALUE_ERR_MAX] = "";
    int rc = define_value_parse_derive("RTS=TS/WPT", &d, err, sizeof err);
    CHECK(rc == 0 && strcmp(d.name, "RTS") == 0 && strcmp(d.expr, "TS/WPT") == 0,
          "RTS=TS/WPT: %s", err);
    define_value_derive_free(&d);
    rc = define_value_parse_derive(" HALF = (FW - 1) / 2 ", &d, err, sizeof err);
    CHECK(rc == 0 && strcmp(d.name, "HALF") == 0 && strcmp(d.expr, "(FW - 1) / 2") == 0,
          "blanks trimmed: '%s' '%s' %s", d.name ? d.name : "", d.expr ? d.expr : "", err);
    define_value_derive_free(&d);
    rc = define_value_parse_derive("EQ=A==B", &d, err, sizeof err);
    CHECK(rc == 0 && strcmp(d.expr, "A==B") == 0, "the first '=' splits: %s", err);
    define_value_derive_free(&d);
    static const struct {
        const char *arg, *needle;
    } bad[] = {
        {"RTS", "expected NAME=EXPRESSION"},
        {"RTS=", "--derive RTS: (empty): the expression ends"},
        {"RTS=TS/", "--derive RTS: TS/: the expression ends"},
        {"RTS=(TS", "'(' is never closed"},
        {"RTS=TS WPT", "unexpected 'W'"},
        {"9R=1", "not an identifier"},
        {"F(x)=x", "not a macro head"},
        {"=1", "needs a name"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        rc = define_value_parse_derive(bad[i].arg, &d, err, sizeof err);
        CHECK(rc == -1 && d.name == NULL && strstr(err, bad[i].needle),
              "--derive '%s' refused naming '%s': %s", bad[i].arg, bad[i].needle, err);
        define_value_derive_free(&d);
    }
}

static void test_split(void)
{
    define_value_span *items;
    char err[DEFINE_VALUE_ERR_MAX] = "";
    long n = define_value_split_top(" TS , TS/WPT,MAX(a,b), (1,2) ", &items, "--wg", err, sizeof err);
    CHECK(n == 4 && items[0].len == 2 && memcmp(items[0].at, "TS", 2) == 0 &&
              items[1].len == 6 && memcmp(items[1].at, "TS/WPT", 6) == 0 &&
              items[2].len == 8 && memcmp(items[2].at, "MAX(a,b)", 8) == 0 &&
              items[3].len == 5 && memcmp(items[3].at, "(1,2)", 5) == 0,
          "four items at the top level (%ld, %s)", n, err);
    free(items);
    n = define_value_split_top("a,(b", &items, "--wg", err, sizeof err);
    CHECK(n == -1 && items == NULL && strstr(err, "--wg: '(' is never closed"), "%s", err);
    n = define_value_split_top("a,,b", &items, "--wg", err, sizeof err);
    CHECK(n == -1 && items == NULL && strstr(err, "--wg: empty item after 'a'"), "%s", err);
    n = define_value_split_top("", &items, "--wg", err, sizeof err);
    CHECK(n == -1 && strstr(err, "--wg: the list is empty"), "%s", err);
}

int main(void)
{
    test_split();
    test_values();
    test_names();
    test_define_lists();
    test_define_errors();
    test_variants();
    test_derives();
    return check_summary();
}
