/* cli_report.c — diagnostics and exit statuses of the CLI (cli_report.h). */
#include "cli_report.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "worker_pool.h"

int cli_verbosity = 0;
int cli_muted = 0;
const char *cli_argv0 = "clc-pack";
const char *cli_worker_exe = NULL;

int cli_worker_path(char *out, size_t cap)
{
    if (cli_worker_exe) {
        bfmt(out, cap, "%s", cli_worker_exe);
        return 0;
    }
    return worker_pool_self_exe(cli_argv0, out, cap);
}

/* "<prefix><message>\n" on stderr. */
static void vreport(const char *prefix, const char *fmt, va_list ap)
{
    if (cli_muted)
        return;
    fputs(prefix, stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("clc-pack: ", fmt, ap);
    va_end(ap);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("clc-pack: ", fmt, ap);
    va_end(ap);
    if (!cli_muted)
        fprintf(stderr, "Try 'clc-pack%s%s --help'.\n", cmd ? " " : "", cmd ? cmd : "");
    return EXIT_USAGE_STATUS;
}

void cli_note(const char *fmt, ...)
{
    if (cli_verbosity < 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vreport("clc-pack: note: ", fmt, ap);
    va_end(ap);
}

int cli_parse_long(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s)
        return -1;
    for (const char *c = s; *c; c++)
        if (!isdigit((unsigned char)*c))
            return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}
