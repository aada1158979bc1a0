/* value_list.c — parsing of --widths / --wg / -D value lists (value_list.h). */
#include "value_list.h"

#include "bounded_fmt.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WG_DIM_MAX 65536L

/* One comma-separated item, trimmed, NUL-terminated. Items longer than this
 * cannot be a valid number or range anyway. */
#define ITEM_MAX 64

static void copy_token(char dst[VALUE_LIST_TOKEN_MAX], const char *src)
{
    bfmt(dst, VALUE_LIST_TOKEN_MAX, "%s", src);
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

static int number_error(const char *item, int rc, long max, char err[VALUE_LIST_ERR_MAX])
{
    if (rc == -2)
        bfmt(err, VALUE_LIST_ERR_MAX, "'%s' is too large (the largest value is %ld)", item, max);
    else
        bfmt(err, VALUE_LIST_ERR_MAX, "'%s' is not a whole number", item);
    return -1;
}

/* Where parsed values go: growable arrays with a bound, and a hash of the
 * values so a long list finds its duplicates in linear time. */
typedef struct sink {
    size_t n, cap, max;
    manifest_value *values;
    char (*tokens)[VALUE_LIST_TOKEN_MAX];
    size_t *slots;      /* hash table of value index + 1; 0 is empty */
    size_t n_slots;     /* a power of two, more than twice n */
} sink;

static void sink_free(sink *s)
{
    free(s->values);
    free(s->tokens);
    free(s->slots);
    memset(s, 0, sizeof *s);
}

static size_t hash_value(const long v[3])
{
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < 3; i++) {
        h ^= (uint64_t)v[i];
        h *= 1099511628211ULL;
        h ^= h >> 29;
    }
    return (size_t)h;
}

static int rehash(sink *s, size_t n_slots)
{
    size_t *slots = calloc(n_slots, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < s->n; i++) {
        size_t h = hash_value(s->values[i].v) & (n_slots - 1);
        while (slots[h])
            h = (h + 1) & (n_slots - 1);
        slots[h] = i + 1;
    }
    free(s->slots);
    s->slots = slots;
    s->n_slots = n_slots;
    return 0;
}

/* The index of v in s, or -1. */
static long find_value(const sink *s, const long v[3])
{
    if (!s->n_slots)
        return -1;
    for (size_t h = hash_value(v) & (s->n_slots - 1); s->slots[h];
         h = (h + 1) & (s->n_slots - 1)) {
        const long *o = s->values[s->slots[h] - 1].v;
        if (o[0] == v[0] && o[1] == v[1] && o[2] == v[2])
            return (long)(s->slots[h] - 1);
    }
    return -1;
}

static int add_value(sink *out, const long v[3], int is_wg, const char *token,
                     char err[VALUE_LIST_ERR_MAX])
{
    long i = find_value(out, v);
    if (i >= 0) {
        char shown[64];
        if (is_wg)
            value_list_format_wg(v, shown, sizeof shown);
        else
            snprintf(shown, sizeof shown, "%ld", v[0]);
        if (strcmp(out->tokens[i], token) == 0)
            bfmt(err, VALUE_LIST_ERR_MAX, "'%s': value %s is given twice", token, shown);
        else
            bfmt(err, VALUE_LIST_ERR_MAX, "'%s': value %s is already given by '%s'", token, shown,
                 out->tokens[i]);
        return -1;
    }
    if (out->n >= out->max) {
        bfmt(err, VALUE_LIST_ERR_MAX, "'%s': more than %zu values", token, out->max);
        return -1;
    }
    if (out->n == out->cap) {
        size_t cap = out->cap ? 2 * out->cap : 16;
        manifest_value *values = realloc(out->values, cap * sizeof *values);
        if (values)
            out->values = values;
        char(*tokens)[VALUE_LIST_TOKEN_MAX] = realloc(out->tokens, cap * sizeof *tokens);
        if (tokens)
            out->tokens = tokens;
        if (!values || !tokens) {
            bfmt(err, VALUE_LIST_ERR_MAX, "'%s': out of memory", token);
            return -1;
        }
        out->cap = cap;
    }
    if (2 * (out->n + 1) >= out->n_slots &&
        rehash(out, out->n_slots ? 2 * out->n_slots : 64) != 0) {
        bfmt(err, VALUE_LIST_ERR_MAX, "'%s': out of memory", token);
        return -1;
    }
    out->values[out->n].v[0] = v[0];
    out->values[out->n].v[1] = v[1];
    out->values[out->n].v[2] = v[2];
    copy_token(out->tokens[out->n], token);
    size_t h = hash_value(v) & (out->n_slots - 1);
    while (out->slots[h])
        h = (h + 1) & (out->n_slots - 1);
    out->slots[h] = out->n + 1;
    out->n++;
    return 0;
}

static int add_int(sink *out, long x, const char *token, char err[VALUE_LIST_ERR_MAX])
{
    const long v[3] = {x, 0, 0};
    return add_value(out, v, 0, token, err);
}

/* Adds from, from+step, ... up to to (inclusive when reachable). The count
 * is checked first so a huge range fails fast instead of looping. */
static int add_run(sink *out, long from, long to, long step, const char *token,
                   char err[VALUE_LIST_ERR_MAX])
{
    long count = (to - from) / step + 1;
    if (count > (long)(out->max - out->n)) {
        bfmt(err, VALUE_LIST_ERR_MAX, "'%s' gives %ld values; a list holds at most %zu", token, count,
             out->max);
        return -1;
    }
    for (long i = 0; i < count; i++)
        if (add_int(out, from + i * step, token, err) != 0)
            return -1;
    return 0;
}

/* "A-B" or "A-B:S". Returns 1 when item is not range-shaped (no '-' after
 * its first character), 0 on success, -1 on an error. */
static int parse_range(const char *item, sink *out, char err[VALUE_LIST_ERR_MAX])
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
    if ((rc = parse_whole(a, VALUE_LIST_VALUE_MAX, &lo)) != 0 ||
        (rc = parse_whole(b, VALUE_LIST_VALUE_MAX, &hi)) != 0) {
        if (rc == -2)
            return number_error(item, rc, VALUE_LIST_VALUE_MAX, err);
        bfmt(err, VALUE_LIST_ERR_MAX, "'%s' is not a number or a range (A-B or A-B:STEP)", item);
        return -1;
    }
    if ((rc = parse_whole(s, VALUE_LIST_VALUE_MAX, &step)) != 0) {
        bfmt(err, VALUE_LIST_ERR_MAX, "'%s': the step '%s' is not a whole number", item, s);
        return -1;
    }
    if (step == 0) {
        bfmt(err, VALUE_LIST_ERR_MAX, "'%s': the step must be at least 1", item);
        return -1;
    }
    if (lo > hi) {
        bfmt(err, VALUE_LIST_ERR_MAX, "'%s' is an empty range (%ld > %ld)", item, lo, hi);
        return -1;
    }
    return add_run(out, lo, hi, step, item, err);
}

/* Splits text (NULL as "") on commas into trimmed items, *items malloc'd
 * (caller frees). Returns the count or -1. */
static int split_items(const char *text, char (**items)[ITEM_MAX], char err[VALUE_LIST_ERR_MAX])
{
    *items = NULL;
    if (!text)
        text = "";
    size_t max = 1;
    for (const char *c = text; *c; c++)
        max += *c == ',';
    if (max > (size_t)INT_MAX / 2) {
        bfmt(err, VALUE_LIST_ERR_MAX, "the list is too long");
        return -1;
    }
    char(*it)[ITEM_MAX] = malloc(max * sizeof *it);
    if (!it) {
        bfmt(err, VALUE_LIST_ERR_MAX, "out of memory for %zu items", max);
        return -1;
    }
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
                bfmt(err, VALUE_LIST_ERR_MAX, "the list is empty");
            else if (n == 0)
                bfmt(err, VALUE_LIST_ERR_MAX, "empty item at the start");
            else if (end == NULL)
                bfmt(err, VALUE_LIST_ERR_MAX, "empty item at the end (after '%s')", it[n - 1]);
            else
                bfmt(err, VALUE_LIST_ERR_MAX, "empty item after '%s'", it[n - 1]);
            free(it);
            return -1;
        }
        if (len >= ITEM_MAX) {
            bfmt(err, VALUE_LIST_ERR_MAX, "item '%.*s...' is too long", 20, p);
            free(it);
            return -1;
        }
        memcpy(it[n], p, len);
        it[n][len] = '\0';
        n++;
        if (!end)
            break;
        p = end + 1;
    }
    *items = it;
    return n;
}

static int parse_ints(char (*items)[ITEM_MAX], int n, sink *out, char err[VALUE_LIST_ERR_MAX])
{
    /* Plain values since the last range or '...': the run a '...' continues. */
    size_t run_start = 0;
    for (int i = 0; i < n; i++) {
        const char *item = items[i];
        if (strcmp(item, "...") == 0) {
            size_t run = out->n - run_start;
            if (run < 2) {
                bfmt(err, VALUE_LIST_ERR_MAX, "'...' needs two plain values before it to set the step "
                                      "(as in 3,5,...,31)");
                return -1;
            }
            long step = out->values[run_start + 1].v[0] - out->values[run_start].v[0];
            for (size_t k = run_start + 2; k < out->n; k++) {
                if (out->values[k].v[0] - out->values[k - 1].v[0] != step) {
                    bfmt(err, VALUE_LIST_ERR_MAX,
                         "'...' after '%s': the values before it do not share one step",
                         out->tokens[k]);
                    return -1;
                }
            }
            if (step <= 0) {
                bfmt(err, VALUE_LIST_ERR_MAX, "'...' after '%s': the step (%ld) must be positive",
                     out->tokens[out->n - 1], step);
                return -1;
            }
            if (i + 1 >= n) {
                bfmt(err, VALUE_LIST_ERR_MAX,
                     "'...' must be followed by the last value (as in 3,5,...,31)");
                return -1;
            }
            const char *last_item = items[i + 1];
            long last;
            int rc = parse_whole(last_item, VALUE_LIST_VALUE_MAX, &last);
            if (rc != 0) {
                if (rc == -2)
                    return number_error(last_item, rc, VALUE_LIST_VALUE_MAX, err);
                bfmt(err, VALUE_LIST_ERR_MAX, "'%s' after '...' must be a whole number", last_item);
                return -1;
            }
            long prev = out->values[out->n - 1].v[0];
            if (last <= prev || (last - prev) % step != 0) {
                bfmt(err, VALUE_LIST_ERR_MAX, "'%s' cannot be reached from %ld in steps of %ld",
                     last_item, prev, step);
                return -1;
            }
            char token[VALUE_LIST_TOKEN_MAX];
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
        rc = parse_whole(item, VALUE_LIST_VALUE_MAX, &x);
        if (rc != 0)
            return number_error(item, rc, VALUE_LIST_VALUE_MAX, err);
        if (add_int(out, x, item, err) != 0)
            return -1;
    }
    return 0;
}

/* "16x8", "4x4x4" or "64". */
/* Copies what a sink holds into a fixed list. */
static void to_list(const sink *s, value_list *out)
{
    memset(out, 0, sizeof *out);
    out->n = s->n;
    if (s->n) {
        memcpy(out->values, s->values, s->n * sizeof *s->values);
        memcpy(out->tokens, s->tokens, s->n * sizeof *s->tokens);
    }
}

/* Parses text into a sink of at most max values, integers or work-groups. */
static int parse_into(const char *text, int is_wg, size_t max, sink *s, char err[VALUE_LIST_ERR_MAX]);

int value_list_parse_ints(const char *text, value_list *out, char err[VALUE_LIST_ERR_MAX])
{
    sink s = {.max = MANIFEST_MAX_VALUES};
    int rc = parse_into(text, 0, MANIFEST_MAX_VALUES, &s, err);
    if (rc == 0)
        to_list(&s, out);
    else
        memset(out, 0, sizeof *out);
    sink_free(&s);
    return rc;
}

int value_list_parse_int_array(const char *text, size_t max, value_list_ints *out, char err[VALUE_LIST_ERR_MAX])
{
    memset(out, 0, sizeof *out);
    sink s = {.max = max};
    if (parse_into(text, 0, max, &s, err) != 0) {
        sink_free(&s);
        return -1;
    }
    out->values = malloc((s.n ? s.n : 1) * sizeof *out->values);
    if (!out->values) {
        bfmt(err, VALUE_LIST_ERR_MAX, "out of memory for %zu values", s.n);
        sink_free(&s);
        return -1;
    }
    out->n = s.n;
    for (size_t i = 0; i < s.n; i++)
        out->values[i] = s.values[i].v[0];
    out->tokens = s.tokens;
    s.tokens = NULL;
    sink_free(&s);
    return 0;
}

void value_list_ints_free(value_list_ints *l)
{
    if (!l)
        return;
    free(l->values);
    free(l->tokens);
    memset(l, 0, sizeof *l);
}

static int parse_wg_item(const char *item, long v[3], char err[VALUE_LIST_ERR_MAX])
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
            bfmt(err, VALUE_LIST_ERR_MAX, "'%s' has more than 3 dimensions", item);
            return -1;
        }
        long d;
        int rc = parse_whole(p, WG_DIM_MAX, &d);
        if (rc != 0 || d < 1) {
            if (rc == -2)
                bfmt(err, VALUE_LIST_ERR_MAX, "'%s': %s is too large for a work-group dimension", item, p);
            else
                bfmt(err, VALUE_LIST_ERR_MAX,
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

static int parse_wgs(char (*items)[ITEM_MAX], int n, sink *out, char err[VALUE_LIST_ERR_MAX])
{
    for (int i = 0; i < n; i++) {
        long v[3];
        if (parse_wg_item(items[i], v, err) != 0)
            return -1;
        if (add_value(out, v, 1, items[i], err) != 0)
            return -1;
    }
    return 0;
}

static int parse_into(const char *text, int is_wg, size_t max, sink *s, char err[VALUE_LIST_ERR_MAX])
{
    s->max = max;
    char(*items)[ITEM_MAX];
    int n = split_items(text, &items, err);
    if (n < 0)
        return -1;
    int rc = is_wg ? parse_wgs(items, n, s, err) : parse_ints(items, n, s, err);
    free(items);
    return rc;
}

int value_list_parse_wgs(const char *text, value_list *out, char err[VALUE_LIST_ERR_MAX])
{
    sink s = {.max = MANIFEST_MAX_VALUES};
    int rc = parse_into(text, 1, MANIFEST_MAX_VALUES, &s, err);
    if (rc == 0)
        to_list(&s, out);
    else
        memset(out, 0, sizeof *out);
    sink_free(&s);
    return rc;
}

void value_list_format_wg(const long v[3], char *buf, size_t cap)
{
    if (v[2] > 1)
        snprintf(buf, cap, "%ldx%ldx%ld", v[0], v[1], v[2]);
    else if (v[1] > 1)
        snprintf(buf, cap, "%ldx%ld", v[0], v[1]);
    else
        snprintf(buf, cap, "%ld", v[0]);
}
