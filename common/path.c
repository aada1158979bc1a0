/* path.c — folders and file kinds (path.h). */
#include "path.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *clcpk_parent_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    size_t n = (size_t)(slash - path);
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, path, n);
        d[n] = '\0';
    }
    return d;
}

const char *clcpk_file_type_name(mode_t m)
{
    if (S_ISLNK(m))
        return "a symbolic link";
    if (S_ISDIR(m))
        return "a folder";
    if (S_ISCHR(m) || S_ISBLK(m))
        return "a device";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}
