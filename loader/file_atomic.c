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

clcpack_status clcpk_write_file_atomic(const char *path, const uint8_t *data, size_t size,
                                    clcpack_error *err)
{
    char msg[128];
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 32);
    char *dir = parent_dir(path);
    if (!tmp || !dir) {
        free(tmp);
        free(dir);
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory writing '%s'", path);
    }
    snprintf(tmp, plen + 32, "%s.tmp.%ld.XXXXXX", path, (long)getpid());
    remove_stale_temps(dir, path);
    /* mkstemp picks a name no other writer (thread or process) holds. */
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        clcpack_status st = clcpk_fail(err, CLCPACK_E_IO, "cannot create a temporary file beside '%s': %s",
                                    path, clcpk_errno_text(e, msg, sizeof msg));
        free(tmp);
        free(dir);
        return st;
    }
    const char *step = NULL;
    if (fchmod(fd, 0644) != 0)
        step = "set the mode of";
    else if (write_all(fd, data, size) != 0)
        step = "write";
    else if (fsync(fd) != 0)
        step = "fsync";
    int e = errno;
    if (close(fd) != 0 && !step) {
        step = "close";
        e = errno;
    }
    if (!step && rename(tmp, path) != 0) {
        e = errno;
        clcpack_status st = clcpk_fail(err, CLCPACK_E_IO, "cannot rename '%s' to '%s': %s", tmp, path,
                                    clcpk_errno_text(e, msg, sizeof msg));
        unlink(tmp);
        free(tmp);
        free(dir);
        return st;
    }
    if (step) {
        clcpack_status st = clcpk_fail(err, CLCPACK_E_IO, "cannot %s '%s' (for '%s'): %s", step, tmp,
                                    path, clcpk_errno_text(e, msg, sizeof msg));
        unlink(tmp);
        free(tmp);
        free(dir);
        return st;
    }
    /* The rename is durable only once the folder's entry is on disk. */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    clcpack_status st = CLCPACK_OK;
    if (dfd < 0 || fsync(dfd) != 0) {
        e = errno;
        st = clcpk_fail(err, CLCPACK_E_IO, "wrote '%s' but cannot fsync its folder '%s': %s", path,
                     dir, clcpk_errno_text(e, msg, sizeof msg));
    }
    if (dfd >= 0)
        close(dfd);
    free(tmp);
    free(dir);
    return st;
}
