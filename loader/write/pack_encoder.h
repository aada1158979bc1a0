/*
 * pack_encoder.h — the pack encoder's state while it writes one pack
 * (pack_encode.c): the blobs chosen, the tasks of its threads, the
 * dictionaries trained. Internal to libclcpack; only pack_encode.c reads
 * or writes these.
 */
#ifndef CLCPACK_PACK_ENCODER_H
#define CLCPACK_PACK_ENCODER_H

#include <stddef.h>
#include <stdint.h>

#include "codec.h"
#include "pack_writer.h"
#include "task_pool.h"

/* How many earlier entries of its group a binary is tried against (those
 * that would make too long a chain are passed over). */
#define DELTA_SIBLINGS 16 /* cubins of other architectures tried as bases */
#define DELTA_CANDIDATES 8

/* A blob chosen for a source or an entry. data NULL means "the raw bytes". */
typedef struct blob {
    uint8_t *data;
    size_t n;
    uint32_t codec;
    uint32_t base;  /* position in the sorted entries, or CLCPACK_NONE */
    uint32_t chain;
    uint64_t chain_bytes; /* raw sizes along the chain, this entry's included */
    uint64_t offset;
} blob;

/* Work for the encoding threads (clcpack_writer_set_threads): ranking one
 * candidate of an entry at RANK_LEVEL, compressing an entry's chosen blob
 * or a source at level 9, or (with a store) an entry's SHA-256. Without
 * threads a task runs as it is submitted. */
typedef enum { TASK_RANK, TASK_ENTRY, TASK_SOURCE, TASK_HASH, TASK_NONE } task_kind;

typedef struct task {
    tp_task tp;         /* first: the pool's part (task_pool.h) */
    task_kind kind;
    size_t pos;         /* sorted position of the entry or source */
    size_t base;        /* sorted position of the delta base or prefix, or SIZE_MAX */
    uint32_t dict;      /* zstd: the dictionary (codec 4), or CLCPACK_NONE */
    const uint8_t *bin; /* TASK_RANK: the entry's bytes, left alone until ranked */
    size_t rank;        /* TASK_RANK: the size at RANK_LEVEL */
    uint8_t *data;      /* TASK_ENTRY, TASK_SOURCE: the level-9 stream (malloc'd) */
    size_t n;
    clcpack_status st;
    int hit;            /* data came from the store (blob_cache.h), not run */
    uint8_t key[CLCPACK_BLOB_KEY_SIZE]; /* with a store: data's key there */
} task;

/* One thread's buffers, grown as needed: an entry's bytes read from the
 * spool, its base's, and their delta. */
typedef struct scratch {
    uint8_t *e, *b, *delta;
    size_t delta_cap;
    void *cctx; /* zstd's compression context */
} scratch;

/* A trained dictionary (format 4). */
typedef struct wdict {
    uint8_t *bytes;
    size_t n;
    clcpk_zcdict *rank, *final; /* for ZSTD_RANK_LEVEL and ZSTD_LEVEL */
    uint32_t out;               /* its number in the pack, or CLCPACK_NONE when unused */
    uint64_t offset;
    uint8_t hash[32];           /* with a store: the SHA-256 of bytes */
    clcpk_zdict *check;         /* with a store: for decoding frames fetched from it */
} wdict;

typedef struct encoder {
    const clcpack_writer *w;
    size_t *dev_order;  /* sorted position -> added index */
    uint32_t *dev_rank; /* added index -> sorted position */
    size_t *ent_order;
    size_t *src_order;
    uint32_t *src_rank;
    blob *src_blobs;    /* by sorted position */
    blob *ent_blobs;
    size_t *group_prev; /* sorted position -> previous member of its group, or SIZE_MAX */
    tp_pool *pool;      /* the encoding threads; NULL: tasks run as submitted */
    scratch scr;        /* the calling thread's, for tasks run as submitted */
    uint8_t *own;       /* the calling thread's copy of a spooled entry */
    task *slots;        /* level-9 tasks in flight, by position modulo n_slots */
    size_t n_slots;
    task ranks[2 + DELTA_CANDIDATES + DELTA_SIBLINGS]; /* one entry's, plain first */
    int zstd;           /* format 4's codecs (clcpack_writer_set_compression) */
    wdict *dicts;       /* trained dictionaries, in training order */
    size_t n_dicts;
    uint32_t *ent_dict; /* sorted position -> its class's dictionary, or CLCPACK_NONE */
    uint32_t src_dict;  /* the sources' dictionary, or CLCPACK_NONE */
    const size_t *members; /* the sorted positions of the class being trained */
    int cache;          /* the writer has a store (blob_cache.h) and this is zstd */
    uint8_t (*ent_hash)[32], (*src_hash)[32]; /* with it: SHA-256 by sorted position */
} encoder;

#endif /* CLCPACK_PACK_ENCODER_H */
