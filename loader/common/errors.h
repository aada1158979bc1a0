/*
 * errors.h — filling a clcpack_error (OpenCL error codes by name:
 * cl_error_name.h).
 * Internal to libclcpack.
 */
#ifndef CLCPACK_ERRORS_H
#define CLCPACK_ERRORS_H

#include <stdio.h> /* on MinGW, defines which printf the attribute names */

#include "cl_error_name.h"
#include "clcpack.h"

#if defined(__GNUC__)
#if defined(__MINGW_PRINTF_FORMAT)
/* MinGW: the C99 printf (__USE_MINGW_ANSI_STDIO), which knows %zu. */
#define PK_PRINTF(a, b) __attribute__((format(__MINGW_PRINTF_FORMAT, a, b)))
#else
#define PK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#endif
#else
#define PK_PRINTF(a, b)
#endif

/* Sets err (when not NULL) to status and the formatted message, with
 * control characters turned into spaces so the message stays one line.
 * Returns status, so a caller can write `return clcpk_fail(err, ...);`. */
clcpack_status clcpk_fail(clcpack_error *err, clcpack_status status, const char *fmt, ...)
    PK_PRINTF(3, 4);


/* The text of an errno value, thread-safe (strerror is not). */
const char *clcpk_errno_text(int errnum, char *buf, size_t cap);

#endif /* CLCPACK_ERRORS_H */
