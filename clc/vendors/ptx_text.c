/* ptx_text.c — PTX trailing NUL and .target handling (ptx_text.h). */
#include "ptx_text.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "bounded_fmt.h"

size_t ptx_text_length(const void *bin, size_t size)
{
    const unsigned char *b = bin;
    while (size > 0 && b[size - 1] == '\0')
        size--;
    return size;
}

/* Skips whitespace and // or block comments; returns the new position. */
static size_t skip_blank(const char *t, size_t len, size_t i)
{
    while (i < len) {
        if (isspace((unsigned char)t[i])) {
            i++;
        } else if (t[i] == '/' && i + 1 < len && t[i + 1] == '/') {
            while (i < len && t[i] != '\n')
                i++;
        } else if (t[i] == '/' && i + 1 < len && t[i + 1] == '*') {
            i += 2;
            while (i + 1 < len && !(t[i] == '*' && t[i + 1] == '/'))
                i++;
            i = i + 2 < len ? i + 2 : len;
        } else {
            break;
        }
    }
    return i;
}

size_t ptx_text_find_directive(const void *text, size_t len, const char *word)
{
    const char *t = text;
    size_t wl = strlen(word);
    size_t i = 0;
    while (i < len) {
        i = skip_blank(t, len, i);
        if (i >= len)
            break;
        if (len - i > wl && memcmp(t + i, word, wl) == 0 &&
            (isspace((unsigned char)t[i + wl])))
            return i;
        /* Not it: skip to the end of the line (directives are one a line). */
        while (i < len && t[i] != '\n')
            i++;
    }
    return len;
}

int ptx_text_is_text(const void *bin, size_t size)
{
    const char *t = bin;
    size_t len = ptx_text_length(bin, size);
    if (len == 0 || memchr(t, '\0', len) != NULL)
        return 0;
    return ptx_text_find_directive(t, len, ".version") < len;
}

int ptx_text_target(const void *text, size_t len, char arch_name[PTX_TEXT_ARCH_NAME_MAX], uint32_t *arch)
{
    const char *t = text;
    size_t i = ptx_text_find_directive(t, len, ".target");
    if (i >= len)
        return -1;
    i += strlen(".target");
    while (i < len && (t[i] == ' ' || t[i] == '\t'))
        i++;
    /* The target list is comma-separated; the sm_ name can be anywhere in it. */
    while (i < len && t[i] != '\n') {
        while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == ','))
            i++;
        size_t start = i;
        while (i < len && (isalnum((unsigned char)t[i]) || t[i] == '_'))
            i++;
        size_t n = i - start;
        if (n > 3 && memcmp(t + start, "sm_", 3) == 0) {
            size_t d = start + 3;
            unsigned long v = 0;
            size_t digits = 0;
            while (d < i && isdigit((unsigned char)t[d]) && digits < 6) {
                v = v * 10 + (unsigned long)(t[d] - '0');
                d++;
                digits++;
            }
            /* One optional feature letter: sm_90a, sm_100f. */
            if (digits == 0 || (i - d > 1) || (i - d == 1 && !isalpha((unsigned char)t[d])) ||
                n >= PTX_TEXT_ARCH_NAME_MAX)
                return -1;
            memcpy(arch_name, t + start, n);
            arch_name[n] = '\0';
            *arch = (uint32_t)v;
            return 0;
        }
        if (n == 0)
            break;
    }
    return -1;
}

void ptx_text_arch_from_cc(uint32_t major, uint32_t minor, char arch_name[PTX_TEXT_ARCH_NAME_MAX],
                      uint32_t *arch)
{
    *arch = major * 10 + minor;
    bfmt(arch_name, PTX_TEXT_ARCH_NAME_MAX, "sm_%u", (unsigned)*arch);
}
