/* lcache_space.c — the variant cache's folder and its bound (lcache_space.h). */
#include "lcache_space.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "file_atomic.h"
#include "file_lock.h"
#include "lcache.h"
#include "lcache_blob.h"
#include "rcache_key.h"

/* A writer takes seconds between making its temporary file and renaming
 * it; one a day old belongs to a writer that is gone. */
#define STALE_TEMP_S (24 * 3600)

typedef struct entry_file {
    char name[80];
    uint64_t bytes;
    struct timespec used;
} entry_file;

typedef struct entry_list {
    entry_file *e;
    size_t n, cap;
    uint64_t bytes;
} entry_list;

/* Whether name is "<64 hex digits>.rec", or ".blob" (the encoder's
 * results in their own folder, lcache_blob.h, kept by the same rules). */
static int is_entry(const char *name)
{
    size_t n = strlen(name);
    return n > 64 && (strcmp(name + 64, LCACHE_SUFFIX) == 0 ||
                      strcmp(name + 64, LCACHE_BLOB_SUFFIX) == 0) &&
           rcache_key_is_hex_digest(name, 64);
}

/* Whether name is a temporary file of clcpk_write_file_atomic's. */
static int is_temp(const char *name)
{
    return strstr(name, ".tmp.") != NULL;
}

/* The entries of folder into *l (and with remove_stale, old temporary
 * files removed). 0 (a missing folder holds none), or -1 with err. */
static int list_entries(const char *folder, entry_list *l, int remove_stale, char err[LCACHE_SPACE_ERR_MAX])
{
    memset(l, 0, sizeof *l);
    DIR *d = opendir(folder);
    if (!d) {
        if (errno == ENOENT)
            return 0;
        bfmt(err, LCACHE_SPACE_ERR_MAX, "cannot read %s: %s", folder, strerror(errno));
        return -1;
    }
    time_t now = time(NULL);
    struct dirent *de;
    char path[4096];
    while ((de = readdir(d))) {
        int entry = is_entry(de->d_name);
        if (!entry && !(remove_stale && is_temp(de->d_name)))
            continue;
        struct stat st;
        bfmt(path, sizeof path, "%s/%s", folder, de->d_name);
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue; /* removed meanwhile, or not ours */
        if (!entry) {
            if (now - st.st_mtime > STALE_TEMP_S)
                unlink(path);
            continue;
        }
        if (l->n == l->cap) {
            size_t cap = l->cap ? 2 * l->cap : 256;
            entry_file *e = realloc(l->e, cap * sizeof *e);
            if (!e) {
                closedir(d);
                free(l->e);
                bfmt(err, LCACHE_SPACE_ERR_MAX, "out of memory listing %s", folder);
                return -1;
            }
            l->e = e;
            l->cap = cap;
        }
        entry_file *f = &l->e[l->n++];
        bfmt(f->name, sizeof f->name, "%s", de->d_name);
        f->bytes = (uint64_t)st.st_size;
        f->used = st.st_mtim;
        l->bytes += f->bytes;
    }
    closedir(d);
    return 0;
}

/* Oldest use first; ties by name, so every process agrees on the order. */
static int by_use(const void *a, const void *b)
{
    const entry_file *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    if (x->used.tv_nsec != y->used.tv_nsec)
        return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

int lcache_space_usage_of(const char *folder, lcache_space_usage *u, char err[LCACHE_SPACE_ERR_MAX])
{
    entry_list l;
    u->entries = 0;
    u->bytes = 0;
    if (list_entries(folder, &l, 0, err) != 0)
        return -1;
    u->entries = l.n;
    u->bytes = l.bytes;
    free(l.e);
    return 0;
}

/* Removes l's entries from the first on until the rest hold at most bound
 * bytes. */
static void remove_entries(const char *folder, entry_list *l, uint64_t bound, lcache_space_usage *removed)
{
    char path[4096];
    uint64_t left = l->bytes;
    for (size_t i = 0; i < l->n && left > bound; i++) {
        bfmt(path, sizeof path, "%s/%s", folder, l->e[i].name);
        left -= l->e[i].bytes;
        /* Gone already (another run evicting): it no longer counts either. */
        if (unlink(path) == 0) {
            removed->entries++;
            removed->bytes += l->e[i].bytes;
        }
    }
}

int lcache_space_evict(const char *folder, uint64_t bound, lcache_space_usage *removed,
                       char err[LCACHE_SPACE_ERR_MAX])
{
    entry_list l;
    memset(removed, 0, sizeof *removed);
    if (list_entries(folder, &l, 1, err) != 0)
        return -1;
    if (l.bytes > bound) {
        qsort(l.e, l.n, sizeof *l.e, by_use);
        remove_entries(folder, &l, bound, removed);
    }
    free(l.e);
    return 0;
}

int lcache_space_clear(const char *folder, lcache_space_usage *removed, char err[LCACHE_SPACE_ERR_MAX])
{
    entry_list l;
    memset(removed, 0, sizeof *removed);
    if (list_entries(folder, &l, 1, err) != 0)
        return -1;
    remove_entries(folder, &l, 0, removed);
    free(l.e);
    char path[4096];
    bfmt(path, sizeof path, "%s/%s", folder, LCACHE_SPACE_COUNTS);
    if (unlink(path) != 0 && errno != ENOENT) {
        bfmt(err, LCACHE_SPACE_ERR_MAX, "cannot remove %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* The counts at path: "hits N" and "misses N" (zero when unreadable). */
static void read_counts(const char *path, uint64_t *hits, uint64_t *misses)
{
    *hits = *misses = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char name[16];
    uint64_t v;
    while (fscanf(f, "%15s %" SCNu64, name, &v) == 2) {
        if (strcmp(name, "hits") == 0)
            *hits = v;
        else if (strcmp(name, "misses") == 0)
            *misses = v;
    }
    fclose(f);
}

void lcache_space_counts(const char *folder, uint64_t *hits, uint64_t *misses)
{
    char path[4096];
    bfmt(path, sizeof path, "%s/%s", folder, LCACHE_SPACE_COUNTS);
    read_counts(path, hits, misses);
}

int lcache_space_count(const char *folder, uint64_t hits, uint64_t misses, char err[LCACHE_SPACE_ERR_MAX])
{
    if (!hits && !misses)
        return 0;
    char path[4096];
    bfmt(path, sizeof path, "%s/%s", folder, LCACHE_SPACE_COUNTS);
    file_lock *lock;
    /* Two runs ending at once: the second waits for the first's sum. */
    if (file_lock_take(path, 1, &lock, err, LCACHE_SPACE_ERR_MAX) != FILE_LOCK_OK)
        return -1;
    uint64_t h, m;
    read_counts(path, &h, &m);
    char text[96];
    bfmt(text, sizeof text, "hits %" PRIu64 "\nmisses %" PRIu64 "\n", h + hits, m + misses);
    clcpack_error e;
    int rc = 0;
    if (clcpk_write_file_atomic(path, text, strlen(text), &e) != CLCPACK_OK) {
        bfmt(err, LCACHE_SPACE_ERR_MAX, "%s", e.message);
        rc = -1;
    }
    file_lock_release(lock);
    return rc;
}
