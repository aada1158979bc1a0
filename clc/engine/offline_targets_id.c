/* offline_targets_id.c — an offline toolchain's identity for the variant cache (offline_targets_id.h). */
#include "offline_targets_id.h"

#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bounded_fmt.h"

/* Appends to out: 0, or -1 when it does not fit. */
static int put(char *out, size_t cap, const char *fmt, ...) BFMT_PRINTF(3, 4);
static int put(char *out, size_t cap, const char *fmt, ...)
{
    size_t len = strlen(out);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out + len, cap - len, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= cap - len ? -1 : 0;
}

static long long mtime_ns(const struct stat *st)
{
    return (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}

/* A tool as ccache names a compiler: where it really is (a symlink's
 * target, so another version behind the same name misses), its size and
 * its mtime. */
static int put_file(char *out, size_t cap, const char *what, const char *path)
{
    char real[PATH_MAX];
    struct stat st;
    if (!path[0] || !realpath(path, real) || stat(real, &st) != 0)
        return -1;
    return put(out, cap, "%s %s %lld %lld\n", what, real, (long long)st.st_size, mtime_ns(&st));
}

/* The device-library folder: every file's name, size and mtime, in name
 * order (a library replaced in place changes its line, one added or
 * removed the list). */
static int put_folder(char *out, size_t cap, const char *path)
{
    char real[PATH_MAX];
    if (!path[0] || !realpath(path, real))
        return -1;
    struct dirent **names;
    int n = scandir(real, &names, NULL, alphasort);
    if (n < 0)
        return -1;
    int rc = put(out, cap, "bitcode %s\n", real);
    for (int i = 0; i < n; i++) {
        char file[PATH_MAX + 256];
        struct stat st;
        if (rc == 0 && names[i]->d_name[0] != '.') {
            bfmt(file, sizeof file, "%s/%s", real, names[i]->d_name);
            if (stat(file, &st) != 0)
                rc = -1;
            else if (S_ISREG(st.st_mode))
                rc = put(out, cap, " %s %lld %lld\n", names[i]->d_name, (long long)st.st_size,
                         mtime_ns(&st));
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int offline_targets_identity(const offline_targets_config *c, offline_targets_chain ch, char *out,
                             size_t cap)
{
    if (cap == 0)
        return -1;
    out[0] = '\0';
    if (!c->version[ch][0] || put(out, cap, "version %s\n", c->version[ch]) != 0)
        return -1;
    if (ch == OFFLINE_TARGETS_INTEL)
        return put_file(out, cap, "ocloc", c->ocloc) ||
                       put(out, cap, "exclude_ir %d\n", c->intel_exclude_ir != 0)
                   ? -1
                   : 0;
    if (ch == OFFLINE_TARGETS_AMD)
        return put_file(out, cap, "clang", c->amd.clang) || put_folder(out, cap, c->amd.bitcode) ? -1
                                                                                                 : 0;
    return put_file(out, cap, "clang", c->spv.clang) || put_file(out, cap, "llvm-spirv", c->spv.llvm_spirv)
               ? -1
               : 0;
}

int offline_targets_list(const offline_targets_config *c, offline_targets_chain ch, char *out, size_t cap)
{
    size_t at = 0;
    if (cap == 0)
        return -1;
    out[0] = '\0';
    for (size_t i = 0; i < c->n[ch]; i++) {
        int n = snprintf(out + at, cap - at, "%s%s@%x", i ? "," : "", c->targets[ch][i].name,
                         (unsigned)c->targets[ch][i].arch);
        if (n < 0 || (size_t)n >= cap - at)
            return -1;
        at += (size_t)n;
    }
    return 0;
}
