/* atomic_write.c — temp file, fsync, rename (atomic_write.h). */
#include "atomic_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "wire.h"

int atomic_write_file(const char *path, const void *data, size_t size, char *err, size_t cap)
{
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 16);
    char *dir = malloc(plen + 2);
    if (!tmp || !dir) {
        free(tmp);
        free(dir);
        bfmt(err, cap, "%s: out of memory", path);
        return -1;
    }
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp-XXXXXX", 12);
    /* The folder to fsync after the rename. */
    const char *slash = strrchr(path, '/');
    if (!slash)
        memcpy(dir, ".", 2);
    else if (slash == path)
        memcpy(dir, "/", 2);
    else {
        memcpy(dir, path, (size_t)(slash - path));
        dir[slash - path] = '\0';
    }
    int rc = -1;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        bfmt(err, cap, "%s: cannot create a temporary file beside it: %s", path, strerror(errno));
        goto out;
    }
    /* mkstemp makes 0600; a written file should get the usual mode. */
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
    if (wire_write_fd(fd, data, size) != 0) {
        bfmt(err, cap, "%s: write failed: %s", tmp, strerror(errno));
        goto fail_fd;
    }
    if (fsync(fd) != 0) {
        bfmt(err, cap, "%s: fsync failed: %s", tmp, strerror(errno));
        goto fail_fd;
    }
    if (close(fd) != 0) {
        fd = -1;
        bfmt(err, cap, "%s: close failed: %s", tmp, strerror(errno));
        unlink(tmp);
        goto out;
    }
    fd = -1;
    if (rename(tmp, path) != 0) {
        bfmt(err, cap, "%s: rename from %s failed: %s", path, tmp, strerror(errno));
        unlink(tmp);
        goto out;
    }
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    rc = 0;
    goto out;
fail_fd:
    close(fd);
    unlink(tmp);
out:
    free(tmp);
    free(dir);
    return rc;
}
