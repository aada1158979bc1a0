/*
 * test_independent_reader.c — a second reader of packs, written from
 * docs/FORMAT.md alone (no libclcpack code: its own field walk, zlib and
 * zstd called directly), run on packs libclcpack writes: every source,
 * entry and dictionary blob is decoded by the rules of the document (XOR
 * deltas and zstd prefixes along their chains, dictionaries by number),
 * checked against its CRC-32, and compared with what the library decodes.
 * A writer that strays from the document, or a document that says less
 * than the writer does, fails here. A format-5 pack's lookup table is
 * checked against its records too: rows, CRC-32s, and every key in the
 * bucket of the hash the document defines (tests/common/lookup_table.c).
 *
 * The packs: the synthetic NVIDIA-like corpus (tests/common/synth_pack.h),
 * written with zlib and with zstd, with and without sources and with the
 * cubins compressed; plus any pack files named on the command line (the
 * default pack, say).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#if defined(CLCPK_HAVE_ZSTD)
#include <zstd.h>
#endif

#include "check.h"
#include "clcpack_write.h"
#include "fuzz_replay.h"
#include "lookup_table.h"
#include "synth_pack.h"
#include "test_file.h"

/* A bounded cursor: every read checks what is left, as the document asks. */
typedef struct cur {
    const uint8_t *p;
    size_t n, at;
    int bad;
} cur;

static uint32_t u32(cur *c)
{
    if (c->bad || c->n - c->at < 4) {
        c->bad = 1;
        return 0;
    }
    const uint8_t *b = c->p + c->at;
    c->at += 4;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t u64(cur *c)
{
    uint64_t lo = u32(c);
    return lo | (uint64_t)u32(c) << 32;
}

static void skip(cur *c, size_t k)
{
    if (c->bad || c->n - c->at < k)
        c->bad = 1;
    else
        c->at += k;
}

static void skip_str(cur *c) { skip(c, u32(c)); }

/* The next record: its bytes after the length field. */
static cur record(cur *ix)
{
    size_t start = ix->at;
    uint32_t len = u32(ix);
    cur r = {0};
    if (ix->bad || len < 4 || len - 4 > ix->n - ix->at) {
        ix->bad = 1;
        r.bad = 1;
        return r;
    }
    r.p = ix->p + start + 4;
    r.n = len - 4;
    ix->at = start + len;
    return r;
}

/* What this reader needs of a blob. */
typedef struct blob {
    uint32_t codec, base;
    uint64_t offset, stored, raw;
    uint32_t crc;
    uint8_t *bytes; /* decoded, once */
} blob;

typedef struct pack {
    const uint8_t *f;
    size_t n;
    uint16_t version;
    uint32_t n_src, n_ent, n_dict;
    blob *src, *ent, *dict;
} pack;

/* Reads the header and index as docs/FORMAT.md lays them out. 0 or -1. */
static int parse(pack *k, const uint8_t *f, size_t n)
{
    memset(k, 0, sizeof *k);
    k->f = f;
    k->n = n;
    cur h = {f, n, 0, 0};
    skip(&h, 8);
    k->version = (uint16_t)(u32(&h) & 0xFFFF);
    uint32_t header_size = u32(&h);
    uint64_t file_size = u64(&h), index_offset = u64(&h), index_size = u64(&h);
    if (h.bad || file_size != n || header_size < 64 || index_offset > n ||
        index_size > n - index_offset)
        return -1;
    cur ix = {f + index_offset, (size_t)index_size, 0, 0};
    cur counts = record(&ix);
    uint32_t n_dev = u32(&counts);
    k->n_src = u32(&counts);
    k->n_ent = u32(&counts);
    /* Format 4: dict_count when the record goes on. */
    k->n_dict = k->version >= 4 && counts.n - counts.at >= 4 ? u32(&counts) : 0;
    if (counts.bad || k->n_src > n || k->n_ent > n || k->n_dict > n)
        return -1;
    k->src = calloc(k->n_src + 1, sizeof *k->src);
    k->ent = calloc(k->n_ent + 1, sizeof *k->ent);
    k->dict = calloc(k->n_dict + 1, sizeof *k->dict);
    for (uint32_t i = 0; i < n_dev; i++)
        record(&ix);
    for (uint32_t i = 0; i < k->n_src; i++) {
        cur r = record(&ix);
        blob *b = &k->src[i];
        skip_str(&r);
        b->codec = u32(&r);
        b->offset = u64(&r);
        b->stored = u64(&r);
        b->raw = u64(&r);
        b->crc = u32(&r);
        b->base = k->version >= 4 && r.n - r.at >= 4 ? u32(&r) : 0xFFFFFFFFu;
        if (r.bad)
            return -1;
    }
    for (uint32_t i = 0; i < k->n_ent; i++) {
        cur r = record(&ix);
        blob *b = &k->ent[i];
        skip(&r, 8); /* device, source */
        skip_str(&r); /* kernel */
        skip_str(&r); /* family */
        skip_str(&r); /* options */
        uint32_t defines = u32(&r);
        for (uint32_t d = 0; d < defines && !r.bad; d++) {
            skip_str(&r);
            skip_str(&r);
        }
        skip(&r, 12 + 4 + 4); /* wg, kind, arch */
        b->codec = u32(&r);
        b->base = u32(&r);
        b->offset = u64(&r);
        b->stored = u64(&r);
        b->raw = u64(&r);
        b->crc = u32(&r);
        if (r.bad)
            return -1;
    }
    for (uint32_t i = 0; i < k->n_dict; i++) {
        cur r = record(&ix);
        blob *b = &k->dict[i];
        b->codec = u32(&r);
        b->offset = u64(&r);
        b->stored = u64(&r);
        b->raw = u64(&r);
        b->crc = u32(&r);
        b->base = 0xFFFFFFFFu;
        if (r.bad)
            return -1;
    }
    return ix.bad ? -1 : 0;
}

static void free_pack(pack *k)
{
    blob *tables[3] = {k->src, k->ent, k->dict};
    uint32_t counts[3] = {k->n_src, k->n_ent, k->n_dict};
    for (int t = 0; t < 3; t++) {
        for (uint32_t i = 0; tables[t] && i < counts[t]; i++)
            free(tables[t][i].bytes);
        free(tables[t]);
    }
}

static const uint8_t *decode(pack *k, blob *table, uint32_t i, char *why, size_t cap);

/* zstd's half: one frame, with a dictionary's bytes or a prefix's. */
static int unzstd(const uint8_t *src, size_t n, uint8_t *dst, size_t raw, const uint8_t *dict,
                  size_t dict_n, int prefix)
{
#if defined(CLCPK_HAVE_ZSTD)
    if (ZSTD_findFrameCompressedSize(src, n) != n)
        return -1;
    ZSTD_DCtx *d = ZSTD_createDCtx();
    size_t r = 0;
    if (dict && prefix)
        r = ZSTD_DCtx_refPrefix(d, dict, dict_n);
    else if (dict)
        r = ZSTD_DCtx_loadDictionary(d, dict, dict_n);
    if (!ZSTD_isError(r))
        r = ZSTD_decompressDCtx(d, dst, raw, src, n);
    ZSTD_freeDCtx(d);
    return !ZSTD_isError(r) && r == raw ? 0 : -1;
#else
    (void)src, (void)n, (void)dst, (void)raw, (void)dict, (void)dict_n, (void)prefix;
    return -1;
#endif
}

/* Blob i of table, decoded by docs/FORMAT.md's "Codecs" and checked
 * against its CRC-32; NULL with why. */
static const uint8_t *decode(pack *k, blob *table, uint32_t i, char *why, size_t cap)
{
    blob *b = &table[i];
    if (b->bytes)
        return b->bytes;
    if (b->offset > k->n || b->stored > k->n - b->offset || b->raw == 0 || b->raw > (1u << 30)) {
        snprintf(why, cap, "blob %u: outside the file", i);
        return NULL;
    }
    const uint8_t *src = k->f + b->offset;
    uint8_t *out = malloc((size_t)b->raw);
    int ok = 0;
    const uint8_t *base = NULL;
    size_t base_n = 0;
    if (b->codec == 2 || b->codec == 5) {
        if (table != k->ent || b->base >= i ||
            !(base = decode(k, k->ent, b->base, why, cap))) {
            free(out);
            return NULL;
        }
        base_n = (size_t)k->ent[b->base].raw;
    }
    switch (b->codec) {
    case 0:
        ok = b->stored == b->raw;
        if (ok)
            memcpy(out, src, (size_t)b->raw);
        break;
    case 1:
    case 2: {
        uLongf got = (uLongf)b->raw;
        ok = uncompress(out, &got, src, (uLong)b->stored) == Z_OK && got == b->raw;
        for (size_t j = 0; ok && b->codec == 2 && j < b->raw && j < base_n; j++)
            out[j] ^= base[j];
        break;
    }
    case 3:
        ok = unzstd(src, (size_t)b->stored, out, (size_t)b->raw, NULL, 0, 0) == 0;
        break;
    case 4: {
        const uint8_t *dict = b->base < k->n_dict ? decode(k, k->dict, b->base, why, cap) : NULL;
        ok = dict && unzstd(src, (size_t)b->stored, out, (size_t)b->raw, dict,
                            (size_t)k->dict[b->base].raw, 0) == 0;
        break;
    }
    case 5:
        ok = unzstd(src, (size_t)b->stored, out, (size_t)b->raw, base, base_n, 1) == 0;
        break;
    }
    if (!ok || (uint32_t)crc32(0, out, (uInt)b->raw) != b->crc) {
        snprintf(why, cap, "blob %u (codec %u): %s", i, b->codec,
                 ok ? "CRC-32 differs" : "does not decode");
        free(out);
        return NULL;
    }
    b->bytes = out;
    return out;
}

typedef clcpack_status (*lib_read)(const clcpack *, size_t, void *, size_t, size_t *,
                                   clcpack_error *);

/* Blob i of table, decoded by this reader and by the library (read):
 * 1 when both give the same bytes. The first few differences are reported
 * (shown counts those already reported). */
static int same_blob(pack *k, blob *table, uint32_t i, const clcpack *p, lib_read read,
                     const char *what, const char *kind, size_t shown)
{
    char why[256] = "";
    clcpack_error err;
    const uint8_t *mine = decode(k, table, i, why, sizeof why);
    uint8_t *lib = malloc((size_t)table[i].raw);
    size_t got = 0;
    int same = mine && lib && read(p, i, lib, (size_t)table[i].raw, &got, &err) == CLCPACK_OK &&
               got == table[i].raw && memcmp(mine, lib, got) == 0;
    if (!same && shown < 3)
        CHECK(0, "%s: %s %u: %s", what, kind, i, mine ? "the library decodes other bytes" : why);
    free(lib);
    return same;
}

/* A str field as a NUL-terminated copy (into buf, cap bytes). */
static const char *take_str(cur *c, char *buf, size_t cap)
{
    uint32_t len = u32(c);
    if (c->bad || len >= cap || c->n - c->at < len) {
        c->bad = 1;
        return "";
    }
    memcpy(buf, c->p + c->at, len);
    buf[len] = '\0';
    c->at += len;
    return buf;
}

static uint32_t at32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t at64(const uint8_t *b) { return at32(b) | (uint64_t)at32(b + 4) << 32; }

/* 1 when entry e is listed in bucket b of the lookup table at (slots,
 * list), and the bucket's CRC-32 and order are right. */
static int in_bucket(const uint8_t *slots, const uint8_t *list, uint32_t b, uint32_t e)
{
    const uint8_t *s = slots + 12 * (size_t)b;
    uint32_t first = at32(s), n = at32(s + 4);
    uLong c = crc32(crc32(0L, s, 8), list + 4 * (size_t)first, 4 * n);
    int found = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t v = at32(list + 4 * ((size_t)first + k));
        if (k > 0 && v <= at32(list + 4 * ((size_t)first + k - 1)))
            return 0;
        found |= v == e;
    }
    return found && c == at32(s + 8);
}

/* Format 5: the lookup table as docs/FORMAT.md lays it out, checked
 * against the records: the header's and directory's CRC-32s, the head and
 * dictionary regions, every row (offset, length and CRC-32 of its record)
 * and every (entry, name) in the bucket of its key hash, computed here. */
static void check_lookup(const char *what, const uint8_t *f, size_t n)
{
    /* The writer's rule: a lookup table in every format-5 pack (zstd), a
     * 64-byte header without one in formats 1 to 4 (zlib). */
    unsigned version = at32(f + 8) % 65536;
    if (version < 5) {
        CHECK(at32(f + 12) == 64, "%s: format %u, a %u-byte header (64: no lookup table)", what,
              version, at32(f + 12));
        return;
    }
    if (!CHECK(n >= 128 && at32(f + 12) >= 128 && at64(f + 64) != 0,
               "%s: format 5 with a %u-byte header naming a lookup table", what, at32(f + 12)))
        return;
    uLong hc = crc32(crc32(0L, f, 44), f + 48, 124 - 48);
    uint64_t io = at64(f + 24), is = at64(f + 32), dir = at64(f + 64);
    uint32_t dir_n = at32(f + 72);
    if (!CHECK(hc == at32(f + 124) && dir >= io && dir + dir_n <= io + is && dir_n >= 100 &&
                   crc32(0L, f + dir, dir_n) == at32(f + 76) && at32(f + dir) == dir_n,
               "%s: header_crc32, the directory's place and CRC-32", what))
        return;
    const uint8_t *d = f + dir;
    uint32_t buckets = at32(d + 4), list_n = at32(d + 72);
    uint64_t rows[2] = {at64(d + 40), at64(d + 48)}, slots = at64(d + 56), list = at64(d + 64);
    /* The name buckets: keyed by name and wg with no defines. */
    uint32_t name_buckets = at32(d + 76);
    uint64_t name_slots = at64(d + 80), name_list = at64(d + 88);
    CHECK(at64(d + 8) == io && crc32(0L, f + io, at32(d + 16)) == at32(d + 20) &&
              crc32(0L, f + at64(d + 24), at32(d + 32)) == at32(d + 36) && buckets &&
              (buckets & (buckets - 1)) == 0 && list + 4 * (uint64_t)list_n <= io + is,
          "%s: the head and dictionary regions' CRC-32s, %u buckets, %u items", what, buckets,
          list_n);
    cur ix = {f + io, (size_t)is, 0, 0};
    cur counts = record(&ix);
    uint32_t n_dev = u32(&counts), n_src = u32(&counts), n_ent = u32(&counts);
    for (uint32_t i = 0; i < n_dev; i++)
        record(&ix);
    CHECK(ix.at == at32(d + 16), "%s: the head is the counts and %u device records (%zu bytes)",
          what, n_dev, ix.at);
    size_t bad_rows = 0, bad_keys = 0, names = 0;
    for (uint32_t kind = 1; kind < 3; kind++) {
        uint32_t cnt = kind == 1 ? n_src : n_ent;
        for (uint32_t i = 0; i < cnt; i++) {
            size_t at = ix.at;
            cur r = record(&ix);
            const uint8_t *row = f + rows[kind == 1 ? 1 : 0] + 12 * (size_t)i;
            uint32_t len = (uint32_t)(ix.at - at);
            bad_rows += r.bad || at32(row) != at || at32(row + 4) != len ||
                        at32(row + 8) != crc32(0L, f + io + at, len);
            if (kind == 1 || r.bad)
                continue;
            /* The key: kernel, defines, wg; a program's kernel names. */
            char kernel[256], dn_buf[16][128], dv_buf[16][128];
            const char *dn[16], *dv[16];
            skip(&r, 8);
            take_str(&r, kernel, sizeof kernel);
            skip_str(&r);
            skip_str(&r);
            uint32_t nd = u32(&r);
            for (uint32_t k = 0; k < nd && k < 16; k++) {
                dn[k] = take_str(&r, dn_buf[k], sizeof dn_buf[k]);
                dv[k] = take_str(&r, dv_buf[k], sizeof dv_buf[k]);
            }
            uint32_t wg[3];
            for (int k = 0; k < 3; k++) /* one by one: an initializer's order is unspecified */
                wg[k] = u32(&r);
            skip(&r, 4 * 4 + 3 * 8 + 4 + 3 * 4 + 8); /* kind .. tune_median_ns */
            uint32_t nt = r.n - r.at >= 4 ? u32(&r) : 0;
            skip(&r, 24 * (size_t)nt);
            uint32_t nk = r.n - r.at >= 4 ? u32(&r) : 0;
            if (nd > 16 || r.bad) {
                bad_keys++;
                continue;
            }
            for (uint32_t k = 0; k <= nk && !r.bad; k++) {
                char kn[256];
                const char *name = k ? take_str(&r, kn, sizeof kn) : kernel;
                uint32_t b = (uint32_t)(lt_key_hash(name, dn, dv, nd, wg) & (buckets - 1));
                uint32_t nb = (uint32_t)(lt_key_hash(name, dn, dv, 0, wg) & (name_buckets - 1));
                bad_keys += !in_bucket(f + slots, f + list, b, i) ||
                            !in_bucket(f + name_slots, f + name_list, nb, i);
                names++;
            }
        }
    }
    CHECK(bad_rows == 0, "%s: %u entry and %u source rows locate and check their records (%zu "
                         "wrong)",
          what, n_ent, n_src, bad_rows);
    CHECK(bad_keys == 0 && names > 0,
          "%s: each of %zu (entry, name) pairs is in the buckets of its key and of its name (%zu not)", what,
          names, bad_keys);
}

/* zstd's dictionary magic number (FORMAT.md, "Dictionary record"): a
 * dictionary starting with it is in zstd's format, else raw content. */
static int zstd_format_dict(const uint8_t *b, size_t n)
{
    return n >= 4 && b[0] == 0x37 && b[1] == 0xA4 && b[2] == 0x30 && b[3] == 0xEC;
}

/* Reads the pack both ways and compares; *zstd_form (when not NULL) gets
 * how many of its dictionaries are in zstd's format, the rest being raw
 * content. */
static void compare(const char *what, const uint8_t *f, size_t n, uint32_t *zstd_form)
{
    pack k;
    if (!CHECK(parse(&k, f, n) == 0, "%s: the independent reader parses the header and index",
               what)) {
        free_pack(&k);
        return;
    }
    check_lookup(what, f, n);
    clcpack *p = NULL;
    clcpack_error err;
    if (!CHECK(clcpack_open_memory(f, n, &p, &err) == CLCPACK_OK, "%s: the library opens it: %s",
               what, err.message)) {
        free_pack(&k);
        return;
    }
    CHECK(k.n_src == clcpack_source_count(p) && k.n_ent == clcpack_entry_count(p) &&
              k.n_dict == clcpack_dictionary_count(p),
          "%s: %u/%u/%u sources, entries, dictionaries; the library %zu/%zu/%zu", what, k.n_src,
          k.n_ent, k.n_dict, clcpack_source_count(p), clcpack_entry_count(p),
          clcpack_dictionary_count(p));
    size_t bad = 0, codecs[6] = {0};
    for (uint32_t i = 0; i < k.n_ent && i < clcpack_entry_count(p); i++) {
        bad += !same_blob(&k, k.ent, i, p, clcpack_read_binary, what, "entry", bad);
        if (k.ent[i].codec < 6)
            codecs[k.ent[i].codec]++;
    }
    for (uint32_t i = 0; i < k.n_src && i < clcpack_source_count(p); i++)
        bad += !same_blob(&k, k.src, i, p, clcpack_read_source, what, "source", bad);
    CHECK(bad == 0, "%s: %zu blobs differ between the two readers", what, bad);
    uint32_t formed = 0;
    for (uint32_t i = 0; i < k.n_dict; i++) {
        char why[256];
        const uint8_t *d = decode(&k, k.dict, i, why, sizeof why);
        formed += d && zstd_format_dict(d, (size_t)k.dict[i].raw);
    }
    if (zstd_form)
        *zstd_form = formed;
    printf("%s: %u entries (codecs %zu/%zu/%zu/%zu/%zu/%zu), %u sources, %u dictionaries: the "
           "same bytes both ways\n",
           what, k.n_ent, codecs[0], codecs[1], codecs[2], codecs[3], codecs[4], codecs[5],
           k.n_src, k.n_dict);
    clcpack_close(p);
    free_pack(&k);
}

static void written(const synth_corpus *c, const char *what, uint32_t flags,
                    clcpack_compression mode)
{
    clcpack_error err;
    clcpack_writer *w = synth_writer(c, flags, &err);
    void *data = NULL;
    size_t size = 0;
    /* Sources enough for the writer to train them a dictionary (over
     * 256 KiB, 8 or more): programs that share most of their text. */
    for (int k = 0; w && k < 12; k++) {
        size_t n = 30000;
        char *text = malloc(n), name[32];
        for (size_t i = 0; i < n; i++)
            text[i] = "__kernel void f(__global float *o) { o[get_global_id(0)] = 1.0f; }\n"
                [(i + (size_t)k * (i / 4096)) % 64];
        snprintf(name, sizeof name, "shared_%02d.cl", k);
        CHECK(clcpack_writer_add_source(w, name, text, n, NULL, &err) == CLCPACK_OK,
              "add source %s: %s", name, err.message);
        free(text);
    }
    uint32_t zstd_form = 0;
    if (CHECK(w && clcpack_writer_set_compression(w, mode, &err) == CLCPACK_OK &&
                  clcpack_writer_write_memory(w, &data, &size, &err) == CLCPACK_OK,
              "%s: written: %s", what, err.message)) {
        compare(what, data, size, &zstd_form);
        /* The writer stores what it trains as raw content, which the
         * library then uses in place (FORMAT.md, "How the writer
         * chooses"). */
        CHECK(zstd_form == 0, "%s: %u dictionaries in zstd's format, none expected", what,
              zstd_form);
    }
    clcpack_free(data);
    clcpack_writer_free(w);
}

/* A pack written before dictionaries were raw content: its dictionary is
 * in zstd's format (tests/fuzz/corpus/zstd_dict.clcpack, kept as it was
 * made), which the library still reads, through zstd's own dictionary
 * rather than in place. */
static void old_dictionary(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/corpus/zstd_dict.clcpack", fuzz_replay_dir());
    size_t n = 0;
    uint8_t *buf = test_read_file(path, &n);
    uint32_t zstd_form = 0;
    if (CHECK(buf != NULL, "%s: cannot read", path))
        compare(path, buf, n, &zstd_form);
    CHECK(zstd_form == 1, "%s: its one dictionary is in zstd's format (%u)", path, zstd_form);
    free(buf);
}

int main(int argc, char **argv)
{
    synth_corpus c;
    if (!CHECK(synth_make(&c, 3, 12, 2000, 6000, 1, 0x1dea) == 0, "corpus"))
        return check_summary();
    written(&c, "zlib", 0, CLCPACK_COMPRESSION_ZLIB);
    written(&c, "zlib, no sources", CLCPACK_WRITE_NO_SOURCES, CLCPACK_COMPRESSION_ZLIB);
    if (clcpack_compression_available(CLCPACK_COMPRESSION_ZSTD)) {
        written(&c, "zstd", 0, CLCPACK_COMPRESSION_ZSTD);
        written(&c, "zstd, cubins compressed", CLCPACK_WRITE_COMPRESS_CUBINS,
                CLCPACK_COMPRESSION_ZSTD);
        written(&c, "zstd, no sources", CLCPACK_WRITE_NO_SOURCES, CLCPACK_COMPRESSION_ZSTD);
        old_dictionary();
    } else {
        CHECK_SKIP("zstd packs and the zstd-format dictionary: this libclcpack was built "
                   "without zstd");
    }
    synth_free(&c);
    /* Packs named on the command line. */
    for (int a = 1; a < argc; a++) {
        size_t n = 0;
        uint8_t *buf = test_read_file(argv[a], &n);
        if (CHECK(buf != NULL, "%s: cannot read", argv[a]))
            compare(argv[a], buf, n, NULL);
        free(buf);
    }
    return check_summary();
}
