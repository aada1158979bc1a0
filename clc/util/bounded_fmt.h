/*
 * bounded_fmt.h — snprintf into a fixed buffer where cutting a long message
 * short is the intended behaviour (error texts, labels). Going through
 * vsnprintf keeps -Wformat checks but not gcc's truncation warnings, which
 * would otherwise fire on every message that quotes user input.
 */
#ifndef CLC_BOUNDED_FMT_H
#define CLC_BOUNDED_FMT_H

#include <stddef.h>

#if defined(__GNUC__)
#define BFMT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define BFMT_PRINTF(a, b)
#endif

/* Formats into buf (cap bytes, cap > 0), always NUL-terminated; returns buf. */
char *bfmt(char *buf, size_t cap, const char *fmt, ...) BFMT_PRINTF(3, 4);

/* The longest argument a message quotes whole. A message cuts the quoted
 * argument, never its own reason: "'1,2,3,...': expected at most 64". */
#define BFMT_QUOTE_MAX 80
/* s itself when it has at most BFMT_QUOTE_MAX characters, else its start
 * and "..." written into buf (BFMT_QUOTE_MAX + 4 bytes). */
const char *bfmt_clip(const char *s, char buf[BFMT_QUOTE_MAX + 4]);

#endif /* CLC_BOUNDED_FMT_H */
