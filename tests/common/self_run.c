/* self_run.c — running the tests' own applications (self_run.h). */
#include "self_run.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

int sr_paths(const char *argv0, char self[PATH_MAX], char build[PATH_MAX])
{
    if (!realpath(argv0, self))
        return -1;
    snprintf(build, PATH_MAX, "%s", self);
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(build, '/');
        if (!slash)
            return -1;
        *slash = '\0';
    }
    return 0;
}

void sr_fmt(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
}

int sr_system(const char *fmt, ...)
{
    char cmd[32768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    if (st == -1)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

char *sr_slurp(const char *path, size_t max)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = calloc(1, max);
    if (buf && fread(buf, 1, max - 1, f) == 0 && ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

int sr_count(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; p && (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}
