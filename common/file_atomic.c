/*
 * file_atomic.c — the one way libclcpack and clc-pack write a file
 * (clcpack.h, "Writing files"): the output-path rules, then a temporary
 * file beside the target, fsync, rename over the target, fsync the folder.
 * A crash, a full disk or a killed process leaves either the old file or
 * the new one, never a mix.
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
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "errors.h"
#include "fd_io.h"
#include "file_atomic.h"
#include "path.h"

#define SUFFIX_LEN 6
#define CREATE_TRIES 100

/* The output-path rules (clcpack.h). *exists and *mode say what is there
 * now, for keeping the mode of a file that is replaced. */
static clcpack_status check_path(const char *path, int *exists, mode_t *mode, clcpack_error *err)
{
    char msg[128];
    *exists = 0;
    *mode = 0;
    if (!path || !path[0])
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "the output path is empty");
    size_t len = strlen(path);
    if (path[len - 1] == '/')
        return clcpk_fail(err, CLCPACK_E_IO, "'%s' names a folder, not a file", path);
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode))
            return clcpk_fail(err, CLCPACK_E_IO,
                              "'%s' is %s%s; only a regular file is replaced", path,
                              clcpk_file_type_name(st.st_mode),
                              S_ISLNK(st.st_mode) ? " (nothing is written through a link)" : "");
        /* Root passes every access() test; a file without any write bit is
         * read-only on purpose all the same. */
        if ((st.st_mode & 0222) == 0 || faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) != 0)
            return clcpk_fail(err, CLCPACK_E_IO,
                              "'%s' is read-only; it is not replaced (remove it or make it "
                              "writable first)",
                              path);
        *exists = 1;
        *mode = st.st_mode & 0777;
    } else if (errno != ENOENT && errno != ENOTDIR) {
        int e = errno;
        return clcpk_fail(err, CLCPACK_E_IO, "cannot write '%s': %s", path,
                          clcpk_errno_text(e, msg, sizeof msg));
    }
    char *dir = clcpk_parent_dir(path);
    if (!dir)
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory checking '%s'", path);
    clcpack_status rc = CLCPACK_OK;
    if (stat(dir, &st) != 0) {
        int e = errno;
        if (e == ENOENT)
            rc = clcpk_fail(err, CLCPACK_E_IO, "cannot write '%s': its folder does not exist",
                            path);
        else
            rc = clcpk_fail(err, CLCPACK_E_IO, "cannot write '%s': its folder: %s", path,
                            clcpk_errno_text(e, msg, sizeof msg));
    } else if (!S_ISDIR(st.st_mode)) {
        rc = clcpk_fail(err, CLCPACK_E_IO, "cannot write '%s': %s is not a folder", path, dir);
    } else if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0) {
        rc = clcpk_fail(err, CLCPACK_E_IO, "cannot write '%s': its folder is not writable",
                        path);
    }
    free(dir);
    return rc;
}

clcpack_status clcpk_check_output_path(const char *path, clcpack_error *err)
{
    int exists;
    mode_t mode;
    return check_path(path, &exists, &mode, err);
}

clcpack_status clcpack_check_output_path(const char *path, clcpack_error *err)
{
    return clcpk_check_output_path(path, err);
}

/* 1 when name is "<base>.tmp.<pid>.XXXXXX" and no process has that pid. */
static int is_stale_temp(const char *name, const char *base, size_t blen)
{
    if (strncmp(name, base, blen) != 0 || strncmp(name + blen, ".tmp.", 5) != 0)
        return 0;
    const char *digits = name + blen + 5;
    char *end;
    unsigned long pid = strtoul(digits, &end, 10);
    if (end == digits || *digits < '0' || *digits > '9' || *end != '.' ||
        strlen(end + 1) != SUFFIX_LEN || pid == 0 || pid > INT_MAX)
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

/* Six random letters and digits; the kernel's random source, else the
 * clock mixed with the try number (O_EXCL makes a clash a retry, not a
 * bug; the library keeps no global state, so no counter). */
static void random_suffix(char out[SUFFIX_LEN + 1], int attempt)
{
    static const char alphabet[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    unsigned char r[SUFFIX_LEN];
    if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
                     ((uint64_t)(attempt + 1) << 40) ^ (uint64_t)getpid();
        for (size_t i = 0; i < sizeof r; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            r[i] = (unsigned char)x;
        }
    }
    for (size_t i = 0; i < SUFFIX_LEN; i++)
        out[i] = alphabet[r[i] % (sizeof alphabet - 1)];
    out[SUFFIX_LEN] = '\0';
}

/* Creates "<path>.tmp.<pid>.XXXXXX" with O_EXCL. The mode is 0666 less the
 * umask, as any new file gets, or that of the file being replaced. */
static int create_temp(const char *path, char *tmp, size_t cap, int exists, mode_t mode)
{
    for (int i = 0; i < CREATE_TRIES; i++) {
        char suffix[SUFFIX_LEN + 1];
        random_suffix(suffix, i);
        snprintf(tmp, cap, "%s.tmp.%ld.%s", path, (long)getpid(), suffix);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (fd >= 0) {
            if (exists && fchmod(fd, mode) != 0) {
                int e = errno;
                close(fd);
                unlink(tmp);
                errno = e;
                return -1;
            }
            return fd;
        }
        if (errno != EEXIST)
            return -1;
    }
    errno = EEXIST;
    return -1;
}

/* A failed step of a streamed write: the temporary file is removed. */
static clcpack_status atomic_failed(clcpk_atomic *a, const char *step, int e, clcpack_error *err)
{
    char msg[128];
    clcpack_status st = clcpk_fail(err, CLCPACK_E_IO, "cannot %s '%s' (for '%s'): %s", step,
                                   a->tmp ? a->tmp : "?", a->path,
                                   clcpk_errno_text(e, msg, sizeof msg));
    clcpk_atomic_abort(a);
    return st;
}

clcpack_status clcpk_atomic_begin(clcpk_atomic *a, const char *path, clcpack_error *err)
{
    char msg[128];
    a->fd = -1;
    a->path = path;
    a->tmp = NULL;
    a->dir = NULL;
    int exists;
    mode_t mode;
    clcpack_status st = check_path(path, &exists, &mode, err);
    if (st != CLCPACK_OK)
        return st;
    size_t cap = strlen(path) + 48;
    a->tmp = malloc(cap);
    a->dir = clcpk_parent_dir(path);
    if (!a->tmp || !a->dir) {
        clcpk_atomic_abort(a);
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory writing '%s'", path);
    }
    remove_stale_temps(a->dir, path);
    a->fd = create_temp(path, a->tmp, cap, exists, mode);
    if (a->fd < 0) {
        int e = errno;
        st = clcpk_fail(err, CLCPACK_E_IO, "cannot create a temporary file beside '%s': %s",
                        path, clcpk_errno_text(e, msg, sizeof msg));
        free(a->tmp);
        a->tmp = NULL; /* nothing to remove */
        clcpk_atomic_abort(a);
        return st;
    }
    return CLCPACK_OK;
}

clcpack_status clcpk_atomic_write(clcpk_atomic *a, const void *data, size_t n, clcpack_error *err)
{
    if (clcpk_fd_write_all(a->fd, data, n) != 0)
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
    /* Whatever appeared at path while we wrote is checked again: rename
     * would replace a link or a device put there in the meantime. */
    int exists;
    mode_t mode;
    clcpack_status st = check_path(a->path, &exists, &mode, err);
    if (st != CLCPACK_OK) {
        clcpk_atomic_abort(a);
        return st;
    }
    if (rename(a->tmp, a->path) != 0) {
        int e = errno;
        st = clcpk_fail(err, CLCPACK_E_IO, "cannot rename '%s' to '%s': %s", a->tmp, a->path,
                        clcpk_errno_text(e, msg, sizeof msg));
        clcpk_atomic_abort(a);
        return st;
    }
    free(a->tmp);
    a->tmp = NULL;
    /* The rename is durable only once the folder's entry is on disk. Some
     * file systems cannot fsync a folder (EINVAL): nothing more to do there. */
    int dfd = open(a->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || (fsync(dfd) != 0 && errno != EINVAL)) {
        int e = errno;
        st = clcpk_fail(err, CLCPACK_E_IO, "wrote '%s' but cannot fsync its folder '%s': %s",
                        a->path, a->dir, clcpk_errno_text(e, msg, sizeof msg));
    }
    if (dfd >= 0)
        close(dfd);
    clcpk_atomic_abort(a);
    return st;
}

clcpack_status clcpack_write_file_atomic(const char *path, const void *data, size_t size,
                                         uint32_t flags, clcpack_error *err)
{
    if (flags != 0)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG,
                          "clcpack_write_file_atomic: flags must be 0, not 0x%x",
                          (unsigned)flags);
    if (!data && size)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_write_file_atomic: data is NULL");
    return clcpk_write_file_atomic(path, data, size, err);
}

clcpack_status clcpk_write_file_atomic(const char *path, const void *data, size_t size,
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
