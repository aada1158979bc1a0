/*
 * platform.h — every call the library makes to the operating system, in
 * one small layer with a POSIX side (platform_posix.c) and a Win32 side
 * (platform_win32.c); docs/PLATFORMS.md. No other file of the library
 * names a system header (tests/cli/cli_layers.sh checks it), so a port is
 * these two files.
 *
 * Paths are UTF-8 everywhere; the Win32 side converts them to UTF-16 for
 * the wide calls. Failures return an errno value (ENOENT, EACCES, EEXIST,
 * EIO...; the Win32 side maps its error codes onto them), 0 on success, so
 * the callers' messages read the same on both systems.
 */
#ifndef CLCPACK_PLATFORM_H
#define CLCPACK_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

/* An open file: a descriptor, or a HANDLE. */
typedef intptr_t clcpk_fd;
#define CLCPK_NO_FD ((clcpk_fd)-1)

/* What is at a path. */
enum {
    CLCPK_KIND_FILE = 1,
    CLCPK_KIND_DIR,
    CLCPK_KIND_LINK,
    CLCPK_KIND_DEVICE,
    CLCPK_KIND_FIFO,
    CLCPK_KIND_SOCKET,
    CLCPK_KIND_OTHER
};
typedef struct clcpk_stat {
    int kind;          /* CLCPK_KIND_* */
    unsigned mode;     /* permission bits (0777 on POSIX; 0666 or 0444 on Windows) */
    int writable;      /* this process may write it (a folder: create files in it) */
    uint64_t size;
    int64_t mtime_ns;  /* last change, nanoseconds since some fixed point */
} clcpk_stat;

/* The path separator test ('/', and '\\' on Windows). */
int clcpk_os_is_sep(char c);

/* Reading. open_read opens without blocking on a FIFO or device; pread
 * reads at an offset without moving a shared position (threads may read
 * one file at once); *got 0 is the file's end. */
int clcpk_os_open_read(const char *path, clcpk_fd *fd);
int clcpk_os_fstat(clcpk_fd fd, clcpk_stat *st);
int clcpk_os_pread(clcpk_fd fd, void *buf, size_t n, uint64_t at, size_t *got);
/* Reads at the file's position (a pipe, a descriptor handed over); *got 0
 * is the end. */
int clcpk_os_read(clcpk_fd fd, void *buf, size_t n, size_t *got);
int clcpk_os_close(clcpk_fd fd);

/* Path queries: lstat does not follow a final link; stat does. */
int clcpk_os_lstat(const char *path, clcpk_stat *st);
int clcpk_os_stat(const char *path, clcpk_stat *st);

/* Writing. create_excl fails with EEXIST when path exists; mode is that of
 * the file being replaced (keep_mode) or the system's default. write
 * appends at the file's position; pwrite writes at an offset. */
int clcpk_os_create_excl(const char *path, int keep_mode, unsigned mode, clcpk_fd *fd);
int clcpk_os_write(clcpk_fd fd, const void *buf, size_t n);
int clcpk_os_pwrite(clcpk_fd fd, const void *buf, size_t n, uint64_t at);
int clcpk_os_sync(clcpk_fd fd);
/* Replaces to by from atomically, durable once it returns (a crash leaves
 * one of the two files); sync_dir makes a rename durable where the folder
 * must be flushed (POSIX), a no-op where the rename itself is (Win32). */
int clcpk_os_replace(const char *from, const char *to);
int clcpk_os_sync_dir(const char *dir);
int clcpk_os_unlink(const char *path);
int clcpk_os_mkdir(const char *path, unsigned mode);
int clcpk_os_touch(const char *path);

/* An unnamed scratch file, gone once closed or when the process ends. */
int clcpk_os_scratch_file(clcpk_fd *fd, char *path, size_t cap);

/* Calls fn for every entry of dir but "." and "..", with what lstat says
 * of it (st NULL when that failed); stops when fn returns nonzero. */
typedef int (*clcpk_dir_fn)(void *ctx, const char *name, const clcpk_stat *st);
int clcpk_os_list_dir(const char *dir, clcpk_dir_fn fn, void *ctx);

/* Processes: this one's id; 1 when no process has that id. */
unsigned long clcpk_os_pid(void);
int clcpk_os_pid_gone(unsigned long pid);

/* n bytes from the system's random source; 0, or -1 when there is none. */
int clcpk_os_random(void *buf, size_t n);
/* The time, nanoseconds since some fixed point (for seeds only). */
uint64_t clcpk_os_now_ns(void);

/* An environment variable as UTF-8 (malloc'd), NULL when unset or empty. */
char *clcpk_os_getenv(const char *name);
/* The rebuild cache's default folder (malloc'd) when CLCPACK_CACHE_DIR is
 * not set: $XDG_CACHE_HOME/clcpack or ~/.cache/clcpack on POSIX,
 * %LOCALAPPDATA%\clcpack on Windows; NULL when none is known. */
char *clcpk_os_cache_root(void);
/* What the default folder is made of, for a message. */
extern const char clcpk_os_cache_vars[];

/* Zeroed pages from the system, faulted in when first touched. */
void *clcpk_os_pages_alloc(size_t n);
void clcpk_os_pages_free(void *p, size_t n);

/* An OpenCL entry point of the OpenCL library the process loaded, looked
 * up at run time (those newer than the driver may lack); NULL if absent. */
void *clcpk_os_cl_symbol(const char *name);

/* The RCDATA resource called name ("#123" for the number 123) of module,
 * an HMODULE (NULL: the executable); its bytes stay mapped while the
 * module is loaded. ENOENT when the module has none by that name, ENOSYS
 * on a system without resources (POSIX). */
int clcpk_os_resource(void *module, const char *name, const void **data, size_t *size);

/* Threads the library starts take no signals: block them around the
 * start, then restore (the Win32 side has none to block). */
void *clcpk_os_signals_block(void);
void clcpk_os_signals_restore(void *saved);

/* 1 when the CPU has the ARMv8 CRC32 instructions (on Linux the kernel's
 * AT_HWCAP says so); 0 on other CPUs and where the system does not say. */
int clcpk_os_cpu_has_arm_crc32(void);

/* strerror, thread-safe. */
const char *clcpk_os_strerror(int errnum, char *buf, size_t cap);

#endif /* CLCPACK_PLATFORM_H */
