/* path.c — folders and file kinds (path.h). */
#include "path.h"

#include <stdlib.h>
#include <string.h>

#include "platform.h"

/* The last separator of path, NULL when it has none. */
static const char *last_sep(const char *path)
{
    const char *sep = NULL;
    for (const char *c = path; *c; c++)
        if (clcpk_os_is_sep(*c))
            sep = c;
    return sep;
}

const char *clcpk_base_name(const char *path)
{
    const char *sep = last_sep(path);
    return sep ? sep + 1 : path;
}

char *clcpk_parent_dir(const char *path)
{
    const char *sep = last_sep(path);
    if (!sep)
        return strdup(".");
    size_t n = (size_t)(sep - path);
    /* The root keeps its separator: "/", and "C:\\" on Windows. */
    if (sep == path || (n == 2 && path[1] == ':'))
        n++;
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, path, n);
        d[n] = '\0';
    }
    return d;
}

const char *clcpk_file_type_name(int kind)
{
    switch (kind) {
    case CLCPK_KIND_LINK:
        return "a symbolic link";
    case CLCPK_KIND_DIR:
        return "a folder";
    case CLCPK_KIND_DEVICE:
        return "a device";
    case CLCPK_KIND_FIFO:
        return "a FIFO";
    case CLCPK_KIND_SOCKET:
        return "a socket";
    default:
        return "not a regular file";
    }
}
