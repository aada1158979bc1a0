/* test_file.c — whole files in and out (test_file.h). */
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
