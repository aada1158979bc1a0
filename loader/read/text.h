/*
 * text.h — appending formatted text to a fixed caller buffer (the load
 * report, error messages) without ever overrunning it. Internal.
 */
#ifndef CLCPACK_TEXT_H
#define CLCPACK_TEXT_H

#include <stddef.h>

#include "errors.h"

typedef struct pk_text {
    char *buf;
    size_t cap;
    size_t len;
} pk_text;

/* Starts an empty text in buf (cap ≥ 1). */
void clcpk_text_init(pk_text *t, char *buf, size_t cap);

/* Appends; when the buffer is full the text ends in "..." and further
 * appends are dropped. */
void clcpk_text_add(pk_text *t, const char *fmt, ...) PK_PRINTF(2, 3);

/* Appends "; " first unless the text is empty (the report's separator). */
void clcpk_text_item(pk_text *t, const char *fmt, ...) PK_PRINTF(2, 3);

#endif /* CLCPACK_TEXT_H */
