/* out_buf.c — the encoder's buffers and sink (out_buf.h). */
#include "out_buf.h"

#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "errors.h"
#include "pack_format.h"

uint8_t *clcpk_buf_reserve(out_buf *b, size_t k)
{
    if (b->failed)
        return NULL;
    if (k > b->cap - b->n) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap - b->n < k) {
            if (cap > SIZE_MAX / 2) {
                b->failed = 1;
                return NULL;
            }
            cap *= 2;
        }
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            b->failed = 1;
            return NULL;
        }
        b->p = p;
        b->cap = cap;
    }
    uint8_t *at = b->p + b->n;
    b->n += k;
    return at;
}

void clcpk_buf_u32(out_buf *b, uint32_t v)
{
    uint8_t *p = clcpk_buf_reserve(b, 4);
    if (p)
        put_le32(p, v);
}

void clcpk_buf_u64(out_buf *b, uint64_t v)
{
    uint8_t *p = clcpk_buf_reserve(b, 8);
    if (p)
        put_le64(p, v);
}

void clcpk_buf_bytes(out_buf *b, const void *src, size_t n)
{
    uint8_t *p = clcpk_buf_reserve(b, n);
    if (p && n)
        memcpy(p, src, n);
}

void clcpk_buf_str(out_buf *b, const char *s, size_t max)
{
    size_t n = strnlen(s, max);
    clcpk_buf_u32(b, (uint32_t)n);
    clcpk_buf_bytes(b, s, n);
}

/* A record starts with its own length: reserve it, patch it at the end. */
size_t clcpk_rec_begin(out_buf *b)
{
    size_t start = b->n;
    clcpk_buf_u32(b, 0);
    return start;
}

void clcpk_rec_end(out_buf *b, size_t start)
{
    if (!b->failed)
        put_le32(b->p + start, (uint32_t)(b->n - start));
}

void clcpk_sink_put(sink *k, const void *p, size_t n)
{
    if (k->st != CLCPACK_OK)
        return;
    if (k->mem) {
        clcpk_buf_bytes(k->mem, p, n);
        if (k->mem->failed)
            k->st = clcpk_fail(k->err, CLCPACK_E_NOMEM, "out of memory for a pack of %llu bytes",
                               (unsigned long long)(k->n + n));
    } else {
        k->st = clcpk_atomic_write(k->file, p, n, k->err);
    }
    k->n += n;
}

/* Up to PK_HEADER_SIZE_LOOKUP zero bytes (the header's place, alignment padding). */
void clcpk_sink_zeros(sink *k, size_t n)
{
    static const uint8_t zeros[PK_HEADER_SIZE_LOOKUP];
    clcpk_sink_put(k, zeros, n);
}

