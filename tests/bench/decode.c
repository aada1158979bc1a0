/*
 * decode — what reading a pack's entries costs the loader, without a
 * driver: for every entry, the CPU time of clcpack_read_binary
 *  - cold: on a handle freshly opened on the file (no decoded base or
 *    dictionary kept, the blobs read from the file), as the first load of
 *    a variant in an application;
 *  - in order: on one handle reading the entries one after another, as
 *    verify or an application loading several variants of a kernel (the
 *    handle keeps decoded delta bases).
 *
 *   decode --pack PACK [--reps N] [--csv FILE]
 *
 * Thread CPU time, so that other load on a shared machine counts less
 * than in wall time. Prints one markdown row (per-entry means, the longest
 * chain's mean, the inflater built in); exit status 0, 1 when the pack
 * cannot be read, 2 on a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clcpack.h"
#include "codec.h"

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static uint8_t *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = NULL;
    size_t cap = 0;
    *n = 0;
    for (;;) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 1 << 20;
            uint8_t *b = realloc(buf, cap);
            if (!b) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = b;
        }
        size_t got = fread(buf + *n, 1, cap - *n, f);
        *n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    return buf;
}

/* Entries decoded to get entry i: its chain through XOR-delta (2) and
 * zstd-prefix (5) bases; a dictionary (codec 4's base) is not an entry. */
static size_t chain_of(const clcpack *p, size_t i)
{
    size_t n = 1;
    clcpack_entry_info e = {.struct_size = sizeof e};
    clcpack_get_entry(p, i, &e);
    while ((e.codec == 2 || e.codec == 5) && n < 64) {
        clcpack_get_entry(p, e.base, &e);
        n++;
    }
    return n;
}

int main(int argc, char **argv)
{
    const char *pack = NULL, *csv = NULL;
    long reps = 3;
    static const struct option opts[] = {{"pack", required_argument, NULL, 'p'},
                                         {"reps", required_argument, NULL, 'r'},
                                         {"csv", required_argument, NULL, 'o'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': pack = optarg; break;
        case 'r': reps = strtol(optarg, NULL, 10); break;
        case 'o': csv = optarg; break;
        case 'h': puts("usage: decode --pack PACK [--reps N] [--csv FILE]"); return 0;
        default: fputs("usage: decode --pack PACK [--reps N] [--csv FILE]\n", stderr); return 2;
        }
    }
    if (!pack || reps < 1 || reps > 1000 || optind != argc) {
        fputs("usage: decode --pack PACK [--reps N] [--csv FILE]\n", stderr);
        return 2;
    }
    size_t size;
    uint8_t *data = read_file(pack, &size);
    clcpack *p = NULL;
    clcpack_error e;
    if (!data || clcpack_open_memory(data, size, &p, &e) != CLCPACK_OK) {
        fprintf(stderr, "decode: cannot read '%s'\n", pack);
        free(data);
        return 1;
    }
    size_t n = clcpack_entry_count(p), longest = 0;
    for (size_t i = 0; i < n; i++)
        if (chain_of(p, i) > longest)
            longest = chain_of(p, i);
    double cold = 0, warm = 0, cold_longest = 0, raw = 0;
    size_t n_longest = 0;
    for (long r = 0; r < reps; r++) {
        clcpack *seq = NULL;
        clcpack_open_memory(data, size, &seq, &e);
        for (size_t i = 0; i < n; i++) {
            clcpack_entry_info ei = {.struct_size = sizeof ei};
            clcpack_get_entry(p, i, &ei);
            uint8_t *buf = malloc((size_t)ei.raw_size);
            size_t got;
            /* A fresh handle on the file, as an application's start has:
             * the blob (and any dictionary) is read from the file. */
            clcpack *fresh = NULL;
            clcpack_open_file(pack, &fresh, &e);
            double t = cpu_ms();
            clcpack_status st = clcpack_read_binary(fresh, i, buf, (size_t)ei.raw_size, &got, &e);
            double dt = cpu_ms() - t;
            clcpack_close(fresh);
            t = cpu_ms();
            st |= clcpack_read_binary(seq, i, buf, (size_t)ei.raw_size, &got, &e);
            warm += cpu_ms() - t;
            free(buf);
            if (st != CLCPACK_OK) {
                fprintf(stderr, "decode: entry %zu: %s\n", i, e.message);
                return 1;
            }
            cold += dt;
            raw += (double)ei.raw_size;
            if (chain_of(p, i) == longest) {
                cold_longest += dt;
                n_longest++;
            }
        }
        clcpack_close(seq);
    }
    double per = (double)n * (double)reps;
    printf("| inflater | entries | mean raw KB | cold ms/entry | cold ms, chain %zu | in order ms/entry |\n"
           "|---|---:|---:|---:|---:|---:|\n"
           "| %s | %zu | %.1f | %.3f | %.3f | %.3f |\n",
           longest, clcpk_inflate_method(), n, raw / per / 1024, cold / per,
           n_longest ? cold_longest / (double)n_longest : 0.0, warm / per);
    if (csv) {
        FILE *f = fopen(csv, "w");
        if (f) {
            fprintf(f, "inflater,entries,mean_raw_kb,cold_ms,cold_longest_ms,in_order_ms\n"
                       "%s,%zu,%.3f,%.4f,%.4f,%.4f\n",
                    clcpk_inflate_method(), n, raw / per / 1024, cold / per,
                    n_longest ? cold_longest / (double)n_longest : 0.0, warm / per);
            fclose(f);
        }
    }
    clcpack_close(p);
    free(data);
    return 0;
}
