/* pack_blobs.c — the encoder's results in the variant cache's folder (pack_blobs.h). */
#include "pack_blobs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "cli_report.h"
#include "lcache_blob.h"
#include "lcache_space.h"
#include "make_dirs.h"

static int get(void *ctx, const unsigned char *key, const char *what, const void **data,
               size_t *size)
{
    pack_blobs *b = ctx;
    char why[LCACHE_MSG_MAX];
    uint8_t *d;
    int rc = lcache_blob_get(b->folder, key, &d, size, why);
    if (rc < 0) {
        b->refused++;
        if (cli_verbosity >= 0)
            fprintf(stderr, "clc-pack: encoder cache: %s: %s; encoded here\n", what, why);
    }
    b->hits += rc > 0;
    b->misses += rc == 0;
    *data = rc > 0 ? d : NULL;
    return rc > 0;
}

static void release(void *ctx, const void *data)
{
    (void)ctx;
    free((void *)data);
}

static void put(void *ctx, const unsigned char *key, const char *what, const void *data,
                size_t size)
{
    pack_blobs *b = ctx;
    char why[LCACHE_MSG_MAX];
    if (lcache_blob_put(b->folder, key, data, size, why) == 0) {
        b->stored++;
    } else if (!b->said_store_error && cli_verbosity >= 0) {
        /* A full disk says so once, not once per blob. */
        fprintf(stderr, "clc-pack: encoder cache: %s not stored: %s\n", what, why);
        b->said_store_error = 1;
    }
}

static void refused(void *ctx, const unsigned char *key, const char *what, const char *why)
{
    pack_blobs *b = ctx;
    (void)key;
    /* A fetched file the library's check refused was a hit to the store. */
    b->hits--;
    b->refused++;
    if (cli_verbosity >= 0)
        fprintf(stderr, "clc-pack: encoder cache: %s: %s; encoded here\n", what, why);
}

void pack_blobs_attach(pack_blobs *b, clcpack_writer *w, const char *variants)
{
    memset(b, 0, sizeof *b);
    if (!variants || !variants[0])
        return;
    bfmt(b->folder, sizeof b->folder, "%s/%s", variants, LCACHE_BLOB_SUBFOLDER);
    /* A folder we cannot make costs this write its store, never the pack. */
    if (clcpk_make_dirs(b->folder, 0700, 0700) != 0) {
        cli_note("encoder cache: cannot make %s (%s): encoding without it", b->folder,
                 strerror(errno));
        b->folder[0] = '\0';
        return;
    }
    clcpack_blob_cache c = {b, get, release, put, refused};
    clcpack_writer_set_blob_cache(w, &c);
}

void pack_blobs_finish(const pack_blobs *b, uint64_t bound)
{
    if (!b->folder[0])
        return;
    char err[LCACHE_SPACE_ERR_MAX];
    lcache_space_usage gone;
    if (lcache_space_evict(b->folder, bound, &gone, err) != 0)
        cli_note("encoder cache: %s", err);
    if (cli_verbosity > 0)
        fprintf(stderr,
                "clc-pack: encoder cache: %zu copied, %zu encoded, %zu stored, %zu refused, "
                "%zu removed (%s)\n",
                b->hits, b->misses + b->refused, b->stored, b->refused, gone.entries, b->folder);
}
