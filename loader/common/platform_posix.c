/*
 * platform_posix.c — the POSIX side of platform.h (Linux, and any system
 * but Windows). The whole file is empty on Windows.
 */
#ifndef _WIN32
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "platform.h"

int clcpk_os_is_sep(char c)
{
    return c == '/';
}

static void fill_stat(const struct stat *s, clcpk_stat *st)
{
    mode_t m = s->st_mode;
    st->kind = S_ISREG(m)                 ? CLCPK_KIND_FILE
               : S_ISDIR(m)               ? CLCPK_KIND_DIR
               : S_ISLNK(m)               ? CLCPK_KIND_LINK
               : S_ISCHR(m) || S_ISBLK(m) ? CLCPK_KIND_DEVICE
               : S_ISFIFO(m)              ? CLCPK_KIND_FIFO
               : S_ISSOCK(m)              ? CLCPK_KIND_SOCKET
                                          : CLCPK_KIND_OTHER;
    st->mode = (unsigned)(m & 0777);
    st->writable = 0;
    st->size = s->st_size < 0 ? 0 : (uint64_t)s->st_size;
    st->mtime_ns = (int64_t)s->st_mtim.tv_sec * 1000000000 + s->st_mtim.tv_nsec;
}

int clcpk_os_open_read(const char *path, clcpk_fd *fd)
{
    /* O_NONBLOCK: a FIFO or device opens at once and is then refused as
     * not a regular file; it has no effect on a regular file's reads. */
    int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    *fd = f < 0 ? CLCPK_NO_FD : (clcpk_fd)f;
    return f < 0 ? errno : 0;
}

int clcpk_os_fstat(clcpk_fd fd, clcpk_stat *st)
{
    struct stat s;
    if (fstat((int)fd, &s) != 0)
        return errno;
    fill_stat(&s, st);
    return 0;
}

int clcpk_os_pread(clcpk_fd fd, void *buf, size_t n, uint64_t at, size_t *got)
{
    for (;;) {
        ssize_t r = pread((int)fd, buf, n, (off_t)at);
        if (r < 0 && errno == EINTR)
            continue;
        *got = r < 0 ? 0 : (size_t)r;
        return r < 0 ? errno : 0;
    }
}

int clcpk_os_read(clcpk_fd fd, void *buf, size_t n, size_t *got)
{
    for (;;) {
        ssize_t r = read((int)fd, buf, n);
        if (r < 0 && errno == EINTR)
            continue;
        *got = r < 0 ? 0 : (size_t)r;
        return r < 0 ? errno : 0;
    }
}

int clcpk_os_close(clcpk_fd fd)
{
    return close((int)fd) != 0 ? errno : 0;
}

/* Root passes every access() test; a file without any write bit is
 * read-only on purpose all the same. */
static int path_stat(const char *path, clcpk_stat *st, int follow)
{
    struct stat s;
    if ((follow ? stat(path, &s) : lstat(path, &s)) != 0)
        return errno;
    fill_stat(&s, st);
    int want = st->kind == CLCPK_KIND_DIR ? W_OK | X_OK : W_OK;
    st->writable = (st->kind == CLCPK_KIND_DIR || (s.st_mode & 0222) != 0) &&
                   faccessat(AT_FDCWD, path, want, AT_EACCESS) == 0;
    return 0;
}

int clcpk_os_lstat(const char *path, clcpk_stat *st)
{
    return path_stat(path, st, 0);
}

int clcpk_os_stat(const char *path, clcpk_stat *st)
{
    return path_stat(path, st, 1);
}

int clcpk_os_create_excl(const char *path, int keep_mode, unsigned mode, clcpk_fd *fd)
{
    *fd = CLCPK_NO_FD;
    int f = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (f < 0)
        return errno;
    if (keep_mode && fchmod(f, (mode_t)mode) != 0) {
        int e = errno;
        close(f);
        unlink(path);
        return e;
    }
    *fd = f;
    return 0;
}

int clcpk_os_write(clcpk_fd fd, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    while (n) {
        ssize_t k = write((int)fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k == 0 ? EIO : errno;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

int clcpk_os_pwrite(clcpk_fd fd, const void *buf, size_t n, uint64_t at)
{
    const uint8_t *p = buf;
    while (n) {
        ssize_t k = pwrite((int)fd, p, n, (off_t)at);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k == 0 ? EIO : errno;
        p += k;
        at += (uint64_t)k;
        n -= (size_t)k;
    }
    return 0;
}

int clcpk_os_sync(clcpk_fd fd)
{
    return fsync((int)fd) != 0 ? errno : 0;
}

int clcpk_os_replace(const char *from, const char *to)
{
    return rename(from, to) != 0 ? errno : 0;
}

/* The rename is durable only once the folder's entry is on disk. Some
 * file systems cannot fsync a folder (EINVAL): nothing more to do there. */
int clcpk_os_sync_dir(const char *dir)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return errno;
    int e = fsync(dfd) != 0 && errno != EINVAL ? errno : 0;
    close(dfd);
    return e;
}

int clcpk_os_unlink(const char *path)
{
    return unlink(path) != 0 ? errno : 0;
}

int clcpk_os_mkdir(const char *path, unsigned mode)
{
    return mkdir(path, (mode_t)mode) != 0 ? errno : 0;
}

int clcpk_os_touch(const char *path)
{
    return utimensat(AT_FDCWD, path, NULL, 0) != 0 ? errno : 0;
}

int clcpk_os_scratch_file(clcpk_fd *fd, char *path, size_t cap)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, cap, "%s/clcpack-spool-XXXXXX", dir && dir[0] ? dir : "/tmp");
    int f = mkstemp(path);
    *fd = f < 0 ? CLCPK_NO_FD : (clcpk_fd)f;
    if (f < 0)
        return errno;
    /* Unlinked at once: nothing is left behind whatever happens. */
    unlink(path);
    fcntl(f, F_SETFD, FD_CLOEXEC);
    return 0;
}

int clcpk_os_list_dir(const char *dir, clcpk_dir_fn fn, void *ctx)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        struct stat s;
        clcpk_stat st;
        int ok = fstatat(dirfd(d), de->d_name, &s, AT_SYMLINK_NOFOLLOW) == 0;
        if (ok)
            fill_stat(&s, &st);
        if (fn(ctx, de->d_name, ok ? &st : NULL))
            break;
    }
    closedir(d);
    return 0;
}

unsigned long clcpk_os_pid(void)
{
    return (unsigned long)getpid();
}

/* Signal 0 only asks whether the process exists; EPERM means it does
 * (another user's), so only ESRCH makes it gone. */
int clcpk_os_pid_gone(unsigned long pid)
{
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

int clcpk_os_random(void *buf, size_t n)
{
    return getrandom(buf, n, GRND_NONBLOCK) == (ssize_t)n ? 0 : -1;
}

uint64_t clcpk_os_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

char *clcpk_os_getenv(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? strdup(v) : NULL;
}

static char *joined(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s", a, b);
    return s;
}

const char clcpk_os_cache_vars[] = "XDG_CACHE_HOME and HOME";

char *clcpk_os_cache_root(void)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && xdg[0] == '/')
        return joined(xdg, "/clcpack");
    const char *home = getenv("HOME");
    if (home && home[0] == '/')
        return joined(home, "/.cache/clcpack");
    return NULL;
}

void *clcpk_os_pages_alloc(size_t n)
{
    void *t = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return t == MAP_FAILED ? NULL : t;
}

void clcpk_os_pages_free(void *p, size_t n)
{
    munmap(p, n);
}

/* The symbol in whatever the process linked (RTLD_DEFAULT); a function
 * pointer read through the object pointer dlsym gives (POSIX requires the
 * two to convert). */
void *clcpk_os_cl_symbol(const char *name)
{
    return dlsym(RTLD_DEFAULT, name);
}

/* Resources are Windows' (clcpack_open_resource). */
int clcpk_os_resource(void *module, const char *name, const void **data, size_t *size)
{
    (void)module;
    (void)name;
    *data = NULL;
    *size = 0;
    return ENOSYS;
}

void *clcpk_os_signals_block(void)
{
    sigset_t all, *old = malloc(sizeof *old);
    if (!old)
        return NULL;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, old);
    return old;
}

void clcpk_os_signals_restore(void *saved)
{
    if (!saved)
        return;
    pthread_sigmask(SIG_SETMASK, saved, NULL);
    free(saved);
}

const char *clcpk_os_strerror(int errnum, char *buf, size_t cap)
{
#if defined(_GNU_SOURCE)
    return strerror_r(errnum, buf, cap);
#else
    if (strerror_r(errnum, buf, cap) != 0)
        snprintf(buf, cap, "error %d", errnum);
    return buf;
#endif
}

#if defined(__aarch64__) && defined(__linux__)
/* The bit of AT_HWCAP for the CRC32 instructions (Linux's uapi
 * asm/hwcap.h), for C libraries whose headers do not name it. */
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1ul << 7)
#endif
int clcpk_os_cpu_has_arm_crc32(void)
{
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
}
#else
int clcpk_os_cpu_has_arm_crc32(void)
{
    return 0;
}
#endif
#else
/* ISO C wants a translation unit to declare something. */
typedef int clcpk_platform_posix_unused;
#endif
