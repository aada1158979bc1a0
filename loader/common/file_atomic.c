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
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "file_atomic.h"
#include "path.h"
#include "platform.h"

#define SUFFIX_LEN 6
#define CREATE_TRIES 100

/* The output-path rules (clcpack.h). *exists and *mode say what is there
 * now, for keeping the mode of a file that is replaced. */
static clcpack_status check_path(const char *path, int *exists, unsigned *mode, clcpack_error *err)
{
    char msg[128];
    *exists = 0;
    *mode = 0;
    if (!path || !path[0])
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "the output path is empty");
    size_t len = strlen(path);
    if (clcpk_os_is_sep(path[len - 1]))
        return clcpk_fail(err, CLCPACK_E_IO, "'%s' names a folder, not a file", path);
    clcpk_stat st;
    int e = clcpk_os_lstat(path, &st);
    if (e == 0) {
        if (st.kind != CLCPK_KIND_FILE)
            return clcpk_fail(err, CLCPACK_E_IO,
                              "'%s' is %s%s; only a regular file is replaced", path,
                              clcpk_file_type_name(st.kind),
                              st.kind == CLCPK_KIND_LINK ? " (nothing is written through a link)" : "");
        if (!st.writable)
            return clcpk_fail(err, CLCPACK_E_IO,
                              "'%s' is read-only; it is not replaced (remove it or make it "
                              "writable first)",
                              path);
        *exists = 1;
        *mode = st.mode;
    } else if (e != ENOENT && e != ENOTDIR) {
        return clcpk_fail(err, CLCPACK_E_IO, "cannot write '%s': %s", path,
                          clcpk_errno_text(e, msg, sizeof msg));
    }
    char *dir = clcpk_parent_dir(path);
    if (!dir)
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory checking '%s'", path);
    clcpack_status rc = CLCPACK_OK;
    if ((e = clcpk_os_stat(dir, &st)) != 0) {
        if (e == ENOENT)
            rc = clcpk_fail(err, CLCPACK_E_IO, "cannot write '%s': its folder does not exist",
                            path);
        else
            rc = clcpk_fail(err, CLCPACK_E_IO, "cannot write '%s': its folder: %s", path,
                            clcpk_errno_text(e, msg, sizeof msg));
    } else if (st.kind != CLCPK_KIND_DIR) {
        rc = clcpk_fail(err, CLCPACK_E_IO, "cannot write '%s': %s is not a folder", path, dir);
    } else if (!st.writable) {
        rc = clcpk_fail(err, CLCPACK_E_IO, "cannot write '%s': its folder is not writable",
                        path);
    }
    free(dir);
    return rc;
}

clcpack_status clcpk_check_output_path(const char *path, clcpack_error *err)
{
    int exists;
    unsigned mode;
    return check_path(path, &exists, &mode, err);
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
    return clcpk_os_pid_gone(pid);
}

typedef struct stale_scan {
    const char *dir, *base;
    size_t blen;
} stale_scan;

static int remove_if_stale(void *ctx, const char *name, const clcpk_stat *st)
{
    const stale_scan *s = ctx;
    (void)st;
    if (!is_stale_temp(name, s->base, s->blen))
        return 0;
    size_t n = strlen(s->dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p) {
        snprintf(p, n, "%s/%s", s->dir, name);
        clcpk_os_unlink(p); /* a race with another cleaner is harmless */
        free(p);
    }
    return 0;
}

static void remove_stale_temps(const char *dir, const char *path)
{
    stale_scan s = {dir, clcpk_base_name(path), 0};
    s.blen = strlen(s.base);
    clcpk_os_list_dir(dir, remove_if_stale, &s);
}

/* Six random letters and digits; the kernel's random source, else the
 * clock mixed with the try number (O_EXCL makes a clash a retry, not a
 * bug; the library keeps no global state, so no counter). */
static void random_suffix(char out[SUFFIX_LEN + 1], int attempt)
{
    static const char alphabet[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    unsigned char r[SUFFIX_LEN];
    if (clcpk_os_random(r, sizeof r) != 0) {
        uint64_t x = clcpk_os_now_ns() ^ ((uint64_t)(attempt + 1) << 40) ^ clcpk_os_pid();
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
static int create_temp(const char *path, char *tmp, size_t cap, int exists, unsigned mode,
                       clcpk_fd *fd)
{
    for (int i = 0; i < CREATE_TRIES; i++) {
        char suffix[SUFFIX_LEN + 1];
        random_suffix(suffix, i);
        snprintf(tmp, cap, "%s.tmp.%lu.%s", path, clcpk_os_pid(), suffix);
        int e = clcpk_os_create_excl(tmp, exists, mode, fd);
        if (e != EEXIST)
            return e;
    }
    return EEXIST;
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
    a->fd = CLCPK_NO_FD;
    a->path = path;
    a->tmp = NULL;
    a->dir = NULL;
    int exists;
    unsigned mode;
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
    int e = create_temp(path, a->tmp, cap, exists, mode, &a->fd);
    if (e != 0) {
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
    int e = clcpk_os_write(a->fd, data, n);
    return e ? atomic_failed(a, "write", e, err) : CLCPACK_OK;
}

clcpack_status clcpk_atomic_write_at(clcpk_atomic *a, const void *data, size_t n, uint64_t at,
                                     clcpack_error *err)
{
    int e = clcpk_os_pwrite(a->fd, data, n, at);
    return e ? atomic_failed(a, "write", e, err) : CLCPACK_OK;
}

void clcpk_atomic_abort(clcpk_atomic *a)
{
    if (a->fd != CLCPK_NO_FD)
        clcpk_os_close(a->fd);
    if (a->tmp)
        clcpk_os_unlink(a->tmp);
    free(a->tmp);
    free(a->dir);
    a->fd = CLCPK_NO_FD;
    a->tmp = a->dir = NULL;
}

clcpack_status clcpk_atomic_commit(clcpk_atomic *a, clcpack_error *err)
{
    char msg[128];
    int e = clcpk_os_sync(a->fd);
    if (e)
        return atomic_failed(a, "fsync", e, err);
    clcpk_fd fd = a->fd;
    a->fd = CLCPK_NO_FD;
    if ((e = clcpk_os_close(fd)) != 0)
        return atomic_failed(a, "close", e, err);
    /* Whatever appeared at path while we wrote is checked again: rename
     * would replace a link or a device put there in the meantime. */
    int exists;
    unsigned mode;
    clcpack_status st = check_path(a->path, &exists, &mode, err);
    if (st != CLCPACK_OK) {
        clcpk_atomic_abort(a);
        return st;
    }
    if ((e = clcpk_os_replace(a->tmp, a->path)) != 0) {
        st = clcpk_fail(err, CLCPACK_E_IO, "cannot rename '%s' to '%s': %s", a->tmp, a->path,
                        clcpk_errno_text(e, msg, sizeof msg));
        clcpk_atomic_abort(a);
        return st;
    }
    free(a->tmp);
    a->tmp = NULL;
    /* The rename is durable only once the folder's entry is on disk. */
    if ((e = clcpk_os_sync_dir(a->dir)) != 0)
        st = clcpk_fail(err, CLCPACK_E_IO, "wrote '%s' but cannot fsync its folder '%s': %s",
                        a->path, a->dir, clcpk_errno_text(e, msg, sizeof msg));
    clcpk_atomic_abort(a);
    return st;
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
