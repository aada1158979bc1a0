/* embed_codecs.c — `clc-pack embed --loader-codecs`. A pack is compressed
 * with zstd by default, but a library built without zstd (the Windows one
 * of `make windows` without ZSTD_DIR, `make ZSTD=0`) reads zlib packs
 * only; embedding such a pack for it would fail only at the end user's
 * first start, so embed refuses it here, naming the fix
 * (docs/PLATFORMS.md, "zstd packs"). */
#include "embed_codecs.h"

#include <stdio.h>
#include <string.h>

#include "cli_report.h"
#include "clcpack_write.h"

int embed_loader_codecs(const char *list, unsigned *mask, char *why, size_t cap)
{
    *mask = 0;
    const char *s = list;
    do {
        size_t n = strcspn(s, ",");
        if (n == 4 && strncmp(s, "zlib", 4) == 0) {
            *mask |= LOADER_ZLIB;
        } else if (n == 4 && strncmp(s, "zstd", 4) == 0) {
            *mask |= LOADER_ZSTD;
        } else {
            snprintf(why, cap, "'%.*s' is not a codec (zlib, zstd)", (int)n, s);
            return -1;
        }
        s += n;
    } while (*s++ == ',');
    return 0;
}

/* Where the pack needs zstd: an entry of codec 3 to 5 (docs/FORMAT.md,
 * "Codecs"), or a dictionary (only zstd packs have them). Stored blobs
 * (codec 0) need nothing. Returns the entry's index, the entry count for a
 * dictionary, or -1 when no zstd is needed. */
static long zstd_user(const clcpack *p)
{
    size_t n = clcpack_entry_count(p);
    for (size_t i = 0; i < n; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        if (clcpack_get_entry(p, i, &e) == CLCPACK_OK && e.codec >= 3)
            return (long)i;
    }
    return clcpack_dictionary_count(p) > 0 ? (long)n : -1;
}

int embed_check_codecs(const clcpack *p, const char *path, unsigned mask, int by_default)
{
    if (mask & LOADER_ZSTD)
        return 0;
    long at = zstd_user(p);
    if (at < 0)
        return 0;
    char where[64];
    if ((size_t)at < clcpack_entry_count(p))
        snprintf(where, sizeof where, "entry %ld", at);
    else
        snprintf(where, sizeof where, "a dictionary");
    cli_error("%s is compressed with zstd (%s; zstd is clc-pack's default codec), which the "
              "loader it is embedded for cannot read (--loader-codecs zlib%s): rebuild the pack "
              "with --codec zlib, or pass --loader-codecs zlib,zstd if that loader reads zstd "
              "(make windows ZSTD_DIR=...: build-win/clcpack-codecs.txt says which)",
              path, where, by_default ? ", the default of --format rc: make windows without ZSTD_DIR" : "");
    return -1;
}
