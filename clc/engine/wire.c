/* wire.c — message encoding for the worker pipes (wire.h). */
#include "wire.h"

#include <stdlib.h>
#include <string.h>

void wire_put_u32(strbuf *b, uint32_t v)
{
    unsigned char x[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    sb_put(b, x, 4);
}

void wire_put_u64(strbuf *b, uint64_t v)
{
    wire_put_u32(b, (uint32_t)v);
    wire_put_u32(b, (uint32_t)(v >> 32));
}

void wire_put_str(strbuf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n > UINT32_MAX) {
        b->failed = 1;
        return;
    }
    wire_put_u32(b, (uint32_t)n);
    sb_put(b, s, n);
}

void wire_put_blob(strbuf *b, const void *p, size_t n)
{
    wire_put_u64(b, (uint64_t)n);
    sb_put(b, p, n);
}

void wire_reader_init(wire_reader *r, const void *data, size_t size)
{
    r->p = data;
    r->left = size;
    r->failed = 0;
}

static const unsigned char *take(wire_reader *r, size_t n)
{
    if (r->failed || n > r->left) {
        r->failed = 1;
        return NULL;
    }
    const unsigned char *at = r->p;
    r->p += n;
    r->left -= n;
    return at;
}

uint32_t wire_get_u32(wire_reader *r)
{
    const unsigned char *x = take(r, 4);
    if (!x)
        return 0;
    return (uint32_t)x[0] | (uint32_t)x[1] << 8 | (uint32_t)x[2] << 16 | (uint32_t)x[3] << 24;
}

uint64_t wire_get_u64(wire_reader *r)
{
    uint64_t lo = wire_get_u32(r);
    uint64_t hi = wire_get_u32(r);
    return lo | hi << 32;
}

void wire_get_str(wire_reader *r, char *dst, size_t cap)
{
    uint32_t n = wire_get_u32(r);
    const unsigned char *s = take(r, n);
    if (!s || n >= cap || memchr(s, '\0', n)) {
        r->failed = 1;
        if (cap)
            dst[0] = '\0';
        return;
    }
    memcpy(dst, s, n);
    dst[n] = '\0';
}

char *wire_get_str_dup(wire_reader *r, size_t max)
{
    uint32_t n = wire_get_u32(r);
    if (n > max) {
        r->failed = 1;
        return NULL;
    }
    const unsigned char *s = take(r, n);
    if (!s || n == 0)
        return NULL;
    char *out = malloc((size_t)n + 1);
    if (!out) {
        r->failed = 1;
        return NULL;
    }
    memcpy(out, s, n);
    out[n] = '\0';
    return out;
}

char *wire_get_str_alloc(wire_reader *r, size_t max)
{
    char *s = wire_get_str_dup(r, max);
    if (!s && !r->failed) {
        s = calloc(1, 1);
        if (!s)
            r->failed = 1;
    }
    return s;
}

unsigned char *wire_get_blob_dup(wire_reader *r, size_t max, size_t *size)
{
    *size = 0;
    uint64_t n = wire_get_u64(r);
    if (n > max) {
        r->failed = 1;
        return NULL;
    }
    const unsigned char *s = take(r, (size_t)n);
    if (!s || n == 0)
        return NULL;
    unsigned char *out = malloc((size_t)n);
    if (!out) {
        r->failed = 1;
        return NULL;
    }
    memcpy(out, s, (size_t)n);
    *size = (size_t)n;
    return out;
}
