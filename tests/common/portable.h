/*
 * portable.h — the few POSIX calls the driver-free tests make, for a
 * Windows (MinGW-w64) build of the same tests as well
 * (tests/cli/cli_windows_unit.sh runs them under Wine).
 *
 * On POSIX these are the system's own calls. On Windows: a temporary
 * folder from a mkdtemp-like template, one-argument mkdir, a write at an
 * offset (tests write only from one thread, so a seek and a write will
 * do), a file cut to a length, a rename that replaces its target (as
 * rename(2) does; Windows' rename refuses an existing one), and binary
 * mode for open() (Windows' default is text, which would rewrite bytes).
 * Anything that needs fork, pipes or resource limits is left to the tests
 * themselves, which skip it on Windows, never pass it.
 */
#ifndef CLC_TEST_PORTABLE_H
#define CLC_TEST_PORTABLE_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef O_BINARY
#define O_BINARY 0
#endif
#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* The template's trailing XXXXXX replaced, that folder made (0700 where
 * modes mean something). tmpl, or NULL with errno set. */
char *test_mkdtemp(char *tmpl);

/* A folder at path; 0, or -1 with errno set. */
int test_mkdir(const char *path);

/* rename(2)'s meaning on both: to is replaced when it exists. 0 or -1. */
int test_rename_over(const char *from, const char *to);

#ifdef _WIN32
/* n bytes at offset off of fd; what was written, or -1. */
long long test_pwrite(int fd, const void *buf, size_t n, int64_t off);
/* The file cut (or grown) to len bytes. 0 or -1. */
int test_truncate(const char *path, int64_t len);
#define pwrite(fd, b, n, off) test_pwrite((fd), (b), (n), (int64_t)(off))
#define truncate(path, len) test_truncate((path), (int64_t)(len))
#endif

#endif
