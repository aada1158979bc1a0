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

/* A result waiting for a writer: its key, its label, a copy of its bytes. */
struct pack_blobs_job {
    pack_blobs_job *next;
    uint8_t key[LCACHE_BLOB_KEY_SIZE];
    char what[160];
    size_t n;
    unsigned char data[];
};

static void say_refused(pack_blobs *b, const char *what, const char *why)
{
    b->refused++;
    if (cli_verbosity >= 0)
        fprintf(stderr, "clc-pack: encoder cache: %s: %s; encoded here\n", what, why);
}

static int get(void *ctx, const unsigned char *key, const char *what, const void **data,
               size_t *size)
{
    pack_blobs *b = ctx;
    char why[LCACHE_MSG_MAX];
    uint8_t *d;
    int rc = lcache_blob_get(b->folder, key, &d, size, why);
    if (rc < 0)
        say_refused(b, what, why);
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

static void refused(void *ctx, const unsigned char *key, const char *what, const char *why)
{
    pack_blobs *b = ctx;
    (void)key;
    b->hits--; /* what the library refused was a hit to the store */
    say_refused(b, what, why);
}

static void put(void *ctx, const unsigned char *key, const char *what, const void *data,
                size_t size)
{
    pack_blobs *b = ctx;
    pack_blobs_job *j = malloc(sizeof *j + (size ? size : 1));
    if (!j)
        return; /* the pack is written all the same; only this result is not kept */
    j->next = NULL;
    memcpy(j->key, key, sizeof j->key);
    bfmt(j->what, sizeof j->what, "%s", what);
    j->n = size;
    memcpy(j->data, data, size);
    pthread_mutex_lock(&b->mu);
    if (b->tail)
        b->tail->next = j;
    else
        b->head = j;
    b->tail = j;
    pthread_cond_signal(&b->more);
    pthread_mutex_unlock(&b->mu);
}

static void *writer(void *arg)
{
    pack_blobs *b = arg;
    pthread_mutex_lock(&b->mu);
    for (;;) {
        while (!b->head && !b->closing)
            pthread_cond_wait(&b->more, &b->mu);
        pack_blobs_job *j = b->head;
        if (!j)
            break;
        if (!(b->head = j->next))
            b->tail = NULL;
        pthread_mutex_unlock(&b->mu);
        char why[LCACHE_MSG_MAX];
        int rc = lcache_blob_put(b->folder, j->key, j->data, j->n, why);
        pthread_mutex_lock(&b->mu);
        b->stored += rc == 0;
        if (rc != 0 && !b->store_error[0])
            bfmt(b->store_error, sizeof b->store_error, "%s not stored: %s", j->what, why);
        free(j);
    }
    pthread_mutex_unlock(&b->mu);
    return NULL;
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
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->more, NULL);
    while (b->n_writers < PACK_BLOBS_WRITERS &&
           pthread_create(&b->writers[b->n_writers], NULL, writer, b) == 0)
        b->n_writers++;
    if (b->n_writers == 0) {
        b->folder[0] = '\0'; /* no thread to write with: encode without the store */
        return;
    }
    clcpack_blob_cache c = {b, get, release, put, refused};
    clcpack_writer_set_blob_cache(w, &c);
}

void pack_blobs_finish(pack_blobs *b, uint64_t bound)
{
    if (!b->folder[0])
        return;
    pthread_mutex_lock(&b->mu);
    b->closing = 1;
    pthread_cond_broadcast(&b->more);
    pthread_mutex_unlock(&b->mu);
    for (size_t i = 0; i < b->n_writers; i++)
        pthread_join(b->writers[i], NULL);
    pthread_cond_destroy(&b->more);
    pthread_mutex_destroy(&b->mu);
    /* A full disk says so once, not once per result. */
    if (b->store_error[0] && cli_verbosity >= 0)
        fprintf(stderr, "clc-pack: encoder cache: %s\n", b->store_error);
    char err[LCACHE_SPACE_ERR_MAX];
    lcache_space_usage gone = {0};
    if (lcache_space_evict(b->folder, bound, &gone, err) != 0)
        cli_note("encoder cache: %s", err);
    if (cli_verbosity > 0)
        fprintf(stderr,
                "clc-pack: encoder cache: %zu copied, %zu encoded, %zu stored, %zu refused, "
                "%zu removed (%s)\n",
                b->hits, b->misses + b->refused, b->stored, b->refused, gone.entries, b->folder);
}
