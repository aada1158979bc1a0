/*
 * json_out.h — writing JSON strings and numbers for `list --json`. Strings
 * from a pack are untrusted bytes: quotes, backslashes and control
 * characters are escaped, and bytes that are not valid UTF-8 become U+FFFD,
 * so the output is always valid JSON.
 */
#ifndef CLC_JSON_OUT_H
#define CLC_JSON_OUT_H

#include <stdio.h>

/* Writes s (NULL as null) as a JSON string literal. */
void json_out_string(FILE *f, const char *s);

#endif /* CLC_JSON_OUT_H */
