/*
 * out_buf.h — where the pack encoder (pack_encode.c) puts bytes: a
 * growing buffer for the index's records, and the sink the pack goes to
 * (memory, or a file replaced atomically). Internal to libclcpack.
 */
#ifndef CLCPACK_OUT_BUF_H
#define CLCPACK_OUT_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "clcpack_write.h"
#include "file_atomic.h"

/* A growing output buffer; after a failed allocation every put is a no-op
 * and `failed` says so once at the end. */
typedef struct out_buf {
    uint8_t *p;
    size_t n, cap;
    int failed;
} out_buf;

/* Where the pack's bytes go: a memory buffer, or a file being replaced
 * atomically (then each blob is written as soon as it is encoded). */
typedef struct sink {
    out_buf *mem;
    clcpk_atomic *file;
    uint64_t n; /* bytes of the pack so far */
    clcpack_status st;
    clcpack_error *err;
} sink;

/* k bytes more at the end of b: where they go, or NULL once b failed. */
uint8_t *clcpk_buf_reserve(out_buf *b, size_t k);
/* Little-endian numbers, bytes, and a string as its length and bytes (at
 * most max). */
void clcpk_buf_u32(out_buf *b, uint32_t v);
void clcpk_buf_u64(out_buf *b, uint64_t v);
void clcpk_buf_bytes(out_buf *b, const void *src, size_t n);
void clcpk_buf_str(out_buf *b, const char *s, size_t max);
/* A record starts with its own length: begin reserves it, end patches it. */
size_t clcpk_rec_begin(out_buf *b);
void clcpk_rec_end(out_buf *b, size_t start);

/* Puts n bytes in the sink (nothing once it failed: k->st says). */
void clcpk_sink_put(sink *k, const void *p, size_t n);
/* Up to PK_HEADER_SIZE_LOOKUP zero bytes (the header's place, alignment padding). */
void clcpk_sink_zeros(sink *k, size_t n);

#endif /* CLCPACK_OUT_BUF_H */
