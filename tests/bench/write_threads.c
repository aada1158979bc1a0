/*
 * write_threads — how long the writer takes to encode a pack with each
 * number of encoding threads (clcpack_writer_set_threads), and whether the
 * bytes are the same for all of them.
 *
 *   write_threads [--kernels K] [--variants V] [--min-kb A] [--max-kb B]
 *                 [--threads N,N,...] [--spool] [--out FILE] [BINARY...]
 *
 * Without BINARY arguments the pack is synthetic and NVIDIA-like
 * (tests/common/synth_pack.h): K kernels x V variants x 8 forms (one PTX,
 * cubins for seven architectures) of A..B KiB (default 40 x 12 x 8 entries
 * of 20..100 KiB). With them, each file is one entry: a name ending in
 * .ptx is PTX, any other a cubin, "sm_NN" in the name its architecture,
 * the name up to the first '.' its kernel. Prints one line per thread
 * count: seconds to encode in memory, pack bytes, and "same" or "DIFFERENT"
 * against the first count; --out writes the first count's pack. Exit 0,
 * 1 on a failure or different bytes, 2 on a usage error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/synth_pack.h"
#include "clcpack_write.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int add_file(synth_corpus *c, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "write_threads: cannot open '%s'\n", path);
        return -1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        synth_entry *e = realloc(c->entries, c->cap * sizeof *e);
        if (!e) {
            fclose(f);
            return -1;
        }
        c->entries = e;
    }
    synth_entry *e = &c->entries[c->n];
    memset(e, 0, sizeof *e);
    e->size = n > 0 ? (size_t)n : 0;
    e->bin = malloc(e->size ? e->size : 1);
    if (!e->bin || fread(e->bin, 1, e->size, f) != e->size) {
        fprintf(stderr, "write_threads: cannot read '%s'\n", path);
        free(e->bin);
        fclose(f);
        return -1;
    }
    fclose(f);
    c->n++;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    snprintf(e->kernel, sizeof e->kernel, "%.*s", (int)strcspn(base, "."), base);
    snprintf(e->value, sizeof e->value, "0");
    size_t len = strlen(base);
    e->kind = len > 4 && strcmp(base + len - 4, ".ptx") == 0 ? CLCPACK_KIND_PTX : CLCPACK_KIND_CUBIN;
    const char *sm = strstr(base, "sm_");
    e->arch = sm ? (uint32_t)strtoul(sm + 3, NULL, 10) : 90;
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"kernels", required_argument, NULL, 'k'}, {"variants", required_argument, NULL, 'v'},
        {"min-kb", required_argument, NULL, 'a'},  {"max-kb", required_argument, NULL, 'b'},
        {"threads", required_argument, NULL, 't'}, {"spool", no_argument, NULL, 's'},
        {"out", required_argument, NULL, 'o'},     {NULL, 0, NULL, 0}};
    size_t kernels = 40, variants = 12, min_kb = 20, max_kb = 100;
    const char *threads = "1,2", *out = NULL;
    uint32_t flags = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'k': kernels = strtoul(optarg, NULL, 10); break;
        case 'v': variants = strtoul(optarg, NULL, 10); break;
        case 'a': min_kb = strtoul(optarg, NULL, 10); break;
        case 'b': max_kb = strtoul(optarg, NULL, 10); break;
        case 't': threads = optarg; break;
        case 's': flags |= CLCPACK_WRITE_SPOOL; break;
        case 'o': out = optarg; break;
        default:
            fputs("usage: write_threads [--kernels K] [--variants V] [--min-kb A] [--max-kb B] "
                  "[--threads N,N,...] [--spool] [--out FILE] [BINARY...]\n", stderr);
            return 2;
        }
    }
    synth_corpus corpus;
    if (optind < argc) {
        if (synth_make(&corpus, 0, 0, 0, 0, 0, 1) != 0)
            return 1;
        for (int i = optind; i < argc; i++)
            if (add_file(&corpus, argv[i]) != 0)
                return 1;
    } else if (synth_make(&corpus, kernels, variants, min_kb << 10, max_kb << 10, 0, 0x5eed) != 0) {
        fputs("write_threads: out of memory\n", stderr);
        return 1;
    }
    uint64_t raw = 0;
    for (size_t i = 0; i < corpus.n; i++)
        raw += corpus.entries[i].size;
    printf("%zu entries, %.1f MB raw%s\n", corpus.n, (double)raw / 1e6,
           flags & CLCPACK_WRITE_SPOOL ? ", spooled" : "");
    void *first = NULL;
    size_t first_n = 0;
    int rc = 0;
    for (const char *p = threads; *p;) {
        unsigned t = (unsigned)strtoul(p, NULL, 10);
        p += strcspn(p, ",");
        p += *p == ',';
        clcpack_error err;
        clcpack_writer *w = synth_writer(&corpus, flags, &err);
        void *data = NULL;
        size_t n = 0;
        double t0 = now();
        if (!w || clcpack_writer_set_threads(w, t) != CLCPACK_OK ||
            clcpack_writer_write_memory(w, &data, &n, &err) != CLCPACK_OK) {
            fprintf(stderr, "write_threads: %s\n", err.message);
            clcpack_writer_free(w);
            rc = 1;
            break;
        }
        double secs = now() - t0;
        clcpack_writer_free(w);
        int same = !first || (n == first_n && memcmp(data, first, n) == 0);
        printf("threads %2u  %7.2f s  %zu bytes  %s\n", t, secs, n,
               first ? (same ? "same" : "DIFFERENT") : "(reference)");
        rc |= !same;
        if (!first) {
            first = data;
            first_n = n;
            if (out && clcpack_write_file_atomic(out, data, n, 0, &err) != CLCPACK_OK) {
                fprintf(stderr, "write_threads: %s\n", err.message);
                rc = 1;
            }
        } else {
            clcpack_free(data);
        }
    }
    clcpack_free(first);
    synth_free(&corpus);
    return rc;
}
