/*
 * test_format.c — the pack format without a device: writer and reader round
 * trip, byte-identical output whatever the add order, the writer's argument
 * checks and atomic file writes, and every reader error path on packs
 * crafted byte by byte from docs/FORMAT.md (an encoder independent of the
 * library's, so the document is checked too).
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifndef _WIN32
#include <sys/resource.h>
#include <sys/wait.h>
#endif
#include <unistd.h>
#include <zlib.h>
#if defined(CLCPK_HAVE_ZSTD)
#include <zstd.h>
#endif

#include "check.h"
#include "portable.h"
#include "test_rng.h"
#include "clcpack_write.h"

/* ------------------------------------------------------------------ */
/* Deterministic random bytes                                          */

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void) { return test_rng_next(&rng); }

static void fill_random(uint8_t *p, size_t n) { test_rng_fill(&rng, p, n); }

/* ------------------------------------------------------------------ */
/* A corpus of devices, sources and entries                            */

#define N_WIDTHS 12
#define MAX_ENTRIES 128

typedef struct corpus_entry {
    char kernel[16], family[16], options[96];
    char def_names[2][16], def_values[2][16];
    size_t n_defines;
    uint32_t wg[3];
    uint32_t device; /* index into corpus devices */
    int source;      /* index into corpus sources, -1 for none */
    clcpack_binary_kind kind;
    uint32_t arch;
    uint8_t *bin;
    size_t size;
    uint32_t tune_runs;
} corpus_entry;

typedef struct corpus {
    clcpack_device_info devices[3];
    const char *source_names[5];
    char *source_texts[5];
    corpus_entry entries[MAX_ENTRIES];
    size_t n_entries;
} corpus;

static void make_device(clcpack_device_info *d, const char *plat, const char *name,
                        const char *driver, uint32_t vendor, int nvidia)
{
    memset(d, 0, sizeof *d);
    d->struct_size = sizeof *d;
    snprintf(d->platform_name, sizeof d->platform_name, "%s", plat);
    snprintf(d->platform_version, sizeof d->platform_version, "OpenCL 3.0 %s", plat);
    snprintf(d->device_name, sizeof d->device_name, "%s", name);
    snprintf(d->device_version, sizeof d->device_version, "OpenCL 3.0");
    snprintf(d->driver_version, sizeof d->driver_version, "%s", driver);
    snprintf(d->opencl_c_version, sizeof d->opencl_c_version, "OpenCL C 1.2");
    d->device_type = nvidia ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_CPU;
    d->vendor_id = vendor;
    d->address_bits = 64;
    if (nvidia) {
        d->has_uuid = 1;
        fill_random(d->device_uuid, 16);
        fill_random(d->driver_uuid, 16);
        d->nv_cc_major = 9;
        d->nv_cc_minor = 0;
    }
}

/* Binaries of one group look alike (a shared body, a few bytes changed per
 * width, two layouts alternating) so the delta codec has work to do. */
static void make_group_binaries(corpus *c, size_t first, size_t n, size_t size, int incompressible)
{
    uint8_t *body[2];
    for (int l = 0; l < 2; l++) {
        body[l] = malloc(size + 64);
        for (size_t i = 0; i < size + 64; i++)
            body[l][i] = (uint8_t)(incompressible ? rnd() >> 24 : "kernel-body"[(i / 7) % 11] ^ (i % 251 == 0 ? rnd() & 0xff : 0));
    }
    for (size_t k = 0; k < n; k++) {
        corpus_entry *e = &c->entries[first + k];
        e->size = size + (k % 2) * 48 + (incompressible ? 0 : 0);
        e->bin = malloc(e->size);
        memcpy(e->bin, body[k % 2], e->size);
        if (incompressible)
            fill_random(e->bin, e->size);
        for (int j = 0; j < 12; j++)
            e->bin[rnd() % e->size] = (uint8_t)rnd();
    }
    free(body[0]);
    free(body[1]);
}

static void make_corpus(corpus *c)
{
    memset(c, 0, sizeof *c);
    make_device(&c->devices[0], "Portable Computing Language", "pthread-test", "3.1", 0x10006, 0);
    make_device(&c->devices[1], "Portable Computing Language", "pthread-test", "3.2", 0x10006, 0);
    make_device(&c->devices[2], "NVIDIA CUDA", "NVIDIA Test GPU", "580.1", 0x10DE, 1);
    static const char *names[5] = {"conv_b.cl", "conv_a.cl", "poly.cl", "unused.cl", "other.cl"};
    for (int s = 0; s < 5; s++) {
        c->source_names[s] = names[s];
        size_t n = 3000 + (size_t)s * 1000;
        c->source_texts[s] = malloc(n + 1);
        for (size_t i = 0; i < n; i++)
            c->source_texts[s][i] = "__kernel void f() { int x = FILTER_WIDTH; }\n"[i % 44];
        c->source_texts[s][n] = '\0';
        c->source_texts[s][0] = (char)('a' + s);
    }
    /* conv_b.cl and conv_a.cl: the same text under two names. */
    free(c->source_texts[1]);
    c->source_texts[1] = strdup(c->source_texts[0]);

    static const uint32_t wgs[2][3] = {{16, 16, 1}, {8, 8, 1}};
    struct {
        uint32_t device;
        clcpack_binary_kind kind;
        uint32_t arch;
        int incompressible;
    } forms[4] = {{0, CLCPACK_KIND_NATIVE, 0, 0},
                  {1, CLCPACK_KIND_NATIVE, 0, 0},
                  {2, CLCPACK_KIND_PTX, 80, 0},
                  {2, CLCPACK_KIND_CUBIN, 90, 1}};
    for (int f = 0; f < 4; f++)
        for (int w = 0; w < 2; w++) {
            size_t first = c->n_entries;
            for (int k = 0; k < N_WIDTHS; k++) {
                corpus_entry *e = &c->entries[c->n_entries++];
                int width = 3 + 2 * k;
                snprintf(e->kernel, sizeof e->kernel, "Convolve_Def");
                snprintf(e->family, sizeof e->family, "conv_grey");
                snprintf(e->options, sizeof e->options,
                         "-cl-std=CL1.2 -DFILTER_WIDTH=%d -DWG_X=%u -DWG_Y=%u", width, wgs[w][0],
                         wgs[w][1]);
                e->n_defines = 1;
                snprintf(e->def_names[0], sizeof e->def_names[0], "FILTER_WIDTH");
                snprintf(e->def_values[0], sizeof e->def_values[0], "%d", width);
                memcpy(e->wg, wgs[w], sizeof e->wg);
                e->device = forms[f].device;
                e->source = f == 1 ? 1 : 0;
                e->kind = forms[f].kind;
                e->arch = forms[f].arch;
                e->tune_runs = (uint32_t)(k % 3);
            }
            make_group_binaries(c, first, N_WIDTHS, forms[f].incompressible ? 700 : 2000 + 100 * (size_t)f,
                                forms[f].incompressible);
        }
    /* Two entries with a bare define, no work-group and no source; one a
     * single byte. */
    for (int k = 0; k < 2; k++) {
        corpus_entry *e = &c->entries[c->n_entries++];
        snprintf(e->kernel, sizeof e->kernel, "Poly");
        snprintf(e->options, sizeof e->options, "-DUNROLL -DNUMCOEFFS=%d", 4 << k);
        e->n_defines = 2;
        snprintf(e->def_names[0], sizeof e->def_names[0], "UNROLL");
        snprintf(e->def_names[1], sizeof e->def_names[1], "NUMCOEFFS");
        snprintf(e->def_values[1], sizeof e->def_values[1], "%d", 4 << k);
        e->device = 0;
        e->source = k == 0 ? 2 : -1;
        e->kind = CLCPACK_KIND_NATIVE;
        e->size = k == 0 ? 1 : 5000;
        e->bin = malloc(e->size);
        fill_random(e->bin, e->size);
    }
}

static void free_corpus(corpus *c)
{
    for (int s = 0; s < 5; s++)
        free(c->source_texts[s]);
    for (size_t i = 0; i < c->n_entries; i++)
        free(c->entries[i].bin);
}

static void spec_of(const corpus_entry *e, clcpack_define defs[2], uint32_t device, uint32_t source,
                    clcpack_entry_spec *s)
{
    memset(s, 0, sizeof *s);
    s->struct_size = sizeof *s;
    s->kernel = e->kernel;
    s->family = e->family[0] ? e->family : NULL;
    s->options = e->options;
    for (size_t k = 0; k < e->n_defines; k++) {
        defs[k].name = e->def_names[k];
        defs[k].value = e->def_values[k][0] ? e->def_values[k] : NULL;
    }
    s->defines = defs;
    s->define_count = e->n_defines;
    memcpy(s->wg, e->wg, sizeof s->wg);
    s->device = device;
    s->source = source;
    s->kind = e->kind;
    s->arch = e->arch;
    s->binary = e->bin;
    s->binary_size = e->size;
}

/* The codecs the corpus is written with (test_round_trip runs both). */
static clcpack_compression compression = CLCPACK_COMPRESSION_DEFAULT;

/* Adds the corpus in an order given by a seed (0: the natural order). */
static clcpack_writer *write_corpus(const corpus *c, uint32_t flags, uint64_t seed)
{
    clcpack_writer *w = NULL;
    clcpack_error err;
    if (!CHECK(clcpack_writer_new(flags, &w, &err) == CLCPACK_OK, "writer_new"))
        return NULL;
    if (!CHECK(clcpack_writer_set_compression(w, compression, &err) == CLCPACK_OK,
               "set_compression %d: %s", (int)compression, err.message)) {
        clcpack_writer_free(w);
        return NULL;
    }
    size_t dperm[3] = {0, 1, 2}, sperm[5] = {0, 1, 2, 3, 4}, eperm[MAX_ENTRIES];
    for (size_t i = 0; i < c->n_entries; i++)
        eperm[i] = i;
    if (seed) {
        uint64_t save = rng;
        rng = seed;
        for (size_t i = 2; i > 0; i--) {
            size_t j = rnd() % (i + 1), t = dperm[i];
            dperm[i] = dperm[j];
            dperm[j] = t;
        }
        for (size_t i = 4; i > 0; i--) {
            size_t j = rnd() % (i + 1), t = sperm[i];
            sperm[i] = sperm[j];
            sperm[j] = t;
        }
        for (size_t i = c->n_entries - 1; i > 0; i--) {
            size_t j = rnd() % (i + 1), t = eperm[i];
            eperm[i] = eperm[j];
            eperm[j] = t;
        }
        rng = save;
    }
    uint32_t dev_idx[3], src_idx[5];
    for (size_t k = 0; k < 3; k++)
        CHECK(clcpack_writer_add_device(w, &c->devices[dperm[k]], &dev_idx[dperm[k]], &err) ==
                  CLCPACK_OK,
              "add_device: %s", err.message);
    for (size_t k = 0; k < 5; k++) {
        size_t s = sperm[k];
        CHECK(clcpack_writer_add_source(w, c->source_names[s], c->source_texts[s],
                                        strlen(c->source_texts[s]), &src_idx[s], &err) == CLCPACK_OK,
              "add_source: %s", err.message);
    }
    for (size_t k = 0; k < c->n_entries; k++) {
        const corpus_entry *e = &c->entries[eperm[k]];
        clcpack_define defs[2];
        clcpack_entry_spec s;
        spec_of(e, defs, dev_idx[e->device], e->source < 0 ? CLCPACK_NONE : src_idx[e->source], &s);
        if (!CHECK(clcpack_writer_add_entry(w, &s, &err) == CLCPACK_OK, "add_entry %zu: %s",
                   eperm[k], err.message))
            continue;
        if (e->tune_runs)
            CHECK(clcpack_writer_set_tuning(w, &s, 1024, 768, e->tune_runs, 1000 + eperm[k], &err) ==
                      CLCPACK_OK,
                  "set_tuning: %s", err.message);
    }
    return w;
}

/* Finds corpus entry e in the pack and checks every field and the bytes. */
static void check_entry_round_trip(const clcpack *p, const corpus *c, const corpus_entry *e,
                                   size_t ci, int with_sources)
{
    clcpack_define defs[2];
    clcpack_entry_spec s;
    spec_of(e, defs, 0, 0, &s);
    clcpack_key key = {e->kernel, defs, e->n_defines, {e->wg[0], e->wg[1], e->wg[2]}};
    size_t idx[16], n = 0;
    clcpack_error err;
    if (!CHECK(clcpack_find(p, &key, idx, 16, &n, &err) == CLCPACK_OK, "find corpus entry %zu: %s",
               ci, err.message))
        return;
    size_t hit = SIZE_MAX;
    for (size_t k = 0; k < n && k < 16; k++) {
        clcpack_entry_info info = {.struct_size = sizeof info};
        clcpack_device_info dev = {.struct_size = sizeof dev};
        clcpack_get_entry(p, idx[k], &info);
        clcpack_get_device(p, info.device, &dev);
        if (info.kind == e->kind && info.arch == e->arch &&
            clcpack_device_equal(&dev, &c->devices[e->device]))
            hit = idx[k];
    }
    if (!CHECK(hit != SIZE_MAX, "corpus entry %zu: no entry with its device and form", ci))
        return;
    clcpack_entry_info info = {.struct_size = sizeof info};
    clcpack_get_entry(p, hit, &info);
    const char *family = "?";
    clcpack_get_entry_family(p, hit, &family);
    CHECK(strcmp(info.options, e->options) == 0 && strcmp(family, e->family) == 0 &&
              info.raw_size == e->size,
          "corpus entry %zu: options '%s' family '%s' size %llu", ci, info.options, family,
          (unsigned long long)info.raw_size);
    CHECK(info.tune_runs == e->tune_runs &&
              (e->tune_runs == 0 || (info.tune_width == 1024 && info.tune_height == 768)),
          "corpus entry %zu: tuning %u runs", ci, info.tune_runs);
    uint8_t *buf = malloc(e->size);
    size_t got = 0;
    CHECK(clcpack_read_binary(p, hit, buf, e->size, &got, &err) == CLCPACK_OK && got == e->size &&
              memcmp(buf, e->bin, e->size) == 0,
          "corpus entry %zu (pack entry %zu, codec %u): bytes differ after decoding (%s)", ci, hit,
          info.codec, err.message);
    free(buf);
    if (!with_sources || e->source < 0) {
        CHECK(info.source == CLCPACK_NONE, "corpus entry %zu: source %u, none expected", ci,
              info.source);
        return;
    }
    const char *text = c->source_texts[e->source];
    size_t len = strlen(text), sz = 0;
    char *src = malloc(len);
    CHECK(clcpack_read_source(p, info.source, src, len, &sz, &err) == CLCPACK_OK && sz == len &&
              memcmp(src, text, len) == 0,
          "corpus entry %zu: source text differs (%s)", ci, err.message);
    free(src);
}

static void test_round_trip(const corpus *c)
{
    clcpack_writer *w = write_corpus(c, 0, 0);
    void *data = NULL;
    size_t size = 0;
    clcpack_error err;
    if (!w || !CHECK(clcpack_writer_write_memory(w, &data, &size, &err) == CLCPACK_OK,
                     "write_memory: %s", err.message)) {
        clcpack_writer_free(w);
        return;
    }
    clcpack *p = NULL;
    if (CHECK(clcpack_open_memory(data, size, &p, &err) == CLCPACK_OK, "open: %s", err.message)) {
        CHECK(clcpack_entry_count(p) == c->n_entries, "%zu entries, %zu added",
              clcpack_entry_count(p), c->n_entries);
        CHECK(clcpack_device_count(p) == 3, "%zu devices", clcpack_device_count(p));
        /* 5 sources added, two with the same text: 4 stored, under the
         * name that sorts first. */
        CHECK(clcpack_source_count(p) == 4, "%zu sources", clcpack_source_count(p));
        int saw_a = 0, saw_b = 0;
        for (size_t i = 0; i < clcpack_source_count(p); i++) {
            clcpack_source_info si = {.struct_size = sizeof si};
            clcpack_get_source(p, i, &si);
            saw_a |= strcmp(si.name, "conv_a.cl") == 0;
            saw_b |= strcmp(si.name, "conv_b.cl") == 0;
        }
        CHECK(saw_a && !saw_b, "duplicate source text kept under conv_a.cl");
        for (size_t i = 0; i < c->n_entries; i++)
            check_entry_round_trip(p, c, &c->entries[i], i, 1);

        size_t codecs[6] = {0}, raw = 0, stored = 0;
        uint32_t longest = 0;
        for (size_t i = 0; i < clcpack_entry_count(p); i++) {
            clcpack_entry_info info = {.struct_size = sizeof info};
            clcpack_get_entry(p, i, &info);
            if (info.codec < 6)
                codecs[info.codec]++;
            raw += info.raw_size;
            stored += info.stored_size;
            /* Chains go through XOR-delta (2) and zstd-prefix (5) bases;
             * codec 4's base is a dictionary. */
            uint32_t chain = 1;
            for (clcpack_entry_info at = info; at.codec == 2 || at.codec == 5; chain++) {
                uint32_t b = at.base;
                CHECK(b < i, "entry %zu: base %u not earlier", i, b);
                clcpack_get_entry(p, b, &at);
            }
            CHECK(info.codec != 4 || info.base < clcpack_dictionary_count(p),
                  "entry %zu: dictionary %u of %zu", i, info.base, clcpack_dictionary_count(p));
            if (chain > longest)
                longest = chain;
            if (i > 0) {
                clcpack_entry_info prev = {.struct_size = sizeof prev};
                clcpack_get_entry(p, i - 1, &prev);
                CHECK(strcmp(prev.kernel, info.kernel) <= 0, "entries sorted by kernel");
            }
        }
        if (compression == CLCPACK_COMPRESSION_ZLIB)
            CHECK(codecs[0] > 0 && codecs[1] > 0 && codecs[2] > 0 &&
                      codecs[3] + codecs[4] + codecs[5] == 0 && clcpack_dictionary_count(p) == 0,
                  "zlib: every zlib codec and no other used: stored %zu, zlib %zu, delta %zu, "
                  "zstd %zu/%zu/%zu", codecs[0], codecs[1], codecs[2], codecs[3], codecs[4],
                  codecs[5]);
        else
            /* The corpus is too small for a dictionary (under 256 KiB a
             * class); test_independent_reader writes packs with them. */
            CHECK(codecs[0] > 0 && codecs[1] + codecs[2] == 0 && codecs[3] > 0 && codecs[5] > 0,
                  "zstd: stored, plain and prefix used, no zlib: stored %zu, zlib %zu/%zu, "
                  "zstd %zu, dict %zu, prefix %zu, %zu dictionaries",
                  codecs[0], codecs[1], codecs[2], codecs[3], codecs[4], codecs[5],
                  clcpack_dictionary_count(p));
        /* zstd chains stop at 3 (FORMAT.md, "How the writer chooses");
         * the format allows CLCPACK_MAX_DELTA_CHAIN. */
        uint32_t cap = compression == CLCPACK_COMPRESSION_ZLIB ? CLCPACK_MAX_DELTA_CHAIN : 3;
        CHECK(longest <= cap && longest >= 2, "longest chain %u (at most %u)", longest, cap);
        printf("round trip (%s): %zu entries, %zu raw bytes stored in %zu (%.1f%%), codecs "
               "%zu/%zu/%zu/%zu/%zu/%zu, %zu dictionaries, longest chain %u\n",
               compression == CLCPACK_COMPRESSION_ZLIB ? "zlib" : "zstd",
               clcpack_entry_count(p), raw, stored, 100.0 * (double)stored / (double)raw, codecs[0],
               codecs[1], codecs[2], codecs[3], codecs[4], codecs[5],
               clcpack_dictionary_count(p), longest);

        /* The size query. */
        size_t need = 0;
        CHECK(clcpack_read_binary(p, 0, NULL, 0, &need, &err) == CLCPACK_OK && need > 0,
              "size query");
        uint8_t small[1];
        if (need > 1)
            CHECK(clcpack_read_binary(p, 0, small, 1, &need, &err) == CLCPACK_E_BUFFER,
                  "small buffer gives CLCPACK_E_BUFFER");
        CHECK(clcpack_read_binary(p, clcpack_entry_count(p), NULL, 0, &need, &err) ==
                  CLCPACK_E_NOT_FOUND,
              "entry past the end");
        clcpack_close(p);
    }

    /* Same writer, written twice: same bytes. */
    void *again = NULL;
    size_t again_size = 0;
    CHECK(clcpack_writer_write_memory(w, &again, &again_size, &err) == CLCPACK_OK &&
              again_size == size && memcmp(again, data, size) == 0,
          "a second write gives the same bytes");
    clcpack_free(again);
    clcpack_writer_free(w);

    /* Other add orders: same bytes. */
    for (uint64_t seed = 11; seed < 14; seed++) {
        clcpack_writer *w2 = write_corpus(c, 0, seed);
        void *d2 = NULL;
        size_t s2 = 0;
        if (w2 && clcpack_writer_write_memory(w2, &d2, &s2, &err) == CLCPACK_OK)
            CHECK(s2 == size && memcmp(d2, data, size) == 0,
                  "add order %llu gives the same bytes (%zu vs %zu)", (unsigned long long)seed, s2,
                  size);
        clcpack_free(d2);
        clcpack_writer_free(w2);
    }
    clcpack_free(data);

    /* Binary-only pack: sources dropped, entries intact. */
    clcpack_writer *w3 = write_corpus(c, CLCPACK_WRITE_NO_SOURCES, 0);
    void *d3 = NULL;
    size_t s3 = 0;
    if (w3 && CHECK(clcpack_writer_write_memory(w3, &d3, &s3, &err) == CLCPACK_OK, "no-sources write")) {
        clcpack *p3 = NULL;
        if (CHECK(clcpack_open_memory(d3, s3, &p3, &err) == CLCPACK_OK, "open: %s", err.message)) {
            CHECK(clcpack_source_count(p3) == 0, "no sources stored");
            for (size_t i = 0; i < c->n_entries; i += 7)
                check_entry_round_trip(p3, c, &c->entries[i], i, 0);
            clcpack_close(p3);
        }
    }
    clcpack_free(d3);
    clcpack_writer_free(w3);
}

static void test_writer_checks(const corpus *c)
{
    clcpack_writer *w = NULL;
    clcpack_error err;
    uint32_t dev = 0, src = 0;
    clcpack_writer_new(0, &w, &err);
    clcpack_writer_add_device(w, &c->devices[0], &dev, &err);
    uint32_t again = 99;
    CHECK(clcpack_writer_add_device(w, &c->devices[0], &again, &err) == CLCPACK_OK && again == dev,
          "an identical device is reused");
    clcpack_writer_add_source(w, "s.cl", "x", 1, &src, &err);

    const corpus_entry *e = &c->entries[0];
    clcpack_define defs[2];
    clcpack_entry_spec s;
    spec_of(e, defs, dev, src, &s);
    CHECK(clcpack_writer_add_entry(w, &s, &err) == CLCPACK_OK, "add: %s", err.message);
    CHECK(clcpack_writer_add_entry(w, &s, &err) == CLCPACK_OK, "same entry, same bytes: no-op");
    uint8_t other[3] = {1, 2, 3};
    clcpack_entry_spec s2 = s;
    s2.binary = other;
    s2.binary_size = sizeof other;
    CHECK(clcpack_writer_add_entry(w, &s2, &err) == CLCPACK_E_CONFLICT &&
              strstr(err.message, "Convolve_Def"),
          "same entry, other bytes: CLCPACK_E_CONFLICT (%s)", err.message);
    s2 = s;
    s2.kind = CLCPACK_KIND_NATIVE;
    s2.arch = 75;
    CHECK(clcpack_writer_add_entry(w, &s2, &err) == CLCPACK_E_INVALID_ARG, "native with an arch");
    s2 = s;
    s2.device = 5;
    CHECK(clcpack_writer_add_entry(w, &s2, &err) == CLCPACK_E_INVALID_ARG, "unknown device");
    s2 = s;
    s2.binary_size = 0;
    CHECK(clcpack_writer_add_entry(w, &s2, &err) == CLCPACK_E_INVALID_ARG, "empty binary");
    s2 = s;
    clcpack_define twice[2] = {{"A", "1"}, {"A", "2"}};
    s2.defines = twice;
    s2.define_count = 2;
    CHECK(clcpack_writer_add_entry(w, &s2, &err) == CLCPACK_E_INVALID_ARG &&
              strstr(err.message, "twice"),
          "a define given twice (%s)", err.message);
    s2 = s;
    s2.struct_size = 8;
    CHECK(clcpack_writer_add_entry(w, &s2, &err) == CLCPACK_E_INVALID_ARG, "struct_size too small");
    s2 = s;
    s2.wg[0] = 99;
    CHECK(clcpack_writer_set_tuning(w, &s2, 1, 1, 1, 1, &err) == CLCPACK_E_NOT_FOUND,
          "tuning for an entry never added");
    CHECK(clcpack_writer_add_source(w, "", "x", 1, &src, &err) == CLCPACK_E_INVALID_ARG,
          "source without a name");
    clcpack_device_info bad = c->devices[0];
    bad.has_uuid = 7;
    CHECK(clcpack_writer_add_device(w, &bad, &dev, &err) == CLCPACK_E_INVALID_ARG, "has_uuid 7");
    clcpack_writer_free(w);

    CHECK(clcpack_writer_new(0x80, &w, &err) == CLCPACK_E_INVALID_ARG, "unknown writer flag");
    clcpack_writer_free(NULL);
    clcpack_close(NULL);
    CHECK(strcmp(clcpack_strerror(CLCPACK_E_CHECKSUM), "checksum mismatch") == 0, "strerror");
    CHECK(clcpack_strerror((clcpack_status)999) != NULL, "strerror of an unknown value");
    CHECK(clcpack_version() == CLCPACK_VERSION_NUMBER, "run-time version matches the header");
    CHECK(strcmp(clcpack_path_name(CLCPACK_PATH_CUBIN), "cubin") == 0, "path name");
}

/* ------------------------------------------------------------------ */
/* Files                                                               */

static size_t count_dir(const char *dir)
{
    size_t n = 0;
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            n++;
    if (d)
        closedir(d);
    return n;
}

static void test_files(const corpus *c)
{
    char dir[] = "/tmp/clcpack-format-XXXXXX";
    if (!CHECK(test_mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno)))
        return;
    char path[128], sub[128], missing[160];
    snprintf(path, sizeof path, "%s/t.clcpack", dir);
    snprintf(sub, sizeof sub, "%s/adir", dir);
    snprintf(missing, sizeof missing, "%s/no/such/dir/t.clcpack", dir);
    clcpack_writer *w = write_corpus(c, 0, 0);
    clcpack_error err;
    CHECK(clcpack_writer_write_file(w, path, &err) == CLCPACK_OK, "write_file: %s", err.message);
    CHECK(clcpack_writer_write_file(w, path, &err) == CLCPACK_OK, "write_file over a pack: %s",
          err.message);
    CHECK(count_dir(dir) == 1, "only the pack in the folder, %zu files", count_dir(dir));
    clcpack *p = NULL;
    if (CHECK(clcpack_open_file(path, &p, &err) == CLCPACK_OK, "open_file: %s", err.message)) {
        check_entry_round_trip(p, c, &c->entries[5], 5, 1);
        clcpack_close(p);
    }
    CHECK(clcpack_writer_write_file(w, missing, &err) == CLCPACK_E_IO &&
              strstr(err.message, missing),
          "write into a missing folder: CLCPACK_E_IO naming the path (%s)", err.message);
    test_mkdir(sub);
    CHECK(clcpack_writer_write_file(w, sub, &err) == CLCPACK_E_IO && strstr(err.message, sub),
          "write over a folder: CLCPACK_E_IO naming the path (%s)", err.message);
    struct stat sb;
    CHECK(stat(sub, &sb) == 0 && S_ISDIR(sb.st_mode), "the folder is untouched");
    CHECK(count_dir(dir) == 2, "no temporary file left behind (%zu entries)", count_dir(dir));
    CHECK(clcpack_open_file(missing, &p, &err) == CLCPACK_E_IO && strstr(err.message, missing),
          "open a missing file: CLCPACK_E_IO (%s)", err.message);
    CHECK(clcpack_open_file(sub, &p, &err) == CLCPACK_E_IO, "open a folder: CLCPACK_E_IO");
    clcpack_writer_free(w);
    rmdir(sub);
    unlink(path);
    rmdir(dir);
}

/* ------------------------------------------------------------------ */
/* Crafting packs byte by byte, from docs/FORMAT.md                     */

typedef struct bb {
    uint8_t *p;
    size_t n, cap;
} bb;

static void bb_put(bb *b, const void *src, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
    }
    if (n)
        memcpy(b->p + b->n, src, n);
    b->n += n;
}

static void bb_u32(bb *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    bb_put(b, x, 4);
}

static void bb_u64(bb *b, uint64_t v)
{
    bb_u32(b, (uint32_t)v);
    bb_u32(b, (uint32_t)(v >> 32));
}

static void bb_str(bb *b, const char *s)
{
    bb_u32(b, (uint32_t)strlen(s));
    bb_put(b, s, strlen(s));
}

static void set_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void set_u64(uint8_t *p, uint64_t v)
{
    set_u32(p, (uint32_t)v);
    set_u32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t read_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t read_u64(const uint8_t *p)
{
    return read_u32(p) | (uint64_t)read_u32(p + 4) << 32;
}

/* Recomputes the header checksum of an edited pack from its own fields, so
 * the edit reaches the check that is being tested. */
static void fix_checksum(uint8_t *f, size_t n)
{
    uint32_t hs = read_u32(f + 12);
    uint64_t io = read_u64(f + 24), is = read_u64(f + 32);
    if (hs < 64 || hs > n || io > n || is > n - io)
        return;
    uLong crc = crc32(0, f, 44);
    crc = crc32(crc, f + 48, hs - 48);
    crc = crc32(crc, f + io, (uInt)is);
    set_u32(f + 44, (uint32_t)crc);
}

typedef struct craft_entry {
    uint32_t device, source;
    const char *kernel, *family, *options;
    uint32_t n_defines;
    const char *defines[3][2];
    uint32_t wg[3], kind, arch, codec, base;
    uint64_t offset, stored, raw;
    uint32_t crc;
    uint32_t tune_runs;
    size_t extra; /* bytes a later version appended to the record */
} craft_entry;

typedef struct craft {
    uint16_t format_version, min_reader;
    uint32_t header_size;
    uint32_t counts[4]; /* devices, sources, entries, and format 4's dictionaries */
    int v4;             /* format 4's counts record and source `dict` fields */
    bb payload, records;
    size_t index_tail; /* bytes after the last record */
} craft;

static void craft_init(craft *c, uint32_t header_size)
{
    memset(c, 0, sizeof *c);
    c->format_version = 1;
    c->min_reader = 1;
    c->header_size = header_size;
}

static uint64_t craft_blob(craft *c, const void *data, size_t n)
{
    uint64_t off = c->header_size + c->payload.n;
    bb_put(&c->payload, data, n);
    return off;
}

static void craft_device(craft *c, const clcpack_device_info *d, size_t extra)
{
    bb r = {0};
    bb_u32(&r, 0);
    bb_str(&r, d->platform_name);
    bb_str(&r, d->platform_version);
    bb_str(&r, d->device_name);
    bb_str(&r, d->device_version);
    bb_str(&r, d->driver_version);
    bb_str(&r, d->opencl_c_version);
    bb_u64(&r, d->device_type);
    bb_u32(&r, d->vendor_id);
    bb_u32(&r, d->address_bits);
    bb_u32(&r, d->has_uuid);
    bb_put(&r, d->device_uuid, 16);
    bb_put(&r, d->driver_uuid, 16);
    bb_u32(&r, d->nv_cc_major);
    bb_u32(&r, d->nv_cc_minor);
    for (size_t i = 0; i < extra; i++)
        bb_put(&r, "\xEE", 1);
    set_u32(r.p, (uint32_t)r.n);
    bb_put(&c->records, r.p, r.n);
    free(r.p);
    c->counts[0]++;
}

static void craft_source_dict(craft *c, const char *name, uint32_t codec, uint64_t off,
                              uint64_t stored, uint64_t raw, uint32_t crc, uint32_t dict)
{
    bb r = {0};
    bb_u32(&r, 0);
    bb_str(&r, name);
    bb_u32(&r, codec);
    bb_u64(&r, off);
    bb_u64(&r, stored);
    bb_u64(&r, raw);
    bb_u32(&r, crc);
    if (c->v4)
        bb_u32(&r, dict);
    set_u32(r.p, (uint32_t)r.n);
    bb_put(&c->records, r.p, r.n);
    free(r.p);
    c->counts[1]++;
}

static void craft_source(craft *c, const char *name, uint32_t codec, uint64_t off, uint64_t stored,
                         uint64_t raw, uint32_t crc)
{
    craft_source_dict(c, name, codec, off, stored, raw, crc, CLCPACK_NONE);
}

#if defined(CLCPK_HAVE_ZSTD)
/* A dictionary record (format 4); they come after the entry records. */
static void craft_dict(craft *c, uint32_t codec, uint64_t off, uint64_t stored, uint64_t raw,
                       uint32_t crc)
{
    bb r = {0};
    bb_u32(&r, 0);
    bb_u32(&r, codec);
    bb_u64(&r, off);
    bb_u64(&r, stored);
    bb_u64(&r, raw);
    bb_u32(&r, crc);
    set_u32(r.p, (uint32_t)r.n);
    bb_put(&c->records, r.p, r.n);
    free(r.p);
    c->counts[3]++;
}
#endif

static void craft_entry_record(craft *c, const craft_entry *e)
{
    bb r = {0};
    bb_u32(&r, 0);
    bb_u32(&r, e->device);
    bb_u32(&r, e->source);
    bb_str(&r, e->kernel);
    bb_str(&r, e->family);
    bb_str(&r, e->options);
    bb_u32(&r, e->n_defines);
    for (uint32_t k = 0; k < e->n_defines && k < 3; k++) {
        bb_str(&r, e->defines[k][0]);
        bb_str(&r, e->defines[k][1]);
    }
    for (int k = 0; k < 3; k++)
        bb_u32(&r, e->wg[k]);
    bb_u32(&r, e->kind);
    bb_u32(&r, e->arch);
    bb_u32(&r, e->codec);
    bb_u32(&r, e->base);
    bb_u64(&r, e->offset);
    bb_u64(&r, e->stored);
    bb_u64(&r, e->raw);
    bb_u32(&r, e->crc);
    bb_u32(&r, e->tune_runs);
    bb_u32(&r, 0);
    bb_u32(&r, 0);
    bb_u64(&r, 0);
    if (e->extra) {
        bb_u32(&r, 0); /* format 2's tuning list, empty */
        bb_u32(&r, 0); /* format 3's kernel names, none */
        bb_u32(&r, 0); /* format 3's entry flags; a later version's fields follow */
    }
    for (size_t i = 0; i < e->extra; i++)
        bb_put(&r, "\xEE", 1);
    set_u32(r.p, (uint32_t)r.n);
    bb_put(&c->records, r.p, r.n);
    free(r.p);
    c->counts[2]++;
}

/* The finished file (malloc'd, exactly *size bytes). */
static uint8_t *craft_finish(craft *c, size_t *size)
{
    bb f = {0};
    uint8_t *zero = calloc(1, c->header_size);
    bb_put(&f, zero, c->header_size);
    free(zero);
    bb_put(&f, c->payload.p, c->payload.n);
    size_t index_offset = f.n;
    bb_u32(&f, c->v4 ? 20 : 16);
    bb_u32(&f, c->counts[0]);
    bb_u32(&f, c->counts[1]);
    bb_u32(&f, c->counts[2]);
    if (c->v4)
        bb_u32(&f, c->counts[3]);
    bb_put(&f, c->records.p, c->records.n);
    for (size_t i = 0; i < c->index_tail; i++)
        bb_put(&f, "\xDD", 1);
    memcpy(f.p, "\x89" "CLCPK\r\n", 8);
    f.p[8] = (uint8_t)c->format_version;
    f.p[9] = (uint8_t)(c->format_version >> 8);
    f.p[10] = (uint8_t)c->min_reader;
    f.p[11] = (uint8_t)(c->min_reader >> 8);
    set_u32(f.p + 12, c->header_size);
    set_u64(f.p + 16, f.n);
    set_u64(f.p + 24, index_offset);
    set_u64(f.p + 32, f.n - index_offset);
    fix_checksum(f.p, f.n);
    free(c->payload.p);
    free(c->records.p);
    uint8_t *out = malloc(f.n ? f.n : 1);
    memcpy(out, f.p, f.n);
    free(f.p);
    *size = f.n;
    return out;
}

/* The small pack most error cases start from: one device, one zlib
 * source, and three entries (stored, zlib, and a delta on the zlib one). */
typedef struct small {
    craft c;
    craft_entry e[3];
    uint8_t raw[3][300];
    size_t raw_n[3];
    const char *source_text;
    uint64_t src_off, src_stored;
} small;

static clcpack_device_info small_device = {.struct_size = sizeof small_device};

static void small_init(small *s, uint32_t header_size)
{
    craft_init(&s->c, header_size);
    s->raw_n[0] = 100;
    s->raw_n[1] = 300;
    s->raw_n[2] = 280;
    fill_random(s->raw[0], 100);
    for (int i = 0; i < 300; i++)
        s->raw[1][i] = (uint8_t)("binary"[i % 6] + (i % 50 == 0));
    memcpy(s->raw[2], s->raw[1], 280);
    s->raw[2][17] ^= 0x5A;
    s->source_text = "__kernel void k(void) {}\n";
    memset(s->e, 0, sizeof s->e);
    for (int k = 0; k < 3; k++) {
        craft_entry *e = &s->e[k];
        e->kernel = "k";
        e->family = "";
        e->options = "-DW=3";
        e->n_defines = 1;
        e->defines[0][0] = "W";
        e->defines[0][1] = k == 0 ? "3" : k == 1 ? "5" : "7";
        e->wg[0] = e->wg[1] = 4;
        e->wg[2] = 1;
        e->base = CLCPACK_NONE;
        e->source = 0;
        e->raw = s->raw_n[k];
        e->crc = (uint32_t)crc32(0, s->raw[k], (uInt)s->raw_n[k]);
    }
}

/* Lays out the blobs: the source (zlib), entry 0 stored, entry 1 zlib,
 * entry 2 a delta against entry 1. Edits to the records come after. */
static void small_blobs(small *s)
{
    uint8_t z[1024], d[300];
    uLongf zn = sizeof z;
    compress2(z, &zn, (const Bytef *)s->source_text, (uLong)strlen(s->source_text), 9);
    s->src_off = craft_blob(&s->c, z, zn);
    s->src_stored = zn;
    s->e[0].codec = 0;
    s->e[0].stored = s->raw_n[0];
    s->e[0].offset = craft_blob(&s->c, s->raw[0], s->raw_n[0]);
    zn = sizeof z;
    compress2(z, &zn, s->raw[1], (uLong)s->raw_n[1], 9);
    s->e[1].codec = 1;
    s->e[1].stored = zn;
    s->e[1].offset = craft_blob(&s->c, z, zn);
    memcpy(d, s->raw[2], s->raw_n[2]);
    for (size_t i = 0; i < s->raw_n[2] && i < s->raw_n[1]; i++)
        d[i] ^= s->raw[1][i];
    zn = sizeof z;
    compress2(z, &zn, d, (uLong)s->raw_n[2], 9);
    s->e[2].codec = 2;
    s->e[2].base = 1;
    s->e[2].stored = zn;
    s->e[2].offset = craft_blob(&s->c, z, zn);
}

static uint8_t *small_finish(small *s, size_t *size, size_t device_extra)
{
    size_t len = strlen(s->source_text);
    craft_device(&s->c, &small_device, device_extra);
    craft_source(&s->c, "k.cl", 1, s->src_off, s->src_stored, len,
                 (uint32_t)crc32(0, (const Bytef *)s->source_text, (uInt)len));
    for (int k = 0; k < 3; k++)
        craft_entry_record(&s->c, &s->e[k]);
    return craft_finish(&s->c, size);
}

/* Opens bytes copied into an exact-size buffer (so a read past the end is
 * a real overrun under valgrind) and, when it opens, decodes everything. */
static clcpack_status try_open(const uint8_t *data, size_t n, clcpack_error *err, int *decode_failures)
{
    uint8_t *copy = malloc(n ? n : 1);
    if (n)
        memcpy(copy, data, n);
    clcpack *p = NULL;
    clcpack_status st = clcpack_open_memory(copy, n, &p, err);
    if (decode_failures)
        *decode_failures = 0;
    if (st == CLCPACK_OK) {
        for (size_t i = 0; i < clcpack_entry_count(p); i++) {
            size_t need = 0;
            clcpack_read_binary(p, i, NULL, 0, &need, NULL);
            uint8_t *buf = malloc(need ? need : 1);
            clcpack_error e2;
            if (clcpack_read_binary(p, i, buf, need, &need, &e2) != CLCPACK_OK && decode_failures)
                (*decode_failures)++;
            free(buf);
        }
        for (size_t i = 0; i < clcpack_source_count(p); i++) {
            size_t need = 0;
            clcpack_read_source(p, i, NULL, 0, &need, NULL);
            uint8_t *buf = malloc(need ? need : 1);
            if (clcpack_read_source(p, i, buf, need, &need, NULL) != CLCPACK_OK && decode_failures)
                (*decode_failures)++;
            free(buf);
        }
        clcpack_close(p);
    }
    free(copy);
    return st;
}

typedef void (*small_edit)(small *s);

/* Builds the small pack with an edit applied after the blobs are laid out,
 * and checks the status and that the message holds `needle`. */
static void expect_small(const char *what, small_edit edit, clcpack_status want, const char *needle)
{
    small s;
    small_init(&s, 64);
    small_blobs(&s);
    if (edit)
        edit(&s);
    size_t n;
    uint8_t *f = small_finish(&s, &n, 0);
    clcpack_error err = {0};
    int fails = 0;
    clcpack_status st = try_open(f, n, &err, &fails);
    CHECK(st == want && (st == CLCPACK_OK || !needle || strstr(err.message, needle)),
          "%s: status %d (%s), want %d with '%s'; message: %s", what, st, clcpack_strerror(st),
          want, needle ? needle : "", st == CLCPACK_OK ? "" : err.message);
    if (want == CLCPACK_OK)
        CHECK(fails == 0, "%s: %d decode failures", what, fails);
    free(f);
}

static void edit_offset_past_end(small *s) { s->e[1].offset = 1u << 20; }
static void edit_offset_overflow(small *s)
{
    s->e[1].offset = UINT64_MAX - 8;
    s->e[1].stored = 64;
}
static void edit_stored_huge(small *s) { s->e[0].stored = UINT64_MAX; }
static void edit_raw_overflow(small *s) { s->e[1].raw = UINT64_MAX; }
static void edit_raw_4g(small *s) { s->e[1].raw = 4ull << 30; }
static void edit_raw_ratio(small *s) { s->e[1].raw = s->e[1].stored * 1032 + 1025; }
static void edit_stored_mismatch(small *s) { s->e[0].raw = 99; }
static void edit_raw_zero(small *s) { s->e[0].raw = 0; }
static void edit_base_self(small *s) { s->e[2].base = 2; }
static void edit_base_later(small *s)
{
    s->e[1].codec = 2;
    s->e[1].base = 2;
}
static void edit_base_on_plain(small *s) { s->e[1].base = 0; }
static void edit_codec(small *s) { s->e[1].codec = 9; }
/* A zstd codec in a pack that does not say format 4. */
static void edit_zstd_in_v1(small *s) { s->e[1].codec = 3; }
static void edit_kind(small *s) { s->e[1].kind = 9; }
static void edit_device(small *s) { s->e[1].device = 1; }
static void edit_source(small *s) { s->e[1].source = 4; }
static void edit_kernel_empty(small *s) { s->e[1].kernel = ""; }
static void edit_defines_unsorted(small *s)
{
    s->e[1].n_defines = 2;
    s->e[1].defines[0][0] = "W";
    s->e[1].defines[0][1] = "5";
    s->e[1].defines[1][0] = "A";
    s->e[1].defines[1][1] = "1";
}
static void edit_defines_twice(small *s)
{
    s->e[1].n_defines = 2;
    s->e[1].defines[1][0] = "W";
    s->e[1].defines[1][1] = "9";
}
static void edit_extra_fields(small *s)
{
    for (int k = 0; k < 3; k++)
        s->e[k].extra = 13;
    s->c.format_version = 3;
    s->c.index_tail = 40;
}
static void edit_newer_reader(small *s)
{
    /* This reader reads version 5 (the lookup table): 6 is beyond it. */
    s->c.format_version = 6;
    s->c.min_reader = 6;
}
static void edit_zero_version(small *s) { s->c.format_version = 0; }
static void edit_delta_bad_crc(small *s) { s->e[2].crc ^= 1; }
/* Entry 1 is the delta base of entry 2: damage to it fails both. */
static void edit_raw_bigger(small *s) { s->e[1].raw += 10; }
static void edit_raw_smaller(small *s) { s->e[1].raw -= 10; }
static void edit_stored_shorter(small *s) { s->e[1].stored -= 3; }
static void edit_stored_longer(small *s) { s->e[1].stored += 3; }

/* Blob-level damage: the pack opens, the damaged entries fail to decode,
 * the first of them (entry 1, or 2 when only it is damaged) with `want`. */
static void expect_decode_failures(const char *what, small_edit edit, int want_failures,
                                   clcpack_status want)
{
    small s;
    small_init(&s, 64);
    small_blobs(&s);
    edit(&s);
    size_t n;
    uint8_t *f = small_finish(&s, &n, 0);
    clcpack_error err;
    int fails = -1;
    clcpack_status st = try_open(f, n, &err, &fails);
    CHECK(st == CLCPACK_OK && fails == want_failures, "%s: open %d, %d decode failures, want %d",
          what, st, fails, want_failures);
    clcpack *p = NULL;
    if (st == CLCPACK_OK && clcpack_open_memory(f, n, &p, &err) == CLCPACK_OK) {
        uint8_t buf[400];
        size_t got;
        st = clcpack_read_binary(p, want_failures == 1 ? 2 : 1, buf, sizeof buf, &got, &err);
        CHECK(st == want, "%s: status %d, want %d (%s)", what, st, want, err.message);
        clcpack_close(p);
    }
    free(f);
}

static void test_crafted_errors(void)
{
    make_device(&small_device, "Crafted", "crafted-device", "1.0", 0x1234, 0);
    expect_small("the crafted small pack", NULL, CLCPACK_OK, NULL);
    expect_small("fields appended by a later version", edit_extra_fields, CLCPACK_OK, NULL);
    expect_small("a pack that needs a newer reader", edit_newer_reader, CLCPACK_E_VERSION,
                 "newer");
    expect_small("format version 0", edit_zero_version, CLCPACK_E_FORMAT, "version");
    expect_small("offset past the end", edit_offset_past_end, CLCPACK_E_FORMAT, "entry 1");
    expect_small("offset + size overflows", edit_offset_overflow, CLCPACK_E_FORMAT, "outside");
    expect_small("stored size 2^64-1", edit_stored_huge, CLCPACK_E_FORMAT, "outside");
    expect_small("raw size 2^64-1", edit_raw_overflow, CLCPACK_E_LIMIT, "limit");
    expect_small("raw size 4 GiB", edit_raw_4g, CLCPACK_E_LIMIT, "limit");
    expect_small("raw size beyond zlib's ratio", edit_raw_ratio, CLCPACK_E_LIMIT, "zlib");
    expect_small("stored blob with another raw size", edit_stored_mismatch, CLCPACK_E_FORMAT,
                 "entry 0");
    expect_small("raw size 0", edit_raw_zero, CLCPACK_E_FORMAT, "raw size is 0");
    expect_small("delta base is the entry itself", edit_base_self, CLCPACK_E_FORMAT, "base");
    expect_small("delta base after the entry", edit_base_later, CLCPACK_E_FORMAT, "base");
    expect_small("base on an entry that is not a delta", edit_base_on_plain, CLCPACK_E_FORMAT,
                 "base");
    expect_small("unknown codec", edit_codec, CLCPACK_E_FORMAT, "codec");
    expect_small("a zstd codec in a pack of format 1", edit_zstd_in_v1, CLCPACK_E_FORMAT,
                 "format 4");
    expect_small("unknown kind", edit_kind, CLCPACK_E_FORMAT, "kind");
    expect_small("device index out of range", edit_device, CLCPACK_E_FORMAT, "device");
    expect_small("source index out of range", edit_source, CLCPACK_E_FORMAT, "source");
    expect_small("empty kernel name", edit_kernel_empty, CLCPACK_E_FORMAT, "kernel");
    expect_small("defines out of order", edit_defines_unsorted, CLCPACK_E_FORMAT, "order");
    expect_small("a define twice", edit_defines_twice, CLCPACK_E_FORMAT, "order");

    expect_decode_failures("a delta whose CRC is wrong", edit_delta_bad_crc, 1, CLCPACK_E_CHECKSUM);
    expect_decode_failures("a stream shorter than its raw size", edit_raw_bigger, 2,
                           CLCPACK_E_FORMAT);
    expect_decode_failures("a stream longer than its raw size", edit_raw_smaller, 2,
                           CLCPACK_E_FORMAT);
    expect_decode_failures("a blob cut short", edit_stored_shorter, 2, CLCPACK_E_FORMAT);
    expect_decode_failures("bytes after the stream", edit_stored_longer, 2, CLCPACK_E_FORMAT);

    /* Bad magic. */
    small s;
    small_init(&s, 64);
    small_blobs(&s);
    size_t n;
    uint8_t *f = small_finish(&s, &n, 0);
    clcpack_error err;
    f[1] = 'X';
    CHECK(try_open(f, n, &err, NULL) == CLCPACK_E_FORMAT && strstr(err.message, "magic"),
          "bad magic: %s", err.message);
    f[1] = 'C';

    /* Truncation at every byte, and one byte too many. */
    int bad = 0;
    for (size_t k = 0; k < n; k++) {
        clcpack_status st = try_open(f, k, &err, NULL);
        if (st == CLCPACK_OK || (k >= 64 && !strstr(err.message, "truncated")))
            bad++;
    }
    CHECK(bad == 0, "truncation at each of %zu bytes refused as truncated (%d not)", n, bad);
    uint8_t *longer = malloc(n + 1);
    memcpy(longer, f, n);
    longer[n] = 0;
    CHECK(try_open(longer, n + 1, &err, NULL) == CLCPACK_E_FORMAT && strstr(err.message, "trailing"),
          "a byte too many: %s", err.message);
    free(longer);

    /* Any flipped byte of the header or index: checksum error (or, for the
     * size and version fields checked first, a format or version error). */
    uint64_t io = read_u64(f + 24);
    int wrong = 0;
    for (size_t k = 8; k < n; k++) {
        if (k >= 64 && k < io)
            continue;
        f[k] ^= 0x01;
        clcpack_status st = try_open(f, n, &err, NULL);
        int ok = st == CLCPACK_E_CHECKSUM || (k < 40 && st != CLCPACK_OK);
        if (!ok) {
            wrong++;
            printf("flip at %zu: status %d %s\n", k, st, err.message);
        }
        f[k] ^= 0x01;
    }
    CHECK(wrong == 0, "every header and index byte flipped is refused (%d not)", wrong);
    f[44] ^= 0x80;
    CHECK(try_open(f, n, &err, NULL) == CLCPACK_E_CHECKSUM && strstr(err.message, "checksum"),
          "wrong checksum: %s", err.message);
    f[44] ^= 0x80;

    /* A payload byte flipped: the pack opens; only the entries (or source)
     * whose blob holds the byte, and the delta on entry 1, fail. */
    clcpack *p = NULL;
    int misplaced = 0, stored_checksum = 1;
    for (uint64_t k = 64; k < io; k++) {
        f[k] ^= 0x10;
        p = NULL;
        if (clcpack_open_memory(f, n, &p, &err) != CLCPACK_OK) {
            misplaced++;
            f[k] ^= 0x10;
            continue;
        }
        uint8_t buf[400];
        size_t got;
        clcpack_status st0 = clcpack_read_binary(p, 0, buf, sizeof buf, &got, &err);
        clcpack_status st1 = clcpack_read_binary(p, 1, buf, sizeof buf, &got, NULL);
        clcpack_status st2 = clcpack_read_binary(p, 2, buf, sizeof buf, &got, NULL);
        clcpack_status ss = clcpack_read_source(p, 0, buf, sizeof buf, &got, NULL);
        int in_src = k >= s.src_off && k < s.src_off + s.src_stored;
        int in0 = k >= s.e[0].offset && k < s.e[0].offset + s.e[0].stored;
        int in1 = k >= s.e[1].offset && k < s.e[1].offset + s.e[1].stored;
        int in2 = k >= s.e[2].offset && k < s.e[2].offset + s.e[2].stored;
        if ((ss != CLCPACK_OK) != in_src || (st0 != CLCPACK_OK) != in0 ||
            (st1 != CLCPACK_OK) != in1 || (st2 != CLCPACK_OK) != (in1 || in2))
            misplaced++;
        if (in0 && st0 != CLCPACK_E_CHECKSUM)
            stored_checksum = 0;
        if ((in1 && st1 != CLCPACK_E_CHECKSUM && st1 != CLCPACK_E_FORMAT) ||
            (in_src && ss != CLCPACK_E_CHECKSUM && ss != CLCPACK_E_FORMAT))
            misplaced++;
        clcpack_close(p);
        f[k] ^= 0x10;
    }
    CHECK(misplaced == 0, "a flipped payload byte fails exactly the entries that use it (%d not)",
          misplaced);
    CHECK(stored_checksum, "a flipped byte of a stored entry is CLCPACK_E_CHECKSUM");
    free(f);

    /* Counts no index could hold, in a tiny file. */
    craft c;
    craft_init(&c, 64);
    craft_device(&c, &small_device, 0);
    c.counts[2] = UINT32_MAX;
    f = craft_finish(&c, &n);
    CHECK(try_open(f, n, &err, NULL) == CLCPACK_E_LIMIT && strstr(err.message, "4294967295"),
          "2^32-1 entries in %zu bytes: %s", n, err.message);
    free(f);
    craft_init(&c, 64);
    c.counts[0] = 100000;
    f = craft_finish(&c, &n);
    CHECK(try_open(f, n, &err, NULL) == CLCPACK_E_LIMIT, "100000 devices in %zu bytes", n);
    free(f);

    /* A device string longer than clcpack_device_info holds. */
    craft_init(&c, 64);
    clcpack_device_info longname = small_device;
    craft_device(&c, &longname, 0);
    f = craft_finish(&c, &n);
    CHECK(try_open(f, n, &err, NULL) == CLCPACK_OK, "a device record alone opens: %s", err.message);
    /* Grow its device name's length field to 300 (and the record to match). */
    uint8_t *grown = malloc(n + 300);
    size_t rec = 64 + 16; /* first record: right after the counts record */
    size_t name_at = rec + 4;
    for (int k = 0; k < 2; k++)
        name_at += 4 + read_u32(f + name_at);
    uint32_t old_len = read_u32(f + name_at);
    memcpy(grown, f, name_at);
    set_u32(grown + name_at, 300);
    memset(grown + name_at + 4, 'n', 300);
    memcpy(grown + name_at + 4 + 300, f + name_at + 4 + old_len, n - (name_at + 4 + old_len));
    size_t gn = n + 300 - old_len;
    set_u32(grown + rec, read_u32(f + rec) + 300 - old_len);
    set_u64(grown + 16, gn);
    set_u64(grown + 32, gn - 64);
    fix_checksum(grown, gn);
    CHECK(try_open(grown, gn, &err, NULL) == CLCPACK_E_FORMAT && strstr(err.message, "device name"),
          "a 300-byte device name: %s", err.message);
    /* A NUL inside a string. */
    set_u32(grown + name_at, 300);
    grown[name_at + 4 + 10] = 0;
    fix_checksum(grown, gn);
    CHECK(try_open(grown, gn, &err, NULL) == CLCPACK_E_FORMAT, "a NUL inside a string");
    free(grown);
    /* A record length running past the index, and one of 0. */
    set_u32(f + rec, 5000);
    fix_checksum(f, n);
    CHECK(try_open(f, n, &err, NULL) == CLCPACK_E_FORMAT && strstr(err.message, "past the end"),
          "record length past the end: %s", err.message);
    set_u32(f + rec, 0);
    fix_checksum(f, n);
    CHECK(try_open(f, n, &err, NULL) == CLCPACK_E_FORMAT, "record length 0");
    /* The index starting inside the header. */
    set_u64(f + 24, 10);
    fix_checksum(f, n);
    CHECK(try_open(f, n, &err, NULL) == CLCPACK_E_FORMAT && strstr(err.message, "index"),
          "index inside the header: %s", err.message);
    free(f);

    /* A delta chain of exactly the cap decodes; one longer is refused. */
    for (int len = CLCPACK_MAX_DELTA_CHAIN; len <= CLCPACK_MAX_DELTA_CHAIN + 1; len++) {
        craft_init(&c, 64);
        craft_device(&c, &small_device, 0);
        uint8_t raw[64], delta[64], z[256];
        fill_random(raw, sizeof raw);
        uLongf zn = sizeof z;
        compress2(z, &zn, raw, sizeof raw, 9);
        uint64_t key_off = craft_blob(&c, z, zn);
        memset(delta, 0, sizeof delta);
        delta[0] = 1; /* each step flips bit 0 of byte 0 */
        uLongf dn = sizeof z - zn;
        compress2(z + zn, &dn, delta, sizeof delta, 9);
        uint64_t delta_off = craft_blob(&c, z + zn, dn);
        char vals[16][12];
        for (int k = 0; k < len; k++) {
            craft_entry e = {0};
            snprintf(vals[k], sizeof vals[k], "%d", k);
            e.kernel = "chain";
            e.family = "";
            e.options = "";
            e.n_defines = 1;
            e.defines[0][0] = "W";
            e.defines[0][1] = vals[k];
            e.source = CLCPACK_NONE;
            e.raw = sizeof raw;
            raw[0] ^= (uint8_t)(k ? 1 : 0);
            e.crc = (uint32_t)crc32(0, raw, sizeof raw);
            e.codec = k ? 2 : 1;
            e.base = k ? (uint32_t)(k - 1) : CLCPACK_NONE;
            e.offset = k ? delta_off : key_off;
            e.stored = k ? dn : zn;
            craft_entry_record(&c, &e);
        }
        f = craft_finish(&c, &n);
        int fails = 0;
        clcpack_status st = try_open(f, n, &err, &fails);
        if (len == CLCPACK_MAX_DELTA_CHAIN)
            CHECK(st == CLCPACK_OK && fails == 0, "a chain of %d decodes (%d failures): %s", len,
                  fails, st ? err.message : "");
        else
            CHECK(st == CLCPACK_E_FORMAT && strstr(err.message, "chain"),
                  "a chain of %d is refused: %s", len, err.message);
        free(f);
    }

    /* A header longer than 64 bytes (a later version's) is skipped. */
    small_init(&s, 80);
    small_blobs(&s);
    f = small_finish(&s, &n, 9);
    int fails = 0;
    CHECK(try_open(f, n, &err, &fails) == CLCPACK_OK && fails == 0,
          "an 80-byte header and a longer device record: %s", err.message);
    free(f);
}


/* ------------------------------------------------------------------ */
/* Format 4, crafted byte by byte from docs/FORMAT.md                   */

/* A zstd frame made by the zstd command (content size, no checksum), so
 * that a library built without zstd still meets one. */
static const uint8_t HELLO_FRAME[] = {
    0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x18, 0xc1, 0x00, 0x00, 0x61, 0x20, 0x7a, 0x73, 0x74, 0x64,
    0x20, 0x66, 0x72, 0x61, 0x6d, 0x65, 0x2c, 0x20, 0x68, 0x61, 0x72, 0x64, 0x2d, 0x63, 0x6f,
    0x64, 0x65, 0x64};
static const char HELLO_TEXT[] = "a zstd frame, hard-coded";

/* A format-4 pack of one entry holding HELLO_FRAME (codec 3). */
static uint8_t *hello_pack(size_t *size)
{
    craft c;
    craft_init(&c, 64);
    c.format_version = 4;
    c.min_reader = 4;
    c.v4 = 1;
    craft_entry e = {0};
    e.source = CLCPACK_NONE;
    e.kernel = "hello";
    e.family = e.options = "";
    e.base = CLCPACK_NONE;
    e.codec = 3;
    e.offset = craft_blob(&c, HELLO_FRAME, sizeof HELLO_FRAME);
    e.stored = sizeof HELLO_FRAME;
    e.raw = strlen(HELLO_TEXT);
    e.crc = (uint32_t)crc32(0, (const Bytef *)HELLO_TEXT, (uInt)e.raw);
    craft_device(&c, &small_device, 0);
    craft_entry_record(&c, &e);
    return craft_finish(&c, size);
}

/* The frame written by the zstd tool decodes here; a library built without
 * zstd refuses it with CLCPACK_E_VERSION naming the codec. */
static void test_hello_frame(void)
{
    size_t n;
    uint8_t *f = hello_pack(&n);
    clcpack *p = NULL;
    clcpack_error err;
    if (CHECK(clcpack_open_memory(f, n, &p, &err) == CLCPACK_OK, "zstd pack opens: %s",
              err.message)) {
        char buf[64] = {0};
        size_t got = 0;
        clcpack_status st = clcpack_read_binary(p, 0, buf, sizeof buf, &got, &err);
        if (clcpack_compression_available(CLCPACK_COMPRESSION_ZSTD))
            CHECK(st == CLCPACK_OK && got == strlen(HELLO_TEXT) && memcmp(buf, HELLO_TEXT, got) == 0,
                  "the zstd tool's frame decodes: %s", st ? err.message : "");
        else
            CHECK(st == CLCPACK_E_VERSION && strstr(err.message, "codec 3") &&
                      strstr(err.message, "without zstd"),
                  "built without zstd: codec 3 refused by name: %d %s", st, err.message);
        clcpack_close(p);
    }
    free(f);
}

#if defined(CLCPK_HAVE_ZSTD)
/* The small format-4 pack: one device; a source coded with dictionary 0;
 * dictionary 0 stored (raw content), dictionary 1 a zstd frame of raw
 * content; entry 0 zstd, entry 1 zstd with dictionary 0, entry 2 zstd with
 * entry 1 as prefix, entry 3 zstd with dictionary 1. Edits change the
 * fields (or the bytes) after the blobs are made. */
typedef struct small4 {
    craft c;
    craft_entry e[4];
    uint8_t raw[4][400];
    size_t raw_n[4];
    uint8_t dict[2][300];
    size_t dict_n;
    uint32_t d_codec[2], d_crc[2];
    uint64_t d_off[2], d_stored[2], d_raw[2];
    size_t n_extra_dicts; /* more dictionary records, 1 MiB each, sharing one blob */
    const char *src_text;
    uint32_t src_codec, src_dict;
    uint64_t src_off, src_stored;
} small4;

/* One zstd frame of src with the dictionary or prefix given (raw content
 * either way). */
static size_t zframe(uint8_t *out, size_t cap, const void *src, size_t n, const void *dict,
                     size_t dict_n, int prefix)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 19);
    ZSTD_CCtx_setParameter(c, ZSTD_c_dictIDFlag, 0);
    if (dict && prefix)
        ZSTD_CCtx_refPrefix(c, dict, dict_n);
    else if (dict)
        ZSTD_CCtx_loadDictionary(c, dict, dict_n);
    size_t r = ZSTD_compress2(c, out, cap, src, n);
    ZSTD_freeCCtx(c);
    return ZSTD_isError(r) ? 0 : r;
}

static void small4_init(small4 *s)
{
    memset(s, 0, sizeof *s);
    craft_init(&s->c, 64);
    s->c.format_version = 4;
    s->c.min_reader = 4;
    s->c.v4 = 1;
    s->dict_n = 300;
    for (int d = 0; d < 2; d++)
        for (size_t i = 0; i < s->dict_n; i++)
            s->dict[d][i] = (uint8_t)("common-part-of-binaries "[i % 24] + d);
    for (int k = 0; k < 4; k++) {
        s->raw_n[k] = 400 - (size_t)k * 20;
        for (size_t i = 0; i < s->raw_n[k]; i++)
            s->raw[k][i] = (uint8_t)("common-part-of-binaries "[i % 24] + (k == 3) +
                                     (i % 97 == 0 ? k : 0));
        craft_entry *e = &s->e[k];
        e->kernel = "z";
        e->family = "";
        e->options = "";
        e->n_defines = 1;
        e->defines[0][0] = "W";
        e->defines[0][1] = k == 0 ? "1" : k == 1 ? "2" : k == 2 ? "3" : "4";
        e->source = 0;
        e->base = CLCPACK_NONE;
        e->raw = s->raw_n[k];
        e->crc = (uint32_t)crc32(0, s->raw[k], (uInt)s->raw_n[k]);
    }
    s->src_text = "__kernel void z(void) { /* common-part-of-binaries */ }\n";
    s->src_codec = 4;
    s->src_dict = 0;
}

static void small4_blobs(small4 *s)
{
    uint8_t z[2048];
    size_t zn;
    zn = zframe(z, sizeof z, s->src_text, strlen(s->src_text), s->dict[0], s->dict_n, 0);
    s->src_off = craft_blob(&s->c, z, zn);
    s->src_stored = zn;
    zn = zframe(z, sizeof z, s->raw[0], s->raw_n[0], NULL, 0, 0);
    s->e[0].codec = 3;
    s->e[0].offset = craft_blob(&s->c, z, zn);
    s->e[0].stored = zn;
    zn = zframe(z, sizeof z, s->raw[1], s->raw_n[1], s->dict[0], s->dict_n, 0);
    s->e[1].codec = 4;
    s->e[1].base = 0;
    s->e[1].offset = craft_blob(&s->c, z, zn);
    s->e[1].stored = zn;
    zn = zframe(z, sizeof z, s->raw[2], s->raw_n[2], s->raw[1], s->raw_n[1], 1);
    s->e[2].codec = 5;
    s->e[2].base = 1;
    s->e[2].offset = craft_blob(&s->c, z, zn);
    s->e[2].stored = zn;
    zn = zframe(z, sizeof z, s->raw[3], s->raw_n[3], s->dict[1], s->dict_n, 0);
    s->e[3].codec = 4;
    s->e[3].base = 1;
    s->e[3].offset = craft_blob(&s->c, z, zn);
    s->e[3].stored = zn;
    /* Dictionary 0 stored, dictionary 1 as a zstd frame. */
    s->d_codec[0] = 0;
    s->d_off[0] = craft_blob(&s->c, s->dict[0], s->dict_n);
    s->d_stored[0] = s->d_raw[0] = s->dict_n;
    zn = zframe(z, sizeof z, s->dict[1], s->dict_n, NULL, 0, 0);
    s->d_codec[1] = 3;
    s->d_off[1] = craft_blob(&s->c, z, zn);
    s->d_stored[1] = zn;
    s->d_raw[1] = s->dict_n;
    for (int d = 0; d < 2; d++)
        s->d_crc[d] = (uint32_t)crc32(0, s->dict[d], (uInt)s->dict_n);
}

static uint8_t *small4_finish(small4 *s, size_t *size)
{
    size_t len = strlen(s->src_text);
    craft_device(&s->c, &small_device, 0);
    craft_source_dict(&s->c, "z.cl", s->src_codec, s->src_off, s->src_stored, len,
                      (uint32_t)crc32(0, (const Bytef *)s->src_text, (uInt)len), s->src_dict);
    for (int k = 0; k < 4; k++)
        craft_entry_record(&s->c, &s->e[k]);
    for (int d = 0; d < 2; d++)
        craft_dict(&s->c, s->d_codec[d], s->d_off[d], s->d_stored[d], s->d_raw[d], s->d_crc[d]);
    for (size_t d = 0; d < s->n_extra_dicts; d++)
        craft_dict(&s->c, 3, s->d_off[1], 32, (uint64_t)1 << 20, 0);
    return craft_finish(&s->c, size);
}

typedef void (*small4_edit)(small4 *s);

/* Builds the small format-4 pack with an edit and opens it: want is the
 * open's status (with needle in its message); when it opens, every entry
 * and the source are decoded and want_fails of them must fail, the first
 * failing entry with want_decode. */
static void expect_v4(const char *what, small4_edit edit, clcpack_status want, const char *needle,
                      int want_fails, clcpack_status want_decode)
{
    small4 s;
    small4_init(&s);
    small4_blobs(&s);
    if (edit)
        edit(&s);
    size_t n;
    uint8_t *f = small4_finish(&s, &n);
    clcpack_error err = {0};
    int fails = -1;
    clcpack_status st = try_open(f, n, &err, &fails);
    CHECK(st == want && (st == CLCPACK_OK || !needle || strstr(err.message, needle)),
          "format 4, %s: status %d (%s), want %d with '%s'; message: %s", what, st,
          clcpack_strerror(st), want, needle ? needle : "", st == CLCPACK_OK ? "" : err.message);
    if (st == CLCPACK_OK) {
        CHECK(fails == want_fails, "format 4, %s: %d decode failures, want %d", what, fails,
              want_fails);
        clcpack *p = NULL;
        if (want_fails && clcpack_open_memory(f, n, &p, &err) == CLCPACK_OK) {
            clcpack_status first = CLCPACK_OK;
            char msg[CLCPACK_MESSAGE_MAX] = "";
            for (size_t i = 0; i < 4 && first == CLCPACK_OK; i++) {
                uint8_t buf[1024];
                size_t got;
                first = clcpack_read_binary(p, i, buf, sizeof buf, &got, &err);
                if (first != CLCPACK_OK)
                    snprintf(msg, sizeof msg, "%s", err.message);
            }
            if (first == CLCPACK_OK) {
                char src[200];
                size_t got;
                first = clcpack_read_source(p, 0, src, sizeof src, &got, &err);
                if (first != CLCPACK_OK)
                    snprintf(msg, sizeof msg, "%s", err.message);
            }
            CHECK(first == want_decode && (!needle || strstr(msg, needle)),
                  "format 4, %s: first failure %d, want %d with '%s' (%s)", what, first,
                  want_decode, needle ? needle : "", msg);
            clcpack_close(p);
        }
    }
    free(f);
}

static void v4_dict_raw_zero(small4 *s) { s->d_raw[0] = 0; }
static void v4_dict_too_big(small4 *s) { s->d_raw[1] = ((uint64_t)1 << 20) + 1; }
static void v4_dict_outside(small4 *s) { s->d_off[0] = (uint64_t)1 << 40; }
static void v4_dict_codec(small4 *s) { s->d_codec[0] = 1; }
static void v4_dict_stored_lies(small4 *s) { s->d_raw[0] = s->d_stored[0] - 1; }
static void v4_dict_total(small4 *s) { s->n_extra_dicts = 64; }
static void v4_dict_decoded_lies(small4 *s) { s->d_raw[1] += 1; }
static void v4_dict_bad_crc(small4 *s) { s->d_crc[0] ^= 1; }
static void v4_dict_count_huge(small4 *s) { s->c.counts[3] = UINT32_MAX - 2; }
static void v4_entry_dict_range(small4 *s) { s->e[1].base = 2; }
static void v4_wrong_dict(small4 *s) { s->e[1].base = 1; }
static void v4_source_dict_range(small4 *s) { s->src_dict = 7; }
static void v4_source_dict_missing(small4 *s) { s->src_dict = CLCPACK_NONE; }
static void v4_source_dict_on_plain(small4 *s) { s->src_codec = 3; }
static void v4_prefix_self(small4 *s) { s->e[2].base = 2; }
static void v4_prefix_later(small4 *s) { s->e[2].base = 3; }
static void v4_prefix_of_dict_entry(small4 *s) { s->e[3].codec = 5; }
static void v4_prefix_budget(small4 *s)
{
    /* A base more than twice the entry's size breaks the decode budget. */
    s->e[2].raw = s->e[1].raw / 2 - 1;
}
static void v4_zstd_ratio(small4 *s) { s->e[0].raw = s->e[0].stored * 32768 + 1; }
static void v4_frame_trailing(small4 *s) { s->e[0].stored += 3; }
static void v4_frame_cut(small4 *s) { s->e[0].stored -= 3; }
static void v4_frame_size_lies(small4 *s) { s->e[0].raw += 10; }
static void v4_frame_damaged(small4 *s) { s->c.payload.p[s->e[3].offset - 64 + s->e[3].stored / 2] ^= 0x40; }
static void v4_magic_dict_garbage(small4 *s)
{
    /* Dictionary 0 starts with zstd's dictionary magic, then garbage where
     * the entropy tables should be: zstd refuses it. */
    static const uint8_t magic[4] = {0x37, 0xA4, 0x30, 0xEC};
    uint8_t *d = s->c.payload.p + (s->d_off[0] - 64);
    memcpy(d, magic, 4);
    memset(d + 4, 0xFF, 40);
    s->d_crc[0] = (uint32_t)crc32(0, d, (uInt)s->d_stored[0]);
}
static void v4_skippable_frame(small4 *s)
{
    /* Entry 0's blob becomes a skippable frame of 8 bytes of payload. */
    static const uint8_t skip[16] = {0x50, 0x2A, 0x4D, 0x18, 8, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8};
    s->e[0].offset = craft_blob(&s->c, skip, sizeof skip);
    s->e[0].stored = sizeof skip;
}
static void v4_in_v3_pack(small4 *s) { s->c.format_version = 3; s->c.min_reader = 1; }

static void test_crafted_v4(void)
{
    expect_v4("the crafted pack", NULL, CLCPACK_OK, NULL, 0, CLCPACK_OK);
    expect_v4("a dictionary of 0 bytes", v4_dict_raw_zero, CLCPACK_E_FORMAT, "dictionary 0", 0, 0);
    expect_v4("a dictionary over 1 MiB", v4_dict_too_big, CLCPACK_E_LIMIT, "dictionary 1", 0, 0);
    expect_v4("a dictionary outside the payload", v4_dict_outside, CLCPACK_E_FORMAT, "outside", 0,
              0);
    expect_v4("a dictionary of codec 1", v4_dict_codec, CLCPACK_E_FORMAT, "not allowed", 0, 0);
    expect_v4("a stored dictionary whose sizes differ", v4_dict_stored_lies, CLCPACK_E_FORMAT,
              "stored blob", 0, 0);
    expect_v4("dictionaries over 64 MiB in all", v4_dict_total, CLCPACK_E_LIMIT, "add up", 0, 0);
    expect_v4("a dictionary count beyond the index", v4_dict_count_huge, CLCPACK_E_LIMIT,
              "dictionaries", 0, 0);
    expect_v4("an entry naming a dictionary past the table", v4_entry_dict_range, CLCPACK_E_FORMAT,
              "dictionary 2", 0, 0);
    expect_v4("a source naming a dictionary past the table", v4_source_dict_range,
              CLCPACK_E_FORMAT, "dictionary 7", 0, 0);
    expect_v4("a codec-4 source without a dictionary", v4_source_dict_missing, CLCPACK_E_FORMAT,
              "dictionary", 0, 0);
    expect_v4("a dictionary on a source coded without one", v4_source_dict_on_plain,
              CLCPACK_E_FORMAT, "dictionary", 0, 0);
    expect_v4("a prefix that is the entry itself", v4_prefix_self, CLCPACK_E_FORMAT, "base", 0, 0);
    expect_v4("a prefix after the entry", v4_prefix_later, CLCPACK_E_FORMAT, "base", 0, 0);
    expect_v4("a prefix base over twice the entry", v4_prefix_budget, CLCPACK_E_LIMIT,
              "times the entry", 0, 0);
    expect_v4("a raw size beyond zstd's ratio", v4_zstd_ratio, CLCPACK_E_LIMIT, "zstd", 0, 0);
    expect_v4("zstd codecs in a pack of format 3", v4_in_v3_pack, CLCPACK_E_FORMAT, "format 4", 0,
              0);
    /* Blob-level damage: the pack opens, the blobs that need the damaged
     * bytes fail, the others decode. */
    expect_v4("a dictionary whose decoded size lies", v4_dict_decoded_lies, CLCPACK_OK,
              "dictionary 1", 1, CLCPACK_E_FORMAT);
    expect_v4("a dictionary whose CRC is wrong", v4_dict_bad_crc, CLCPACK_OK, "dictionary 0", 3,
              CLCPACK_E_CHECKSUM);
    expect_v4("a dictionary zstd refuses", v4_magic_dict_garbage, CLCPACK_OK, "refuses", 3,
              CLCPACK_E_FORMAT);
    expect_v4("an entry coded with another dictionary than the one named", v4_wrong_dict,
              CLCPACK_OK, NULL, 2, CLCPACK_E_CHECKSUM);
    expect_v4("a frame named a prefix that was made with a dictionary", v4_prefix_of_dict_entry,
              CLCPACK_OK, NULL, 1, CLCPACK_E_CHECKSUM);
    expect_v4("bytes after the frame", v4_frame_trailing, CLCPACK_OK, "after the end", 1,
              CLCPACK_E_FORMAT);
    expect_v4("a frame cut short", v4_frame_cut, CLCPACK_OK, NULL, 1, CLCPACK_E_FORMAT);
    expect_v4("a frame whose content size is not the raw size", v4_frame_size_lies, CLCPACK_OK,
              "declares", 1, CLCPACK_E_FORMAT);
    expect_v4("a damaged frame", v4_frame_damaged, CLCPACK_OK, NULL, 1, CLCPACK_E_CHECKSUM);
    expect_v4("a skippable frame", v4_skippable_frame, CLCPACK_OK, NULL, 1, CLCPACK_E_FORMAT);
}
#endif

/* The reader refuses a lying size before allocating it: checked in a child
 * whose address space is too small for the allocation, where an attempt
 * would come back as CLCPACK_E_NOMEM (or a crash) instead of E_LIMIT. */
static void test_no_allocation_under_rlimit(void)
{
#ifdef _WIN32
    /* No fork and no address-space limit on Windows: the Linux run checks it. */
    CHECK_SKIP("no fork or RLIMIT_AS on Windows: lying sizes under a small address space");
#else
    small s;
    small_init(&s, 64);
    small_blobs(&s);
    edit_raw_4g(&s);
    size_t n1;
    uint8_t *f1 = small_finish(&s, &n1, 0);
    craft c;
    craft_init(&c, 64);
    craft_device(&c, &small_device, 0);
    c.counts[2] = UINT32_MAX;
    size_t n2;
    uint8_t *f2 = craft_finish(&c, &n2);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit rl = {256u << 20, 256u << 20};
        setrlimit(RLIMIT_AS, &rl);
        clcpack *p = NULL;
        clcpack_status a = clcpack_open_memory(f1, n1, &p, NULL);
        clcpack_status b = clcpack_open_memory(f2, n2, &p, NULL);
        free(f1);
        free(f2);
        _exit(a == CLCPACK_E_LIMIT && b == CLCPACK_E_LIMIT ? 0 : 10 + (int)a);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "lying sizes refused with CLCPACK_E_LIMIT under a 256 MiB address space (exit %d)",
          WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    free(f1);
    free(f2);
#endif
}

/* Random damage to a real pack: whatever happens, no crash, and every
 * failure has a status and a message. */
static void test_mutations(const corpus *cp)
{
    clcpack_writer *w = NULL;
    clcpack_error err;
    clcpack_writer_new(0, &w, &err);
    uint32_t d, s;
    clcpack_writer_add_device(w, &cp->devices[2], &d, &err);
    clcpack_writer_add_source(w, "m.cl", cp->source_texts[2], 200, &s, &err);
    for (size_t i = 0; i < 6; i++) {
        clcpack_define defs[2];
        clcpack_entry_spec spec;
        corpus_entry e = cp->entries[i];
        e.size = 300; /* keep the pack small */
        spec_of(&e, defs, d, s, &spec);
        clcpack_writer_add_entry(w, &spec, &err);
    }
    void *data = NULL;
    size_t n = 0;
    clcpack_writer_write_memory(w, &data, &n, &err);
    clcpack_writer_free(w);
    uint8_t *f = malloc(n);
    int opened = 0, no_message = 0;
    for (int it = 0; it < 3000; it++) {
        memcpy(f, data, n);
        int flips = 1 + (int)(rnd() % 4);
        for (int k = 0; k < flips; k++)
            f[rnd() % n] ^= (uint8_t)(1u << (rnd() % 8));
        if (it % 2)
            fix_checksum(f, n); /* get past the checksum into the parser */
        err.message[0] = '\0';
        clcpack_status st = try_open(f, n, &err, NULL);
        if (st == CLCPACK_OK)
            opened++;
        else if (!err.message[0] || err.status != st)
            no_message++;
    }
    CHECK(no_message == 0, "every refused mutation has its status and a message (%d not)",
          no_message);
    printf("mutations: 3000 damaged packs, %d still opened (damage in payload or skipped bytes)\n",
           opened);
    free(f);
    clcpack_free(data);
}

/* Device UUIDs name one physical card: a native binary may move between two
 * cards that differ only there, never across a driver UUID or version. */
static void test_fingerprint_matching(void)
{
    clcpack_device_info a = {.struct_size = sizeof a}, b = {.struct_size = sizeof b};
    make_device(&a, "NVIDIA CUDA", "NVIDIA H200", "580.159.04", 0x10DE, 1);
    b = a;
    CHECK(clcpack_device_equal(&a, &b) && clcpack_device_binary_compatible(&a, &b),
          "identical fingerprints are equal and compatible");
    b.device_uuid[0] ^= 1;
    CHECK(!clcpack_device_equal(&a, &b), "another card is not equal");
    CHECK(clcpack_device_binary_compatible(&a, &b), "another card of the same model is compatible");
    b = a;
    b.driver_uuid[3] ^= 0x80;
    CHECK(!clcpack_device_binary_compatible(&a, &b), "another driver UUID is not compatible");
    char why[300];
    clcpack_device_describe_difference(&a, &b, why, sizeof why);
    CHECK(strstr(why, "driver UUID differs") != NULL, "difference named: %s", why);
    b = a;
    snprintf(b.driver_version, sizeof b.driver_version, "575.57");
    CHECK(!clcpack_device_binary_compatible(&a, &b), "another driver version is not compatible");
    clcpack_device_describe_difference(&a, &b, why, sizeof why);
    CHECK(strcmp(why, "driver version differs: 580.159.04 in pack, 575.57 here") == 0,
          "difference named: %s", why);
}

/* Binaries that start with zstd's dictionary magic number (37 A4 30 EC),
 * as any binary may: coded against each other as prefixes, which are raw
 * content whatever their first bytes (FORMAT.md, "Zstandard frames"). A
 * reader that handed such a base to zstd's ZSTD_dct_auto rule would read
 * it as a zstd dictionary and fail or decode other bytes. */
static void test_magic_bases(void)
{
    clcpack_device_info d;
    make_device(&d, "Portable Computing Language", "pthread-test", "3.1", 0x10006, 0);
    clcpack_writer *w = NULL;
    clcpack_error err;
    uint32_t di = 0;
    enum { N = 12, SIZE = 6000 };
    uint8_t *bins[N];
    int ok = clcpack_writer_new(0, &w, &err) == CLCPACK_OK &&
             clcpack_writer_set_compression(w, CLCPACK_COMPRESSION_ZSTD, &err) == CLCPACK_OK &&
             clcpack_writer_add_device(w, &d, &di, &err) == CLCPACK_OK;
    /* One random body (plain zstd cannot shrink it, a prefix can), a few
     * bytes changed in each. */
    uint8_t body[SIZE];
    fill_random(body, SIZE);
    for (int k = 0; k < N; k++) {
        bins[k] = malloc(SIZE);
        memcpy(bins[k], body, SIZE);
        for (int j = 0; j < 8; j++)
            bins[k][4 + rnd() % (SIZE - 4)] = (uint8_t)rnd();
        static const uint8_t magic[4] = {0x37, 0xA4, 0x30, 0xEC};
        memcpy(bins[k], magic, 4);
        corpus_entry e = {.kernel = "m", .def_names = {"W"}, .n_defines = 1,
                          .kind = CLCPACK_KIND_NATIVE, .bin = bins[k], .size = SIZE};
        snprintf(e.def_values[0], sizeof e.def_values[0], "%d", 3 + 2 * k);
        clcpack_define defs[2];
        clcpack_entry_spec spec;
        spec_of(&e, defs, di, CLCPACK_NONE, &spec);
        ok = ok && clcpack_writer_add_entry(w, &spec, &err) == CLCPACK_OK;
    }
    void *data = NULL;
    size_t size = 0;
    ok = ok && clcpack_writer_write_memory(w, &data, &size, &err) == CLCPACK_OK;
    clcpack *p = NULL;
    if (CHECK(ok && clcpack_open_memory(data, size, &p, &err) == CLCPACK_OK,
              "magic-number bases: written and opened: %s", err.message)) {
        size_t prefixed = 0, same = 0;
        uint8_t buf[SIZE];
        for (size_t i = 0; i < clcpack_entry_count(p); i++) {
            clcpack_entry_info info = {.struct_size = sizeof info};
            clcpack_get_entry(p, i, &info);
            prefixed += info.codec == 5;
            size_t got = 0;
            /* Entries sort by the define's value as a number: 3, 5, ... */
            same += clcpack_read_binary(p, i, buf, sizeof buf, &got, &err) == CLCPACK_OK &&
                    got == SIZE && memcmp(buf, bins[i], SIZE) == 0;
        }
        CHECK(prefixed > 0 && same == N,
              "magic-number bases: %zu entries against a prefix, %zu of %d read back the same "
              "(%s)",
              prefixed, same, N, same == N ? "ok" : err.message);
    }
    clcpack_close(p);
    clcpack_free(data);
    clcpack_writer_free(w);
    for (int k = 0; k < N; k++)
        free(bins[k]);
}

int main(void)
{
    corpus *c = malloc(sizeof *c);
    make_corpus(c);
    /* Both codec families, the older first; every other test writes with
     * the library's default (zstd where it has it). */
    compression = CLCPACK_COMPRESSION_ZLIB;
    test_round_trip(c);
    compression = CLCPACK_COMPRESSION_ZSTD;
    if (clcpack_compression_available(compression))
        test_round_trip(c);
    else
        CHECK_SKIP("zstd round trip: this libclcpack was built without zstd");
    compression = CLCPACK_COMPRESSION_DEFAULT;
    test_writer_checks(c);
    test_files(c);
    test_crafted_errors();
    test_hello_frame();
#if defined(CLCPK_HAVE_ZSTD)
    test_crafted_v4();
#else
    CHECK_SKIP("format 4 crafted packs: this build has no zstd to make their frames");
#endif
    if (clcpack_compression_available(CLCPACK_COMPRESSION_ZSTD))
        test_magic_bases();
    else
        CHECK_SKIP("bases starting with the dictionary magic: this libclcpack has no zstd");
    test_no_allocation_under_rlimit();
    test_mutations(c);
    test_fingerprint_matching();
    free_corpus(c);
    free(c);
    return check_summary();
}
