/* file_lock.c — file_lock.h: flock on PATH.lock. */
#include "file_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct file_lock {
    int fd;
    char path[]; /* the lock file's */
};

/* Whether fd is still the file at path: its last holder removes the lock
 * file before letting go, so a waiter may wake holding a file nobody else
 * will lock again; it then takes the one at path anew. */
static int still_there(int fd, const char *path)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

int file_lock_take(const char *path, int wait, file_lock **out, char *err, size_t cap)
{
    *out = NULL;
    size_t n = strlen(path) + sizeof ".lock";
    file_lock *l = malloc(sizeof *l + n);
    if (!l) {
        snprintf(err, cap, "out of memory locking '%s'", path);
        return FILE_LOCK_ERROR;
    }
    snprintf(l->path, n, "%s.lock", path);
    for (;;) {
        l->fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (l->fd < 0) {
            snprintf(err, cap, "cannot make the lock file '%s': %s", l->path, strerror(errno));
            break;
        }
        int rc;
        while ((rc = flock(l->fd, LOCK_EX | (wait ? 0 : LOCK_NB))) != 0 && errno == EINTR)
            ;
        if (rc != 0) {
            int busy = errno == EWOULDBLOCK;
            if (!busy)
                snprintf(err, cap, "cannot lock '%s': %s", l->path, strerror(errno));
            close(l->fd);
            free(l);
            return busy ? FILE_LOCK_BUSY : FILE_LOCK_ERROR;
        }
        if (still_there(l->fd, l->path)) {
            *out = l;
            return FILE_LOCK_OK;
        }
        close(l->fd);
    }
    free(l);
    return FILE_LOCK_ERROR;
}

void file_lock_release(file_lock *l)
{
    if (!l)
        return;
    /* Removed while still held: whoever opens the path after this makes a
     * new file, and whoever waits on this one sees it gone (still_there). */
    unlink(l->path);
    close(l->fd);
    free(l);
}
