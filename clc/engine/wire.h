/*
 * wire.h — byte encoding of the messages between clc-pack and its worker
 * processes (worker_proto.h), written into a strbuf (util/strbuf.h) and read
 * with a bounds-checked reader. Little-endian fixed-width integers; strings and blobs are a u32 or
 * u64 length followed by the bytes. Explicit byte operations, so the layout
 * does not depend on the compiler's struct layout.
 */
#ifndef CLC_WIRE_H
#define CLC_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

void wire_put_u32(strbuf *b, uint32_t v);
void wire_put_u64(strbuf *b, uint64_t v);
/* u32 length + bytes; NULL is the empty string. */
void wire_put_str(strbuf *b, const char *s);
/* u64 length + bytes. */
void wire_put_blob(strbuf *b, const void *p, size_t n);

typedef struct wire_reader {
    const unsigned char *p;
    size_t left;
    int failed;          /* a read went past the end; every later get fails */
} wire_reader;

void wire_reader_init(wire_reader *r, const void *data, size_t size);
uint32_t wire_get_u32(wire_reader *r);
uint64_t wire_get_u64(wire_reader *r);
/* Copies a string into dst (cap bytes, NUL-terminated); a string that does
 * not fit, or holds a NUL, fails the reader. */
void wire_get_str(wire_reader *r, char *dst, size_t cap);
/* A string as a malloc'd NUL-terminated copy (NULL for the empty string);
 * max bounds its length. */
char *wire_get_str_dup(wire_reader *r, size_t max);
/* The same, but the empty string is a malloc'd "" too: NULL only when the
 * read fails or memory runs out (which then fails the reader). */
char *wire_get_str_alloc(wire_reader *r, size_t max);
/* A blob as a malloc'd copy (*size its length; NULL when empty); max bounds
 * its length. */
unsigned char *wire_get_blob_dup(wire_reader *r, size_t max, size_t *size);

#endif /* CLC_WIRE_H */
