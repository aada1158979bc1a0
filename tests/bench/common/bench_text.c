/* bench_text.c — text buffers written atomically (bench_text.h). */
#include "bench_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "clcpack_write.h"

static int reserve(bench_text *t, size_t more)
{
    if (t->failed)
        return -1;
    if (t->len + more + 1 <= t->cap)
        return 0;
    size_t cap = t->cap ? t->cap : 4096;
    while (cap < t->len + more + 1)
        cap *= 2;
    char *grown = realloc(t->buf, cap);
    if (!grown) {
        t->failed = 1;
        return -1;
    }
    t->buf = grown;
    t->cap = cap;
    return 0;
}

void bench_text_add(bench_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || reserve(t, (size_t)n) != 0) {
        t->failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(t->buf + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

void bench_text_csv_field(bench_text *t, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        bench_text_add(t, "%s", s);
        return;
    }
    bench_text_add(t, "\"");
    for (const char *c = s; *c; c++)
        bench_text_add(t, "%s%c", *c == '"' ? "\"" : "", *c);
    bench_text_add(t, "\"");
}

int bench_text_write(const bench_text *t, const char *path, char *err, size_t cap)
{
    if (t->failed) {
        bfmt(err, cap, "%s: out of memory while making its text", path);
        return -1;
    }
    clcpack_error e;
    if (clcpack_write_file_atomic(path, t->buf, t->len, 0, &e) != CLCPACK_OK) {
        bfmt(err, cap, "%s", e.message);
        return -1;
    }
    return 0;
}

void bench_text_free(bench_text *t)
{
    free(t->buf);
    memset(t, 0, sizeof *t);
}
