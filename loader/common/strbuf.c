/* strbuf.c — the growable byte buffer (strbuf.h). */
#include "strbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_init(strbuf *b)
{
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
}

void sb_free(strbuf *b)
{
    free(b->data);
    sb_init(b);
}

void sb_put(strbuf *b, const void *p, size_t n)
{
    if (b->failed || n == 0)
        return;
    if (n > SIZE_MAX / 2 - b->len) {
        b->failed = 1;
        return;
    }
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *grown = realloc(b->data, cap);
        if (!grown) {
            b->failed = 1;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void sb_puts(strbuf *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

void sb_printf(strbuf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        sb_put(b, small, (size_t)n);
        return;
    }
    /* Longer than the stack buffer: format again into the room it needs. */
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb_put(b, big, (size_t)n);
    free(big);
}
