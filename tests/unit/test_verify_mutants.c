/*
 * test_verify_mutants.c — what `clc-pack verify` accepts, a load never
 * refuses (issue 37): every byte of a small format-5 pack's index (the
 * counts, device, source, entry and dictionary records, the rows, both
 * bucket sets and their lists, the directory) and of the header's lookup
 * fields is flipped with every CRC-32 re-fixed
 * (rows, buckets, head, dictionaries, directory, header, the whole
 * index's checksum), so a mutation is met by the structural checks and not
 * only by a checksum, and one byte in four also flipped as it is. The
 * records are sampled (about 1,500 bytes), the lookup table is not. For
 * each mutant:
 *  - verify: the open, clcpack_check_index and every source and binary
 *    read, as cmd_verify.c runs them;
 *  - a load: a fresh handle finds the key of every entry (each name it
 *    answers to, as the mutant's whole index gives it) through the lookup
 *    table, and reads the binary of the entry found.
 * A mutant verify accepts must load: the count of those that do not is 0.
 * The count of mutants, and how many verify refuses, are printed; the
 * damaged-list pack of the issue (the first list item flipped, its bucket
 * CRC and the index checksum re-fixed) is refused by name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "bytes.h"
#include "check.h"
#include "clcpack_write.h"
#include "synth_pack.h"

static char dir[] = "/tmp/clcpack-mutants-XXXXXX";
static char mpath[160];

/* Where the parts are in the unmutated pack (docs/FORMAT.md). */
typedef struct layout {
    uint64_t index_offset, index_size, dir, rows[2], buckets[2], list[2];
    uint32_t n_rows[2], bucket_count[2], list_count[2], header_size;
} layout;

static void read_layout(const uint8_t *d, layout *l)
{
    l->header_size = get_le32(d + 12);
    l->index_offset = get_le64(d + 24);
    l->index_size = get_le64(d + 32);
    l->dir = get_le64(d + 64);
    const uint8_t *x = d + l->dir;
    const uint8_t *counts = d + l->index_offset;
    l->n_rows[0] = get_le32(counts + 12); /* entries */
    l->n_rows[1] = get_le32(counts + 8);  /* sources */
    l->rows[0] = get_le64(x + 40);
    l->rows[1] = get_le64(x + 48);
    for (int s = 0; s < 2; s++) {
        l->bucket_count[s] = get_le32(x + (s ? 76 : 4));
        l->buckets[s] = get_le64(x + (s ? 80 : 56));
        l->list[s] = get_le64(x + (s ? 88 : 64));
        l->list_count[s] = get_le32(x + (s ? 96 : 72));
    }
}

/* Every CRC-32 again from the bytes as they are now, at the places the
 * unmutated layout gives (a mutated count or offset is used only where it
 * stays inside the index). */
static void reseal(uint8_t *d, const layout *l)
{
    uint8_t *ix = d + l->index_offset;
    uint64_t n = l->index_size;
    for (int k = 0; k < 2; k++)
        for (uint32_t i = 0; i < l->n_rows[k]; i++) {
            uint8_t *row = d + l->rows[k] + 12 * (uint64_t)i;
            uint32_t off = get_le32(row), len = get_le32(row + 4);
            if (off <= n && len <= n - off)
                put_le32(row + 8, (uint32_t)crc32(0, ix + off, len));
        }
    for (int s = 0; s < 2; s++)
        for (uint32_t b = 0; b < l->bucket_count[s]; b++) {
            uint8_t *slot = d + l->buckets[s] + 12 * (uint64_t)b;
            uint32_t first = get_le32(slot), count = get_le32(slot + 4);
            if (first > l->list_count[s] || count > l->list_count[s] - first)
                continue;
            uLong c = crc32(0, slot, 8);
            put_le32(slot + 8, (uint32_t)crc32(c, d + l->list[s] + 4 * (uint64_t)first, 4 * count));
        }
    uint8_t *x = d + l->dir;
    uint32_t head_n = get_le32(x + 16), dict_n = get_le32(x + 32);
    uint64_t dict_at = get_le64(x + 24);
    if (head_n <= n)
        put_le32(x + 20, (uint32_t)crc32(0, ix, head_n));
    if (dict_at >= l->index_offset && dict_at - l->index_offset <= n &&
        dict_n <= n - (dict_at - l->index_offset))
        put_le32(x + 36, (uint32_t)crc32(0, d + dict_at, dict_n));
    uint32_t dir_n = get_le32(d + 72);
    if (l->dir - l->index_offset + dir_n <= n)
        put_le32(d + 76, (uint32_t)crc32(0, x, dir_n));
    uLong c = crc32(0, d, 44);
    put_le32(d + 124, (uint32_t)crc32(c, d + 48, 124 - 48));
    c = crc32(0, d, 44);
    c = crc32(c, d + 48, l->header_size - 48);
    put_le32(d + 44, (uint32_t)crc32(c, ix, (uInt)n));
}

/* What cmd_verify.c checks: the open, the index, every source and binary.
 * 1 when all pass; why gets the first refusal. */
static int verify(const char *path, clcpack **out, char *why, size_t cap)
{
    clcpack_error e;
    *out = NULL;
    if (clcpack_open_file(path, out, &e) != CLCPACK_OK) {
        snprintf(why, cap, "%s", e.message);
        return 0;
    }
    clcpack *p = *out;
    if (clcpack_check_index(p, &e) != CLCPACK_OK) {
        snprintf(why, cap, "%s", e.message);
        return 0;
    }
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < (pass ? clcpack_entry_count(p) : clcpack_source_count(p)); i++) {
            size_t size = 0;
            clcpack_status st = pass ? clcpack_read_binary(p, i, NULL, 0, &size, &e)
                                     : clcpack_read_source(p, i, NULL, 0, &size, &e);
            uint8_t *b = st == CLCPACK_OK ? malloc(size ? size : 1) : NULL;
            if (b)
                st = pass ? clcpack_read_binary(p, i, b, size, &size, &e)
                          : clcpack_read_source(p, i, b, size, &size, &e);
            free(b);
            if (st != CLCPACK_OK) {
                snprintf(why, cap, "%s", e.message);
                return 0;
            }
        }
    return 1;
}

/* A load of every entry of `keys` (a handle whose index parsed): each name
 * of each entry found through a fresh handle's lookup table, the entry
 * among those found, its binary read. 1 when every one loads. */
static int load_all(const char *path, const clcpack *keys, char *why, size_t cap)
{
    clcpack *p;
    clcpack_error e;
    if (clcpack_open_file(path, &p, &e) != CLCPACK_OK) {
        snprintf(why, cap, "open: %s", e.message);
        return 0;
    }
    int ok = 1;
    for (size_t i = 0; ok && i < clcpack_entry_count(keys); i++) {
        clcpack_entry_info ei = {.struct_size = sizeof ei};
        if (clcpack_get_entry(keys, i, &ei) != CLCPACK_OK)
            continue; /* verify refused it already */
        for (size_t k = 0; ok && k <= ei.kernel_name_count; k++) {
            clcpack_key key = {k ? ei.kernel_names[k - 1] : ei.kernel, ei.defines, ei.define_count,
                               {ei.wg[0], ei.wg[1], ei.wg[2]}};
            size_t found[64], n = 0, size = 0, j = 0;
            if (clcpack_find(p, &key, found, 64, &n, &e) != CLCPACK_OK) {
                snprintf(why, cap, "find entry %zu: %s", i, e.message);
                ok = 0;
                break;
            }
            while (j < n && j < 64 && found[j] != i)
                j++;
            if (j == n || j == 64) {
                snprintf(why, cap, "entry %zu (%s) not found by its key", i, key.kernel);
                ok = 0;
            } else if (clcpack_read_binary(p, i, NULL, 0, &size, &e) != CLCPACK_OK) {
                snprintf(why, cap, "read entry %zu: %s", i, e.message);
                ok = 0;
            }
        }
    }
    clcpack_close(p);
    return ok;
}

/* A mutant on disk, without test_write_file's fsync: thousands are
 * written, and each is read back at once. */
static int write_plain(const char *path, const uint8_t *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(d, 1, n, f) == n;
    return f && fclose(f) == 0 && ok ? 0 : -1;
}

typedef struct tally {
    size_t mutants, refused, both_fail, accepted_unloadable;
} tally;

static void one_mutant(const uint8_t *data, size_t size, const layout *l, size_t at,
                       uint8_t mask, int sealed, tally *t)
{
    uint8_t *d = malloc(size);
    memcpy(d, data, size);
    d[at] ^= mask;
    if (sealed)
        reseal(d, l);
    if (write_plain(mpath, d, size) != 0) {
        free(d);
        CHECK(0, "mutant written to %s", mpath);
        return;
    }
    free(d);
    t->mutants++;
    char vwhy[1100] = "", lwhy[1200] = "";
    clcpack *v;
    int vok = verify(mpath, &v, vwhy, sizeof vwhy);
    /* The keys a load asks for: the mutant's own when its index parsed. */
    int lok = v && clcpack_check_index(v, &(clcpack_error){0}) == CLCPACK_OK
                  ? load_all(mpath, v, lwhy, sizeof lwhy)
                  : 0;
    clcpack_close(v);
    if (!vok)
        t->refused++;
    if (!vok && !lok)
        t->both_fail++;
    if (vok && !lok) {
        t->accepted_unloadable++;
        if (t->accepted_unloadable <= 5)
            CHECK(0, "byte %zu ^ 0x%02x%s: verify accepts it, a load fails: %s", at, mask,
                  sealed ? " (CRCs re-fixed)" : "", lwhy);
    }
}

/* The pack: the first key list item flipped, its bucket's CRC
 * and the index checksum re-fixed. */
static void test_damaged_list(const uint8_t *data, size_t size, const layout *l)
{
    uint8_t *d = malloc(size);
    memcpy(d, data, size);
    d[l->list[0]] ^= 1;
    reseal(d, l);
    CHECK(write_plain(mpath, d, size) == 0, "damaged-list pack written");
    free(d);
    clcpack *v;
    char why[1100] = "";
    int ok = verify(mpath, &v, why, sizeof why);
    clcpack_close(v);
    CHECK(!ok && strstr(why, "lookup key bucket") != NULL,
          "verify refuses the pack whose first key list item is flipped, naming the bucket: %s",
          why);
}

static int write_pack(uint8_t **data, size_t *size)
{
    synth_corpus c;
    clcpack_error err;
    if (synth_make(&c, 1, 2, 300, 600, 1, 0x3737) != 0)
        return -1;
    clcpack_writer *w = synth_writer(&c, 0, &err);
    int ok = w != NULL;
    /* A program entry of two kernels: its names share and split buckets. */
    static const uint8_t bin[200] = {7, 7, 7};
    clcpack_define defs[1] = {{"A", "1"}};
    clcpack_entry_spec s;
    ok = ok && synth_add_program(w, defs, 1, bin, sizeof bin, &s, &err) == CLCPACK_OK;
    ok = ok && clcpack_writer_write_memory(w, (void **)data, size, &err) == CLCPACK_OK;
    if (!ok)
        fprintf(stderr, "write: %s\n", err.message);
    clcpack_writer_free(w);
    synth_free(&c);
    return ok ? 0 : -1;
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(mpath, sizeof mpath, "%s/mutant.clcpack", dir);
    uint8_t *data = NULL;
    size_t size = 0;
    if (CHECK(write_pack(&data, &size) == 0, "pack written") && data[8] < 5) {
        CHECK_SKIP("this library writes zlib packs (make ZSTD=0): no lookup table to mutate");
    } else if (data) {
        layout l;
        read_layout(data, &l);
        tally t = {0};
        /* The unmutated pack passes both. */
        one_mutant(data, size, &l, 0, 0, 0, &t);
        CHECK(t.refused == 0, "the unmutated pack passes verify");
        t = (tally){0};
        test_damaged_list(data, size, &l);
        /* Header bytes 64 to 80 (the lookup fields), every byte of the
         * lookup table (from the rows to the index's end), and the records
         * before it one byte in `stride`, so about 1,500 of them. */
        uint64_t table = (l.rows[0] < l.rows[1] ? l.rows[0] : l.rows[1]) - l.index_offset;
        size_t stride = table > 1500 ? (size_t)(table / 1500) + 1 : 1;
        for (size_t at = 64; at < 80; at++)
            for (int sealed = 0; sealed < 2; sealed++)
                one_mutant(data, size, &l, at, 0x01, sealed, &t);
        for (uint64_t o = 0; o < l.index_size; o += o < table ? stride : 1) {
            one_mutant(data, size, &l, (size_t)(l.index_offset + o), 0x01, 1, &t);
            /* Left unsealed, a flip meets a CRC first: one byte in four. */
            if (o % 4 == 0)
                one_mutant(data, size, &l, (size_t)(l.index_offset + o), 0x80, 0, &t);
        }
        printf("%zu mutants of a %llu-byte index (its %llu-byte lookup table whole, the records "
               "one byte in %zu): verify refuses %zu (a load "
               "fails too on %zu); verify accepts and a load fails on %zu\n",
               t.mutants, (unsigned long long)l.index_size,
               (unsigned long long)(l.index_size - table), stride, t.refused, t.both_fail,
               t.accepted_unloadable);
        CHECK(t.accepted_unloadable == 0, "no mutant verify accepts fails a load (%zu mutants)",
              t.mutants);
    }
    free(data);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_summary();
}
