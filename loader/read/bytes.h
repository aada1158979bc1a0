/*
 * bytes.h — little-endian encoding and a bounds-checked read cursor.
 *
 * Every integer in a pack goes through these, never through the in-memory
 * layout of a struct, so the format is the same on every host. The cursor
 * checks the bytes left before every read: a parser built on it cannot read
 * past the end of the bytes it was given, whatever the file says.
 */
#ifndef CLCPACK_BYTES_H
#define CLCPACK_BYTES_H

#include <stddef.h>
#include <stdint.h>

static inline void put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
    put_le32(p, (uint32_t)v);
    put_le32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t get_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static inline uint64_t get_le64(const uint8_t *p)
{
    return (uint64_t)get_le32(p) | ((uint64_t)get_le32(p + 4) << 32);
}

/* A window [p, p+n) being read from position pos. A failed read leaves pos
 * unchanged and returns -1, so the caller can report where it stopped. */
typedef struct pk_cursor {
    const uint8_t *p;
    size_t n;
    size_t pos;
} pk_cursor;

static inline pk_cursor pk_cursor_make(const uint8_t *p, size_t n)
{
    pk_cursor c = {p, n, 0};
    return c;
}

static inline size_t pk_left(const pk_cursor *c) { return c->n - c->pos; }

static inline int pk_take_u32(pk_cursor *c, uint32_t *v)
{
    if (pk_left(c) < 4)
        return -1;
    *v = get_le32(c->p + c->pos);
    c->pos += 4;
    return 0;
}

static inline int pk_take_u64(pk_cursor *c, uint64_t *v)
{
    if (pk_left(c) < 8)
        return -1;
    *v = get_le64(c->p + c->pos);
    c->pos += 8;
    return 0;
}

static inline int pk_take_bytes(pk_cursor *c, const uint8_t **bytes, size_t len)
{
    if (pk_left(c) < len)
        return -1;
    *bytes = c->p + c->pos;
    c->pos += len;
    return 0;
}

/* A str field: u32 length, then the bytes (no NUL in the file). */
static inline int pk_take_str(pk_cursor *c, const uint8_t **bytes, uint32_t *len)
{
    size_t save = c->pos;
    if (pk_take_u32(c, len) != 0 || pk_take_bytes(c, bytes, *len) != 0) {
        c->pos = save;
        return -1;
    }
    return 0;
}

#endif /* CLCPACK_BYTES_H */
