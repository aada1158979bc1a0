/* The expressions of T1 tuning specs (clc/tune/t1_expr.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "t1_expr.h"

/* The names the tests' spec knows; each one's slot is its index. */
static const char *const names[] = {"a",   "b",           "TS",           "WPT",          "s",    "f",
                                    "L",   "BIG",         "MIN",          "t",            "ProblemSize",
                                    "filter_width",       "block_size_x", "block_size_y", "tile", "i",
                                    "e",   "empty"};
#define NSLOTS (sizeof names / sizeof names[0])
static t1_value slots[NSLOTS];
static t1_arena arena;

static int resolve(void *ctx, const char *name, size_t len)
{
    (void)ctx;
    for (size_t k = 0; k < NSLOTS; k++)
        if (strlen(names[k]) == len && memcmp(names[k], name, len) == 0)
            return (int)k;
    return -1;
}

static const t1_value L_items[] = {
    {.type = T1_INT, .i = 1}, {.type = T1_INT, .i = 2}, {.type = T1_INT, .i = 3}};
static const t1_value PS_items[] = {{.type = T1_INT, .i = 1024}, {.type = T1_INT, .i = 512}};
static const t1_value FW_items[] = {
    {.type = T1_INT, .i = 3}, {.type = T1_INT, .i = 7}, {.type = T1_INT, .i = 5}};

static void set_slot(const char *name, t1_value v)
{
    slots[resolve(NULL, name, strlen(name))] = v;
}

static void setup_slots(void)
{
    set_slot("a", (t1_value){.type = T1_INT, .i = 12});
    set_slot("b", (t1_value){.type = T1_INT, .i = 4});
    set_slot("TS", (t1_value){.type = T1_INT, .i = 32});
    set_slot("WPT", (t1_value){.type = T1_INT, .i = 4});
    set_slot("s", (t1_value){.type = T1_STRING, .s = "row", .len = 3});
    set_slot("f", (t1_value){.type = T1_FLOAT, .f = 0.5});
    set_slot("L", (t1_value){.type = T1_LIST, .items = L_items, .len = 3});
    set_slot("BIG", (t1_value){.type = T1_INT, .i = INT64_MAX});
    set_slot("MIN", (t1_value){.type = T1_INT, .i = INT64_MIN});
    set_slot("t", (t1_value){.type = T1_BOOL, .i = 1});
    set_slot("ProblemSize", (t1_value){.type = T1_LIST, .items = PS_items, .len = 2});
    set_slot("filter_width", (t1_value){.type = T1_LIST, .items = FW_items, .len = 3});
    set_slot("block_size_x", (t1_value){.type = T1_INT, .i = 32});
    set_slot("block_size_y", (t1_value){.type = T1_INT, .i = 16});
    set_slot("tile", (t1_value){.type = T1_INT, .i = 2});
    set_slot("i", (t1_value){.type = T1_INT, .i = 9});
    set_slot("e", (t1_value){.type = T1_STRING, .s = "", .len = 0});
    set_slot("empty", (t1_value){.type = T1_LIST, .items = NULL, .len = 0});
}

/* Compiles and evaluates text; 0 compiled and evaluated, 1 refused by the
 * compile, 2 refused by the evaluation (err says why). */
static int run(const char *text, t1_value *out, char *err, size_t cap)
{
    t1_arena_reset(&arena);
    t1_expr *e = t1_expr_compile(text, resolve, NULL, err, cap);
    if (!e)
        return 1;
    int rc = t1_expr_eval(e, slots, &arena, out, err, cap);
    t1_expr_free(e);
    return rc ? 2 : 0;
}

/* The value of text as Python's repr prints it. */
static void expect(const char *text, const char *want)
{
    t1_value v;
    char err[T1_EXPR_ERR_MAX] = "", got[512] = "";
    int rc = run(text, &v, err, sizeof err);
    if (rc == 0)
        t1_value_format(&v, 0, got, sizeof got);
    CHECK(rc == 0 && strcmp(got, want) == 0, "'%.70s' = %s (got rc %d: %s%s)", text, want, rc, got, err);
}

/* Refused at stage (1 compile, 2 evaluation) with err holding both needles. */
static void expect_error(int stage, const char *text, const char *needle, const char *needle2)
{
    t1_value v;
    char err[T1_EXPR_ERR_MAX] = "";
    int rc = run(text, &v, err, sizeof err);
    CHECK(rc == stage && strstr(err, needle) && (!needle2 || strstr(err, needle2)),
          "'%.60s' refused (%s) naming '%s'%s%s: rc %d, err %s", text, stage == 1 ? "compile" : "eval",
          needle, needle2 ? " and " : "", needle2 ? needle2 : "", rc, err);
}

/* err exactly want. */
static void expect_message(int stage, const char *text, const char *want)
{
    t1_value v;
    char err[T1_EXPR_ERR_MAX] = "";
    int rc = run(text, &v, err, sizeof err);
    CHECK(rc == stage && strcmp(err, want) == 0, "'%s': message %s (rc %d, got %s)", text, want, rc, err);
}

static void test_literals(void)
{
    expect("42", "42");
    expect("0x1f", "31");
    expect("0XFF", "255");
    expect("0o17", "15");
    expect("0b101", "5");
    expect("1_000_000", "1000000");
    expect("0", "0");
    expect("00", "0");
    expect("9223372036854775807", "9223372036854775807");
    expect("1.5", "1.5");
    expect("1e-3", "0.001");
    expect("1E3", "1000.0");
    expect(".5", "0.5");
    expect("1.", "1.0");
    expect("01.5", "1.5");
    expect("True", "True");
    expect("False", "False");
    expect("'text'", "'text'");
    expect("\"text\"", "'text'");
    expect("'it\\'s'", "\"it's\"");
    expect("'a\\tb\\n'", "'a\\tb\\n'");
    expect("'\\x41\\101\\u00e9'", "'AA\xc3\xa9'");
    expect("'\\d'", "'\\\\d'");
    expect("''", "''");
    expect(" \t 5 \n", "5");
}

static void test_arithmetic(void)
{
    static const char *const table[][2] = {
        {"2 + 3 * 4", "14"},        {"(2 + 3) * 4", "20"},   {"10 - 2 - 3", "5"},
        {"100 // 10 // 5", "2"},    {"2 * 3 % 4", "2"},      {"-5", "-5"},
        {"- -5", "5"},              {"+5", "5"},             {"-a", "-12"},
        /* true division is a float */
        {"7 / 2", "3.5"},           {"6 / 3", "2.0"},        {"-7 / 2", "-3.5"},
        {"1 / 3", "0.3333333333333333"},                     {"2 / 3", "0.6666666666666666"},
        /* floor division and modulo, Python's signs */
        {"7 // 2", "3"},            {"-7 // 2", "-4"},       {"7 // -2", "-4"},
        {"-7 // -2", "3"},          {"7 % 2", "1"},          {"-7 % 2", "1"},
        {"7 % -2", "-1"},           {"-7 % -2", "-1"},       {"6 % -3", "0"},
        {"MIN // -1 if 0 else 1", "1"},                      {"MIN % -1", "0"},
        {"MIN // 1", "-9223372036854775808"},                {"-MIN // 2 if 0 else 0", "0"},
        {"7.5 // 2", "3.0"},        {"-7.5 // 2", "-4.0"},   {"7.5 % 2", "1.5"},
        {"-7.5 % 2", "0.5"},        {"7.5 % -2", "-0.5"},    {"-7.0 // 2.0", "-4.0"},
        {"6.0 % 3", "0.0"},         {"-6.0 % 3", "0.0"},     {"6.0 % -3", "-0.0"},
        {"7 // 2.0", "3.0"},        {"0.1 % 0.03", "0.010000000000000009"},
        /* powers */
        {"2 ** 10", "1024"},        {"2 ** 0", "1"},         {"0 ** 0", "1"},
        {"2 ** -1", "0.5"},         {"2 ** -2", "0.25"},     {"(-2) ** 63", "-9223372036854775808"},
        {"(-2) ** 3", "-8"},        {"-2 ** 2", "-4"},       {"2 ** 3 ** 2", "512"},
        {"2 ** 0.5", "1.4142135623730951"},                  {"4.0 ** 0.5", "2.0"},
        {"(-8.0) ** 3", "-512.0"},  {"1 ** 9223372036854775807", "1"},
        {"(-1) ** 9223372036854775807", "-1"},               {"3 ** 39", "4052555153018976267"},
        /* bool is an int in arithmetic */
        {"True + 1", "2"},          {"True + True", "2"},    {"True * 3", "3"},
        {"-True", "-1"},            {"+True", "1"},          {"t + 1", "2"},
        {"True / 2", "0.5"},        {"True == 1", "True"},
        /* ints and floats mixed */
        {"1 + 0.5", "1.5"},         {"f * 2", "1.0"},        {"0.1 + 0.2", "0.30000000000000004"},
        {"0.1 + 0.7", "0.7999999999999999"},                 {"1e308 * 10", "inf"},
        {"-1e308 * 10", "-inf"},    {"1e308 * 10 - 1e308 * 10", "nan"},
        {"i % 7 * 0.5", "1.0"},     {"10 // 3 * 3 + 10 % 3", "10"},
        /* strings and lists */
        {"'a' + 'b'", "'ab'"},      {"'ab' * 3", "'ababab'"}, {"2 * 'ab'", "'abab'"},
        {"'ab' * 0", "''"},         {"'ab' * -1", "''"},     {"[1, 2] + [3]", "[1, 2, 3]"},
        {"[0] * 3", "[0, 0, 0]"},   {"[] + []", "[]"},
        {"[] * 3", "[]"}, {"'' * 3", "''"}, {"[empty * 2, e * 2]", "[[], '']"},
        {"s + '_' + s", "'row_row'"},
        /* names */
        {"ProblemSize[0] // WPT", "256"},                    {"TS // WPT", "8"},
        {"ProblemSize[0]*ProblemSize[1]", "524288"},         {"max(filter_width) + 4", "11"},
        {"BIG", "9223372036854775807"},                      {"BIG - 1 + 1", "9223372036854775807"},
        {"MIN + 0", "-9223372036854775808"},
    };
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++)
        expect(table[k][0], table[k][1]);
}

static void test_bitwise(void)
{
    static const char *const table[][2] = {
        {"12 & 10", "8"},      {"12 | 10", "14"},    {"12 ^ 10", "6"},         {"~5", "-6"},
        {"~0", "-1"},          {"~True", "-2"},      {"1 << 4", "16"},         {"256 >> 4", "16"},
        {"-16 >> 2", "-4"}, {"-1 >> 63", "-1"}, {"-17 >> 2", "-5"},
        {"1 << 62", "4611686018427387904"},
        {"-1 << 63", "-9223372036854775808"},        {"-1 << 1", "-2"},        {"0 << 63", "0"},
        {"BIG >> 63", "0"}, {"1 << 2 + 1", "8"}, {"True & False", "False"},
        {"True | False", "True"},
        {"True ^ True", "False"}, {"True | 0", "1"}, {"True & 3", "1"},
        /* Python's precedence: | below ^ below &, and all above comparisons. */
        {"1 | 2 ^ 3", "1"},    {"6 & 3 == 2", "True"}, {"1 | 2 == 3", "True"}, {"3 ^ 1 & 1", "2"},
    };
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++)
        expect(table[k][0], table[k][1]);
}

static void test_comparisons(void)
{
    static const char *const table[][2] = {
        {"1 < 2", "True"}, {"2 < 1", "False"}, {"2 <= 2", "True"}, {"3 >= 4", "False"},
        {"2 == 2", "True"}, {"2 != 2", "False"}, {"1 < 2 < 3", "True"}, {"3 > 2 > 2", "False"},
        {"1 < 3 > 2", "True"}, {"1 < 2 < 3 < 4 < 5", "True"}, {"1 < 2 < 3 < 2 < 5", "False"},
        {"1 == 1.0", "True"}, {"1 < 1.5", "True"}, {"2.5 > 2", "True"}, {"-1 < -0.5", "True"},
        /* exact, not through a rounded double */
        {"9007199254740993 == 9007199254740992.0", "False"},
        {"9007199254740992 == 9007199254740992.0", "True"},
        {"9007199254740993 > 9007199254740992.0", "True"}, {"BIG < 9223372036854775808.0", "True"},
        {"MIN == -9223372036854775808.0", "True"},          {"BIG < float('inf')", "True"},
        {"float('nan') == float('nan')", "False"}, {"float('nan') != float('nan')", "True"},
        {"float('nan') < 1", "False"},                      {"1 >= float('nan')", "False"},
        {"'a' < 'b'", "True"}, {"'abc' < 'abd'", "True"}, {"'ab' < 'abc'", "True"},
        {"'b' > 'abc'", "True"},
        {"s == 'row'", "True"},    {"s != 'col'", "True"},    {"'row' <= 'row'", "True"},
        {"[1, 2] == [1, 2]", "True"},                         {"[1, 2] != [1, 2.0]", "False"},
        {"[1, 2] < [1, 3]", "True"},                          {"[1] < [1, 0]", "True"},
        {"[2] > [1, 5]", "True"},  {"[] == []", "True"},      {"[[1]] == [[1]]", "True"},
        {"1 == 'a'", "False"}, {"'a' != 1", "True"}, {"[1] == 1", "False"}, {"True == 1.0", "True"},
        {"2 in [1, 2]", "True"},   {"4 not in [1, 2]", "True"}, {"4 in [1, 2]", "False"},
        {"2.0 in [1, 2]", "True"}, {"[1] in [[1], 2]", "True"}, {"'ow' in 'row'", "True"},
        {"'x' not in s", "True"},  {"'' in 'abc'", "True"},   {"'row' in ['row', 'col']", "True"},
        {"1 in empty", "False"},   {"3 in range(5)", "True"}, {"a in L", "False"},
        {"1 < 2 in [True]", "False"}, /* (1 < 2) and (2 in [True]) */
    };
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++)
        expect(table[k][0], table[k][1]);
}

static void test_logic(void)
{
    static const char *const table[][2] = {
        {"1 and 2", "2"},           {"0 and 2", "0"},            {"2 or 3", "2"},
        {"0 or 'x'", "'x'"},        {"'' or []", "[]"},          {"[] and 1", "[]"},
        {"3 or 1 / 0", "3"},        {"0 and 1 / 0", "0"},        {"0 and BIG + 1", "0"},
        {"1 and 0 or 5", "5"},      {"1 or 0 and 0", "1"},       {"0.0 or 2.5", "2.5"},
        {"not 0", "True"},          {"not [1]", "False"},        {"not ''", "True"},
        {"not not 5", "True"},      {"not 1 == 2", "True"},      {"not e", "True"},
        {"!1", "False"},            {"1 && 0", "0"},             {"0 || 5", "5"},
        {"1 != 2 && !0", "True"}, {"!(1 == 2)", "True"}, {"a % b == 0 and a*b <= 1024", "True"},
        {"TS % WPT == 0", "True"},  {"block_size_x*block_size_y <= 1024 and tile >= 2", "True"},
        {"block_size_x*block_size_y > 1024 or tile", "2"},
        /* conditional */
        {"1 if True else 2", "1"}, {"'x' if 0 else 'y'", "'y'"}, {"1 if 0 else 2 if 0 else 3", "3"},
        {"1 if 1 else 2 if 0 else 3", "1"},                      {"1 / 0 if 0 else 5", "5"},
        {"(1 if 0 else 2) + 1", "3"}, {"TS * 2 if TS > 16 else TS", "64"},
    };
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++)
        expect(table[k][0], table[k][1]);
}

static void test_lists(void)
{
    static const char *const table[][2] = {
        {"[8, 16, 32]", "[8, 16, 32]"},              {"[]", "[]"},
        {"[1, 'a', 2.5, True, [1]]", "[1, 'a', 2.5, True, [1]]"},
        {"['row', 'col']", "['row', 'col']"},        {"[True, False]", "[True, False]"},
        {"[1, 2,]", "[1, 2]"},                        {"(1, 2)", "[1, 2]"},
        {"(1,)", "[1]"},                              {"()", "[]"},
        {"(5)", "5"},                                 {"((((5))))", "5"},
        {"L", "[1, 2, 3]"},                           {"L[0]", "1"},
        {"L[2]", "3"},                                {"L[-1]", "3"},
        {"L[-3]", "1"},                               {"L[True]", "2"},
        {"[[1, 2], [3]][0][1]", "2"},                 {"[[1, 2], [3]][-1]", "[3]"},
        {"'row'[1]", "'o'"},                          {"'row'[-1]", "'w'"},
        {"'\xc3\xa9t\xc3\xa9'[1]", "'t'"},            {"'\xc3\xa9t\xc3\xa9'[2]", "'\xc3\xa9'"},
        {"[a, b][1]", "4"},                           {"[L, L][1][2]", "3"},
        /* range */
        {"range(5)", "[0, 1, 2, 3, 4]"},              {"range(1, 4)", "[1, 2, 3]"},
        {"range(0, 10, 3)", "[0, 3, 6, 9]"},          {"range(10, 0, -3)", "[10, 7, 4, 1]"},
        {"range(5, 5)", "[]"},                        {"range(5, 0)", "[]"},
        {"range(0, 5, -1)", "[]"},                    {"range(-3)", "[]"},
        {"range(-3, 0)", "[-3, -2, -1]"},             {"len(range(1, 33))", "32"},
        {"range(True, 3)", "[1, 2]"},
        {"range(MIN, BIG, 4611686018427387904)",
         "[-9223372036854775808, -4611686018427387904, 0, 4611686018427387904]"},
        {"range(BIG, MIN, -9223372036854775807-1)", "[9223372036854775807, -1]"},
        {"range(BIG - 2, BIG)", "[9223372036854775805, 9223372036854775806]"},
        /* comprehensions */
        {"[2**i for i in range(6)]", "[1, 2, 4, 8, 16, 32]"},
        {"[x for x in range(10) if x % 3 == 0]", "[0, 3, 6, 9]"},
        {"[x*y for x in range(3) for y in range(2)]", "[0, 0, 0, 1, 0, 2]"},
        {"[(x, y) for x in range(3) for y in range(x)]", "[[1, 0], [2, 0], [2, 1]]"},
        {"[x for x in L if x > 1 if x < 3]", "[2]"},
        {"[x for x in [1, 2, 3]]", "[1, 2, 3]"},
        {"[c for c in 'ab']", "['a', 'b']"},
        {"[c for c in s if c != 'o']", "['r', 'w']"},
        {"[[y for y in range(x)] for x in range(3)]", "[[], [0], [0, 1]]"},
        {"[a for a in range(3)]", "[0, 1, 2]"}, /* the loop variable hides the parameter */
        {"[a for a in range(a)][-1]", "11"}, /* the first iterable sees the parameter */
        {"[a * b for a in L]", "[4, 8, 12]"},
        {"[x for x in L for x in range(x)]", "[0, 0, 1, 0, 1, 2]"},
        {"[i % 7 * 0.5 for i in range(3)]", "[0.0, 0.5, 1.0]"},
        {"[x if x % 2 else -x for x in range(4)]", "[0, 1, -2, 3]"},
        {"[x for x in range(5) if x > 1 and x < 4]", "[2, 3]"},
        {"[x for x in empty]", "[]"},                      {"[x for x in range(0)]", "[]"},
        {"[x for x in range(1, 9223372036854775807, 4611686018427387904)]", "[1, 4611686018427387905]"},
        {"[s for _ in range(2)]", "['row', 'row']"},
        {"[str(x) for x in range(3)]", "['0', '1', '2']"},
        {"max(x for x in L)", "3"},                        {"min(x * x for x in [3, -1, 2])", "1"},
        {"len([x for x in range(1000)])", "1000"},
        {"[x for x in range(3)] == [0, 1, 2]", "True"},
        {"2 in [x * 2 for x in L]", "True"},
    };
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++)
        expect(table[k][0], table[k][1]);
}

static void test_functions(void)
{
    static const char *const table[][2] = {
        {"min(3, 1, 2)", "1"},       {"max(3, 1, 2)", "3"},         {"min(L)", "1"},
        {"max(L)", "3"},             {"min(filter_width)", "3"},     {"max(1, 1.0)", "1"},
        {"min(1, 1.0)", "1"},        {"max(1.0, 1)", "1.0"},         {"max(1, 2.5)", "2.5"},
        {"max('a', 'b')", "'b'"}, {"min(['b', 'a'])", "'a'"}, {"max([1, 2], [1, 3])", "[1, 3]"},
        {"min(5, True)", "True"},
        {"abs(-3)", "3"},            {"abs(3)", "3"},                {"abs(-2.5)", "2.5"},
        {"abs(True)", "1"},          {"abs(-BIG)", "9223372036854775807"},
        {"int(3.9)", "3"},           {"int(-3.9)", "-3"},            {"int(7)", "7"},
        {"int(True)", "1"},          {"int('42')", "42"},            {"int(' -7 ')", "-7"},
        {"int('+1_000')", "1000"},   {"int('-9223372036854775808')", "-9223372036854775808"},
        {"int(1e18)", "1000000000000000000"},
        {"float(2)", "2.0"},         {"float(True)", "1.0"},         {"float('1.5')", "1.5"},
        {"float(' 1e3 ')", "1000.0"}, {"float('-.5')", "-0.5"},      {"float('inf')", "inf"},
        {"float('-Infinity')", "-inf"}, {"float('nan')", "nan"},     {"float(0.25)", "0.25"},
        /* Python 3's round: halves to even */
        {"round(2.5)", "2"},         {"round(3.5)", "4"},            {"round(-2.5)", "-2"},
        {"round(0.5)", "0"},         {"round(1.5)", "2"},            {"round(2.4)", "2"},
        {"round(-0.6)", "-1"},       {"round(7)", "7"},              {"round(True)", "1"},
        {"round(2.675, 2)", "2.67"}, {"round(1.5, 0)", "2.0"},       {"round(2.5, 0)", "2.0"},
        {"round(0.125, 2)", "0.12"}, {"round(1.23456, 3)", "1.235"},
        {"round(1250.0, -2)", "1200.0"},
        {"round(1234, -2)", "1200"}, {"round(1250, -2)", "1200"},    {"round(1350, -2)", "1400"},
        {"round(-1250, -2)", "-1200"}, {"round(-1251, -2)", "-1300"}, {"round(7, 3)", "7"},
        {"round(BIG, -30)", "0"},
        {"len([1, 2])", "2"},        {"len('abc')", "3"},            {"len('\xc3\xa9')", "1"},
        {"len([])", "0"},            {"len(L)", "3"},                {"len(e)", "0"},
        {"bool(0)", "False"},        {"bool('x')", "True"},          {"bool([])", "False"},
        {"bool(0.0)", "False"},      {"bool(-1)", "True"},
        {"str(5)", "'5'"},           {"str(1.5)", "'1.5'"},          {"str(2.0)", "'2.0'"},
        {"str('a')", "'a'"},         {"str([1, 'a'])", "\"[1, 'a']\""}, {"str(True)", "'True'"},
        {"'n' + str(4)", "'n4'"},    {"str(-0.0)", "'-0.0'"},
    };
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++)
        expect(table[k][0], table[k][1]);
}

static void test_eval_errors(void)
{
    /* overflow */
    expect_error(2, "2**63", "'**' overflows a 64-bit integer", "(column 2)");
    expect_error(2, "2**64", "'**' overflows", NULL);
    expect_error(2, "10 ** 19", "'**' overflows", NULL);
    expect_error(2, "3 ** 40", "'**' overflows", NULL);
    expect_error(2, "-(-9223372036854775807-1)", "'-' overflows a 64-bit integer", "(column 1)");
    expect_error(2, "-MIN", "'-' overflows", NULL);
    expect_error(2, "9223372036854775807+1", "'+' overflows a 64-bit integer", "(column 20)");
    expect_error(2, "BIG + 1", "9223372036854775807 + 1", NULL);
    expect_error(2, "MIN - 1", "'-' overflows", NULL);
    expect_error(2, "BIG * 2", "'*' overflows", NULL);
    expect_error(2, "4294967296 * 4294967296", "'*' overflows", NULL);
    expect_error(2, "MIN // -1", "'//' overflows", NULL);
    expect_error(2, "abs(MIN)", "abs() overflows", NULL);
    expect_error(2, "1 + 2 + BIG", "'+' overflows", "(column 7)");
    /* division and modulo by zero */
    expect_message(2, "TS // 0", "'TS // 0': division by zero (column 4)");
    expect_error(2, "1 / 0", "division by zero", "(column 3)");
    expect_error(2, "1 % 0", "modulo by zero", NULL);
    expect_error(2, "1.0 / 0", "division by zero", NULL);
    expect_error(2, "1.0 // 0.0", "division by zero", NULL);
    expect_error(2, "1 % 0.0", "modulo by zero", NULL);
    expect_error(2, "a // (b - 4)", "division by zero", "(column 3)");
    expect_error(2, "0 ** -1", "0 cannot be raised to a negative power", NULL);
    expect_error(2, "0.0 ** -1", "cannot be raised to a negative power", NULL);
    expect_error(2, "2.0 ** 10000", "'**' overflows a float", NULL);
    expect_error(2, "(-8) ** (1/3)", "fractional power", NULL);
    /* shifts */
    expect_error(2, "1 << -1", "'<<' by a negative count", NULL);
    expect_error(2, "1 >> -1", "'>>' by a negative count", NULL);
    expect_error(2, "1 << 64", "'<<' by a count over 63", "(column 3)");
    expect_error(2, "1 >> 64", "'>>' by a count over 63", NULL);
    expect_error(2, "0 << 64", "over 63", NULL);
    expect_error(2, "1 << 63", "'<<' overflows", NULL);
    expect_error(2, "3 << 62", "'<<' overflows", NULL);
    expect_error(2, "-2 << 63", "'<<' overflows", NULL);
    /* types */
    expect_message(2, "a < s", "'a < s': '<' between int and string (column 3)");
    expect_error(2, "'a' + 1", "'+' between string and int", "(column 5)");
    expect_error(2, "1 - 'a'", "'-' between int and string", NULL);
    expect_error(2, "1.5 & 1", "'&' between float and int", NULL);
    expect_error(2, "1 << 1.0", "'<<' between int and float", NULL);
    expect_error(2, "~1.5", "'~' of a float", NULL);
    expect_error(2, "-'a'", "'-' of a string", NULL);
    expect_error(2, "-L", "'-' of a list", NULL);
    expect_error(2, "L + 1", "'+' between list and int", NULL);
    expect_error(2, "L * 1.5", "'*' between list and float", NULL);
    expect_error(2, "'a' * 'b'", "'*' between string and string", NULL);
    expect_error(2, "[1] < ['a']", "'<' between int and string", NULL);
    expect_error(2, "L < 1", "'<' between list and int", NULL);
    expect_error(2, "1 < 2 < 'a'", "'<' between int and string", "(column 7)");
    expect_error(2, "1 in 2", "'in' between int and int", NULL);
    expect_error(2, "1 in 'abc'", "'in' between int and string", NULL);
    expect_error(2, "1 not in s", "'not in' between int and string", NULL);
    expect_error(2, "max(1, 'a')", "between string and int", NULL);
    /* indexing */
    expect_error(2, "L[3]", "index 3 out of range for a list of 3", "(column 2)");
    expect_error(2, "L[-4]", "index -4 out of range", NULL);
    expect_error(2, "L[MIN]", "out of range", NULL);
    expect_error(2, "empty[0]", "out of range for a list of 0", NULL);
    expect_error(2, "L[0.5]", "an index must be an int, not a float", NULL);
    expect_error(2, "L['a']", "an index must be an int, not a string", NULL);
    expect_error(2, "TS[0]", "'[]' of an int", NULL);
    expect_error(2, "s[3]", "out of range for a string of 3", NULL);
    /* functions */
    expect_error(2, "min([])", "min() of an empty list", NULL);
    expect_error(2, "max(empty)", "max() of an empty list", NULL);
    expect_error(2, "min(5)", "min() of an int: one argument must be a list", NULL);
    expect_error(2, "len(5)", "len() of an int", NULL);
    expect_error(2, "abs('a')", "abs() of a string", NULL);
    expect_error(2, "int('x')", "int() of 'x': not an integer", NULL);
    expect_error(2, "int('1.5')", "not an integer", NULL);
    expect_error(2, "int('')", "not an integer", NULL);
    expect_error(2, "int('9223372036854775808')", "not a 64-bit integer", NULL);
    expect_error(2, "int(L)", "int() of a list", NULL);
    expect_error(2, "float('x')", "float() of 'x': not a number", NULL);
    expect_error(2, "float('1e')", "not a number", NULL);
    expect_error(2, "float(L)", "float() of a list", NULL);
    expect_error(2, "int(float('inf'))", "int() of inf: not a 64-bit integer", NULL);
    expect_error(2, "int(float('nan'))", "int() of nan", NULL);
    expect_error(2, "int(1e19)", "not a 64-bit integer", NULL);
    expect_error(2, "round(float('nan'))", "round() of nan", NULL);
    expect_error(2, "round('a')", "round() of a string", NULL);
    expect_error(2, "round(1.5, 0.5)", "digits must be an int", NULL);
    expect_error(2, "round(BIG, -1)", "round() overflows", NULL);
    expect_error(2, "round(BIG, -19)", "round() overflows", NULL);
    expect_error(2, "range(1.5)", "range() takes ints, not a float", NULL);
    expect_error(2, "range(0, 5, 0)", "range() with a step of 0", NULL);
    expect_error(2, "range('a')", "range() takes ints, not a string", NULL);
    expect_error(2, "[x for x in 5]", "'for' over an int", "(column 13)");
    expect_error(2, "[x for x in 1.5 if x]", "'for' over a float", NULL);
    /* The error names where in a long expression it happened. */
    expect_error(2, "TS + WPT + a + b + TS // (WPT - 4)", "division by zero", "(column 23)");
}

static void test_compile_errors(void)
{
    expect_message(1, "TS * (WPT", "'TS * (WPT': ')' expected (column 10)");
    expect_message(1, "TSS", "'TSS' is not a parameter or a name of the spec (column 1)");
    expect_message(1, "  TSS ", "'TSS' is not a parameter or a name of the spec (column 3)");
    expect_message(1, "TS + TSS", "'TS + TSS': 'TSS' is not a parameter or a name of the spec (column 6)");
    expect_error(1, "TS *", "an operand expected", "(column 5)");
    expect_error(1, "TS * * 2", "an operand expected, not '*'", "(column 6)");
    expect_error(1, "TS * WPT)", "unexpected ')'", "(column 9)");
    expect_error(1, "TS WPT", "unexpected 'WPT'", "(column 4)");
    expect_error(1, "1 2", "unexpected '2'", NULL);
    expect_error(1, "TS $ 2", "unexpected character '$'", "(column 4)");
    expect_error(1, "TS \x01 2", "unexpected byte 0x01", NULL);
    expect_error(1, "TS = 4", "'=' is not an operator", "(column 4)");
    expect_error(1, "", "an empty expression", "(column 1)");
    expect_error(1, "   ", "an empty expression", NULL);
    expect_error(1, "[1, 2", "']' expected", "(column 6)");
    expect_error(1, "((1)", "')' expected", NULL);
    expect_error(1, "max(1, 2", "')' expected", NULL);
    expect_error(1, "L[0", "']' expected", NULL);
    expect_error(1, "L[0:1]", "']' expected", NULL);
    expect_error(1, "1 if 2", "'else' expected", NULL);
    expect_error(1, "1 else 2", "unexpected 'else'", NULL);
    expect_error(1, "'abc", "string never closed", "(column 1)");
    expect_error(1, "1 + \"abc", "string never closed", "(column 5)");
    expect_error(1, "'\\x4'", "needs 2 hex digits", NULL);
    expect_error(1, "010", "does not start with 0", NULL);
    expect_error(1, "9223372036854775808", "does not fit a 64-bit integer", NULL);
    expect_error(1, "0x8000000000000000", "does not fit", NULL);
    expect_error(1, "99999999999999999999999", "does not fit", NULL);
    expect_error(1, "3abc", "'3abc' is not a number", NULL);
    expect_error(1, "0x", "is not a number", NULL);
    expect_error(1, "1e", "is not a number", NULL);
    expect_error(1, "1.5.2", "is not a number", NULL);
    expect_error(1, "1__0", "is not a number", NULL);
    expect_error(1, "foo(1)", "'foo' is not a function", "(column 1)");
    expect_error(1, "TS(1)", "'TS' is not a function", NULL);
    expect_error(1, "abs(1, 2)", "abs() takes 1 argument, not 2", NULL);
    expect_error(1, "abs()", "abs() takes 1 argument, not 0", NULL);
    expect_error(1, "range()", "range() takes 1 to 3 arguments, not 0", NULL);
    expect_error(1, "range(1, 2, 3, 4)", "not 4", NULL);
    expect_error(1, "min()", "min() takes at least 1 argument", NULL);
    expect_error(1, "[x for in L]", "a name expected after 'for', not 'in'", NULL);
    expect_error(1, "[x for x L]", "'in' expected", NULL);
    expect_error(1, "[x for x in L if]", "an operand expected", NULL);
    expect_error(1, "[x for x in L] + x", "'x' is not a parameter", "(column 18)");
    expect_error(1, "[x for x in L if y]", "'y' is not a parameter", NULL);
    expect_error(1, "[y for x in L]", "'y' is not a parameter", "(column 2)");
    expect_error(1, "[x for x in range(x)]", "'x' is not a parameter", "(column 19)");
    expect_error(1, "1 not 2", "unexpected 'not'", NULL);
    expect_error(1, "not", "an operand expected", NULL);
    expect_error(1, "a and", "an operand expected", NULL);
    expect_error(1, "True False", "unexpected 'False'", NULL);
    expect_error(1, "if", "an operand expected, not 'if'", NULL);
    /* the name is checked on the dead side too */
    expect_error(1, "0 and NOPE", "'NOPE' is not a parameter", NULL);

    /* Without a resolver every name is unknown; constants are fine. */
    char err[T1_EXPR_ERR_MAX] = "";
    t1_expr *e = t1_expr_compile("[8, 16, 32]", NULL, NULL, err, sizeof err);
    CHECK(e != NULL, "constants compile without a resolver (%s)", err);
    t1_expr_free(e);
    e = t1_expr_compile("[x for x in range(3)]", NULL, NULL, err, sizeof err);
    CHECK(e != NULL, "a comprehension's variable needs no resolver (%s)", err);
    t1_expr_free(e);
    e = t1_expr_compile("TS", NULL, NULL, err, sizeof err);
    CHECK(e == NULL && strstr(err, "'TS' is not a parameter"), "no resolver: a name is unknown (%s)", err);
    e = t1_expr_compile(NULL, resolve, NULL, err, sizeof err);
    CHECK(e == NULL && strstr(err, "empty"), "NULL text is an empty expression (%s)", err);
    t1_expr_free(NULL);
}

/* Records every name the resolver is asked about. */
typedef struct asked {
    char names[16][16];
    int n;
} asked;

static int resolve_recording(void *ctx, const char *name, size_t len)
{
    asked *a = ctx;
    if (a->n < 16 && len < 16) {
        memcpy(a->names[a->n], name, len);
        a->names[a->n][len] = '\0';
        a->n++;
    }
    return resolve(NULL, name, len);
}

static void test_names_and_slots(void)
{
    char err[T1_EXPR_ERR_MAX] = "";
    asked a = {.n = 0};
    t1_expr *e = t1_expr_compile("[x * TS for x in L if x != WPT]", resolve_recording, &a, err, sizeof err);
    int seen_x = 0;
    for (int k = 0; k < a.n; k++)
        seen_x |= strcmp(a.names[k], "x") == 0;
    CHECK(e && a.n == 3 && !seen_x, "the loop variable never reaches the resolver (%d names asked)", a.n);
    int out[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
    size_t n = t1_expr_slots(e, out, 8);
    /* Evaluation order: the iterable first, then the condition, then the item. */
    CHECK(n == 3 && out[0] == resolve(NULL, "L", 1) && out[1] == resolve(NULL, "WPT", 3) &&
              out[2] == resolve(NULL, "TS", 2),
          "slots in order of first use: %zu: %d %d %d", n, out[0], out[1], out[2]);
    t1_expr_free(e);

    e = t1_expr_compile("TS * WPT + TS * (a if WPT else b) + TS", resolve, NULL, err, sizeof err);
    memset(out, -1, sizeof out);
    n = t1_expr_slots(e, out, 8);
    CHECK(n == 4 && out[0] == 2 && out[1] == 3 && out[2] == 0 && out[3] == 1 && out[4] == -1,
          "each slot once: %zu: %d %d %d %d", n, out[0], out[1], out[2], out[3]);
    memset(out, -1, sizeof out);
    n = t1_expr_slots(e, out, 2);
    CHECK(n == 4 && out[0] == 2 && out[1] == 3 && out[2] == -1, "cap honoured, count whole: %zu", n);
    CHECK(t1_expr_slots(e, NULL, 0) == 4, "count alone");
    t1_expr_free(e);

    e = t1_expr_compile("1 + 2", resolve, NULL, err, sizeof err);
    CHECK(e && t1_expr_slots(e, out, 8) == 0, "no slots");
    t1_expr_free(e);

    /* Only the slots the expression reads need a value. */
    t1_value only[3];
    memset(only, 0xff, sizeof only);
    only[2] = (t1_value){.type = T1_INT, .i = 64};
    e = t1_expr_compile("TS // 2", resolve, NULL, err, sizeof err);
    t1_value v;
    int rc = e ? t1_expr_eval(e, only, &arena, &v, err, sizeof err) : -1;
    CHECK(rc == 0 && v.type == T1_INT && v.i == 32, "only the slots read are used (%s)", err);
    t1_expr_free(e);

    /* Many names, many repeats: each slot once, first use first. */
    char text[4000];
    size_t len = 0;
    for (int k = 0; k < 300; k++)
        len += (size_t)snprintf(text + len, sizeof text - len, "%s%s", k ? " + " : "", k % 2 ? "b" : "a");
    e = t1_expr_compile(text, resolve, NULL, err, sizeof err);
    n = e ? t1_expr_slots(e, out, 8) : 0;
    CHECK(n == 2 && out[0] == 0 && out[1] == 1, "300 uses of 2 names: 2 slots (%zu)", n);
    rc = e ? t1_expr_eval(e, slots, &arena, &v, err, sizeof err) : -1;
    CHECK(rc == 0 && v.i == 150 * 12 + 150 * 4, "a long sum: %lld (%s)", (long long)v.i, err);
    t1_expr_free(e);
}

static void test_limits(void)
{
    t1_value v;
    char err[T1_EXPR_ERR_MAX] = "";
    /* range() too long is refused before anything is made. */
    t1_arena_reset(&arena);
    t1_expr *e = t1_expr_compile("range(10**9)", resolve, NULL, err, sizeof err);
    clock_t t0 = clock();
    int rc = e ? t1_expr_eval(e, slots, &arena, &v, err, sizeof err) : 0;
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(rc == -1 && strstr(err, "range() of 1000000000 values: a list holds at most 1048576") &&
              arena.used == 0,
          "range(10**9) refused, nothing allocated (%.3f s, %zu bytes): %s", secs, arena.used, err);
    t1_expr_free(e);
    expect_error(2, "range(MIN, BIG)", "a list holds at most", NULL);
    expect_error(2, "range(BIG, MIN, -1)", "a list holds at most", NULL);
    expect_error(2, "[x for x in range(10**7)]", "a list holds at most", NULL);
    expect("len(range(1048576))", "1048576");
    expect_error(2, "range(1048577)", "a list holds at most", NULL);
    expect_error(2, "[0] * 1048577", "a list of more than 1048576 values", NULL);
    expect_error(2, "[0] * 1048576 + [1]", "a list of more than 1048576 values", NULL);
    expect_error(2, "[0] * BIG", "a list of more than", NULL);
    expect_error(2, "'ab' * BIG", "", NULL);
    expect_error(2, "[0 for a in range(1000000) for b in range(1000000) if 0]",
                 "more than 16777216 steps", NULL);
    expect_error(2, "[x for x in range(1048576) for y in range(2)]",
                 "a list of more than 1048576 values", NULL);
    expect_error(2, "[x for x in [0] * 1048576 for y in [1, 2]]", "more than the arena's", NULL);
    expect_error(2, "'x' * 100000000", "more than the arena's 67108864 bytes", NULL);

    /* An arena's own limit is honoured. */
    t1_arena small = {.limit = 1024};
    e = t1_expr_compile("range(1000)", resolve, NULL, err, sizeof err);
    rc = e ? t1_expr_eval(e, slots, &small, &v, err, sizeof err) : 0;
    CHECK(rc == -1 && strstr(err, "more than the arena's 1024 bytes"), "a small arena's limit: %s", err);
    t1_expr_free(e);
    e = t1_expr_compile("[x for x in range(100)]", resolve, NULL, err, sizeof err);
    rc = e ? t1_expr_eval(e, slots, &small, &v, err, sizeof err) : 0;
    CHECK(rc == -1 && strstr(err, "more than the arena's 1024 bytes"), "a comprehension too: %s", err);
    t1_expr_free(e);
    t1_arena_free(&small);
    /* No arena: scalars are fine, lists are refused. */
    e = t1_expr_compile("a * b + 1", resolve, NULL, err, sizeof err);
    rc = e ? t1_expr_eval(e, slots, NULL, &v, err, sizeof err) : -1;
    CHECK(rc == 0 && v.i == 49, "no arena needed for a scalar (%s)", err);
    t1_expr_free(e);
    e = t1_expr_compile("[a]", resolve, NULL, err, sizeof err);
    rc = e ? t1_expr_eval(e, slots, NULL, &v, err, sizeof err) : 0;
    CHECK(rc == -1 && strstr(err, "needs an arena"), "a list without an arena: %s", err);
    t1_expr_free(e);

    /* Nesting: refused at the bound, fine below it. */
    char *deep = malloc(T1_EXPR_TEXT_MAX + 2);
    if (!CHECK(deep != NULL, "memory for deep texts"))
        return;
    memset(deep, '(', 250);
    deep[250] = '1';
    memset(deep + 251, ')', 250);
    deep[501] = '\0';
    expect_error(1, deep, "nested more than 200 deep", NULL);
    memset(deep, '[', 250);
    deep[250] = '1';
    memset(deep + 251, ']', 250);
    expect_error(1, deep, "nested more than 200 deep", NULL);
    memset(deep, '(', 150);
    deep[150] = '7';
    memset(deep + 151, ')', 150);
    deep[301] = '\0';
    expect(deep, "7");
    memset(deep, '-', 1000);
    deep[1000] = '1';
    deep[1001] = '\0';
    expect_error(1, deep, "nested more than 200 deep", NULL);
    memset(deep, '-', 150);
    deep[150] = '1';
    deep[151] = '\0';
    expect(deep, "1");
    char *q = deep;
    for (int k = 0; k < 300; k++)
        q += sprintf(q, "not ");
    sprintf(q, "1");
    expect_error(1, deep, "nested more than 200 deep", NULL);
    q = deep;
    for (int k = 0; k < 300; k++)
        q += sprintf(q, "1 if 1 else ");
    sprintf(q, "1");
    expect_error(1, deep, "nested more than 200 deep", NULL);
    q = deep;
    for (int k = 0; k < 300; k++)
        q += sprintf(q, "2**");
    sprintf(q, "1");
    expect_error(1, deep, "nested more than 200 deep", NULL);
    q = deep + sprintf(deep, "L");
    for (int k = 0; k < 300; k++)
        q += sprintf(q, "[0]");
    expect_error(1, deep, "nested more than 200 deep", NULL);
    q = deep + sprintf(deep, "[0");
    for (int k = 0; k < 300; k++)
        q += sprintf(q, " for x%d in L", k);
    sprintf(q, "]");
    expect_error(1, deep, "nested more than 200 deep", NULL);
    /* A long run of one level is not nesting. */
    q = deep + sprintf(deep, "1");
    for (int k = 0; k < 5000; k++)
        q += sprintf(q, "+1");
    expect(deep, "5001");
    q = deep + sprintf(deep, "1");
    for (int k = 0; k < 3000; k++)
        q += sprintf(q, " and %d", k + 1);
    expect(deep, "3000");
    q = deep + sprintf(deep, "0");
    for (int k = 0; k < 3000; k++)
        q += sprintf(q, " < %d", k + 1);
    expect(deep, "True");

    /* Text length: at the bound fine, past it refused. */
    q = deep + sprintf(deep, "1");
    while ((size_t)(q - deep) + 2 <= T1_EXPR_TEXT_MAX)
        q += sprintf(q, "+1");
    CHECK(strlen(deep) == T1_EXPR_TEXT_MAX - 1, "a text of %d bytes", T1_EXPR_TEXT_MAX - 1);
    expect(deep, "32768");
    memset(deep, '1', T1_EXPR_TEXT_MAX + 1);
    deep[T1_EXPR_TEXT_MAX + 1] = '\0';
    expect_error(1, deep, "longer than 65536 bytes", NULL);
    CHECK(strlen(err) < T1_EXPR_ERR_MAX, "bounded");
    free(deep);
}

static void test_messages(void)
{
    char err[T1_EXPR_ERR_MAX];
    t1_value v;
    /* A long expression is quoted around the error; the reason is whole. */
    char text[2000];
    size_t n = 0;
    for (int k = 0; k < 200; k++)
        n += (size_t)snprintf(text + n, sizeof text - n, "a + ");
    snprintf(text + n, sizeof text - n, "NOT_A_KNOWN_NAME + b + b + b");
    int rc = run(text, &v, err, sizeof err);
    CHECK(rc == 1 &&
              strstr(err, "'NOT_A_KNOWN_NAME' is not a parameter or a name of the spec (column 801)") &&
              strncmp(err, "'...", 4) == 0 && strstr(err, "b + b': ") && strlen(err) < 220,
          "a long text: quote cut around the error, reason whole: %s", err);
    /* The quote is at most about 100 bytes. */
    const char *colon = strstr(err, "': ");
    CHECK(colon && colon - err <= 102, "quote of %d bytes", colon ? (int)(colon - err) : -1);
    /* Near the end the quote reaches the end. */
    rc = run("1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 14 + 15 + 16 + 17 + 18 + 19 + "
             "20 + 21 + 22 + 23 + 24 + 1 / 0",
             &v, err, sizeof err);
    CHECK(rc == 2 && strncmp(err, "'...", 4) == 0 &&
              strstr(err, "24 + 1 / 0': division by zero (column 114)"),
          "near the end: %s", err);
    /* A long name in the reason is cut, so the reason still fits. */
    char name[3000];
    memset(name, 'Q', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    rc = run(name, &v, err, sizeof err);
    CHECK(rc == 1 && strstr(err, "...' is not a parameter or a name of the spec (column 1)") &&
              strlen(err) < T1_EXPR_ERR_MAX,
          "a long name: %s", err);
    /* Small buffers: the quote goes first, then the reason is cut;
     * always NUL-terminated, never past cap. */
    for (size_t cap = 0; cap < 80; cap++) {
        char small[100];
        memset(small, '#', sizeof small);
        rc = run(text, &v, cap ? small : NULL, cap);
        int ok = rc == 1;
        if (cap)
            ok = ok && memchr(small, '\0', cap) != NULL && small[cap] == '#';
        if (!CHECK(ok, "cap %zu: NUL-terminated within cap", cap))
            break;
    }
    char small[90];
    rc = run(text, &v, small, sizeof small);
    CHECK(rc == 1 &&
              strstr(small, "'NOT_A_KNOWN_NAME' is not a parameter or a name of the spec (column 801)"),
          "a 90-byte buffer keeps the reason: %s", small);
    rc = run("2 ** 99", &v, small, 20);
    CHECK(rc == 2 && strlen(small) == 19, "cut reason at cap 20: %s", small);
    rc = run("1 +", &v, small, 1);
    CHECK(rc == 1 && small[0] == '\0', "cap 1: empty string");
    /* Non-printable bytes in the quote show as '?'. */
    rc = run("1 +\n\t", &v, err, sizeof err);
    CHECK(rc == 1 && strncmp(err, "'1 +?\?': an operand expected (column 6)", 40) == 0,
          "control bytes: %s", err);
    /* A success clears err. */
    strcpy(err, "stale");
    rc = run("1", &v, err, sizeof err);
    CHECK(rc == 0 && err[0] == '\0', "err emptied on success: %s", err);
}

static void format_is(const t1_value *v, int bare, const char *want)
{
    char buf[128];
    size_t n = t1_value_format(v, bare, buf, sizeof buf);
    CHECK(strcmp(buf, want) == 0 && n == strlen(want), "format %s (got %s, %zu)", want, buf, n);
}

static void float_is(double f, const char *want)
{
    t1_value v = {.type = T1_FLOAT, .f = f};
    format_is(&v, 1, want);
}

static void test_format(void)
{
    format_is(&(t1_value){.type = T1_INT, .i = 0}, 1, "0");
    format_is(&(t1_value){.type = T1_INT, .i = -5}, 1, "-5");
    format_is(&(t1_value){.type = T1_INT, .i = INT64_MIN}, 1, "-9223372036854775808");
    format_is(&(t1_value){.type = T1_INT, .i = INT64_MAX}, 1, "9223372036854775807");
    format_is(&(t1_value){.type = T1_BOOL, .i = 1}, 1, "True");
    format_is(&(t1_value){.type = T1_BOOL, .i = 0}, 0, "False");
    float_is(0.5, "0.5");
    float_is(2.0, "2.0");
    float_is(0.0, "0.0");
    float_is(-0.0, "-0.0");
    float_is(100.0, "100.0");
    float_is(0.1, "0.1");
    float_is(1.0 / 3.0, "0.3333333333333333");
    float_is(0.1 + 0.2, "0.30000000000000004");
    float_is(123456789.123, "123456789.123");
    float_is(1e15, "1000000000000000.0");
    float_is(1e16, "1e+16");
    float_is(1.5e16, "1.5e+16");
    float_is(1e22, "1e+22");
    float_is(1e100, "1e+100");
    float_is(123456789012345680.0, "1.2345678901234568e+17");
    float_is(0.0001, "0.0001");
    float_is(0.00001, "1e-05");
    float_is(1.5e-7, "1.5e-07");
    float_is(-2.5e-300, "-2.5e-300");
    float_is(5e-324, "5e-324");
    float_is(1.7976931348623157e308, "1.7976931348623157e+308");
    float_is(2.2250738585072014e-308, "2.2250738585072014e-308");
    float_is(9007199254740993.0, "9007199254740992.0");
    float_is(INFINITY, "inf");
    float_is(-INFINITY, "-inf");
    float_is(NAN, "nan");
    t1_value s = {.type = T1_STRING, .s = "row", .len = 3};
    format_is(&s, 1, "row");
    format_is(&s, 0, "'row'");
    format_is(&(t1_value){.type = T1_STRING, .s = "it's", .len = 4}, 0, "\"it's\"");
    format_is(&(t1_value){.type = T1_STRING, .s = "a\"b", .len = 3}, 0, "'a\"b'");
    format_is(&(t1_value){.type = T1_STRING, .s = "it's \"x\"", .len = 8}, 0, "'it\\'s \"x\"'");
    format_is(&(t1_value){.type = T1_STRING, .s = "a\nb\\\x01", .len = 5}, 0, "'a\\nb\\\\\\x01'");
    format_is(&(t1_value){.type = T1_STRING, .s = "", .len = 0}, 0, "''");
    format_is(&(t1_value){.type = T1_STRING, .s = "", .len = 0}, 1, "");
    t1_value items[] = {{.type = T1_INT, .i = 1}, {.type = T1_STRING, .s = "a", .len = 1},
                        {.type = T1_FLOAT, .f = 2.0}, {.type = T1_LIST, .items = NULL, .len = 0}};
    t1_value list = {.type = T1_LIST, .items = items, .len = 4};
    format_is(&list, 1, "[1, 'a', 2.0, []]");
    format_is(&list, 0, "[1, 'a', 2.0, []]");
    format_is(&(t1_value){.type = T1_LIST, .items = items, .len = 1}, 0, "[1]");
    /* Cut to cap, NUL-terminated; the length needed comes back. */
    char buf[8];
    memset(buf, '#', sizeof buf);
    size_t n = t1_value_format(&(t1_value){.type = T1_INT, .i = 12345}, 1, buf, 3);
    CHECK(n == 5 && strcmp(buf, "12") == 0 && buf[3] == '#', "cut to cap 3: %s, %zu", buf, n);
    n = t1_value_format(&list, 0, NULL, 0);
    CHECK(n == strlen("[1, 'a', 2.0, []]"), "length alone: %zu", n);
    n = t1_value_format(&list, 0, buf, 1);
    CHECK(n == strlen("[1, 'a', 2.0, []]") && buf[0] == '\0', "cap 1: empty");
}

static void test_truth(void)
{
    CHECK(!t1_value_truth(&(t1_value){.type = T1_INT, .i = 0}), "0 is false");
    CHECK(t1_value_truth(&(t1_value){.type = T1_INT, .i = -3}), "-3 is true");
    CHECK(!t1_value_truth(&(t1_value){.type = T1_FLOAT, .f = 0.0}), "0.0 is false");
    CHECK(!t1_value_truth(&(t1_value){.type = T1_FLOAT, .f = -0.0}), "-0.0 is false");
    CHECK(t1_value_truth(&(t1_value){.type = T1_FLOAT, .f = NAN}), "nan is true");
    CHECK(!t1_value_truth(&(t1_value){.type = T1_BOOL, .i = 0}), "False is false");
    CHECK(t1_value_truth(&(t1_value){.type = T1_BOOL, .i = 1}), "True is true");
    CHECK(!t1_value_truth(&(t1_value){.type = T1_STRING, .s = "", .len = 0}), "'' is false");
    CHECK(t1_value_truth(&(t1_value){.type = T1_STRING, .s = "0", .len = 1}), "'0' is true");
    CHECK(!t1_value_truth(&(t1_value){.type = T1_LIST, .len = 0}), "[] is false");
    CHECK(t1_value_truth(&(t1_value){.type = T1_LIST, .items = L_items, .len = 3}), "[1, 2, 3] is true");
}

/* Results live in the arena: they outlive the expression that made them. */
static void test_ownership(void)
{
    char err[T1_EXPR_ERR_MAX] = "";
    t1_arena own = {0};
    t1_expr *e = t1_expr_compile("['row', 'col'] + [s]", resolve, NULL, err, sizeof err);
    t1_value v;
    int rc = e ? t1_expr_eval(e, slots, &own, &v, err, sizeof err) : -1;
    t1_expr_free(e);
    /* Something else takes the freed memory. */
    t1_expr *other = t1_expr_compile("['xxx', 'yyy', 'zzz', 'www']", resolve, NULL, err, sizeof err);
    char buf[64] = "";
    if (rc == 0)
        t1_value_format(&v, 0, buf, sizeof buf);
    CHECK(rc == 0 && strcmp(buf, "['row', 'col', 'row']") == 0 && v.items[0].s[3] == '\0',
          "a list of literals outlives its expression: %s", buf);
    t1_expr_free(other);
    e = t1_expr_compile("'a' if TS > 0 else 'b'", resolve, NULL, err, sizeof err);
    rc = e ? t1_expr_eval(e, slots, &own, &v, err, sizeof err) : -1;
    t1_expr_free(e);
    CHECK(rc == 0 && v.type == T1_STRING && v.len == 1 && strcmp(v.s, "a") == 0, "a string literal too");
    /* A value the caller bound comes back as it is. */
    e = t1_expr_compile("s", resolve, NULL, err, sizeof err);
    rc = e ? t1_expr_eval(e, slots, &own, &v, err, sizeof err) : -1;
    t1_expr_free(e);
    CHECK(rc == 0 && v.s == slots[4].s, "a bound string is the caller's own");
    /* Unused fields are zero. */
    e = t1_expr_compile("a + 1", resolve, NULL, err, sizeof err);
    memset(&v, 0x5a, sizeof v);
    rc = e ? t1_expr_eval(e, slots, &own, &v, err, sizeof err) : -1;
    t1_expr_free(e);
    CHECK(rc == 0 && v.type == T1_INT && v.i == 13 && v.f == 0.0 && v.s == NULL && v.len == 0 &&
              v.items == NULL,
          "an int result has nothing else set");
    /* Reset keeps one block; the same evaluation then stays within it. */
    e = t1_expr_compile("[x * 2 for x in range(5000)] + ['a' + str(x) for x in range(100)]", resolve,
                        NULL, err, sizeof err);
    rc = 0;
    size_t used = 0;
    for (int k = 0; k < 5 && rc == 0; k++) {
        t1_arena_reset(&own);
        rc = e ? t1_expr_eval(e, slots, &own, &v, err, sizeof err) : -1;
        if (k == 1)
            used = own.used;
        CHECK(rc == 0 && v.len == 5100 && (k < 2 || own.used == used), "evaluation %d: %zu bytes (%s)", k,
              own.used, err);
    }
    t1_expr_free(e);
    t1_arena_free(&own);
    CHECK(own.blocks == NULL && own.used == 0, "freed");
    t1_arena_free(&own);
}

/* The tuner checks conditions over millions of combinations: timed here,
 * printed, never asserted. */
static void test_speed(void)
{
    char err[T1_EXPR_ERR_MAX] = "";
    t1_expr *e = t1_expr_compile("a % b == 0 and a*b <= 1024", resolve, NULL, err, sizeof err);
    if (!CHECK(e != NULL, "the sample condition compiles (%s)", err))
        return;
    t1_value s[2] = {{.type = T1_INT}, {.type = T1_INT}};
    const long n = 10 * 1000 * 1000;
    long trues = 0, fails = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long k = 0; k < n; k++) {
        s[0].i = k % 1000 + 1;
        s[1].i = k % 31 + 1;
        t1_value v;
        if (t1_expr_eval(e, s, &arena, &v, NULL, 0))
            fails++;
        else
            trues += v.type == T1_BOOL && v.i;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)n;
    printf("speed: 'a %% b == 0 and a*b <= 1024': %.1f ns per evaluation (%ld of %ld true)\n", ns, trues, n);
    CHECK(fails == 0 && trues > 0, "10 million evaluations, %ld true", trues);
    CHECK(arena.used == 0, "a scalar condition takes nothing from the arena");
    t1_expr_free(e);
}

int main(void)
{
    setup_slots();
    test_literals();
    test_arithmetic();
    test_bitwise();
    test_comparisons();
    test_logic();
    test_lists();
    test_functions();
    test_eval_errors();
    test_compile_errors();
    test_names_and_slots();
    test_limits();
    test_messages();
    test_format();
    test_truth();
    test_ownership();
    test_speed();
    t1_arena_free(&arena);
    return check_summary();
}
