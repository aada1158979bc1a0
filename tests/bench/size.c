/*
 * size — how much a pack saves: raw binary bytes against the bytes the
 * pack stores, per device, kernel family and kernel, next to what zlib
 * alone would keep of each binary.
 *
 *   size --pack PACK [--csv FILE]
 *
 * "zlib alone" compresses each binary by itself (level 9, as the pack's
 * zlib codec does), so the column between it and the pack's is what the
 * pack's delta coding between variants adds. Sources are counted apart;
 * the pack file's size covers everything (index, sources, header). Needs
 * no device. Prints markdown tables; writes one CSV row per (device,
 * family, kernel, form). Exit status 0, 1 when the pack cannot be read, 2
 * on a usage error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "clcpack_write.h"
#include "common/bench_text.h"
#include "pack_text.h"

#define MAX_GROUPS 512

typedef struct group {
    uint32_t device;
    char family[32];
    char kernel[64];
    char form[32];              /* "native", "cubin/sm_90", "ptx/sm_90" */
    size_t entries;
    uint64_t raw, stored, zlib;
} group;

static void usage(FILE *f)
{
    fputs("usage: size --pack PACK [--csv FILE]\n", f);
}

/* Bytes zlib (level 9) leaves of one binary on its own. */
static int zlib_alone(const clcpack *p, size_t i, uint64_t *out, char *err, size_t cap)
{
    size_t size = 0;
    clcpack_error e;
    if (clcpack_read_binary(p, i, NULL, 0, &size, &e) != CLCPACK_OK) {
        bfmt(err, cap, "entry %zu: %s", i, e.message);
        return -1;
    }
    unsigned char *raw = malloc(size ? size : 1);
    uLongf zcap = compressBound((uLong)size);
    unsigned char *z = malloc(zcap);
    int rc = -1;
    if (!raw || !z) {
        bfmt(err, cap, "entry %zu: out of memory", i);
    } else if (clcpack_read_binary(p, i, raw, size, &size, &e) != CLCPACK_OK) {
        bfmt(err, cap, "entry %zu: %s", i, e.message);
    } else if (compress2(z, &zcap, raw, (uLong)size, 9) != Z_OK) {
        bfmt(err, cap, "entry %zu: zlib failed", i);
    } else {
        *out = zcap;
        rc = 0;
    }
    free(raw);
    free(z);
    return rc;
}

static group *find_group(group *g, size_t *n, const clcpack_entry_info *e, const char *family)
{
    char form[32], kind[16];
    pack_text_kind_name(e->kind, kind, sizeof kind);
    if (e->arch)
        bfmt(form, sizeof form, "%s/sm_%u", kind, (unsigned)e->arch);
    else
        bfmt(form, sizeof form, "%s", kind);
    for (size_t i = 0; i < *n; i++)
        if (g[i].device == e->device && strcmp(g[i].kernel, e->kernel) == 0 &&
            strcmp(g[i].form, form) == 0)
            return &g[i];
    if (*n == MAX_GROUPS)
        return NULL;
    group *x = &g[(*n)++];
    memset(x, 0, sizeof *x);
    x->device = e->device;
    bfmt(x->family, sizeof x->family, "%s", family[0] ? family : "-");
    bfmt(x->kernel, sizeof x->kernel, "%s", e->kernel);
    bfmt(x->form, sizeof x->form, "%s", form);
    return x;
}

static void pct(char *buf, size_t cap, uint64_t part, uint64_t whole)
{
    if (whole)
        bfmt(buf, cap, "%.1f%%", 100.0 * (double)part / (double)whole);
    else
        bfmt(buf, cap, "–");
}

static void row(const char *dev, const char *family, const char *kernel, const char *form,
                size_t entries, uint64_t raw, uint64_t zlib, uint64_t stored)
{
    char a[16], b[16];
    pct(a, sizeof a, zlib, raw);
    pct(b, sizeof b, stored, raw);
    printf("| %s | %s | %s | %s | %zu | %llu | %llu | %s | %llu | %s | %.1f:1 |\n", dev, family,
           kernel, form, entries, (unsigned long long)raw, (unsigned long long)zlib, a,
           (unsigned long long)stored, b, stored ? (double)raw / (double)stored : 0);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"pack", required_argument, NULL, 'P'},
                                         {"csv", required_argument, NULL, 'c'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *path = NULL, *csv = NULL;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'P': path = optarg; break;
        case 'c': csv = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc || !path) {
        if (optind != argc)
            fprintf(stderr, "size: unexpected argument '%s'\n", argv[optind]);
        else
            fprintf(stderr, "size: --pack is required\n");
        usage(stderr);
        return 2;
    }
    clcpack *p = NULL;
    clcpack_error e;
    if (clcpack_open_file(path, &p, &e) != CLCPACK_OK) {
        fprintf(stderr, "size: %s\n", e.message); /* it names the file */
        return 1;
    }
    struct stat st;
    uint64_t file_size = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
    static group g[MAX_GROUPS];
    size_t n = 0;
    char err[CLCPACK_MESSAGE_MAX + 64];
    for (size_t i = 0; i < clcpack_entry_count(p); i++) {
        clcpack_entry_info info = {.struct_size = sizeof info};
        const char *family = "";
        uint64_t z = 0;
        group *x;
        if (clcpack_get_entry(p, i, &info) != CLCPACK_OK ||
            clcpack_get_entry_family(p, i, &family) != CLCPACK_OK ||
            zlib_alone(p, i, &z, err, sizeof err) != 0 ||
            !(x = find_group(g, &n, &info, family))) {
            fprintf(stderr, "size: %s: %s\n", path,
                    n == MAX_GROUPS ? "more kernel groups than this program counts" : err);
            clcpack_close(p);
            return 1;
        }
        x->entries++;
        x->raw += info.raw_size;
        x->stored += info.stored_size;
        x->zlib += z;
    }
    uint64_t src_raw = 0, src_stored = 0;
    for (size_t i = 0; i < clcpack_source_count(p); i++) {
        clcpack_source_info s = {.struct_size = sizeof s};
        if (clcpack_get_source(p, i, &s) == CLCPACK_OK) {
            src_raw += s.raw_size;
            src_stored += s.stored_size;
        }
    }

    printf("### Pack size\n\n");
    printf("`%s`: %llu bytes, %zu entries, %zu device%s. *zlib alone*: each binary compressed "
           "by itself (level 9); *pack*: the bytes the pack stores for the entries (zlib, or "
           "zlib of the XOR with a similar variant); ratio = raw / pack.\n\n",
           path, (unsigned long long)file_size, clcpack_entry_count(p), clcpack_device_count(p),
           clcpack_device_count(p) == 1 ? "" : "s");
    printf("| device | family | kernel | form | entries | raw bytes | zlib alone | kept | "
           "pack bytes | kept | ratio |\n|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    bench_text t = {0};
    bench_text_add(&t, "device,device_index,family,kernel,form,entries,raw_bytes,zlib_bytes,"
                       "pack_bytes\n");
    uint64_t all_raw = 0, all_stored = 0, all_zlib = 0;
    size_t all_entries = 0;
    for (size_t d = 0; d < clcpack_device_count(p); d++) {
        clcpack_device_info di = {.struct_size = sizeof di};
        if (clcpack_get_device(p, d, &di) != CLCPACK_OK)
            continue;
        char dev[64];
        bfmt(dev, sizeof dev, "%zu", d);
        /* Families in order of first appearance, each followed by its total. */
        for (size_t f = 0; f < n; f++) {
            int first = g[f].device == d;
            for (size_t k = 0; k < f && first; k++)
                first = !(g[k].device == d && strcmp(g[k].family, g[f].family) == 0);
            if (!first)
                continue;
            uint64_t raw = 0, stored = 0, z = 0;
            size_t entries = 0;
            for (size_t k = 0; k < n; k++) {
                if (g[k].device != d || strcmp(g[k].family, g[f].family) != 0)
                    continue;
                row(dev, g[k].family, g[k].kernel, g[k].form, g[k].entries, g[k].raw, g[k].zlib,
                    g[k].stored);
                raw += g[k].raw;
                stored += g[k].stored;
                z += g[k].zlib;
                entries += g[k].entries;
                bench_text_csv_field(&t, di.device_name);
                bench_text_add(&t, ",%zu,%s,%s,%s,%zu,%llu,%llu,%llu\n", d, g[k].family,
                               g[k].kernel, g[k].form, g[k].entries,
                               (unsigned long long)g[k].raw, (unsigned long long)g[k].zlib,
                               (unsigned long long)g[k].stored);
            }
            char fam[48];
            bfmt(fam, sizeof fam, "**%s**", g[f].family);
            row(dev, fam, "**all**", "", entries, raw, z, stored);
            all_raw += raw;
            all_stored += stored;
            all_zlib += z;
            all_entries += entries;
        }
    }
    row("all", "", "**binaries**", "", all_entries, all_raw, all_zlib, all_stored);
    printf("\nDevices: ");
    for (size_t d = 0; d < clcpack_device_count(p); d++) {
        clcpack_device_info di = {.struct_size = sizeof di};
        if (clcpack_get_device(p, d, &di) == CLCPACK_OK)
            printf("%s%zu = %s (driver %s)", d ? "; " : "", d, di.device_name, di.driver_version);
    }
    printf(".\n\nSources: %zu, %llu bytes raw, %llu stored. Whole pack file: %llu bytes for "
           "%llu raw bytes of binaries and sources (%.1f:1).\n",
           clcpack_source_count(p), (unsigned long long)src_raw, (unsigned long long)src_stored,
           (unsigned long long)file_size, (unsigned long long)(all_raw + src_raw),
           file_size ? (double)(all_raw + src_raw) / (double)file_size : 0);
    int rc = 0;
    if (csv && bench_text_write(&t, csv, err, sizeof err) != 0) {
        fprintf(stderr, "size: %s\n", err);
        rc = 1;
    }
    bench_text_free(&t);
    clcpack_close(p);
    return rc;
}
