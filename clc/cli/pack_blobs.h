/*
 * pack_blobs.h — `clc-pack [pack]`'s store of the encoder's results
 * (docs/CACHE.md, "The encoder's results"): the writer's blob cache
 * (clcpack_writer_set_blob_cache) kept in the variant cache's folder
 * (lcache_blob.h), so that a pack of variants encoded before, into a new
 * -o, copies their frames and dictionaries instead of compressing them.
 * A refused file is one line naming it and why; the counts at -v.
 */
#ifndef CLC_PACK_BLOBS_H
#define CLC_PACK_BLOBS_H

#include <stddef.h>
#include <stdint.h>

#include "clcpack_write.h"

typedef struct pack_blobs {
    char folder[4200]; /* VARIANTS/blobs; empty: no store */
    size_t hits, misses, stored, refused;
    int said_store_error;
} pack_blobs;

/* Gives w the store below the variant cache's folder (NULL or empty: the
 * cache is off, and the writer encodes everything). b must outlive the
 * write. */
void pack_blobs_attach(pack_blobs *b, clcpack_writer *w, const char *variants);

/* After the write: the store kept under bound (least recently used out
 * first), and at -v what it did. */
void pack_blobs_finish(const pack_blobs *b, uint64_t bound);

#endif /* CLC_PACK_BLOBS_H */
