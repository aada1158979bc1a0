/* portable.c — the tests' POSIX calls on POSIX and on Windows (portable.h). */
#include "portable.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <direct.h>
#include <io.h>
#include <windows.h>

char *test_mkdtemp(char *tmpl)
{
    size_t n = strlen(tmpl);
    if (n < 6 || strcmp(tmpl + n - 6, "XXXXXX") != 0) {
        errno = EINVAL;
        return NULL;
    }
    /* _mktemp_s alone gives a name, not a folder: retry on a name taken
     * in between, as mkdtemp would never return one. */
    for (int tries = 0; tries < 100; tries++) {
        memset(tmpl + n - 6, 'X', 6);
        if (_mktemp_s(tmpl, n + 1) != 0)
            return NULL;
        if (_mkdir(tmpl) == 0)
            return tmpl;
        if (errno != EEXIST)
            return NULL;
    }
    return NULL;
}

int test_mkdir(const char *path) { return _mkdir(path); }

int test_rename_over(const char *from, const char *to)
{
    return MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING) ? 0 : -1;
}

long long test_pwrite(int fd, const void *buf, size_t n, int64_t off)
{
    if (_lseeki64(fd, off, SEEK_SET) < 0)
        return -1;
    return _write(fd, buf, (unsigned)n);
}

int test_truncate(const char *path, int64_t len)
{
    int fd = _open(path, _O_WRONLY | _O_BINARY);
    if (fd < 0)
        return -1;
    int rc = _chsize_s(fd, len) == 0 ? 0 : -1;
    return _close(fd) == 0 ? rc : -1;
}

#else

char *test_mkdtemp(char *tmpl) { return mkdtemp(tmpl); }

int test_mkdir(const char *path) { return mkdir(path, 0755); }

int test_rename_over(const char *from, const char *to) { return rename(from, to); }

#endif
