/*
 * lcache_space.h — what the variant cache's folder holds, and keeping it
 * under its bound (docs/CACHE.md, "The bound"): the entries' count and
 * bytes; removing the least recently used entries (their modification
 * time, which a hit sets) until the rest fit; removing them all; and the
 * hits and misses counted over the runs, in FOLDER/counts under a lock.
 * Files that are not entries are left alone, but for temporary files of
 * writers long gone. Several processes may do any of this at once: an
 * entry another has removed is skipped. Nothing here prints.
 */
#ifndef CLC_LCACHE_SPACE_H
#define CLC_LCACHE_SPACE_H

#include <stddef.h>
#include <stdint.h>

#define LCACHE_SPACE_COUNTS "counts"
#define LCACHE_SPACE_ERR_MAX 640

typedef struct lcache_space_usage {
    size_t entries;
    uint64_t bytes;
} lcache_space_usage;

/* The entries of folder now (a missing folder holds none). 0, or -1 with
 * err when it cannot be read. */
int lcache_space_usage_of(const char *folder, lcache_space_usage *u, char err[LCACHE_SPACE_ERR_MAX]);

/* Removes the least recently used entries until the rest hold at most
 * bound bytes, and temporary files a day old; *removed what went. 0, or
 * -1 with err. */
int lcache_space_evict(const char *folder, uint64_t bound, lcache_space_usage *removed,
                       char err[LCACHE_SPACE_ERR_MAX]);

/* Removes every entry and the counts; *removed what went. 0, or -1 with
 * err. */
int lcache_space_clear(const char *folder, lcache_space_usage *removed, char err[LCACHE_SPACE_ERR_MAX]);

/* Adds a run's hits and misses to the counts (0, or -1 with err), and
 * reads them (a missing or unreadable file counts as zero). */
int lcache_space_count(const char *folder, uint64_t hits, uint64_t misses, char err[LCACHE_SPACE_ERR_MAX]);
void lcache_space_counts(const char *folder, uint64_t *hits, uint64_t *misses);

#endif /* CLC_LCACHE_SPACE_H */
