/* value_list.c — parsing of --widths / --wg / -D value lists (value_list.h). */
#include "value_list.h"

#include "bounded_fmt.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WG_DIM_MAX 65536L

/* One comma-separated item, trimmed, NUL-terminated. Items longer than this
 * cannot be a valid number or range anyway. */
#define ITEM_MAX 64

static void copy_token(char dst[VL_TOKEN_MAX], const char *src)
{
    bfmt(dst, VL_TOKEN_MAX, "%s", src);
}

/* Parses a whole decimal number (digits only) of at most max. 0 on success. */
static int parse_whole(const char *s, long max, long *out)
{
    if (*s == '\0')
        return -1;
    for (const char *c = s; *c; c++)
        if (!isdigit((unsigned char)*c))
            return -1;
    errno = 0;
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (errno == ERANGE || *end != '\0' || v > max)
        return -2;
    *out = v;
    return 0;
}

static int number_error(const char *item, int rc, long max, char err[VL_ERR_MAX])
{
    if (rc == -2)
        bfmt(err, VL_ERR_MAX, "'%s' is too large (the largest value is %ld)", item, max);
    else
        bfmt(err, VL_ERR_MAX, "'%s' is not a whole number", item);
    return -1;
}

static int add_value(vl_list *out, const long v[3], int is_wg, const char *token,
                     char err[VL_ERR_MAX])
{
    for (size_t i = 0; i < out->n; i++) {
        const long *o = out->values[i].v;
        if (o[0] == v[0] && o[1] == v[1] && o[2] == v[2]) {
            char shown[64];
            if (is_wg)
                vl_format_wg(v, shown, sizeof shown);
            else
                snprintf(shown, sizeof shown, "%ld", v[0]);
            if (strcmp(out->tokens[i], token) == 0)
                bfmt(err, VL_ERR_MAX, "'%s': value %s is given twice", token, shown);
            else
                bfmt(err, VL_ERR_MAX, "'%s': value %s is already given by '%s'", token,
                         shown, out->tokens[i]);
            return -1;
        }
    }
    if (out->n >= MF_MAX_VALUES) {
        bfmt(err, VL_ERR_MAX, "'%s': more than %d values", token, MF_MAX_VALUES);
        return -1;
    }
    out->values[out->n].v[0] = v[0];
    out->values[out->n].v[1] = v[1];
    out->values[out->n].v[2] = v[2];
    copy_token(out->tokens[out->n], token);
    out->n++;
    return 0;
}

static int add_int(vl_list *out, long x, const char *token, char err[VL_ERR_MAX])
{
    const long v[3] = {x, 0, 0};
    return add_value(out, v, 0, token, err);
}

/* Adds from, from+step, ... up to to (inclusive when reachable). The count
 * is checked first so a huge range fails fast instead of looping. */
static int add_run(vl_list *out, long from, long to, long step, const char *token,
                   char err[VL_ERR_MAX])
{
    long count = (to - from) / step + 1;
    if (count > (long)(MF_MAX_VALUES - out->n)) {
        bfmt(err, VL_ERR_MAX, "'%s' gives %ld values; a list holds at most %d", token, count,
                 MF_MAX_VALUES);
        return -1;
    }
    for (long i = 0; i < count; i++)
        if (add_int(out, from + i * step, token, err) != 0)
            return -1;
    return 0;
}

/* "A-B" or "A-B:S". Returns 1 when item is not range-shaped (no '-' after
 * its first character), 0 on success, -1 on an error. */
static int parse_range(const char *item, vl_list *out, char err[VL_ERR_MAX])
{
    const char *dash = strchr(item, '-');
    if (dash == NULL || dash == item)
        return 1;
    char a[ITEM_MAX], b[ITEM_MAX], s[ITEM_MAX] = "1";
    size_t alen = (size_t)(dash - item);
    memcpy(a, item, alen);
    a[alen] = '\0';
    const char *rest = dash + 1;
    const char *colon = strchr(rest, ':');
    if (colon) {
        size_t blen = (size_t)(colon - rest);
        memcpy(b, rest, blen);
        b[blen] = '\0';
        bfmt(s, sizeof s, "%s", colon + 1);
    } else {
        bfmt(b, sizeof b, "%s", rest);
    }
    long lo, hi, step;
    int rc;
    if ((rc = parse_whole(a, VL_VALUE_MAX, &lo)) != 0 ||
        (rc = parse_whole(b, VL_VALUE_MAX, &hi)) != 0) {
        if (rc == -2)
            return number_error(item, rc, VL_VALUE_MAX, err);
        bfmt(err, VL_ERR_MAX, "'%s' is not a number or a range (A-B or A-B:STEP)", item);
        return -1;
    }
    if ((rc = parse_whole(s, VL_VALUE_MAX, &step)) != 0) {
        bfmt(err, VL_ERR_MAX, "'%s': the step '%s' is not a whole number", item, s);
        return -1;
    }
    if (step == 0) {
        bfmt(err, VL_ERR_MAX, "'%s': the step must be at least 1", item);
        return -1;
    }
    if (lo > hi) {
        bfmt(err, VL_ERR_MAX, "'%s' is an empty range (%ld > %ld)", item, lo, hi);
        return -1;
    }
    return add_run(out, lo, hi, step, item, err);
}

/* Splits text on commas into trimmed items. Returns the count or -1. */
static int split_items(const char *text, char items[][ITEM_MAX], int max, char err[VL_ERR_MAX])
{
    int n = 0;
    const char *p = text;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len > 0 && isspace((unsigned char)*p)) {
            p++;
            len--;
        }
        while (len > 0 && isspace((unsigned char)p[len - 1]))
            len--;
        if (len == 0) {
            if (n == 0 && end == NULL)
                bfmt(err, VL_ERR_MAX, "the list is empty");
            else if (n == 0)
                bfmt(err, VL_ERR_MAX, "empty item at the start");
            else if (end == NULL)
                bfmt(err, VL_ERR_MAX, "empty item at the end (after '%s')", items[n - 1]);
            else
                bfmt(err, VL_ERR_MAX, "empty item after '%s'", items[n - 1]);
            return -1;
        }
        if (n >= max) {
            bfmt(err, VL_ERR_MAX, "more than %d items", max);
            return -1;
        }
        if (len >= ITEM_MAX) {
            bfmt(err, VL_ERR_MAX, "item '%.*s...' is too long", 20, p);
            return -1;
        }
        memcpy(items[n], p, len);
        items[n][len] = '\0';
        n++;
        if (!end)
            break;
        p = end + 1;
    }
    return n;
}

/* Room for every value spelled out plus some '...' items. */
#define ITEMS_MAX (2 * MF_MAX_VALUES)

/* Empties out and splits text (NULL as "") into items; the count or -1. */
static int start_list(const char *text, vl_list *out, char items[ITEMS_MAX][ITEM_MAX],
                      char err[VL_ERR_MAX])
{
    memset(out, 0, sizeof *out);
    return split_items(text ? text : "", items, ITEMS_MAX, err);
}

int vl_parse_ints(const char *text, vl_list *out, char err[VL_ERR_MAX])
{
    char items[ITEMS_MAX][ITEM_MAX];
    int n = start_list(text, out, items, err);
    if (n < 0)
        return -1;

    /* Plain values since the last range or '...': the run a '...' continues. */
    size_t run_start = 0;
    for (int i = 0; i < n; i++) {
        const char *item = items[i];
        if (strcmp(item, "...") == 0) {
            size_t run = out->n - run_start;
            if (run < 2) {
                bfmt(err, VL_ERR_MAX, "'...' needs two plain values before it to set the step "
                                      "(as in 3,5,...,31)");
                return -1;
            }
            long step = out->values[run_start + 1].v[0] - out->values[run_start].v[0];
            for (size_t k = run_start + 2; k < out->n; k++) {
                if (out->values[k].v[0] - out->values[k - 1].v[0] != step) {
                    bfmt(err, VL_ERR_MAX,
                         "'...' after '%s': the values before it do not share one step",
                         out->tokens[k]);
                    return -1;
                }
            }
            if (step <= 0) {
                bfmt(err, VL_ERR_MAX, "'...' after '%s': the step (%ld) must be positive",
                     out->tokens[out->n - 1], step);
                return -1;
            }
            if (i + 1 >= n) {
                bfmt(err, VL_ERR_MAX,
                     "'...' must be followed by the last value (as in 3,5,...,31)");
                return -1;
            }
            const char *last_item = items[i + 1];
            long last;
            int rc = parse_whole(last_item, VL_VALUE_MAX, &last);
            if (rc != 0) {
                if (rc == -2)
                    return number_error(last_item, rc, VL_VALUE_MAX, err);
                bfmt(err, VL_ERR_MAX, "'%s' after '...' must be a whole number", last_item);
                return -1;
            }
            long prev = out->values[out->n - 1].v[0];
            if (last <= prev || (last - prev) % step != 0) {
                bfmt(err, VL_ERR_MAX, "'%s' cannot be reached from %ld in steps of %ld",
                     last_item, prev, step);
                return -1;
            }
            char token[VL_TOKEN_MAX];
            bfmt(token, sizeof token, "...,%s", last_item);
            if (add_run(out, prev + step, last, step, token, err) != 0)
                return -1;
            i++;
            run_start = out->n;
            continue;
        }
        int rc = parse_range(item, out, err);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            run_start = out->n;
            continue;
        }
        long x;
        rc = parse_whole(item, VL_VALUE_MAX, &x);
        if (rc != 0)
            return number_error(item, rc, VL_VALUE_MAX, err);
        if (add_int(out, x, item, err) != 0)
            return -1;
    }
    return 0;
}

/* "16x8", "4x4x4" or "64". */
static int parse_wg_item(const char *item, long v[3], char err[VL_ERR_MAX])
{
    v[0] = v[1] = v[2] = 1;
    char buf[ITEM_MAX];
    bfmt(buf, sizeof buf, "%s", item);
    int dims = 0;
    char *p = buf;
    for (;;) {
        char *x = strchr(p, 'x');
        if (x)
            *x = '\0';
        if (dims == 3) {
            bfmt(err, VL_ERR_MAX, "'%s' has more than 3 dimensions", item);
            return -1;
        }
        long d;
        int rc = parse_whole(p, WG_DIM_MAX, &d);
        if (rc != 0 || d < 1) {
            if (rc == -2)
                bfmt(err, VL_ERR_MAX, "'%s': %s is too large for a work-group dimension", item, p);
            else
                bfmt(err, VL_ERR_MAX,
                     "'%s' is not a work-group size (WxH like 16x16, or W like 64)", item);
            return -1;
        }
        v[dims++] = d;
        if (!x)
            break;
        p = x + 1;
    }
    return 0;
}

int vl_parse_wgs(const char *text, vl_list *out, char err[VL_ERR_MAX])
{
    char items[ITEMS_MAX][ITEM_MAX];
    int n = start_list(text, out, items, err);
    if (n < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        long v[3];
        if (parse_wg_item(items[i], v, err) != 0)
            return -1;
        if (add_value(out, v, 1, items[i], err) != 0)
            return -1;
    }
    return 0;
}

void vl_format_wg(const long v[3], char *buf, size_t cap)
{
    if (v[2] > 1)
        snprintf(buf, cap, "%ldx%ldx%ld", v[0], v[1], v[2]);
    else if (v[1] > 1)
        snprintf(buf, cap, "%ldx%ld", v[0], v[1]);
    else
        snprintf(buf, cap, "%ld", v[0]);
}
