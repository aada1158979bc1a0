/* temp_tree.c — temporary folders (temp_tree.h). */
#define _XOPEN_SOURCE 700 /* nftw */
#include "temp_tree.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

int temp_tree_make(const char *parent, const char *name, char *out, size_t cap)
{
    if (!parent) {
        parent = getenv("TMPDIR");
        if (!parent || !*parent)
            parent = "/tmp";
    }
    int n = snprintf(out, cap, "%s/%s-XXXXXX", parent, name);
    if (n < 0 || (size_t)n >= cap) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return mkdtemp(out) ? 0 : -1;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void temp_tree_remove(const char *path)
{
    if (path && *path)
        nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}
