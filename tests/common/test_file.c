/* test_file.c — whole files in and out, a command's output (test_file.h). */
#include "test_file.h"

#include <stdio.h>
#include <stdlib.h>

unsigned char *test_read_file(const char *path, size_t *n)
{
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    unsigned char *b = size >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc(size ? (size_t)size : 1)
                                                               : NULL;
    if (b && fread(b, 1, (size_t)size, f) != (size_t)size) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b)
        *n = (size_t)size;
    return b;
}

int test_write_file(const char *path, const void *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(b, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

int test_run_capture(const char *cmd, char *out, size_t cap)
{
    FILE *f = popen(cmd, "r");
    if (!f)
        return -1;
    size_t n = fread(out, 1, cap - 1, f);
    out[n] = '\0';
    /* Drain the rest, so the command never blocks on a full pipe. */
    char sink[4096];
    while (fread(sink, 1, sizeof sink, f) > 0)
        ;
    return pclose(f);
}
