/*
 * value_list.h — the value-list syntax of clc-pack's --widths, --wg and
 * -D NAME=LIST options (docs/CLI.md, "Value lists").
 *
 * Integer lists, items separated by commas:
 *   3             one value
 *   3,5,9         several values
 *   3,5,7,...,31  '...' continues the step of the plain values just before it
 *                 (they must share one positive step) up to and including the
 *                 value after it, which must be reachable exactly
 *   3-31          every integer from 3 to 31
 *   3-31:2        from 3 to 31 in steps of 2 (31 need not be reached)
 * Work-group lists: WxH, WxHxD or W items separated by commas (8x8,16x16,64).
 *
 * Values are whole numbers from 0 to VALUE_LIST_VALUE_MAX (work-group sizes from 1).
 * Empty items, garbage, overflow, duplicates and more values than the
 * list holds (MANIFEST_MAX_VALUES for a value_list, the caller's bound for
 * value_list_parse_int_array) are refused; the message names the bad item. Pure
 * functions: no printing, no global state.
 */
#ifndef CLC_VALUE_LIST_H
#define CLC_VALUE_LIST_H

#include <stddef.h>

#include "manifest.h"

#define VALUE_LIST_ERR_MAX 256
#define VALUE_LIST_TOKEN_MAX 48
#define VALUE_LIST_VALUE_MAX 2147483647L

typedef struct value_list {
    size_t n;
    manifest_value values[MANIFEST_MAX_VALUES];   /* in the order given */
    /* The item each value came from ("3-31:2" for every value of that
     * range), truncated to VALUE_LIST_TOKEN_MAX-1 bytes, so later errors can name it. */
    char tokens[MANIFEST_MAX_VALUES][VALUE_LIST_TOKEN_MAX];
} value_list;

/* Parses an integer list into out (v[0] of each value; v[1], v[2] are 0).
 * Returns 0, or -1 with err saying which item is wrong and why. */
int value_list_parse_ints(const char *text, value_list *out, char err[VALUE_LIST_ERR_MAX]);

/* An integer list of any length, malloc'd: values[i] came from the item
 * tokens[i] (as in value_list). */
typedef struct value_list_ints {
    size_t n;
    long *values;
    char (*tokens)[VALUE_LIST_TOKEN_MAX];
} value_list_ints;

/* Parses an integer list of at most max values into out (free with
 * value_list_ints_free). Returns 0, or -1 with err as value_list_parse_ints and out empty. */
int value_list_parse_int_array(const char *text, size_t max, value_list_ints *out, char err[VALUE_LIST_ERR_MAX]);
void value_list_ints_free(value_list_ints *l);

/* Parses a work-group list into out: "16x8" is {16,8,1}, "64" is {64,1,1}.
 * Returns 0, or -1 with err naming the bad item. */
int value_list_parse_wgs(const char *text, value_list *out, char err[VALUE_LIST_ERR_MAX]);

/* Formats one work-group value as "16x8" (trailing 1 dimensions dropped,
 * "64" for a 1-D size). */
void value_list_format_wg(const long v[3], char *buf, size_t cap);

#endif /* CLC_VALUE_LIST_H */
