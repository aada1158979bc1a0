/*
 * text_format.h — small texts the tool and the library both make: a
 * formatted string of its own (malloc'd), a work-group as "8x8".
 * In loader/common/: one copy for clc-pack and libclcpack (docs/ARCHITECTURE.md,
 * "Layers"). Includes no project header.
 */
#ifndef CLCPK_TEXT_FORMAT_H
#define CLCPK_TEXT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define CLCPK_TEXT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CLCPK_TEXT_PRINTF(a, b)
#endif

/* The formatted text in a malloc'd string the caller frees; NULL when out
 * of memory or when the format fails. */
char *clcpk_strdup_printf(const char *fmt, ...) CLCPK_TEXT_PRINTF(1, 2);

/* A work-group as text: "W" (1-D), "WxH", "WxHxD", the trailing 1s left
 * out; none when wg[0] is 0 (the key has no work-group). Cut at cap, always
 * NUL-terminated. */
void clcpk_wg_text(const uint32_t wg[3], const char *none, char *buf, size_t cap);

#endif /* CLCPK_TEXT_FORMAT_H */
