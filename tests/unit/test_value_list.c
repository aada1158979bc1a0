/* Value-list syntax of --widths, --wg and -D (clc/program/value_list.h). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "value_list.h"

/* Parses text and compares with the expected v[0] values. */
static void expect_ints(const char *text, const long *want, size_t n)
{
    value_list l;
    char err[VALUE_LIST_ERR_MAX] = "";
    int rc = value_list_parse_ints(text, &l, err);
    if (!CHECK(rc == 0, "'%s' parses (error: %s)", text, err))
        return;
    if (!CHECK(l.n == n, "'%s' gives %zu values, got %zu", text, n, l.n))
        return;
    for (size_t i = 0; i < n; i++)
        CHECK(l.values[i].v[0] == want[i], "'%s' value %zu is %ld, got %ld", text, i, want[i],
              l.values[i].v[0]);
}

/* Parsing must fail and the message must contain `names`. */
static void expect_int_error(const char *text, const char *names)
{
    value_list l;
    char err[VALUE_LIST_ERR_MAX] = "";
    int rc = value_list_parse_ints(text, &l, err);
    CHECK(rc == -1, "'%s' is refused", text);
    CHECK(strstr(err, names) != NULL, "error for '%s' names '%s': %s", text, names, err);
}

static void expect_wg_error(const char *text, const char *names)
{
    value_list l;
    char err[VALUE_LIST_ERR_MAX] = "";
    int rc = value_list_parse_wgs(text, &l, err);
    CHECK(rc == -1, "wg '%s' is refused", text);
    CHECK(strstr(err, names) != NULL, "error for wg '%s' names '%s': %s", text, names, err);
}

static void test_valid_ints(void)
{
    const long one[] = {3};
    expect_ints("3", one, 1);
    expect_ints(" 3 ", one, 1);
    const long three[] = {3, 5, 9};
    expect_ints("3,5,9", three, 3);
    expect_ints("3, 5 ,9", three, 3);
    const long odd[] = {3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31};
    expect_ints("3,5,7,...,31", odd, 15);
    expect_ints("3,5,...,31", odd, 15);
    expect_ints("3-31:2", odd, 15);
    const long all[] = {3, 4, 5, 6, 7};
    expect_ints("3-7", all, 5);
    const long stepped[] = {3, 7, 11};
    expect_ints("3-13:4", stepped, 3); /* 13 is not reached: fine for a range */
    const long mixed[] = {1, 3, 5, 7, 20, 21, 22};
    expect_ints("1,3,...,7,20-22", mixed, 7);
    const long run_after_range[] = {1, 2, 3, 10, 12, 14};
    expect_ints("1-3,10,12,...,14", run_after_range, 6); /* the range does not set the step */
    const long after[] = {2, 4, 6, 9};
    expect_ints("2,4,...,6,9", after, 4);
    const long zero[] = {0, 1};
    expect_ints("0,1", zero, 2);
    const long big[] = {2147483647};
    expect_ints("2147483647", big, 1);
    const long same[] = {5};
    expect_ints("5-5", same, 1);
}

static void test_tokens_kept(void)
{
    value_list l;
    char err[VALUE_LIST_ERR_MAX];
    CHECK(value_list_parse_ints("4,3-7:2,9,11,...,15", &l, err) == 0, "mixed list parses: %s", err);
    CHECK(l.n == 8, "8 values, got %zu", l.n);
    CHECK(strcmp(l.tokens[0], "4") == 0, "token of 4 is '4': %s", l.tokens[0]);
    CHECK(strcmp(l.tokens[1], "3-7:2") == 0, "token of 3 is the range: %s", l.tokens[1]);
    CHECK(strcmp(l.tokens[3], "3-7:2") == 0, "token of 7 is the range: %s", l.tokens[3]);
    CHECK(strcmp(l.tokens[7], "...,15") == 0, "token of 15 is '...,15': %s", l.tokens[7]);
    CHECK(strcmp(l.tokens[5], "11") == 0, "token of 11 is '11': %s", l.tokens[5]);
}

static void test_bad_ints(void)
{
    expect_int_error("", "empty");
    expect_int_error("   ", "empty");
    expect_int_error(NULL, "empty");
    expect_int_error("3,,5", "after '3'");
    expect_int_error(",3", "start");
    expect_int_error("3,", "end");
    expect_int_error("x", "'x'");
    expect_int_error("3,x5", "'x5'");
    expect_int_error("3.5", "'3.5'");
    expect_int_error("-3", "'-3'");
    expect_int_error("+3", "'+3'");
    expect_int_error("3,5,...,30", "'30'");
    expect_int_error("3,5,...,5", "'5'");
    expect_int_error("3,5,...,1", "'1'");
    expect_int_error("5,3,...,1", "must be positive");
    expect_int_error("3,3,...,9", "'3'");          /* zero step: also a duplicate */
    expect_int_error("3,...,9", "two plain values");
    expect_int_error("...,9", "two plain values");
    expect_int_error("3,5,...", "followed by the last value");
    expect_int_error("3,5,...,x", "'x'");
    expect_int_error("3,5,8,...,20", "do not share one step");
    expect_int_error("1,2,4,...,16", "after '4'");
    expect_int_error("31-3", "'31-3'");
    expect_int_error("3-31:0", "'3-31:0'");
    expect_int_error("3-31:x", "'x'");
    expect_int_error("3-", "'3-'");
    expect_int_error("3-x", "'3-x'");
    expect_int_error("99999999999999999999", "too large");
    expect_int_error("2147483648", "too large");
    expect_int_error("1-2147483648", "too large");
    expect_int_error("3,5,3", "'3'");
    expect_int_error("3-9,5", "already given by '3-9'");
    expect_int_error("1-65", "at most 64");
    expect_int_error("1-1000000000", "at most 64");
    expect_int_error("1,2,...,1000", "at most 64");

    char many[1024] = "";
    for (int i = 0; i < 65; i++) {
        char item[16];
        snprintf(item, sizeof item, "%s%d", i ? "," : "", i);
        strcat(many, item);
    }
    expect_int_error(many, "64");
    expect_ints("0-63", (const long[]){0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                       16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
                                       30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
                                       44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57,
                                       58, 59, 60, 61, 62, 63},
                64);
}

static void test_wgs(void)
{
    value_list l;
    char err[VALUE_LIST_ERR_MAX] = "";
    CHECK(value_list_parse_wgs("8x8,16x16", &l, err) == 0, "8x8,16x16 parses: %s", err);
    CHECK(l.n == 2 && l.values[0].v[0] == 8 && l.values[0].v[1] == 8 && l.values[0].v[2] == 1 &&
              l.values[1].v[0] == 16 && l.values[1].v[1] == 16,
          "8x8,16x16 values");
    CHECK(value_list_parse_wgs("64", &l, err) == 0 && l.n == 1 && l.values[0].v[0] == 64 &&
              l.values[0].v[1] == 1 && l.values[0].v[2] == 1,
          "64 is {64,1,1}");
    CHECK(value_list_parse_wgs("4x2x2, 32x4", &l, err) == 0 && l.n == 2 && l.values[0].v[2] == 2 &&
              l.values[1].v[0] == 32 && l.values[1].v[1] == 4,
          "4x2x2,32x4");
    CHECK(strcmp(l.tokens[1], "32x4") == 0, "wg token kept: %s", l.tokens[1]);

    expect_wg_error("8y8", "'8y8'");
    expect_wg_error("8x", "'8x'");
    expect_wg_error("x8", "'x8'");
    expect_wg_error("0x8", "'0x8'");
    expect_wg_error("8x8x8x8", "more than 3");
    expect_wg_error("8x8,,16x16", "after '8x8'");
    expect_wg_error("", "empty");
    expect_wg_error("8x8,8x8", "given twice");
    expect_wg_error("99999999x8", "too large");

    char buf[32];
    value_list_format_wg((const long[]){16, 8, 1}, buf, sizeof buf);
    CHECK(strcmp(buf, "16x8") == 0, "format 16x8: %s", buf);
    value_list_format_wg((const long[]){64, 1, 1}, buf, sizeof buf);
    CHECK(strcmp(buf, "64") == 0, "format 64: %s", buf);
    value_list_format_wg((const long[]){4, 2, 2}, buf, sizeof buf);
    CHECK(strcmp(buf, "4x2x2") == 0, "format 4x2x2: %s", buf);
}

/* Long lists: no fixed cap but the caller's, duplicates found at any distance. */
static void test_long_lists(void)
{
    value_list_ints l;
    char err[VALUE_LIST_ERR_MAX] = "";
    int rc = value_list_parse_int_array("1-4096", 65536, &l, err);
    CHECK(rc == 0 && l.n == 4096 && l.values[0] == 1 && l.values[4095] == 4096 &&
              strcmp(l.tokens[4095], "1-4096") == 0,
          "1-4096: 4096 values (rc %d, n %zu, %s)", rc, l.n, err);
    value_list_ints_free(&l);
    rc = value_list_parse_int_array("0,2,...,131070", 65536, &l, err);
    CHECK(rc == 0 && l.n == 65536 && l.values[65535] == 131070, "65536 values by '...' (%s)",
          err);
    value_list_ints_free(&l);
    rc = value_list_parse_int_array("1-5000,4999", 65536, &l, err);
    CHECK(rc == -1 && l.n == 0 && l.values == NULL &&
              strstr(err, "'4999': value 4999 is already given by '1-5000'"),
          "a late duplicate: %s", err);
    rc = value_list_parse_int_array("1-101", 100, &l, err);
    CHECK(rc == -1 && strstr(err, "at most 100"), "the caller's bound: %s", err);
    rc = value_list_parse_int_array("1-100,7x", 100, &l, err);
    CHECK(rc == -1 && strstr(err, "'7x'"), "an error after many values: %s", err);
    rc = value_list_parse_int_array("5,3", 100, &l, err);
    CHECK(rc == 0 && l.n == 2 && l.values[0] == 5 && l.values[1] == 3, "order kept");
    value_list_ints_free(&l);
    value_list_ints_free(&l); /* emptied: a second free is a no-op */
}

int main(void)
{
    test_long_lists();
    test_valid_ints();
    test_tokens_kept();
    test_bad_ints();
    test_wgs();
    return check_summary();
}
