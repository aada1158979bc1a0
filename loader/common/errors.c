#include "errors.h"
#include "platform.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *clcpack_strerror(clcpack_status s)
{
    switch (s) {
    case CLCPACK_OK: return "success";
    case CLCPACK_E_IO: return "input/output error";
    case CLCPACK_E_FORMAT: return "not a well-formed pack";
    case CLCPACK_E_VERSION: return "the pack needs a newer reader";
    case CLCPACK_E_CHECKSUM: return "checksum mismatch";
    case CLCPACK_E_LIMIT: return "declared size or count beyond the limits";
    case CLCPACK_E_NOMEM: return "out of memory";
    case CLCPACK_E_INVALID_ARG: return "invalid argument";
    case CLCPACK_E_NOT_FOUND: return "no entry has that key";
    case CLCPACK_E_OPENCL: return "an OpenCL query failed";
    case CLCPACK_E_NO_USABLE_FORM: return "no form of the entry could be loaded on this device";
    case CLCPACK_E_BUILD: return "the stored source failed to build";
    case CLCPACK_E_CONFLICT: return "an entry with that key was already added with other bytes";
    case CLCPACK_E_BUFFER: return "buffer too small";
    case CLCPACK_E_AMBIGUOUS: return "the key matches more than one define set";
    }
    return "unknown status";
}

/* Length of the valid UTF-8 sequence at s (1 for ASCII), or 0. */
static size_t utf8_len(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    size_t n = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3
               : s[0] >= 0xf0 && s[0] <= 0xf4                                 ? 4
                                                                              : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))) ||
        (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))))
        return 0;
    return n;
}

clcpack_status clcpk_fail(clcpack_error *err, clcpack_status status, const char *fmt, ...)
{
    if (!err)
        return status;
    err->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    /* Messages quote names and build logs from files: keep them one line,
     * and free of terminal controls: C0, DEL, the C1 controls (U+0080 to
     * U+009F) and bytes that are not UTF-8 (a lone 0x9b is CSI) become
     * spaces; other UTF-8 text is kept. */
    for (unsigned char *c = (unsigned char *)err->message; *c;) {
        size_t n = utf8_len(c);
        if (n == 0 || (n == 1 && (*c < 0x20 || *c == 0x7f)) ||
            (n == 2 && c[0] == 0xc2 && c[1] < 0xa0)) {
            for (size_t k = 0; k < (n ? n : 1); k++)
                c[k] = ' ';
        }
        c += n ? n : 1;
    }
    return status;
}

const char *clcpk_errno_text(int errnum, char *buf, size_t cap)
{
    return clcpk_os_strerror(errnum, buf, cap);
}
