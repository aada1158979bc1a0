/*
 * file_atomic.c — replacing a file so that a crash, a full disk or a
 * killed process leaves either the old file or the new one, never a mix:
 * write a temporary file beside the target, fsync it, rename it over the
 * target, fsync the folder so the rename itself is durable.
 *
 * A writer killed between creating its temporary file and the rename
 * (SIGKILL, OOM killer) cannot remove that file, so temporary names carry
 * the writer's process id, "<target>.tmp.<pid>.XXXXXX", and every write
 * first removes the ones beside its target whose process is gone. So
 * killed writers leave at most one stray file per target, not a pile.
 * (Process ids are those of this host: writers on other hosts sharing the
 * folder are never taken for dead, their files are left alone.)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errors.h"
#include "pack_writer.h"

/* The folder that holds path ("." when path has no slash). */
static char *parent_dir(const char *path)
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

static int write_all(int fd, const uint8_t *data, size_t size)
{
    while (size) {
        ssize_t n = write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        data += n;
        size -= (size_t)n;
    }
    return 0;
}

/* Reports a failed step on the temporary file and removes it. */
static clcpack_status atomic_failed(clcpk_atomic *a, const char *step, int e, clcpack_error *err)
{
    char msg[128];
    clcpack_status st = clcpk_fail(err, CLCPACK_E_IO, "cannot %s '%s' (for '%s'): %s", step,
                                   a->tmp, a->path, clcpk_errno_text(e, msg, sizeof msg));
    clcpk_atomic_abort(a);
    return st;
}

/* 1 when name is "<base>.tmp.<pid>.XXXXXX" and no process has that pid. */
static int is_stale_temp(const char *name, const char *base, size_t blen)
{
    if (strncmp(name, base, blen) != 0 || strncmp(name + blen, ".tmp.", 5) != 0)
        return 0;
    const char *digits = name + blen + 5;
    char *end;
    unsigned long pid = strtoul(digits, &end, 10);
    if (end == digits || *digits < '0' || *digits > '9' || *end != '.' || strlen(end + 1) != 6 ||
        pid == 0 || pid > INT_MAX)
        return 0;
    /* Signal 0 only asks whether the process exists; EPERM means it does
     * (another user's), so only ESRCH makes the file stale. */
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

static void remove_stale_temps(const char *dir, const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t blen = strlen(base);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (is_stale_temp(de->d_name, base, blen))
            unlinkat(dirfd(d), de->d_name, 0); /* a race with another cleaner is harmless */
    closedir(d);
}

clcpack_status clcpk_atomic_begin(clcpk_atomic *a, const char *path, clcpack_error *err)
{
    char msg[128];
    size_t plen = strlen(path);
    a->fd = -1;
    a->path = path;
    a->tmp = malloc(plen + 32);
    a->dir = parent_dir(path);
    if (!a->tmp || !a->dir) {
        clcpk_atomic_abort(a);
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory writing '%s'", path);
    }
    snprintf(a->tmp, plen + 32, "%s.tmp.%ld.XXXXXX", path, (long)getpid());
    remove_stale_temps(a->dir, path);
    /* mkstemp picks a name no other writer (thread or process) holds. */
    a->fd = mkstemp(a->tmp);
    if (a->fd < 0) {
        int e = errno;
        clcpack_status st = clcpk_fail(err, CLCPACK_E_IO,
                                       "cannot create a temporary file beside '%s': %s", path,
                                       clcpk_errno_text(e, msg, sizeof msg));
        free(a->tmp);
        a->tmp = NULL; /* nothing to remove */
        clcpk_atomic_abort(a);
        return st;
    }
    if (fchmod(a->fd, 0644) != 0)
        return atomic_failed(a, "set the mode of", errno, err);
    return CLCPACK_OK;
}

clcpack_status clcpk_atomic_write(clcpk_atomic *a, const void *data, size_t n, clcpack_error *err)
{
    if (write_all(a->fd, data, n) != 0)
        return atomic_failed(a, "write", errno, err);
    return CLCPACK_OK;
}

clcpack_status clcpk_atomic_write_at(clcpk_atomic *a, const void *data, size_t n, uint64_t at,
                                     clcpack_error *err)
{
    const uint8_t *p = data;
    while (n) {
        ssize_t k = pwrite(a->fd, p, n, (off_t)at);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return atomic_failed(a, "write", errno, err);
        p += k;
        at += (uint64_t)k;
        n -= (size_t)k;
    }
    return CLCPACK_OK;
}

void clcpk_atomic_abort(clcpk_atomic *a)
{
    if (a->fd >= 0)
        close(a->fd);
    if (a->tmp)
        unlink(a->tmp);
    free(a->tmp);
    free(a->dir);
    a->fd = -1;
    a->tmp = a->dir = NULL;
}

clcpack_status clcpk_atomic_commit(clcpk_atomic *a, clcpack_error *err)
{
    char msg[128];
    if (fsync(a->fd) != 0)
        return atomic_failed(a, "fsync", errno, err);
    int fd = a->fd;
    a->fd = -1;
    if (close(fd) != 0)
        return atomic_failed(a, "close", errno, err);
    if (rename(a->tmp, a->path) != 0) {
        int e = errno;
        clcpack_status st = clcpk_fail(err, CLCPACK_E_IO, "cannot rename '%s' to '%s': %s", a->tmp,
                                       a->path, clcpk_errno_text(e, msg, sizeof msg));
        clcpk_atomic_abort(a);
        return st;
    }
    free(a->tmp);
    a->tmp = NULL;
    /* The rename is durable only once the folder's entry is on disk. */
    int dfd = open(a->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    clcpack_status st = CLCPACK_OK;
    if (dfd < 0 || fsync(dfd) != 0) {
        int e = errno;
        st = clcpk_fail(err, CLCPACK_E_IO, "wrote '%s' but cannot fsync its folder '%s': %s",
                        a->path, a->dir, clcpk_errno_text(e, msg, sizeof msg));
    }
    if (dfd >= 0)
        close(dfd);
    clcpk_atomic_abort(a);
    return st;
}

clcpack_status clcpk_write_file_atomic(const char *path, const uint8_t *data, size_t size,
                                       clcpack_error *err)
{
    clcpk_atomic a;
    clcpack_status st = clcpk_atomic_begin(&a, path, err);
    if (st == CLCPACK_OK)
        st = clcpk_atomic_write(&a, data, size, err);
    if (st == CLCPACK_OK)
        st = clcpk_atomic_commit(&a, err);
    return st;
}
