/* make_dirs.c — mkdir -p (make_dirs.h). */
#include "make_dirs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int clcpk_make_dirs(const char *path, mode_t parent_mode, mode_t leaf_mode)
{
    char *p = strdup(path);
    if (!p)
        return -1;
    int rc = 0;
    /* From the second byte: a leading '/' is the root, not a parent to make
     * (and an empty path has no second byte). */
    for (char *s = p + (p[0] != '\0'); *s && rc == 0; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, parent_mode) != 0 && errno != EEXIST)
            rc = -1;
        *s = '/';
    }
    if (rc == 0 && mkdir(p, leaf_mode) != 0 && errno != EEXIST)
        rc = -1;
    int saved = errno;
    free(p);
    errno = saved;
    return rc;
}
