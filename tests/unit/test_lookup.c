/*
 * test_lookup.c — a pack file opened through its lookup table (format 5,
 * docs/FORMAT.md "The lookup table") answers exactly as the same pack
 * parsed whole, reads only what it needs, and refuses damage where it
 * reads it:
 *  - every key, every kernel name of a program entry, a key given with only
 *    some of its defines (found through its name's bucket, the index still
 *    unread), keys with no defines (ambiguous ones too) and a missing key
 *    give the same entries and messages as clcpack_open_memory; every
 *    entry's fields and bytes are the same, decoded through delta chains
 *    whose bases are read one by one;
 *  - the open reads under 4 KiB, and one key's find under 16 KiB more;
 *  - damage to the header's bytes, the directory, the head, a bucket, a row
 *    or a record is refused with the status and a message naming it, at
 *    the open or at the first read of that part; the other keys and
 *    entries still load, also once the whole index is wanted and fails;
 *    crafted tables (a bucket count not a power of two, a directory over its
 *    limit, items out of order) are refused;
 *  - four threads finding and reading every key of one fresh handle.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "bytes.h"
#include "check.h"
#include "clcpack_write.h"
#include "pack_io.h"
#include "pack_lookup.h"
#include "pack_reader.h"
#include "portable.h"
#include "synth_pack.h"
#include "test_file.h"

static char dir[] = "/tmp/clcpack-lookup-XXXXXX";

/* The synthetic corpus (deltas, a dictionary, PTX and cubins) and a
 * program entry of two kernels with two defines and a tuning list. */
static int write_pack(const char *path, uint8_t **data, size_t *size)
{
    synth_corpus c;
    clcpack_error err;
    if (synth_make(&c, 2, 6, 20000, 40000, 1, 0x100c) != 0)
        return -1;
    clcpack_writer *w = synth_writer(&c, 0, &err);
    int ok = w != NULL;
    static const uint8_t bin[300] = {1, 2, 3};
    clcpack_define defs[2] = {{"A", "1"}, {"B", "2"}};
    clcpack_entry_spec s;
    ok = ok && synth_add_program(w, defs, 2, bin, sizeof bin, &s, &err) == CLCPACK_OK;
    clcpack_tuning t = {3, 5, 64, 64, 1234};
    ok = ok && clcpack_writer_add_tuning(w, &s, &t, &err) == CLCPACK_OK;
    ok = ok && clcpack_writer_write_file(w, path, &err) == CLCPACK_OK &&
         clcpack_writer_write_memory(w, (void **)data, size, &err) == CLCPACK_OK;
    if (!ok)
        fprintf(stderr, "write: %s\n", err.message);
    clcpack_writer_free(w);
    synth_free(&c);
    return ok ? 0 : -1;
}

static clcpack_key key_of(const clcpack_entry_info *e, const char *name)
{
    clcpack_key k = {name, e->defines, e->define_count, {e->wg[0], e->wg[1], e->wg[2]}};
    return k;
}

/* The same find on both handles: status, count, indices and message. */
static int same_find(const clcpack *a, const clcpack *b, const clcpack_key *k, const char *what)
{
    size_t ia[64], ib[64], na = 0, nb = 0;
    clcpack_error ea = {0}, eb = {0};
    clcpack_status sa = clcpack_find(a, k, ia, 64, &na, &ea);
    clcpack_status sb = clcpack_find(b, k, ib, 64, &nb, &eb);
    int same = sa == sb && na == nb && memcmp(ia, ib, (na < 64 ? na : 64) * sizeof *ia) == 0 &&
               (sa == CLCPACK_OK || strcmp(ea.message, eb.message) == 0);
    if (!same)
        fprintf(stderr, "%s: memory %d %zu '%s', lookup %d %zu '%s'\n", what, sa, na, ea.message,
                sb, nb, eb.message);
    return same;
}

static int same_entry(const clcpack *a, const clcpack *b, size_t i)
{
    clcpack_entry_info x = {.struct_size = sizeof x}, y = {.struct_size = sizeof y};
    if (clcpack_get_entry(a, i, &x) != CLCPACK_OK || clcpack_get_entry(b, i, &y) != CLCPACK_OK)
        return 0;
    int same = strcmp(x.kernel, y.kernel) == 0 && strcmp(x.options, y.options) == 0 &&
               x.define_count == y.define_count && x.codec == y.codec && x.base == y.base &&
               x.raw_crc32 == y.raw_crc32 && x.kind == y.kind && x.arch == y.arch &&
               x.kernel_name_count == y.kernel_name_count && x.source == y.source &&
               clcpack_entry_tuning_count(a, i) == clcpack_entry_tuning_count(b, i);
    for (size_t k = 0; same && k < x.define_count; k++)
        same = strcmp(x.defines[k].name, y.defines[k].name) == 0 &&
               strcmp(x.defines[k].value, y.defines[k].value) == 0;
    for (size_t k = 0; same && k < x.kernel_name_count; k++)
        same = strcmp(x.kernel_names[k], y.kernel_names[k]) == 0;
    const char *fa, *fb;
    return same && clcpack_get_entry_family(a, i, &fa) == CLCPACK_OK &&
           clcpack_get_entry_family(b, i, &fb) == CLCPACK_OK && strcmp(fa, fb) == 0;
}

static void test_same_answers(const char *path, const uint8_t *data, size_t size)
{
    clcpack *pm = NULL, *pf = NULL;
    clcpack_error err;
    if (!CHECK(clcpack_open_memory(data, size, &pm, &err) == CLCPACK_OK, "memory: %s",
               err.message) ||
        !CHECK(clcpack_open_file(path, &pf, &err) == CLCPACK_OK, "file: %s", err.message))
        goto out;
    uint64_t opened = clcpk_file_bytes_read(pf);
    CHECK(clcpk_index_partial(pf) && opened < 4096,
          "the open read %llu bytes (header, directory, devices, dictionary records), not the "
          "index",
          (unsigned long long)opened);
    size_t n = clcpack_entry_count(pm);
    CHECK(clcpack_entry_count(pf) == n && clcpack_device_count(pf) == clcpack_device_count(pm) &&
              clcpack_source_count(pf) == clcpack_source_count(pm) &&
              clcpack_dictionary_count(pf) == clcpack_dictionary_count(pm),
          "the counts agree (%zu entries)", n);
    /* One key's find on the fresh handle reads its bucket and records. */
    clcpack_entry_info e0 = {.struct_size = sizeof e0};
    clcpack_get_entry(pm, n - 1, &e0);
    clcpack_key k0 = key_of(&e0, e0.kernel);
    CHECK(same_find(pm, pf, &k0, "first find"), "the last entry's key found the same way");
    CHECK(clcpk_index_partial(pf) && clcpk_file_bytes_read(pf) - opened < 16384,
          "that find read %llu bytes, the index still unread",
          (unsigned long long)(clcpk_file_bytes_read(pf) - opened));
    size_t bad = 0, keys = 0;
    for (size_t i = 0; i < n; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        clcpack_get_entry(pm, i, &e);
        for (size_t k = 0; k <= e.kernel_name_count; k++, keys++) {
            clcpack_key key = key_of(&e, k ? e.kernel_names[k - 1] : e.kernel);
            bad += !same_find(pm, pf, &key, "find");
        }
    }
    CHECK(bad == 0, "%zu keys (kernels and program kernel names) found the same way, %zu differ",
          keys, bad);
    bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += !same_entry(pm, pf, i);
    CHECK(bad == 0, "every entry's fields agree: %zu differ", bad);
    clcpack_close(pf);
    pf = NULL;

    /* Bytes, on a fresh handle: chains decode through bases read alone. */
    CHECK(clcpack_open_file(path, &pf, &err) == CLCPACK_OK, "file again: %s", err.message);
    bad = 0;
    for (size_t i = n; pf && i-- > 0;) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        clcpack_get_entry(pm, i, &e);
        uint8_t *x = malloc((size_t)e.raw_size), *y = malloc((size_t)e.raw_size);
        size_t nx = 0, ny = 0;
        bad += !x || !y ||
               clcpack_read_binary(pm, i, x, (size_t)e.raw_size, &nx, &err) != CLCPACK_OK ||
               clcpack_read_binary(pf, i, y, (size_t)e.raw_size, &ny, &err) != CLCPACK_OK ||
               nx != ny || memcmp(x, y, nx) != 0;
        free(x);
        free(y);
    }
    CHECK(bad == 0, "every entry's bytes agree, read last to first: %zu differ", bad);
    clcpack_close(pf);
    pf = NULL;

    /* A key with only some defines: its name's bucket; a missing one: the
     * whole index (for the message's counts). */
    CHECK(clcpack_open_file(path, &pf, &err) == CLCPACK_OK, "file again: %s", err.message);
    opened = pf ? clcpk_file_bytes_read(pf) : 0;
    clcpack_define a = {"A", "1"};
    clcpack_key part = {"beta", &a, 1, {8, 0, 0}};
    int same = pf && same_find(pm, pf, &part, "partial key");
    uint64_t read = pf ? clcpk_file_bytes_read(pf) - opened : 0;
    CHECK(same && clcpk_index_partial(pf) && read < 16384,
          "a key without its derived define finds the program entry through its name's bucket, "
          "the index unread (%llu bytes)",
          (unsigned long long)read);
    bad = 0;
    for (size_t i = 0; pf && i < n; i++) { /* every synthetic entry by its name and wg alone */
        clcpack_entry_info e = {.struct_size = sizeof e};
        clcpack_get_entry(pm, i, &e);
        clcpack_key k = {e.kernel, NULL, 0, {e.wg[0], e.wg[1], e.wg[2]}};
        bad += !same_find(pm, pf, &k, "define-less key");
    }
    CHECK(bad == 0, "keys with no defines (ambiguous or not) answer the same: %zu differ", bad);
    clcpack_close(pf);
    CHECK(clcpack_open_file(path, &pf, &err) == CLCPACK_OK, "file again: %s", err.message);
    clcpack_key none = {"no_such_kernel", NULL, 0, {0, 0, 0}};
    CHECK(pf && same_find(pm, pf, &none, "missing key"),
          "a missing key fails with the same status and message");
    clcpack_key wrong = {"prog", &a, 1, {9, 0, 0}};
    CHECK(pf && same_find(pm, pf, &wrong, "wrong wg"), "a key of another wg: the same message");
out:
    clcpack_close(pm);
    clcpack_close(pf);
}

/* Where the parts of a format-5 pack are (docs/FORMAT.md). */
typedef struct layout {
    uint64_t index_offset, index_size, dir, head_n, rows_e, buckets, list;
    uint32_t bucket_count, list_count;
} layout;

static void read_layout(const uint8_t *d, layout *l)
{
    l->index_offset = get_le64(d + 24);
    l->index_size = get_le64(d + 32);
    l->dir = get_le64(d + 64);
    const uint8_t *x = d + l->dir;
    l->bucket_count = get_le32(x + 4);
    l->head_n = get_le32(x + 16);
    l->rows_e = get_le64(x + 40);
    l->buckets = get_le64(x + 56);
    l->list = get_le64(x + 64);
    l->list_count = get_le32(x + 72);
}

/* The header's and directory's CRC-32s again, after an edit. */
static void reseal(uint8_t *d)
{
    layout l;
    read_layout(d, &l);
    uint32_t n = get_le32(d + 72);
    if (l.dir + n <= l.index_offset + l.index_size)
        put_le32(d + 76, (uint32_t)crc32(0, d + l.dir, n));
    uLong c = crc32(0, d, 44);
    c = crc32(c, d + 48, 124 - 48);
    put_le32(d + 124, (uint32_t)c);
}

/* Writes a copy of the pack edited by `edit` and opens it with the lookup
 * table. Returns the open's status; *p the handle when it opened. */
static clcpack_status open_edited(const uint8_t *data, size_t size,
                                  void (*edit)(uint8_t *, const layout *), clcpack **p,
                                  clcpack_error *err)
{
    uint8_t *d = malloc(size);
    memcpy(d, data, size);
    layout l;
    read_layout(d, &l);
    edit(d, &l);
    char path[128];
    snprintf(path, sizeof path, "%s/edited.clcpack", dir);
    *p = NULL;
    clcpack_status st = test_write_file(path, d, size) == 0 ? clcpack_open_file(path, p, err)
                                                            : CLCPACK_E_IO;
    free(d);
    return st;
}

static void flip_header(uint8_t *d, const layout *l) { (void)l, d[70] ^= 1; }
static void flip_dir(uint8_t *d, const layout *l) { d[l->dir + 5] ^= 0x10; }
static void flip_head(uint8_t *d, const layout *l) { d[l->index_offset + l->head_n - 3] ^= 1; }
static void bad_buckets(uint8_t *d, const layout *l)
{
    put_le32(d + l->dir + 4, 3);
    reseal(d);
}
static void big_dir(uint8_t *d, const layout *l)
{
    (void)l;
    put_le32(d + 72, 5000);
    reseal(d);
}
static void small_dir(uint8_t *d, const layout *l)
{
    (void)l;
    put_le32(d + 72, 40);
    reseal(d);
}

static size_t edit_entry; /* the entry the next edits touch */

static void flip_record(uint8_t *d, const layout *l)
{
    const uint8_t *row = d + l->rows_e + 12 * edit_entry;
    d[l->index_offset + get_le32(row) + 20] ^= 0x20; /* inside its kernel name */
}
static void row_outside(uint8_t *d, const layout *l)
{
    put_le32(d + l->rows_e + 12 * edit_entry, (uint32_t)l->index_size - 2);
}
static void flip_buckets(uint8_t *d, const layout *l)
{
    for (uint64_t b = 0; b < l->bucket_count; b++)
        d[l->buckets + 12 * b + 8] ^= 1;
}
static void swap_items(uint8_t *d, const layout *l)
{
    /* Every bucket of two items or more lists them backwards, resealed. */
    for (uint64_t b = 0; b < l->bucket_count; b++) {
        uint8_t *s = d + l->buckets + 12 * b;
        uint32_t first = get_le32(s), n = get_le32(s + 4);
        if (n < 2)
            continue;
        uint8_t *it = d + l->list + 4 * (uint64_t)first, tmp[4];
        memcpy(tmp, it, 4);
        memcpy(it, it + 4 * (n - 1), 4);
        memcpy(it + 4 * (n - 1), tmp, 4);
        uLong c = crc32(0, s, 8);
        put_le32(s + 8, (uint32_t)crc32(c, it, 4 * n));
    }
}

static void test_damage(const uint8_t *data, size_t size)
{
    clcpack *p;
    clcpack_error err;
    struct {
        void (*edit)(uint8_t *, const layout *);
        clcpack_status want;
        const char *says, *what;
    } at_open[] = {
        {flip_header, CLCPACK_E_CHECKSUM, "header checksum", "a header byte of the lookup fields"},
        {flip_dir, CLCPACK_E_CHECKSUM, "lookup directory", "a directory byte"},
        {flip_head, CLCPACK_E_CHECKSUM, "head", "a device record byte"},
        {bad_buckets, CLCPACK_E_FORMAT, "power of two", "a bucket count of 3"},
        {big_dir, CLCPACK_E_LIMIT, "limit", "a 5000-byte directory"},
        {small_dir, CLCPACK_E_FORMAT, "too small", "a 40-byte directory"},
    };
    for (size_t k = 0; k < sizeof at_open / sizeof at_open[0]; k++) {
        clcpack_status st = open_edited(data, size, at_open[k].edit, &p, &err);
        CHECK(st == at_open[k].want && strstr(err.message, at_open[k].says) &&
                  strstr(err.message, "edited.clcpack"),
              "%s: refused at the open (%d): %s", at_open[k].what, st,
              st ? err.message : "opened");
        clcpack_close(p);
    }

    /* A record, a row, the buckets: found when read; the rest still loads. */
    clcpack *pm;
    clcpack_open_memory(data, size, &pm, &err);
    size_t n = clcpack_entry_count(pm);
    edit_entry = n - 1;
    clcpack_entry_info e = {.struct_size = sizeof e}, other = {.struct_size = sizeof other};
    clcpack_get_entry(pm, edit_entry, &e);
    clcpack_get_entry(pm, 0, &other);
    clcpack_key k = key_of(&e, e.kernel), ko = key_of(&other, other.kernel);
    size_t idx[64], got;
    char want[64];
    snprintf(want, sizeof want, "entry %zu", edit_entry);
    struct {
        void (*edit)(uint8_t *, const layout *);
        clcpack_status want;
        const char *says, *what;
    } at_read[] = {
        {flip_record, CLCPACK_E_CHECKSUM, want, "a byte of the last entry's record"},
        {row_outside, CLCPACK_E_FORMAT, "outside", "the last entry's row past the index"},
    };
    for (size_t j = 0; j < sizeof at_read / sizeof at_read[0]; j++) {
        if (!CHECK(open_edited(data, size, at_read[j].edit, &p, &err) == CLCPACK_OK,
                   "%s: the open does not read it: %s", at_read[j].what, err.message))
            continue;
        clcpack_status st = clcpack_find(p, &k, idx, 64, &got, &err);
        CHECK(st == at_read[j].want && strstr(err.message, at_read[j].says),
              "%s: its key is refused (%d): %s", at_read[j].what, st, err.message);
        st = clcpack_find(p, &ko, idx, 64, &got, &err);
        CHECK(st == CLCPACK_OK && got >= 1 && idx[0] == 0, "%s: entry 0's key still loads: %s",
              at_read[j].what, st ? err.message : "");
        clcpack_close(p);
    }
    if (CHECK(open_edited(data, size, flip_record, &p, &err) == CLCPACK_OK, "open: %s",
              err.message)) {
        clcpack_device_info here = {.struct_size = sizeof here};
        clcpack_get_device(p, 0, &here);
        clcpack_choice c = {.struct_size = sizeof c};
        clcpack_status st = clcpack_best_variant(p, "synth0", NULL, 0, NULL, &here, &c, &err);
        CHECK(st == CLCPACK_E_CHECKSUM && strstr(err.message, "header and index checksum"),
              "a query over every entry reads the whole index and finds the damage: %d %s", st,
              err.message);
        st = clcpack_best_variant(p, "synth0", NULL, 0, NULL, &here, &c, &err);
        CHECK(st == CLCPACK_E_CHECKSUM, "and says so again the second time (%d)", st);
        clcpack_close(p);
    }
    if (CHECK(open_edited(data, size, flip_record, &p, &err) == CLCPACK_OK, "open: %s",
              err.message)) {
        /* Past an eighth of the entries read one by one the whole index is
         * read, and fails here: the others still read alone. */
        size_t failed = 0, which = 0;
        for (size_t i = 0; i < n; i++) {
            clcpack_entry_info x = {.struct_size = sizeof x};
            if (clcpack_get_entry(p, i, &x) != CLCPACK_OK) {
                failed++;
                which = i;
            }
        }
        CHECK(failed == 1 && which == edit_entry,
              "reading every entry of a pack with one damaged record: %zu refused (entry %zu)",
              failed, which);
        clcpack_close(p);
    }
    if (CHECK(open_edited(data, size, flip_buckets, &p, &err) == CLCPACK_OK, "open: %s",
              err.message)) {
        clcpack_status st = clcpack_find(p, &k, idx, 64, &got, &err);
        CHECK(st == CLCPACK_E_CHECKSUM && strstr(err.message, "lookup key bucket"),
              "a damaged bucket is refused: %d %s", st, err.message);
        clcpack_close(p);
    }
    if (CHECK(open_edited(data, size, swap_items, &p, &err) == CLCPACK_OK, "open: %s",
              err.message)) {
        size_t refused = 0;
        for (size_t i = 0; i < n; i++) {
            clcpack_get_entry(pm, i, &e);
            k = key_of(&e, e.kernel);
            clcpack_status st = clcpack_find(p, &k, idx, 64, &got, &err);
            refused += st == CLCPACK_E_FORMAT && strstr(err.message, "out of order") != NULL;
        }
        CHECK(refused > 0, "items out of order in a resealed bucket are refused (%zu keys)",
              refused);
        clcpack_close(p);
    }
    clcpack_close(pm);
}

typedef struct worker {
    const clcpack *p, *pm;
    size_t first, bad;
} worker;

static void *find_and_read(void *arg)
{
    worker *w = arg;
    size_t n = clcpack_entry_count(w->pm);
    for (size_t j = 0; j < n; j++) {
        size_t i = (w->first + j) % n;
        clcpack_entry_info e = {.struct_size = sizeof e};
        clcpack_get_entry(w->pm, i, &e);
        clcpack_key k = key_of(&e, e.kernel);
        size_t idx[64], got = 0;
        clcpack_error err;
        w->bad += clcpack_find(w->p, &k, idx, 64, &got, &err) != CLCPACK_OK || got == 0;
        uint8_t *buf = malloc((size_t)e.raw_size);
        size_t nb;
        w->bad += !buf || clcpack_read_binary(w->p, i, buf, (size_t)e.raw_size, &nb, &err) !=
                              CLCPACK_OK ||
                  crc32(0, buf, (uInt)nb) != e.raw_crc32;
        free(buf);
    }
    return NULL;
}

static void test_threads(const char *path, const uint8_t *data, size_t size)
{
    clcpack *p = NULL, *pm = NULL;
    clcpack_error err;
    if (!CHECK(clcpack_open_file(path, &p, &err) == CLCPACK_OK &&
                   clcpack_open_memory(data, size, &pm, &err) == CLCPACK_OK,
               "open: %s", err.message))
        return;
    pthread_t t[4];
    worker w[4];
    for (int k = 0; k < 4; k++) {
        w[k] = (worker){p, pm, (size_t)k * 13, 0};
        CHECK(pthread_create(&t[k], NULL, find_and_read, &w[k]) == 0, "thread %d", k);
    }
    size_t bad = 0;
    for (int k = 0; k < 4; k++) {
        pthread_join(t[k], NULL);
        bad += w[k].bad;
    }
    CHECK(bad == 0, "four threads found and read every key of one fresh handle: %zu failures",
          bad);
    clcpack_close(p);
    clcpack_close(pm);
}

int main(void)
{
    if (!test_mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char path[128];
    snprintf(path, sizeof path, "%s/pack.clcpack", dir);
    uint8_t *data = NULL;
    size_t size = 0;
    if (CHECK(write_pack(path, &data, &size) == 0, "pack written")) {
        if (data[8] < 5) {
            CHECK_SKIP("this library writes zlib packs (make ZSTD=0): no lookup table to read");
        } else {
            test_same_answers(path, data, size);
            test_damage(data, size);
            test_threads(path, data, size);
        }
    }
    free(data);
    /* Its files (the damaged copy only where the zstd parts ran), then the
     * folder: no shell, so a Windows run cleans up too. */
    char edited[128];
    snprintf(edited, sizeof edited, "%s/edited.clcpack", dir);
    remove(edited);
    if (remove(path) != 0 || rmdir(dir) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_summary();
}
