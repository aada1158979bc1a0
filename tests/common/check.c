#include "check.h"

#include <stdarg.h>
#include <stdlib.h>

static int passed, failed, skipped;

int check_report(int ok, const char *file, int line, const char *fmt, ...)
{
    if (ok) {
        passed++;
        if (getenv("CHECK_VERBOSE")) {
            va_list ap;
            va_start(ap, fmt);
            printf("ok: ");
            vprintf(fmt, ap);
            printf("\n");
            va_end(ap);
        }
        return 1;
    }
    failed++;
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL %s:%d: ", file, line);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    return 0;
}

int check_failures(void) { return failed; }

void check_skip(const char *fmt, ...)
{
    skipped++;
    va_list ap;
    va_start(ap, fmt);
    printf("skipped: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

int check_summary(void)
{
    printf("checks: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
    fflush(stdout);
    return failed ? 1 : 0;
}
