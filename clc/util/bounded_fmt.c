/* bounded_fmt.c — truncating formatted output (bounded_fmt.h). */
#include "bounded_fmt.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

char *bfmt(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    return buf;
}

const char *bfmt_clip(const char *s, char buf[BFMT_QUOTE_MAX + 4])
{
    if (!s || strlen(s) <= BFMT_QUOTE_MAX)
        return s;
    memcpy(buf, s, BFMT_QUOTE_MAX - 3);
    memcpy(buf + BFMT_QUOTE_MAX - 3, "...", 4);
    return buf;
}
