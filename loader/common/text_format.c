/* text_format.c — formatted strings and work-group texts (text_format.h). */
#include "text_format.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

char *clcpk_strdup_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

void clcpk_wg_text(const uint32_t wg[3], const char *none, char *buf, size_t cap)
{
    if (!cap)
        return;
    if (!wg[0])
        snprintf(buf, cap, "%s", none);
    else if (wg[2] > 1)
        snprintf(buf, cap, "%ux%ux%u", (unsigned)wg[0], (unsigned)wg[1], (unsigned)wg[2]);
    else if (wg[1] > 1)
        snprintf(buf, cap, "%ux%u", (unsigned)wg[0], (unsigned)wg[1]);
    else
        snprintf(buf, cap, "%u", (unsigned)wg[0]);
}
