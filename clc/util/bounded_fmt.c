/* bounded_fmt.c — truncating formatted output (bounded_fmt.h). */
#include "bounded_fmt.h"

#include <stdarg.h>
#include <stdio.h>

char *bfmt(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    return buf;
}
