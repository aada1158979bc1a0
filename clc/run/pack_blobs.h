/*
 * pack_blobs.h — `clc-pack [pack]`'s store of the encoder's results
 * (docs/CACHE.md, "The encoder's results"): the writer's blob cache
 * (clcpack_writer_set_blob_cache) kept in the variant cache's folder
 * (lcache_blob.h), so that a pack of variants encoded before, into a new
 * -o, copies their frames and dictionaries instead of compressing them.
 * What the encoder makes is written by a few threads of this file while
 * it goes on encoding: each file is synced before its rename, and those
 * syncs (milliseconds each) would otherwise queue on the encoder's thread.
 * A refused file is one line naming it and why; the counts at -v.
 */
#ifndef CLC_PACK_BLOBS_H
#define CLC_PACK_BLOBS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "clcpack_write.h"

#define PACK_BLOBS_WRITERS 8

typedef struct pack_blobs_job pack_blobs_job;

typedef struct pack_blobs {
    char folder[4200]; /* VARIANTS/blobs; empty: no store */
    size_t hits, misses, stored, refused;
    /* The writers' queue, their count, and the first store that failed. */
    pthread_mutex_t mu;
    pthread_cond_t more;
    pack_blobs_job *head, *tail;
    int closing;
    pthread_t writers[PACK_BLOBS_WRITERS];
    size_t n_writers;
    char store_error[800];
} pack_blobs;

/* Gives w the store below the variant cache's folder (NULL or empty: the
 * cache is off, and the writer encodes everything). b must outlive the
 * write, and pack_blobs_finish must follow it. */
void pack_blobs_attach(pack_blobs *b, clcpack_writer *w, const char *variants);

/* After the write: every result stored (the writers waited for), the
 * store kept under bound (least recently used out first), and at -v what
 * it did. */
void pack_blobs_finish(pack_blobs *b, uint64_t bound);

#endif /* CLC_PACK_BLOBS_H */
