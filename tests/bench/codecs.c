/*
 * codecs — how small a pack's binaries get, by the pack's own codecs and by
 * general-purpose compressors on the same bytes, with xz -9e over all of
 * them as the limit for this content.
 *
 *   codecs --pack PACK[=LABEL] [--pack PACK[=LABEL]]... [--csv FILE]
 *
 * The binaries are those of the first pack (every entry, decoded). Each
 * pack named is measured as it is (its entry blobs and dictionaries, and
 * its whole file); then, on the binaries:
 *  - gzip -9 of all of them as one stream (zlib, level 9, gzip framing);
 *  - zstd -19 of each alone;
 *  - zstd -19 of each with the first binary of its group (kernel, device,
 *    kind, architecture) as prefix (zstd --patch-from);
 *  - zstd -19 of each with one 256 KiB dictionary trained on all of them
 *    (dictionary counted);
 *  - zstd -19 --long of all of them as one stream;
 *  - xz -9e of all of them as one stream (the xz command).
 * The per-entry ones keep random access to one entry; the solid ones do
 * not. Level 19 and one thread everywhere. Prints markdown; exit status 0,
 * 1 when a pack cannot be read, 2 on a usage error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zdict.h>
#include <zstd.h>

#include "clcpack_write.h"

#define MAX_PACKS 8
#define LEVEL 19
#define DICT_BYTES (256u << 10)

typedef struct bins {
    uint8_t **b;
    size_t *n;
    size_t count, total;
    clcpack_entry_info *info;
} bins;

typedef struct row {
    char how[200];
    double bytes;
    const char *access;
} row;

static row rows[32];
static size_t n_rows;

static void add_row(const char *how, double bytes, const char *access)
{
    if (n_rows < sizeof rows / sizeof rows[0]) {
        snprintf(rows[n_rows].how, sizeof rows[n_rows].how, "%s", how);
        rows[n_rows].bytes = bytes;
        rows[n_rows].access = access;
        n_rows++;
    }
}

static int load_bins(const char *path, bins *out, clcpack **keep)
{
    clcpack_error e;
    clcpack *p = NULL;
    if (clcpack_open_file(path, &p, &e) != CLCPACK_OK) {
        fprintf(stderr, "codecs: %s\n", e.message);
        return -1;
    }
    size_t n = clcpack_entry_count(p);
    out->b = calloc(n + 1, sizeof *out->b);
    out->n = calloc(n + 1, sizeof *out->n);
    out->info = calloc(n + 1, sizeof *out->info);
    out->count = n;
    out->total = 0;
    for (size_t i = 0; i < n; i++) {
        out->info[i].struct_size = sizeof out->info[i];
        clcpack_get_entry(p, i, &out->info[i]);
        out->n[i] = (size_t)out->info[i].raw_size;
        out->b[i] = malloc(out->n[i]);
        size_t got;
        if (!out->b[i] ||
            clcpack_read_binary(p, i, out->b[i], out->n[i], &got, &e) != CLCPACK_OK) {
            fprintf(stderr, "codecs: %s: entry %zu: %s\n", path, i, e.message);
            return -1;
        }
        out->total += out->n[i];
    }
    *keep = p;
    return 0;
}

/* One zstd frame of src at LEVEL (with dict, prefix or long matching). */
static size_t zstd_size(ZSTD_CCtx *c, const void *src, size_t n, const ZSTD_CDict *dict,
                        const void *prefix, size_t prefix_n, int longm)
{
    size_t cap = ZSTD_compressBound(n);
    void *out = malloc(cap);
    ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, LEVEL);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 0);
    if (longm) {
        ZSTD_CCtx_setParameter(c, ZSTD_c_enableLongDistanceMatching, 1);
        ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 27);
    }
    if (dict)
        ZSTD_CCtx_refCDict(c, dict);
    if (prefix)
        ZSTD_CCtx_refPrefix(c, prefix, prefix_n);
    size_t r = ZSTD_compress2(c, out, cap, src, n);
    free(out);
    return ZSTD_isError(r) ? 0 : r;
}

static uint8_t *concat(const bins *b)
{
    uint8_t *all = malloc(b->total ? b->total : 1), *at = all;
    for (size_t i = 0; all && i < b->count; i++) {
        memcpy(at, b->b[i], b->n[i]);
        at += b->n[i];
    }
    return all;
}

static size_t gzip9(const uint8_t *all, size_t n)
{
    z_stream zs = {0};
    if (deflateInit2(&zs, 9, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return 0;
    uLong cap = deflateBound(&zs, (uLong)n);
    uint8_t *out = malloc(cap);
    zs.next_in = (Bytef *)all;
    zs.avail_in = (uInt)n;
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    int rc = deflate(&zs, Z_FINISH);
    size_t got = rc == Z_STREAM_END ? zs.total_out : 0;
    deflateEnd(&zs);
    free(out);
    return got;
}

/* xz -9e of the bytes, through the xz command; 0 when it is missing. */
static size_t xz9e(const uint8_t *all, size_t n)
{
    char tmp[] = "/tmp/codecs-xz-XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0)
        return 0;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, all + done, n - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    close(fd);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "xz -9e -T1 -c '%s' 2>/dev/null | wc -c", tmp);
    FILE *f = popen(cmd, "r");
    unsigned long long got = 0;
    if (f && fscanf(f, "%llu", &got) != 1)
        got = 0;
    int status = f ? pclose(f) : -1;
    unlink(tmp);
    return done == n && status == 0 ? (size_t)got : 0;
}

static int same_group(const clcpack_entry_info *a, const clcpack_entry_info *b)
{
    return strcmp(a->kernel, b->kernel) == 0 && a->device == b->device && a->kind == b->kind &&
           a->arch == b->arch;
}

/* The pack's own storage of its binaries: entry blobs and dictionaries. */
static double pack_binary_bytes(const clcpack *p)
{
    double s = 0;
    for (size_t i = 0; i < clcpack_entry_count(p); i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        clcpack_get_entry(p, i, &e);
        s += (double)e.stored_size;
    }
    for (size_t i = 0; i < clcpack_dictionary_count(p); i++) {
        clcpack_dictionary_info d = {.struct_size = sizeof d};
        clcpack_get_dictionary(p, i, &d);
        s += (double)d.stored_size;
    }
    return s;
}

static const char *codec_family(const clcpack *p)
{
    for (size_t i = 0; i < clcpack_entry_count(p); i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        clcpack_get_entry(p, i, &e);
        if (e.codec >= 3)
            return "zstd";
    }
    return "zlib, XOR deltas";
}

int main(int argc, char **argv)
{
    const char *packs[MAX_PACKS], *labels[MAX_PACKS], *csv = NULL;
    size_t n_packs = 0;
    static const struct option opts[] = {{"pack", required_argument, NULL, 'p'},
                                         {"csv", required_argument, NULL, 'c'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'p' && n_packs < MAX_PACKS) {
            char *eq = strchr(optarg, '=');
            labels[n_packs] = eq ? eq + 1 : NULL;
            if (eq)
                *eq = '\0';
            packs[n_packs++] = optarg;
        } else if (c == 'c') {
            csv = optarg;
        } else {
            fputs("usage: codecs --pack PACK[=LABEL] [--pack PACK[=LABEL]]... [--csv FILE]\n",
                  c == 'h' ? stdout : stderr);
            return c == 'h' ? 0 : 2;
        }
    }
    if (!n_packs || optind != argc) {
        fputs("usage: codecs --pack PACK[=LABEL] [--pack PACK[=LABEL]]... [--csv FILE]\n", stderr);
        return 2;
    }
    bins b;
    clcpack *first = NULL;
    if (load_bins(packs[0], &b, &first) != 0)
        return 1;
    char how[200];
    for (size_t k = 0; k < n_packs; k++) {
        clcpack *p = NULL;
        clcpack_error e;
        struct stat sb;
        if (clcpack_open_file(packs[k], &p, &e) != CLCPACK_OK || stat(packs[k], &sb) != 0) {
            fprintf(stderr, "codecs: %s\n", e.message);
            return 1;
        }
        snprintf(how, sizeof how, "%s (%s; whole file %.2f MB)", labels[k] ? labels[k] : packs[k],
                 codec_family(p), (double)sb.st_size / 1e6);
        add_row(how, pack_binary_bytes(p), "yes");
        clcpack_close(p);
    }
    uint8_t *all = concat(&b);
    add_row("gzip -9, all binaries as one stream", (double)gzip9(all, b.total), "no");
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    double plain = 0, patch = 0, dicted = 0;
    for (size_t i = 0; i < b.count; i++) {
        plain += (double)zstd_size(cc, b.b[i], b.n[i], NULL, NULL, 0, 0);
        size_t g = i;
        while (g > 0 && same_group(&b.info[g - 1], &b.info[i]))
            g--;
        patch += (double)(g == i ? zstd_size(cc, b.b[i], b.n[i], NULL, NULL, 0, 0)
                                 : zstd_size(cc, b.b[i], b.n[i], NULL, b.b[g], b.n[g], 0));
    }
    add_row("zstd -19 per entry, no dictionary", plain, "yes");
    add_row("zstd -19 --patch-from the first entry of its kernel and form", patch, "yes");
    uint8_t *dict = malloc(DICT_BYTES);
    size_t dn = ZDICT_trainFromBuffer(dict, DICT_BYTES, all, b.n, (unsigned)b.count);
    if (!ZDICT_isError(dn)) {
        ZSTD_CDict *cd = ZSTD_createCDict(dict, dn, LEVEL);
        for (size_t i = 0; i < b.count; i++)
            dicted += (double)zstd_size(cc, b.b[i], b.n[i], cd, NULL, 0, 0);
        ZSTD_freeCDict(cd);
        snprintf(how, sizeof how, "zstd -19 per entry, one %zu KiB trained dictionary (counted)",
                 dn >> 10);
        add_row(how, dicted + (double)dn, "yes");
    }
    free(dict);
    add_row("zstd -19 --long, all binaries as one stream",
            (double)zstd_size(cc, all, b.total, NULL, NULL, 0, 1), "no");
    size_t xz = xz9e(all, b.total);
    add_row(xz ? "xz -9e, all binaries as one stream (the limit for this content)"
               : "xz -9e (xz not found)",
            (double)xz, "no");
    ZSTD_freeCCtx(cc);
    free(all);

    printf("%zu binaries, %.2f MB raw (%s).\n\n", b.count, (double)b.total / 1e6, packs[0]);
    printf("| how | MB | of raw | of xz -9e | random access to one entry |\n|---|---:|---:|---:|---|\n");
    for (size_t r = 0; r < n_rows; r++)
        printf("| %s | %.2f | %.1f%% | %.2fx | %s |\n", rows[r].how, rows[r].bytes / 1e6,
               100.0 * rows[r].bytes / (double)b.total, xz ? rows[r].bytes / (double)xz : 0.0,
               rows[r].access);
    if (csv) {
        FILE *f = fopen(csv, "w");
        if (f) {
            fprintf(f, "how,bytes,raw_bytes,xz_bytes,random_access\n");
            for (size_t r = 0; r < n_rows; r++)
                fprintf(f, "\"%s\",%.0f,%zu,%zu,%s\n", rows[r].how, rows[r].bytes, b.total, xz,
                        rows[r].access);
            fclose(f);
        }
    }
    clcpack_close(first);
    return 0;
}
