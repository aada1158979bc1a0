/*
 * targets.h — the fuzz targets beyond pack parsing (fuzz_target.h), each a
 * static inline function (unused ones draw no warning) over the fuzzer's bytes, shared by their libFuzzer
 * programs (tests/fuzz/fuzz_NAME.c) and the replay test
 * (tests/unit/test_fuzz_targets.c):
 *
 *  - fuzz_open_file: the bytes as a file, through clcpack_open_file and
 *    clcpack_open_file_pinned (right and wrong digest); every entry found
 *    by its key and read; a pack with a lookup table (format 5) also with
 *    its CRC-32s made right again;
 *  - fuzz_tuning: the tuning readers of every entry;
 *  - fuzz_best: clcpack_best_variant for every family in the pack at a few
 *    filter widths, and under the first entry's defines (each in turn the
 *    run-time define), against the pack's own devices and an unknown one;
 *  - fuzz_load: clcpack_create_program and clcpack_create_kernel on the fake
 *    driver of fake_cl.h, whose device is one of the pack's, with driver
 *    failures chosen by the input's last byte;
 *  - fuzz_writer: the bytes as a script of writer calls (devices, sources,
 *    entries, timings with lengths and values from the input; zlib or zstd
 *    by the first byte), then the pack written, read back and compared
 *    with what was added.
 * Pack targets take a pack's bytes (their corpus is tests/fuzz/corpus/;
 * tuning, best and load also try the bytes with the header checksum made
 * right, as fuzz_target.h does, so mutations reach the readers);
 * the writer target's corpus is tests/fuzz/corpus_writer/. A failed check
 * traps, so libFuzzer keeps the input. Include this in one file per
 * program, after fake_cl.h when the program uses fuzz_load.
 */
#ifndef CLC_FUZZ_TARGETS_H
#define CLC_FUZZ_TARGETS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "clcpack_write.h"
#include "cli_fuzz.h"

static void tg_require(int cond)
{
    if (!cond)
        __builtin_trap();
}

/* Reads every entry; with `lenient`, skips those whose record a read
 * through a lookup table refuses (the others must read). */
static void tg_read_entries(const clcpack *p, int lenient)
{
    for (size_t i = 0; i < clcpack_entry_count(p) && i < 64; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        clcpack_status st = clcpack_get_entry(p, i, &e);
        tg_require(st == CLCPACK_OK || lenient);
        if (st != CLCPACK_OK)
            continue;
        uint8_t *buf = malloc((size_t)e.raw_size);
        size_t n = 0;
        clcpack_error err;
        if (buf && clcpack_read_binary(p, i, buf, (size_t)e.raw_size, &n, &err) == CLCPACK_OK)
            tg_require(n == e.raw_size);
        free(buf);
    }
}

/* Opens the bytes as a pack; when that fails, a copy with the header
 * checksum made right again (almost every mutation breaks it, and the
 * readers behind the open would then never run). *copy is that copy, to
 * free after clcpack_close; NULL when none. */
static clcpack *tg_open(const uint8_t *data, size_t size, uint8_t **copy)
{
    clcpack *p = NULL;
    clcpack_error err;
    *copy = NULL;
    if (clcpack_open_memory(data, size, &p, &err) == CLCPACK_OK)
        return p;
    if (size < 64)
        return NULL;
    uint64_t hs = 0, io = 0, is = 0;
    for (int i = 3; i >= 0; i--)
        hs = hs << 8 | data[12 + i];
    for (int i = 7; i >= 0; i--) {
        io = io << 8 | data[24 + i];
        is = is << 8 | data[32 + i];
    }
    if (hs < 48 || hs > size || io > size || is > size - io)
        return NULL;
    uint8_t *c = malloc(size);
    if (!c)
        return NULL;
    memcpy(c, data, size);
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, c, 44);
    crc = crc32(crc, c + 48, (uInt)(hs - 48));
    crc = crc32(crc, c + io, (uInt)is);
    for (int i = 0; i < 4; i++)
        c[44 + i] = (uint8_t)(crc >> (8 * i));
    if (clcpack_open_memory(c, size, &p, &err) != CLCPACK_OK) {
        free(c);
        return NULL;
    }
    *copy = c;
    return p;
}

/* ---- open_file -------------------------------------------------------- */

static uint64_t tg_le(const uint8_t *b, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

static void tg_put32(uint8_t *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

/* 1 when the bytes name a lookup table (docs/FORMAT.md, format 5). */
static int tg_has_lookup(const uint8_t *d, size_t size)
{
    return size >= 128 && tg_le(d + 8, 2) >= 5 && tg_le(d + 12, 4) >= 128 && tg_le(d + 64, 8) != 0;
}

/* CRC-32 of [at, at + n) when it lies in the bytes, else 0. */
static uint32_t tg_crc_at(const uint8_t *d, size_t size, uint64_t at, uint64_t n)
{
    if (at > size || n > size - at)
        return 0;
    return (uint32_t)crc32(0L, d + at, (uInt)n);
}

/* The CRC-32s of nb buckets at bk whose items are at list. */
static void tg_fix_buckets(uint8_t *d, size_t size, uint64_t bk, uint64_t list, uint64_t nb)
{
    for (uint64_t b = 0; b < nb && b < 65536; b++) {
        if (bk > size || b > (size - bk) / 12)
            break;
        uint64_t s = bk + 12 * b;
        if (size - s < 12)
            break;
        uint64_t first = tg_le(d + s, 4), n = tg_le(d + s + 4, 4);
        uLong c = crc32(0L, d + s, 8);
        /* Each bound before the sum it guards: the fields are the fuzzer's. */
        if (list <= size && first <= (size - list) / 4 && n <= (size - list - 4 * first) / 4)
            c = crc32(c, d + list + 4 * first, (uInt)(4 * n));
        tg_put32(d + s + 8, (uint32_t)c);
    }
}

/* Every CRC-32 of a lookup table made right again, from the innermost
 * (rows, buckets, head, dictionaries) out (directory, header, the whole
 * index), so that mutations of its fields reach the reader's checks. */
static void tg_fix_lookup(uint8_t *d, size_t size)
{
    uint64_t io = tg_le(d + 24, 8), is = tg_le(d + 32, 8), dir = tg_le(d + 64, 8);
    uint64_t dn = tg_le(d + 72, 4);
    if (io > size || is > size - io || dir > size || dn > size - dir || dn < 100)
        return;
    uint8_t *x = d + dir;
    uint64_t ne = size >= io + 16 ? tg_le(d + io + 12, 4) : 0, ns = size >= io + 16 ? tg_le(d + io + 8, 4) : 0;
    uint64_t rows[2] = {tg_le(x + 40, 8), tg_le(x + 48, 8)}, cnt[2] = {ne, ns};
    for (int k = 0; k < 2; k++)
        for (uint64_t i = 0; i < cnt[k] && i < 4096; i++) {
            if (rows[k] > size || i > (size - rows[k]) / 12)
                break;
            uint64_t r = rows[k] + 12 * i;
            if (size - r < 12)
                break;
            uint64_t off = tg_le(d + r, 4), len = tg_le(d + r + 4, 4);
            tg_put32(d + r + 8, tg_crc_at(d, size, io + off, len));
        }
    tg_fix_buckets(d, size, tg_le(x + 56, 8), tg_le(x + 64, 8), tg_le(x + 4, 4));
    tg_fix_buckets(d, size, tg_le(x + 80, 8), tg_le(x + 88, 8), tg_le(x + 76, 4));
    tg_put32(x + 20, tg_crc_at(d, size, tg_le(x + 8, 8), tg_le(x + 16, 4)));
    tg_put32(x + 36, tg_crc_at(d, size, tg_le(x + 24, 8), tg_le(x + 32, 4)));
    tg_put32(d + 76, (uint32_t)crc32(0L, x, (uInt)dn));
    uLong c = crc32(0L, d, 44);
    tg_put32(d + 124, (uint32_t)crc32(c, d + 48, 124 - 48));
    uint64_t hs = tg_le(d + 12, 4);
    if (hs >= 48 && hs <= size && io + is <= size) {
        c = crc32(crc32(0L, d, 44), d + 48, (uInt)(hs - 48));
        tg_put32(d + 44, (uint32_t)crc32(c, d + io, (uInt)is));
    }
}

/* Every entry's key found again through the handle (a file opened with its
 * lookup table reads its buckets): no crash, a message on failure. */
static void tg_find_all(const clcpack *p)
{
    for (size_t i = 0; i < clcpack_entry_count(p) && i < 64; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        if (clcpack_get_entry(p, i, &e) != CLCPACK_OK)
            continue;
        /* The whole key, then the name and wg alone (the name buckets). */
        for (int whole = 1; whole >= 0; whole--) {
            clcpack_key k = {e.kernel, e.defines, whole ? e.define_count : 0,
                             {e.wg[0], e.wg[1], e.wg[2]}};
            size_t idx[8], n = 0;
            clcpack_error err;
            err.message[0] = '\0';
            if (clcpack_find(p, &k, idx, 8, &n, &err) != CLCPACK_OK)
                tg_require(err.message[0] != '\0');
        }
    }
}

static void tg_open_file_bytes(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    size_t wrote = fwrite(data, 1, size, f);
    if (fclose(f) != 0 || wrote != size)
        return;
    clcpack *p = NULL;
    clcpack_error err;
    clcpack_status st = clcpack_open_file(path, &p, &err);
    clcpack *m = NULL;
    clcpack_status sm = clcpack_open_memory(data, size, &m, &err);
    /* A file says what the same bytes in memory say, except through a
     * lookup table: it reads records when they are needed, so a damaged
     * one is found later, and a damaged table fails what memory (which
     * ignores it) opens. */
    int lookup = tg_has_lookup(data, size);
    tg_require(st == sm || lookup);
    clcpack_close(m);
    if (st == CLCPACK_OK) {
        uint8_t want[32], got[32];
        clcpack_digest_sha256(data, size, want);
        tg_require(clcpack_pack_sha256(p, got) == CLCPACK_OK && memcmp(want, got, 32) == 0);
        tg_find_all(p);
        tg_read_entries(p, lookup);
        clcpack_close(p);
        p = NULL;
        tg_require(clcpack_open_file_pinned(path, want, &p, &err) == sm);
        clcpack_close(p);
        p = NULL;
        want[size % 32] ^= 0x40;
        tg_require(clcpack_open_file_pinned(path, want, &p, &err) == CLCPACK_E_CHECKSUM && !p);
    } else {
        tg_require(p == NULL && err.message[0] != '\0');
    }
    unlink(path);
}

static inline int fuzz_open_file(const uint8_t *data, size_t size)
{
    static char path[256];
    if (!path[0]) {
        snprintf(path, sizeof path, "%s/clcpack-fuzz-%ld.clcpack", cf_tmp_base(), (long)getpid());
    }
    tg_open_file_bytes(path, data, size);
    /* A lookup table's fields behind their CRC-32s: the same bytes with
     * every one of them made right again. */
    if (tg_has_lookup(data, size)) {
        uint8_t *c = malloc(size);
        if (c) {
            memcpy(c, data, size);
            tg_fix_lookup(c, size);
            tg_open_file_bytes(path, c, size);
            free(c);
        }
    }
    return 0;
}

/* ---- tuning ----------------------------------------------------------- */

static inline int fuzz_tuning(const uint8_t *data, size_t size)
{
    uint8_t *copy;
    clcpack *p = tg_open(data, size, &copy);
    if (!p)
        return 0;
    for (size_t i = 0; i <= clcpack_entry_count(p); i++) {
        size_t n = clcpack_entry_tuning_count(p, i);
        if (i == clcpack_entry_count(p))
            tg_require(n == 0);
        uint32_t last = 0;
        for (size_t k = 0; k < n; k++) {
            clcpack_tuning t;
            tg_require(clcpack_get_entry_tuning(p, i, k, &t) == CLCPACK_OK);
            if (n > 1) {
                tg_require(t.runs >= 1);
                tg_require(k == 0 || t.runtime_value > last);
            }
            last = t.runtime_value;
        }
        clcpack_tuning t;
        tg_require(clcpack_get_entry_tuning(p, i, n, &t) == CLCPACK_E_NOT_FOUND);
        tg_require(clcpack_get_entry_tuning(p, i, 0, NULL) == CLCPACK_E_INVALID_ARG);
    }
    clcpack_close(p);
    free(copy);
    return 0;
}

/* ---- best_variant ----------------------------------------------------- */

static inline int fuzz_best(const uint8_t *data, size_t size)
{
    uint8_t *copy;
    clcpack *p = tg_open(data, size, &copy);
    clcpack_error err;
    if (!p)
        return 0;
    static const uint32_t widths[] = {0, 3, 5, 15, 31, 0xFFFFFFFFu};
    size_t nd = clcpack_device_count(p);
    const char *families[8];
    size_t nf = 0;
    families[nf++] = "conv-grey";
    families[nf++] = "no-such-family";
    for (size_t i = 0; i < clcpack_entry_count(p) && nf < 8; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        clcpack_get_entry(p, i, &e);
        const char *family = "";
        clcpack_get_entry_family(p, i, &family);
        int seen = 0;
        for (size_t k = 0; k < nf; k++)
            seen |= strcmp(families[k], family) == 0;
        if (!seen)
            families[nf++] = family;
    }
    clcpack_entry_info first = {.struct_size = sizeof first};
    if (clcpack_get_entry(p, 0, &first) != CLCPACK_OK)
        first.define_count = 0;
    for (size_t f = 0; f < nf; f++)
        for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)
            for (size_t d = 0; d <= nd && d < 3; d++) {
                clcpack_device_info here = {.struct_size = sizeof here};
                memset(&here, 0, sizeof here);
                here.struct_size = sizeof here;
                if (d < nd)
                    clcpack_get_device(p, d, &here);
                else
                    snprintf(here.device_name, sizeof here.device_name, "unknown");
                clcpack_choice c = {.struct_size = sizeof c};
                char value[16];
                snprintf(value, sizeof value, "%u", (unsigned)widths[w]);
                clcpack_define fw = {"FILTER_WIDTH", value};
                /* The last width round asks with the first entry's own
                 * defines instead, one of them the run-time define. */
                const clcpack_define *cons = &fw;
                size_t n_cons = widths[w] ? 1 : 0;
                const char *runtime = "FILTER_WIDTH";
                if (w + 1 == sizeof widths / sizeof widths[0] && first.define_count) {
                    cons = first.defines;
                    n_cons = first.define_count;
                    runtime = first.defines[f % first.define_count].name;
                }
                clcpack_status st =
                    clcpack_best_variant(p, families[f], cons, n_cons, runtime, &here, &c, &err);
                if (st != CLCPACK_OK) {
                    tg_require(err.message[0] != '\0');
                    continue;
                }
                tg_require(c.entry < clcpack_entry_count(p));
                tg_require(c.runner_up_entry == CLCPACK_NONE ||
                           c.runner_up_entry < clcpack_entry_count(p));
                tg_require(memchr(c.why, 0, sizeof c.why) != NULL);
                clcpack_key key;
                clcpack_choice_key(&c, &key);
                size_t idx[4], n = 0;
                tg_require(clcpack_find(p, &key, idx, 4, &n, &err) == CLCPACK_OK && n >= 1);
            }
    clcpack_close(p);
    free(copy);
    return 0;
}

/* ---- create_program on a fake driver ---------------------------------- */

#ifdef CLC_FUZZ_FAKE_CL_H
static inline int fuzz_load(const uint8_t *data, size_t size)
{
    uint8_t *copy;
    clcpack *p = size ? tg_open(data, size, &copy) : NULL;
    clcpack_error err;
    if (!p)
        return 0;
    uint8_t knob = data[size - 1];
    size_t nd = clcpack_device_count(p);
    memset(&fake_cl_device, 0, sizeof fake_cl_device);
    fake_cl_device.struct_size = sizeof fake_cl_device;
    if (nd)
        clcpack_get_device(p, knob % nd, &fake_cl_device);
    fake_cl_fail = (unsigned)(knob >> 1) & 0x7F;
    static int context_object;
    cl_context ctx = (cl_context)(void *)&context_object;
    for (size_t i = 0; i < clcpack_entry_count(p) && i < 32; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        clcpack_get_entry(p, i, &e);
        clcpack_key key = {e.kernel, e.defines, e.define_count, {e.wg[0], e.wg[1], e.wg[2]}};
        clcpack_load_options o = {sizeof o, (uint32_t)(i + knob) & 31u};
        clcpack_load_report r = {.struct_size = sizeof r};
        cl_program prog = NULL;
        cl_kernel k = NULL;
        long live = fake_cl_live;
        clcpack_status st = i % 2
            ? clcpack_create_kernel(p, &key, ctx, FAKE_DEVICE, &o, &prog, &k, &r, &err)
            : clcpack_create_program(p, &key, ctx, FAKE_DEVICE, &o, &prog, &r, &err);
        tg_require(memchr(r.why, 0, sizeof r.why) != NULL);
        if (st == CLCPACK_OK) {
            tg_require(prog != NULL && (i % 2 == 0 || k != NULL));
            if (k)
                clReleaseKernel(k);
            clReleaseProgram(prog);
        } else {
            tg_require(err.message[0] != '\0' && prog == NULL && k == NULL);
        }
        tg_require(fake_cl_live == live); /* nothing leaked, nothing freed twice */
    }
    clcpack_close(p);
    free(copy);
    return 0;
}
#endif

/* ---- writer ----------------------------------------------------------- */

typedef struct tg_in {
    const uint8_t *p;
    size_t n;
} tg_in;

static unsigned tg_byte(tg_in *in)
{
    if (!in->n)
        return 0;
    in->n--;
    return *in->p++;
}

/* A string of up to max bytes from the input (NULs end it early). */
static void tg_string(tg_in *in, char *out, size_t max)
{
    size_t len = tg_byte(in) % (max + 1), k = 0;
    while (k < len && in->n) {
        char c = (char)tg_byte(in);
        if (!c)
            break;
        out[k++] = c;
    }
    out[k] = '\0';
}

#define TG_MAX_ENTRIES 48

typedef struct tg_added {
    char kernel[24];
    char names[3][12], values[3][12];
    clcpack_define defs[3];
    size_t n_defs;
    uint32_t wg[3], device;
    clcpack_binary_kind kind;
    uint32_t arch;
    uint8_t bin[300];
    size_t bin_n;
} tg_added;

static inline int fuzz_writer(const uint8_t *data, size_t size)
{
    tg_in in = {data, size};
    clcpack_writer *w = NULL;
    clcpack_error err;
    /* The first byte: the writer's flags (the spool too), and bit 3 the
     * codecs: zstd (format 4) where the library has it, else zlib. */
    unsigned first = tg_byte(&in);
    if (clcpack_writer_new(first & 7u, &w, &err) != CLCPACK_OK)
        return 0;
    clcpack_compression codecs = first & 8u && clcpack_compression_available(CLCPACK_COMPRESSION_ZSTD)
                                     ? CLCPACK_COMPRESSION_ZSTD
                                     : CLCPACK_COMPRESSION_ZLIB;
    tg_require(clcpack_writer_set_compression(w, codecs, &err) == CLCPACK_OK);
    static tg_added added[TG_MAX_ENTRIES];
    size_t n_added = 0;
    uint32_t n_dev = 0, n_src = 0;
    while (in.n) {
        unsigned op = tg_byte(&in) % 4;
        if (op == 0) { /* device */
            clcpack_device_info d = {.struct_size = sizeof d};
            memset(&d, 0, sizeof d);
            d.struct_size = sizeof d;
            tg_string(&in, d.device_name, 20);
            tg_string(&in, d.driver_version, 8);
            d.vendor_id = tg_byte(&in) & 1 ? 0x10DE : 0;
            d.nv_cc_major = tg_byte(&in) % 10;
            d.has_uuid = tg_byte(&in) & 1;
            uint32_t idx;
            if (clcpack_writer_add_device(w, &d, &idx, &err) == CLCPACK_OK && idx >= n_dev)
                n_dev = idx + 1;
        } else if (op == 1) { /* source */
            char name[16], text[64];
            tg_string(&in, name, 12);
            tg_string(&in, text, 60);
            uint32_t idx;
            if (clcpack_writer_add_source(w, name, text, strlen(text), &idx, &err) == CLCPACK_OK &&
                idx != CLCPACK_NONE && idx >= n_src)
                n_src = idx + 1;
        } else if (op == 2 && n_added < TG_MAX_ENTRIES) { /* entry */
            tg_added *a = &added[n_added];
            memset(a, 0, sizeof *a);
            tg_string(&in, a->kernel, 20);
            a->n_defs = tg_byte(&in) % 4;
            for (size_t k = 0; k < a->n_defs; k++) {
                tg_string(&in, a->names[k], 10);
                tg_string(&in, a->values[k], 10);
                a->defs[k].name = a->names[k];
                a->defs[k].value = a->values[k];
            }
            for (int k = 0; k < 3; k++)
                a->wg[k] = tg_byte(&in) % 3 * 8;
            a->device = tg_byte(&in) % (n_dev + 1);
            a->kind = (clcpack_binary_kind)(tg_byte(&in) % 4);
            a->arch = tg_byte(&in) % 3 ? 0 : 90;
            uint32_t source = tg_byte(&in) % (n_src + 2);
            a->bin_n = tg_byte(&in) * 300 / 256;
            unsigned seed = tg_byte(&in);
            for (size_t k = 0; k < a->bin_n; k++)
                a->bin[k] = (uint8_t)(k % 7 ? seed : k + seed); /* alike across entries: deltas */
            clcpack_entry_spec s;
            memset(&s, 0, sizeof s);
            s.struct_size = sizeof s;
            s.kernel = a->kernel;
            s.defines = a->defs;
            s.define_count = a->n_defs;
            memcpy(s.wg, a->wg, sizeof s.wg);
            s.device = a->device;
            s.source = source >= n_src ? CLCPACK_NONE : source;
            s.kind = a->kind;
            s.arch = a->arch;
            s.binary = a->bin;
            s.binary_size = a->bin_n;
            clcpack_status st = clcpack_writer_add_entry(w, &s, &err);
            if (st == CLCPACK_OK)
                n_added++;
            else
                tg_require(err.message[0] != '\0');
        } else if (op == 3 && n_added) { /* timing on an added entry */
            tg_added *a = &added[tg_byte(&in) % n_added];
            clcpack_entry_spec s;
            memset(&s, 0, sizeof s);
            s.struct_size = sizeof s;
            s.kernel = a->kernel;
            s.defines = a->defs;
            s.define_count = a->n_defs;
            memcpy(s.wg, a->wg, sizeof s.wg);
            s.device = a->device;
            s.kind = a->kind;
            s.arch = a->arch;
            clcpack_tuning t = {tg_byte(&in), 64, 64, tg_byte(&in) % 4, tg_byte(&in) * 1000u};
            clcpack_writer_add_tuning(w, &s, &t, &err);
        }
    }
    void *mem = NULL;
    size_t mem_n = 0;
    clcpack_status st = clcpack_writer_write_memory(w, &mem, &mem_n, &err);
    clcpack_writer_free(w);
    if (st != CLCPACK_OK) {
        tg_require(err.message[0] != '\0');
        return 0;
    }
    clcpack *p = NULL;
    tg_require(clcpack_open_memory(mem, mem_n, &p, &err) == CLCPACK_OK);
    /* Every entry that was added is there, with its bytes (duplicates
     * with the same bytes were no-ops, so counts may be lower). */
    tg_require(clcpack_entry_count(p) <= n_added);
    for (size_t i = 0; i < n_added; i++) {
        tg_added *a = &added[i];
        clcpack_key key = {a->kernel, a->defs, a->n_defs, {a->wg[0], a->wg[1], a->wg[2]}};
        size_t idx[64], n = 0;
        tg_require(clcpack_find(p, &key, idx, 64, &n, &err) == CLCPACK_OK && n >= 1);
        int found = 0;
        for (size_t k = 0; k < n && k < 64; k++) {
            clcpack_entry_info e = {.struct_size = sizeof e};
            clcpack_get_entry(p, idx[k], &e);
            if (e.kind != a->kind || e.arch != a->arch || e.raw_size != a->bin_n)
                continue;
            uint8_t buf[300];
            size_t got;
            tg_require(clcpack_read_binary(p, idx[k], buf, sizeof buf, &got, &err) == CLCPACK_OK);
            found |= got == a->bin_n && memcmp(buf, a->bin, got) == 0;
        }
        tg_require(found);
    }
    clcpack_close(p);
    clcpack_free(mem);
    return 0;
}

#endif /* CLC_FUZZ_TARGETS_H */
