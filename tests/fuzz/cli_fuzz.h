/*
 * cli_fuzz.h — helpers shared by the fuzz targets over the command-line
 * side's parsers (tests/fuzz/NAME_target.h, docs/ROBUSTNESS.md): a failed
 * check that libFuzzer keeps, the input as a string or an argument vector,
 * and a private temporary folder per input, made and removed by the target
 * (nothing is written outside it; open_file of targets.h writes its file
 * in the same place). Static inline functions (a program
 * that uses some draws no warning for the others): include in any number
 * of target headers of one program.
 */
#ifndef CLC_CLI_FUZZ_H
#define CLC_CLI_FUZZ_H

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A failed check traps, so libFuzzer keeps the input and the replay test
 * names the file. */
static inline void cf_require(int cond)
{
    if (!cond)
        __builtin_trap();
}

/* The input up to its first NUL byte, NUL-terminated (malloc'd). */
static inline char *cf_string(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t n = nul ? (size_t)(nul - data) : size;
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, data, n);
        s[n] = '\0';
    }
    return s;
}

/* Splits the input at NUL bytes into at most max strings (the last one
 * takes the rest, NULs and all, cut at its first NUL); *arena is the
 * malloc'd copy they point into. Returns the count (0 when out of memory). */
static inline size_t cf_split(const uint8_t *data, size_t size, char **out, size_t max,
                              char **arena)
{
    char *a = malloc(size + 1);
    *arena = a;
    if (!a || max == 0)
        return 0;
    memcpy(a, data, size);
    a[size] = '\0';
    size_t n = 0, start = 0;
    for (size_t i = 0; i <= size && n < max; i++)
        if (i == size || (a[i] == '\0' && n + 1 < max)) {
            out[n++] = a + start;
            a[i] = '\0';
            start = i + 1;
        }
    return n;
}

/* Where the targets write what they make for an input: $TMPDIR when that
 * is set, else /dev/shm (memory) when it can be written, else /tmp. A
 * target makes and removes files for every input, and on a disk file
 * system (ext4 allocating and freeing inodes, discarding blocks) that
 * costs more than the parsing under test. */
static inline const char *cf_tmp_base(void)
{
    const char *t = getenv("TMPDIR");
    if (t && *t && strlen(t) <= 200)
        return t;
    struct stat st;
    if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK | X_OK) == 0)
        return "/dev/shm";
    return "/tmp";
}

/* Makes a fresh private folder (path in dir) in cf_tmp_base(); 0, or -1. */
static inline int cf_tmpdir(char dir[256])
{
    snprintf(dir, 256, "%s/clcfuzz.XXXXXX", cf_tmp_base());
    return mkdtemp(dir) ? 0 : -1;
}

/* Writes len bytes as dir/name; 0, or -1. */
static inline int cf_write(const char *dir, const char *name, const void *p, size_t len)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return -1;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    const char *c = p;
    while (len > 0) {
        ssize_t w = write(fd, c, len);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        c += w;
        len -= (size_t)w;
    }
    return close(fd);
}

/* Removes the folder and everything under it (links are removed, not
 * followed). */
static inline void cf_rmtree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d))) {
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                continue;
            char path[4096];
            if (snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= (int)sizeof path)
                continue;
            struct stat st;
            if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
                cf_rmtree(path);
            else
                unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* A message was written: non-empty and NUL-terminated within cap. */
static inline void cf_require_message(const char *err, size_t cap)
{
    cf_require(err[0] != '\0' && memchr(err, 0, cap) != NULL);
}

#endif /* CLC_CLI_FUZZ_H */
