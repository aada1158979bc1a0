/* tune_cmd.c — the timing line of a user's --tune-cmd (tune_cmd.h). */
#include "tune_cmd.h"

#include <stdint.h>
#include <string.h>

#include "bounded_fmt.h"

#define KEY "median_ns="

/* A decimal number of at most 19 digits, no sign, at most max. */
static int parse_num(const char *s, size_t n, uint64_t max, uint64_t *out)
{
    if (n == 0 || n > 19)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > max)
        return -1;
    *out = v;
    return 0;
}

/* The line for messages: printable ASCII, others as '?', cut to fit. */
static void quote_line(const char *line, size_t n, char *buf, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 4 < cap; i++)
        buf[k++] = line[i] >= 0x20 && line[i] < 0x7f ? line[i] : '?';
    if (k + 4 >= cap && n > k) {
        memcpy(buf + k, "...", 3);
        k += 3;
    }
    buf[k] = '\0';
}

static int parse_line(const char *line, size_t n, clcpack_tuning *out, char msg[TUNE_CMD_MSG_MAX])
{
    char q[TUNE_CMD_LINE_MAX + 8];
    quote_line(line, n, q, sizeof q);
    if (n > TUNE_CMD_LINE_MAX) {
        bfmt(msg, TUNE_CMD_MSG_MAX, "the timing line is longer than %d bytes: '%s'", TUNE_CMD_LINE_MAX, q);
        return -1;
    }
    int seen_ns = 0, seen_runs = 0, seen_size = 0, seen_value = 0;
    uint64_t ns = 0, runs = 0, w = 0, h = 0, value = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && (line[i] == ' ' || line[i] == '\t'))
            i++;
        size_t start = i;
        while (i < n && line[i] != ' ' && line[i] != '\t')
            i++;
        if (i == start)
            break;
        const char *tok = line + start, *eq = memchr(tok, '=', i - start);
        size_t klen = eq ? (size_t)(eq - tok) : i - start;
        const char *val = eq ? eq + 1 : tok + klen;
        size_t vlen = (size_t)(line + i - val);
        int bad = 0, *seen = NULL;
        if (!eq) {
            bad = 1;
        } else if (klen == 9 && memcmp(tok, "median_ns", 9) == 0) {
            seen = &seen_ns;
            bad = parse_num(val, vlen, INT64_MAX, &ns) != 0 || ns == 0;
        } else if (klen == 4 && memcmp(tok, "runs", 4) == 0) {
            seen = &seen_runs;
            bad = parse_num(val, vlen, TUNE_CMD_MAX_RUNS, &runs) != 0 || runs == 0;
        } else if (klen == 4 && memcmp(tok, "size", 4) == 0) {
            seen = &seen_size;
            const char *x = memchr(val, 'x', vlen);
            bad = !x || parse_num(val, (size_t)(x - val), TUNE_CMD_MAX_SIDE, &w) != 0 ||
                  parse_num(x + 1, vlen - (size_t)(x - val) - 1, TUNE_CMD_MAX_SIDE, &h) != 0 ||
                  w == 0 || h == 0;
        } else if (klen == 5 && memcmp(tok, "value", 5) == 0) {
            seen = &seen_value;
            bad = parse_num(val, vlen, UINT32_MAX, &value) != 0;
        } else {
            char k[48];
            quote_line(tok, klen, k, sizeof k);
            bfmt(msg, TUNE_CMD_MSG_MAX,
                 "unknown field '%s' in the timing line '%s' (known: median_ns runs size value)",
                 k, q);
            return -1;
        }
        if (!bad && *seen) {
            char k[48];
            quote_line(tok, klen, k, sizeof k);
            bfmt(msg, TUNE_CMD_MSG_MAX, "field %s given twice in the timing line '%s'", k, q);
            return -1;
        }
        if (bad) {
            char t[64];
            quote_line(tok, i - start, t, sizeof t);
            bfmt(msg, TUNE_CMD_MSG_MAX,
                 "bad field '%s' in the timing line '%s' (median_ns=N runs=R size=WxH "
                 "[value=V]: N from 1, R from 1 to %u, W and H from 1 to %u, V below 2^32)",
                 t, q, TUNE_CMD_MAX_RUNS, TUNE_CMD_MAX_SIDE);
            return -1;
        }
        *seen = 1;
    }
    if (!seen_ns || !seen_runs || !seen_size) {
        bfmt(msg, TUNE_CMD_MSG_MAX, "the timing line '%s' lacks %s", q,
             !seen_runs ? "runs=R" : !seen_size ? "size=WxH" : "median_ns=N");
        return -1;
    }
    out->runtime_value = (uint32_t)value;
    out->width = (uint32_t)w;
    out->height = (uint32_t)h;
    out->runs = (uint32_t)runs;
    out->median_ns = ns;
    return 0;
}

int tune_cmd_parse(const char *output, clcpack_tuning *out, char msg[TUNE_CMD_MSG_MAX])
{
    const char *found = NULL;
    size_t found_len = 0, count = 0;
    for (const char *p = output; *p;) {
        size_t n = strcspn(p, "\n");
        size_t len = n && p[n - 1] == '\r' ? n - 1 : n;
        if (len >= sizeof KEY - 1 && memcmp(p, KEY, sizeof KEY - 1) == 0) {
            if (!count) {
                found = p;
                found_len = len;
            }
            count++;
        }
        p += n + (p[n] == '\n');
    }
    if (count == 0) {
        bfmt(msg, TUNE_CMD_MSG_MAX,
             "printed no timing line (median_ns=N runs=R size=WxH [value=V], at the start of "
             "a line)");
        return -1;
    }
    if (count > 1) {
        bfmt(msg, TUNE_CMD_MSG_MAX, "printed %zu timing lines; one is wanted", count);
        return -1;
    }
    return parse_line(found, found_len, out, msg);
}
