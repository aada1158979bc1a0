/* make_dirs.c — mkdir -p (make_dirs.h). */
#include "make_dirs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int make_dirs(const char *path, mode_t mode)
{
    char *p = strdup(path);
    if (!p)
        return -1;
    int rc = 0;
    for (char *s = p + 1; *s && rc == 0; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, mode) != 0 && errno != EEXIST)
            rc = -1;
        *s = '/';
    }
    if (rc == 0 && mkdir(p, mode) != 0 && errno != EEXIST)
        rc = -1;
    int saved = errno;
    free(p);
    errno = saved;
    return rc;
}
