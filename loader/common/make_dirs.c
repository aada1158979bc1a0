/* make_dirs.c — mkdir -p (make_dirs.h). */
#include "make_dirs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

/* One level: made, or a folder already. 0 or an errno value: ENOTDIR
 * when something else has the name. */
static int make_dir(const char *d, unsigned mode)
{
    int e = clcpk_os_mkdir(d, mode);
    clcpk_stat st;
    if (e == 0 || (clcpk_os_stat(d, &st) == 0 && st.kind == CLCPK_KIND_DIR))
        return 0;
    return e == EEXIST ? ENOTDIR : e;
}

int clcpk_make_dirs(const char *path, unsigned parent_mode, unsigned leaf_mode)
{
    char *p = strdup(path);
    if (!p) {
        errno = ENOMEM;
        return -1;
    }
    int e = 0;
    /* From the second byte: a leading separator is the root, not a parent
     * to make (and an empty path has no second byte). */
    for (char *s = p + (p[0] != '\0'); *s && e == 0; s++) {
        if (!clcpk_os_is_sep(*s))
            continue;
        char sep = *s;
        *s = '\0';
        e = make_dir(p, parent_mode);
        *s = sep;
    }
    if (e == 0 && p[0])
        e = make_dir(p, leaf_mode);
    else if (e == 0)
        e = ENOENT;
    free(p);
    if (e) {
        errno = e;
        return -1;
    }
    return 0;
}
