/*
 * strbuf.h — a growable byte buffer: the one of the tool, the interposer
 * and the capture formats (generated sources, dependency files, embedded
 * packs, key texts, the worker protocol's frames (clc/engine/wire.h), the
 * interposer's record keys, the capture files, the round trip's
 * signatures). In loader/common/ so that all three reach it; the library
 * itself does not use it, and the load-only library leaves it out.
 *
 * A failed allocation does not stop the caller at each step: it sets
 * `failed`, every later add is ignored, and the caller checks once at the
 * end. The bytes are not NUL-terminated unless the caller adds the NUL.
 */
#ifndef CLC_STRBUF_H
#define CLC_STRBUF_H

#include <stddef.h>

#include "errors.h"

typedef struct strbuf {
    unsigned char *data;
    size_t len, cap;
    int failed; /* an allocation failed; every later add is ignored */
} strbuf;

/* An empty buffer (no allocation). */
void sb_init(strbuf *b);
/* Frees the bytes; b is empty again. */
void sb_free(strbuf *b);
/* Appends n bytes (nothing when n is 0). */
void sb_put(strbuf *b, const void *p, size_t n);
/* Appends the characters of s, without its NUL. */
void sb_puts(strbuf *b, const char *s);
/* Appends printf-formatted text, without its NUL. */
void sb_printf(strbuf *b, const char *fmt, ...) PK_PRINTF(2, 3);

#endif /* CLC_STRBUF_H */
