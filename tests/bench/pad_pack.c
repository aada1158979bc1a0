/*
 * pad_pack — a real pack grown to a given size by filler entries whose
 * blobs are a hole in the file (tests/common/hostile_pack.h), for the
 * cold-start benchmark's larger packs: the real entries stay where they
 * are, the index gets one record per filler.
 *
 *   pad_pack IN OUT TARGET_BYTES [FILLER_BYTES]
 *
 * FILLER_BYTES (default 98304, about a PoCL binary) is each filler's size.
 * Exit status 0; 1 when IN cannot be read or OUT written; 2 on a usage
 * error.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../common/hostile_pack.h"

static unsigned long long number(const char *s, int *bad)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    *bad |= end == s || *end != '\0' || v == 0;
    return v;
}

int main(int argc, char **argv)
{
    int bad = argc != 4 && argc != 5;
    unsigned long long target = bad ? 0 : number(argv[3], &bad);
    unsigned long long filler = argc == 5 ? number(argv[4], &bad) : 98304;
    if (bad) {
        fputs("usage: pad_pack IN OUT TARGET_BYTES [FILLER_BYTES]\n", stderr);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0) {
        fprintf(stderr, "pad_pack: cannot read '%s'\n", argv[1]);
        return 1;
    }
    long n = ftell(f);
    uint8_t *buf = n > 0 ? malloc((size_t)n) : NULL;
    int ok = buf && fseek(f, 0, SEEK_SET) == 0 && fread(buf, 1, (size_t)n, f) == (size_t)n;
    fclose(f);
    size_t fillers = 0;
    if (!ok || hostile_padded_pack(buf, (size_t)n, argv[2], target, filler, &fillers) != 0) {
        fprintf(stderr, "pad_pack: cannot pad '%s' into '%s'\n", argv[1], argv[2]);
        free(buf);
        return 1;
    }
    printf("%s: %zu filler entries of %llu bytes\n", argv[2], fillers, filler);
    free(buf);
    return 0;
}
