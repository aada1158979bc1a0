#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void clcpk_text_init(pk_text *t, char *buf, size_t cap)
{
    t->buf = buf;
    t->cap = cap;
    t->len = 0;
    if (cap)
        buf[0] = '\0';
}

static void text_vadd(pk_text *t, const char *fmt, va_list ap)
{
    if (t->cap < 4 || t->len >= t->cap - 1)
        return;
    size_t room = t->cap - t->len;
    int n = vsnprintf(t->buf + t->len, room, fmt, ap);
    if (n < 0)
        return;
    if ((size_t)n >= room) {
        /* Cut: say so, and stop accepting text so the marker stays last. */
        t->len = t->cap - 1;
        memcpy(t->buf + t->cap - 4, "...", 4);
        return;
    }
    t->len += (size_t)n;
}

void clcpk_text_add(pk_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    text_vadd(t, fmt, ap);
    va_end(ap);
}

void clcpk_text_item(pk_text *t, const char *fmt, ...)
{
    if (t->len)
        clcpk_text_add(t, "; ");
    va_list ap;
    va_start(ap, fmt);
    text_vadd(t, fmt, ap);
    va_end(ap);
}
