/*
 * pack_lookup.c — reading a pack file through its lookup table (format 5,
 * docs/FORMAT.md "The lookup table"): the open reads the header, the
 * directory, the devices and the dictionaries; a load reads its key's
 * bucket and the records of the entries there (and of their bases and
 * sources); the whole index is read only when a call needs every record.
 *
 * Why: parsing the whole index costs in proportion to the entries (1 ms
 * for 2,112 on an H100, 6 ms for 12,945), and an application's start pays
 * it for the one kernel it loads. With the table an open costs a few
 * small reads whatever the pack's size.
 *
 * Each record read alone is checked against the CRC-32 its row gives and
 * then exactly as in a whole-index parse (pack_parse.c). Records are
 * parsed under one lock, into p->entries[i] / p->sources[i], and published
 * by a ready flag (release), which readers test (acquire) before touching
 * them; a parsed record never changes.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "codec.h"
#include "cold_memory.h"
#include "crc32.h"
#include "errors.h"
#include "key_hash.h"
#include "pack_format.h"
#include "pack_io.h"
#include "pack_lookup.h"
#include "pack_parse.h"
#include "pack_reader.h"

enum { ENTRIES = 0, SOURCES = 1 };
/* The two bucket sets: by the whole key, and by name and wg alone. */
enum { KEYS = 0, NAMES = 1 };

typedef struct bucket_set {
    uint32_t count; /* buckets, a power of two */
    uint64_t buckets, list; /* file offsets */
    uint32_t list_count;
} bucket_set;

typedef struct pk_lazy {
    pthread_mutex_t lock; /* parsing records, reading the whole index */
    pk_header h;
    /* Header bytes PK_HEADER_SIZE to PK_HEADER_SIZE_LOOKUP, read at open:
     * the whole index's checksum covers them. */
    uint8_t head_ext[PK_HEADER_SIZE_LOOKUP - PK_HEADER_SIZE];
    uint64_t rows[2]; /* file offsets of the entry rows and source rows */
    bucket_set sets[2]; /* KEYS, NAMES */
    _Atomic uint8_t *ready[2]; /* per entry, per source: parsed */
    void **mem[2];             /* per entry, per source: its record and strings */
    size_t singles;            /* entries parsed one by one so far */
    _Atomic int all;           /* the whole index is parsed, the key index built */
    clcpack_status all_status; /* reading the whole index failed: how, kept */
    char all_message[sizeof(((clcpack_error *)0)->message)];
} pk_lazy;

/* Past this share of the entries parsed one by one (and at least
 * SINGLES_MIN), the next one reads the whole index instead: a caller
 * walking every entry pays one read, not two per record. */
#define SINGLES_SHARE 8
#define SINGLES_MIN 64

int clcpk_has_lookup(const pk_header *h, const uint8_t *head)
{
    return h->format_version >= PK_FORMAT_VERSION_LOOKUP &&
           h->header_size >= PK_HEADER_SIZE_LOOKUP && get_le64(head + PK_OFF_LOOKUP_OFFSET) != 0;
}

int clcpk_index_partial(const clcpack *p)
{
    return p->lazy && !atomic_load_explicit(&p->lazy->all, memory_order_acquire);
}

/* n bytes at file offset `at`, the message naming what they are. */
static clcpack_status read_part(const clcpack *p, uint64_t at, size_t n, void *dst,
                                const char *what, clcpack_error *err)
{
    char why[700];
    clcpack_status st = clcpk_pack_read(p, at, n, dst, why, sizeof why);
    return st == CLCPACK_OK ? st : clcpk_fail(err, st, "%s: %s", what, why);
}

/* [at, at + n) inside the index. */
static int in_index(const pk_header *h, uint64_t at, uint64_t n)
{
    uint64_t end = h->index_offset + h->index_size;
    return at >= h->index_offset && at <= end && n <= end - at;
}

/* Reads and checks one region the directory names, whole. */
static clcpack_status read_region(const clcpack *p, const pk_header *h, uint64_t at, uint32_t n,
                                  uint32_t crc, const char *what, uint8_t **out,
                                  clcpack_error *err)
{
    *out = NULL;
    if (!in_index(h, at, n))
        return clcpk_fail(err, CLCPACK_E_FORMAT,
                          "the lookup table's %s (%u bytes at offset %llu) is outside the index",
                          what, n, (unsigned long long)at);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf)
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory for the lookup table's %s", what);
    clcpack_status st = read_part(p, at, n, buf, what, err);
    uint32_t got = st == CLCPACK_OK ? clcpk_crc32(buf, n) : 0;
    if (st == CLCPACK_OK && got != crc)
        st = clcpk_fail(err, CLCPACK_E_CHECKSUM,
                        "the lookup table's %s at offset %llu: checksum mismatch: 0x%08x in the "
                        "directory, 0x%08x computed (the index is damaged)",
                        what, (unsigned long long)at, crc, got);
    if (st != CLCPACK_OK) {
        free(buf);
        return st;
    }
    *out = buf;
    return CLCPACK_OK;
}

/* The header's own CRC-32 and the directory it names, checked and read. */
static clcpack_status read_directory(const clcpack *p, const pk_header *h, const uint8_t *head,
                                     uint8_t dir[PK_LOOKUP_DIR_MAX], uint32_t *dir_n,
                                     clcpack_error *err)
{
    uint32_t crc = clcpk_crc32(head, PK_OFF_CHECKSUM);
    crc = clcpk_crc32_more(crc, head + PK_OFF_RESERVED, PK_OFF_HEADER_CRC - PK_OFF_RESERVED);
    if (crc != get_le32(head + PK_OFF_HEADER_CRC))
        return clcpk_fail(err, CLCPACK_E_CHECKSUM,
                          "header checksum mismatch: 0x%08x stored at offset %d, 0x%08x computed "
                          "(the header is damaged)",
                          get_le32(head + PK_OFF_HEADER_CRC), PK_OFF_HEADER_CRC, crc);
    uint64_t at = get_le64(head + PK_OFF_LOOKUP_OFFSET);
    uint32_t n = get_le32(head + PK_OFF_LOOKUP_SIZE);
    if (n > PK_LOOKUP_DIR_MAX)
        return clcpk_fail(err, CLCPACK_E_LIMIT,
                          "lookup directory of %u bytes is more than the %u-byte limit", n,
                          PK_LOOKUP_DIR_MAX);
    if (n < PK_LOOKUP_DIR_MIN || !in_index(h, at, n))
        return clcpk_fail(err, CLCPACK_E_FORMAT,
                          "bad header: lookup directory of %u bytes at offset %llu is %s", n,
                          (unsigned long long)at,
                          n < PK_LOOKUP_DIR_MIN ? "too small" : "outside the index");
    clcpack_status st = read_part(p, at, n, dir, "the lookup directory", err);
    if (st != CLCPACK_OK)
        return st;
    crc = clcpk_crc32(dir, n);
    if (crc != get_le32(head + PK_OFF_LOOKUP_CRC))
        return clcpk_fail(err, CLCPACK_E_CHECKSUM,
                          "lookup directory at offset %llu: checksum mismatch: 0x%08x in the "
                          "header, 0x%08x computed (the index is damaged)",
                          (unsigned long long)at, get_le32(head + PK_OFF_LOOKUP_CRC), crc);
    if (get_le32(dir) != n)
        return clcpk_fail(err, CLCPACK_E_FORMAT,
                          "lookup directory at offset %llu: length %u, the header says %u",
                          (unsigned long long)at, get_le32(dir), n);
    *dir_n = n;
    return CLCPACK_OK;
}

/* The rows, buckets and list the directory names lie in the index. */
static clcpack_status check_tables(const clcpack *p, const pk_lazy *L, clcpack_error *err)
{
    const pk_header *h = &L->h;
    const bucket_set *k = &L->sets[KEYS], *m = &L->sets[NAMES];
    struct {
        const char *what;
        uint64_t at, n;
    } t[] = {
        {"entry rows", L->rows[ENTRIES], (uint64_t)p->n_entries * PK_LOOKUP_ROW},
        {"source rows", L->rows[SOURCES], (uint64_t)p->n_sources * PK_LOOKUP_ROW},
        {"key buckets", k->buckets, (uint64_t)k->count * PK_LOOKUP_BUCKET},
        {"key bucket list", k->list, (uint64_t)k->list_count * 4},
        {"name buckets", m->buckets, (uint64_t)m->count * PK_LOOKUP_BUCKET},
        {"name bucket list", m->list, (uint64_t)m->list_count * 4},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!in_index(h, t[i].at, t[i].n))
            return clcpk_fail(err, CLCPACK_E_FORMAT,
                              "the lookup table's %s (%llu bytes at offset %llu) are outside the "
                              "index",
                              t[i].what, (unsigned long long)t[i].n, (unsigned long long)t[i].at);
    for (int j = 0; j < 2; j++)
        if (L->sets[j].count == 0 || (L->sets[j].count & (L->sets[j].count - 1)) != 0)
            return clcpk_fail(err, CLCPACK_E_FORMAT,
                              "the lookup table's %s bucket count %u is not a power of two",
                              j == KEYS ? "key" : "name", L->sets[j].count);
    return CLCPACK_OK;
}

/* The counts record and device records (the head), then the dictionary
 * records, each region exactly that. */
static clcpack_status parse_head(clcpack *p, pk_lazy *L, const uint8_t *dir, clcpack_error *err)
{
    const pk_header *h = &L->h;
    if (get_le64(dir + 8) != h->index_offset)
        return clcpk_fail(err, CLCPACK_E_FORMAT,
                          "the lookup table's head is at offset %llu, not at the index's %llu",
                          (unsigned long long)get_le64(dir + 8),
                          (unsigned long long)h->index_offset);
    uint8_t *head = NULL, *dicts = NULL;
    uint32_t head_n = get_le32(dir + 16), dict_n = get_le32(dir + 32);
    uint64_t dict_at = get_le64(dir + 24);
    clcpack_status st = read_region(p, h, h->index_offset, head_n, get_le32(dir + 20), "head",
                                    &head, err);
    if (st == CLCPACK_OK)
        st = read_region(p, h, dict_at, dict_n, get_le32(dir + 36), "dictionary records", &dicts,
                         err);
    /* Device strings are copied into the device structs: the arena is
     * scratch, as large as the strings could be. */
    parse_ctx c = {0};
    c.p = p;
    c.h = h;
    c.at0 = h->index_offset;
    c.arena_cap = (size_t)head_n + 1;
    c.arena = st == CLCPACK_OK ? malloc(c.arena_cap) : NULL;
    if (st == CLCPACK_OK && !c.arena)
        st = clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory reading the lookup table");
    uint32_t counts[4];
    pk_cursor idx = pk_cursor_make(head, head_n), rec;
    uint64_t at;
    if (st == CLCPACK_OK)
        st = clcpk_parse_counts(&c, &idx, counts, err);
    if (st == CLCPACK_OK)
        st = clcpk_alloc_tables(p, counts, err);
    for (size_t i = 0; st == CLCPACK_OK && i < p->n_devices; i++) {
        c.arena_used = 0;
        if (clcpk_next_record(&c, &idx, &rec, &at) != 0 ||
            clcpk_parse_device(&c, &rec, &p->devices[i]) != 0)
            st = clcpk_fail_record(&c, err, "device", i, at);
    }
    if (st == CLCPACK_OK && pk_left(&idx) != 0)
        st = clcpk_fail(err, CLCPACK_E_FORMAT,
                        "the lookup table's head has %zu bytes after the %zu device records",
                        pk_left(&idx), p->n_devices);
    idx = pk_cursor_make(dicts, dict_n);
    c.at0 = dict_at;
    for (size_t i = 0; st == CLCPACK_OK && i < counts[3]; i++)
        if (clcpk_next_record(&c, &idx, &rec, &at) != 0 ||
            clcpk_parse_dict(&c, &rec, &p->dicts[i]) != 0)
            st = clcpk_fail_record(&c, err, "dictionary", i, at);
    if (st == CLCPACK_OK && pk_left(&idx) != 0)
        st = clcpk_fail(err, CLCPACK_E_FORMAT,
                        "the lookup table's dictionary records have %zu bytes after the %u records",
                        pk_left(&idx), counts[3]);
    free(c.arena);
    free(head);
    free(dicts);
    return st;
}

clcpack_status clcpk_lookup_open(clcpack *p, const pk_header *h, const uint8_t *head,
                                 clcpack_error *err)
{
    pk_lazy *L = calloc(1, sizeof *L);
    if (!L || pthread_mutex_init(&L->lock, NULL) != 0) {
        free(L);
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory opening a pack");
    }
    p->lazy = L;
    L->h = *h;
    memcpy(L->head_ext, head + PK_HEADER_SIZE, sizeof L->head_ext);
    uint8_t dir[PK_LOOKUP_DIR_MAX];
    uint32_t dir_n = 0;
    clcpack_status st = read_directory(p, h, head, dir, &dir_n, err);
    if (st == CLCPACK_OK)
        st = parse_head(p, L, dir, err);
    if (st != CLCPACK_OK)
        return st;
    L->rows[ENTRIES] = get_le64(dir + 40);
    L->rows[SOURCES] = get_le64(dir + 48);
    L->sets[KEYS] = (bucket_set){get_le32(dir + 4), get_le64(dir + 56), get_le64(dir + 64),
                                 get_le32(dir + 72)};
    L->sets[NAMES] = (bucket_set){get_le32(dir + 76), get_le64(dir + 80), get_le64(dir + 88),
                                  get_le32(dir + 96)};
    if ((st = check_tables(p, L, err)) != CLCPACK_OK)
        return st;
    for (int k = 0; k < 2; k++) {
        size_t n = k == ENTRIES ? p->n_entries : p->n_sources;
        L->ready[k] = clcpk_table_new(n, sizeof *L->ready[k]);
        L->mem[k] = clcpk_table_new(n, sizeof *L->mem[k]);
        if (!L->ready[k] || !L->mem[k])
            return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory for %zu records", n);
    }
    memcpy(p->header, head, PK_HEADER_SIZE);
    p->flags = h->flags;
    return CLCPACK_OK;
}

void clcpk_lazy_free(clcpack *p)
{
    pk_lazy *L = p->lazy;
    if (!L)
        return;
    for (int k = 0; k < 2; k++) {
        size_t n = k == ENTRIES ? p->n_entries : p->n_sources;
        for (size_t i = 0; L->mem[k] && i < n; i++)
            free(L->mem[k][i]);
        clcpk_table_free(L->mem[k], n, sizeof *L->mem[k]);
        clcpk_table_free((void *)L->ready[k], n, sizeof *L->ready[k]);
    }
    pthread_mutex_destroy(&L->lock);
    free(L);
    p->lazy = NULL;
}

/* One record read alone (kind k, number i): its row, then its bytes into
 * a block that also holds the strings, defines and kernel names parsing
 * it makes; *rec_at its file offset. The block is the caller's. */
static clcpack_status read_record(const clcpack *p, int k, size_t i, uint8_t **block,
                                  parse_ctx *c, pk_cursor *rec, uint64_t *rec_at,
                                  clcpack_error *err)
{
    const pk_lazy *L = p->lazy;
    const char *what = k == ENTRIES ? "entry" : "source";
    uint8_t row[PK_LOOKUP_ROW];
    char label[64];
    snprintf(label, sizeof label, "%s %zu's lookup row", what, i);
    clcpack_status st = read_part(p, L->rows[k] + (uint64_t)i * PK_LOOKUP_ROW, sizeof row, row,
                                  label, err);
    if (st != CLCPACK_OK)
        return st;
    uint32_t off = get_le32(row), len = get_le32(row + 4), crc = get_le32(row + 8);
    if (len < 4 || off > L->h.index_size || len > L->h.index_size - off)
        return clcpk_fail(err, CLCPACK_E_FORMAT,
                          "%s %zu: its lookup row gives %u bytes at %u, outside the %llu-byte "
                          "index",
                          what, i, len, off, (unsigned long long)L->h.index_size);
    *rec_at = L->h.index_offset + off;
    /* Record, then arena (each str's len+1 fits in its 4+len), defines (8
     * record bytes at least each) and kernel names (4 at least each). */
    size_t arena = (size_t)len + 1, ndef = len / PK_DEFINE_MIN + 1, nkn = len / 4 + 1;
    uint8_t *b = malloc((size_t)len + arena + ndef * sizeof(clcpack_define) +
                        nkn * sizeof(const char *) + 16);
    if (!b)
        return clcpk_fail(err, CLCPACK_E_NOMEM, "%s %zu: out of memory for its record", what, i);
    snprintf(label, sizeof label, "%s %zu's index record", what, i);
    st = read_part(p, *rec_at, len, b, label, err);
    uint32_t got = st == CLCPACK_OK ? clcpk_crc32(b, len) : 0;
    if (st == CLCPACK_OK && got != crc)
        st = clcpk_fail(err, CLCPACK_E_CHECKSUM,
                        "%s %zu (index record at offset %llu): checksum mismatch: 0x%08x in its "
                        "lookup row, 0x%08x computed (the index is damaged)",
                        what, i, (unsigned long long)*rec_at, crc, got);
    if (st == CLCPACK_OK && get_le32(b) != len)
        st = clcpk_fail(err, CLCPACK_E_FORMAT,
                        "%s %zu (index record at offset %llu): length %u, its lookup row says %u",
                        what, i, (unsigned long long)*rec_at, get_le32(b), len);
    if (st != CLCPACK_OK) {
        free(b);
        return st;
    }
    /* The pointer tables after the bytes, aligned for them. */
    uintptr_t tables = ((uintptr_t)(b + len + arena) + 15) & ~(uintptr_t)15;
    c->arena = (char *)b + len;
    c->arena_cap = arena;
    c->defines = (clcpack_define *)tables;
    c->defines_cap = ndef;
    c->knames = (const char **)(tables + ndef * sizeof(clcpack_define));
    c->knames_cap = nkn;
    *rec = pk_cursor_make(b + 4, len - 4);
    *block = b;
    return CLCPACK_OK;
}

static clcpack_status source_locked(const clcpack *p, size_t i, clcpack_error *err)
{
    pk_lazy *L = p->lazy;
    if (atomic_load_explicit(&L->ready[SOURCES][i], memory_order_acquire))
        return CLCPACK_OK;
    parse_ctx c = {0};
    c.p = (clcpack *)p;
    c.h = &L->h;
    uint8_t *block;
    pk_cursor rec;
    uint64_t at;
    clcpack_status st = read_record(p, SOURCES, i, &block, &c, &rec, &at, err);
    if (st != CLCPACK_OK)
        return st;
    if (clcpk_parse_source(&c, &rec, &p->sources[i]) != 0) {
        free(block);
        return clcpk_fail_record(&c, err, "source", i, at);
    }
    L->mem[SOURCES][i] = block;
    atomic_store_explicit(&L->ready[SOURCES][i], 1, memory_order_release);
    return CLCPACK_OK;
}

static clcpack_status entry_locked(const clcpack *p, size_t i, unsigned depth,
                                   clcpack_error *err);

typedef struct base_arg {
    const clcpack *p;
    unsigned depth;
} base_arg;

/* parse_ctx's need_base: the base parsed first, one level deeper. */
static int need_base(parse_ctx *c, uint32_t b)
{
    const base_arg *a = c->need_base_arg;
    clcpack_error inner;
    clcpack_status st = entry_locked(a->p, b, a->depth + 1, &inner);
    if (st == CLCPACK_OK)
        return 0;
    c->problem_status = st;
    snprintf(c->problem, sizeof c->problem, "its delta base: %.480s", inner.message);
    return -1;
}

static clcpack_status entry_locked(const clcpack *p, size_t i, unsigned depth,
                                   clcpack_error *err)
{
    pk_lazy *L = p->lazy;
    if (atomic_load_explicit(&L->ready[ENTRIES][i], memory_order_acquire))
        return CLCPACK_OK;
    /* A valid chain has at most CLCPACK_MAX_DELTA_CHAIN links; a deeper
     * one is refused before it can deepen the recursion. */
    if (depth >= CLCPACK_MAX_DELTA_CHAIN)
        return clcpk_fail(err, CLCPACK_E_FORMAT, "entry %zu: delta chain of more than %d entries",
                          i, CLCPACK_MAX_DELTA_CHAIN);
    parse_ctx c = {0};
    c.p = (clcpack *)p;
    c.h = &L->h;
    base_arg arg = {p, depth};
    c.need_base = need_base;
    c.need_base_arg = &arg;
    uint8_t *block;
    pk_cursor rec;
    uint64_t at;
    clcpack_status st = read_record(p, ENTRIES, i, &block, &c, &rec, &at, err);
    if (st != CLCPACK_OK)
        return st;
    pk_entry *pe = &p->entries[i];
    if (clcpk_parse_entry(&c, &rec, i, pe) != 0) {
        free(block);
        return clcpk_fail_record(&c, err, "entry", i, at);
    }
    if (pe->info.source != CLCPACK_NONE) {
        clcpack_error inner;
        if ((st = source_locked(p, pe->info.source, &inner)) != CLCPACK_OK) {
            free(block);
            return clcpk_fail(err, st, "entry %zu: its source: %s", i, inner.message);
        }
    }
    L->mem[ENTRIES][i] = block;
    L->singles++;
    atomic_store_explicit(&L->ready[ENTRIES][i], 1, memory_order_release);
    return CLCPACK_OK;
}

/* Reads the whole index, checks the header's checksum and parses every
 * record not parsed yet (pack_parse.c), then builds the key index. Under
 * the lock; err is not NULL. A failure is kept and given again: records
 * parsed before it may point into the tables it made. */
static clcpack_status read_all(const clcpack *p, clcpack_error *err)
{
    pk_lazy *L = p->lazy;
    clcpack *w = (clcpack *)p;
    const pk_header *h = &L->h;
    /* A header longer than 128 bytes: the rest of it, after the bytes the
     * open kept. */
    size_t ext_n = h->header_size - PK_HEADER_SIZE, kept = sizeof L->head_ext;
    uint8_t *ext = malloc(ext_n);
    w->index_buf = malloc((size_t)h->index_size);
    clcpack_status st = CLCPACK_OK;
    if (!ext || !w->index_buf)
        st = clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory reading the %llu-byte index",
                        (unsigned long long)h->index_size);
    if (st == CLCPACK_OK) {
        memcpy(ext, L->head_ext, kept);
        if (ext_n > kept)
            st = read_part(p, PK_HEADER_SIZE_LOOKUP, ext_n - kept, ext + kept, "the header", err);
    }
    if (st == CLCPACK_OK)
        st = read_part(p, h->index_offset, (size_t)h->index_size, w->index_buf, "the index", err);
    if (st == CLCPACK_OK)
        st = clcpk_check_checksum(p->header, ext, h, w->index_buf, err);
    free(ext);
    if (st == CLCPACK_OK) {
        _Atomic uint8_t *const ready[2] = {L->ready[ENTRIES], L->ready[SOURCES]};
        st = clcpk_parse_index(w, h, w->index_buf, ready, err);
    }
    if (st == CLCPACK_OK && clcpk_key_index_build(w) != CLCPACK_OK)
        st = clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory indexing %zu entries", p->n_entries);
    if (st != CLCPACK_OK) {
        L->all_status = st;
        snprintf(L->all_message, sizeof L->all_message, "%s", err->message);
        return st;
    }
    atomic_store_explicit(&L->all, 1, memory_order_release);
    return CLCPACK_OK;
}

static clcpack_status read_all_locked(const clcpack *p, clcpack_error *err_out)
{
    clcpack_error inner;
    clcpack_status st = read_all(p, &inner);
    return st == CLCPACK_OK ? st : clcpk_fail(err_out, st, "%s", inner.message);
}

clcpack_status clcpk_index_all(const clcpack *p, clcpack_error *err)
{
    pk_lazy *L = p->lazy;
    if (!L || atomic_load_explicit(&L->all, memory_order_acquire))
        return CLCPACK_OK;
    pthread_mutex_lock(&L->lock);
    clcpack_status st = CLCPACK_OK;
    if (L->all_status != CLCPACK_OK)
        st = clcpk_fail(err, L->all_status, "%s", L->all_message);
    else if (!atomic_load_explicit(&L->all, memory_order_relaxed))
        st = read_all_locked(p, err);
    pthread_mutex_unlock(&L->lock);
    return st;
}

clcpack_status clcpk_entry_ready(const clcpack *p, size_t i, clcpack_error *err)
{
    pk_lazy *L = p->lazy;
    if (!L || atomic_load_explicit(&L->ready[ENTRIES][i], memory_order_acquire))
        return CLCPACK_OK;
    pthread_mutex_lock(&L->lock);
    int whole = L->singles >= SINGLES_MIN && L->singles >= p->n_entries / SINGLES_SHARE &&
                L->all_status == CLCPACK_OK && !atomic_load_explicit(&L->all, memory_order_relaxed);
    /* The whole index at once; when it cannot be read (a damaged record
     * elsewhere), this one alone as before. */
    clcpack_error ignored;
    clcpack_status st = whole ? read_all_locked(p, &ignored) : CLCPACK_E_NOT_FOUND;
    if (st != CLCPACK_OK)
        st = entry_locked(p, i, 0, err);
    pthread_mutex_unlock(&L->lock);
    return st;
}

clcpack_status clcpk_source_ready(const clcpack *p, size_t i, clcpack_error *err)
{
    pk_lazy *L = p->lazy;
    if (!L || atomic_load_explicit(&L->ready[SOURCES][i], memory_order_acquire))
        return CLCPACK_OK;
    pthread_mutex_lock(&L->lock);
    clcpack_status st = source_locked(p, i, err);
    pthread_mutex_unlock(&L->lock);
    return st;
}

/* Bucket items kept on the stack up to this many. */
#define ITEMS_STACK 64

/* The entries of bucket `hash` of set `which`, each checked and parsed,
 * into items (on_stack when they fit, else malloc'd: the caller frees
 * *items when it is not on_stack). */
static clcpack_status read_bucket(const clcpack *p, int which, uint64_t hash,
                                  uint32_t on_stack[ITEMS_STACK], uint32_t **items, uint32_t *n,
                                  clcpack_error *err)
{
    const bucket_set *set = &p->lazy->sets[which];
    uint32_t b = (uint32_t)(hash & (set->count - 1));
    uint8_t slot[PK_LOOKUP_BUCKET];
    char label[64];
    snprintf(label, sizeof label, "lookup %s bucket %u", which == KEYS ? "key" : "name", b);
    *items = on_stack;
    *n = 0;
    clcpack_status st =
        read_part(p, set->buckets + (uint64_t)b * PK_LOOKUP_BUCKET, sizeof slot, slot, label, err);
    if (st != CLCPACK_OK)
        return st;
    uint32_t first = get_le32(slot), count = get_le32(slot + 4);
    if (first > set->list_count || count > set->list_count - first)
        return clcpk_fail(err, CLCPACK_E_FORMAT, "%s: items [%u, %u + %u) outside the %u-item list",
                          label, first, first, count, set->list_count);
    uint8_t raw_stack[4 * ITEMS_STACK], *raw = raw_stack;
    if (count > ITEMS_STACK && (!(raw = malloc((size_t)count * 4)) ||
                                !(*items = malloc((size_t)count * sizeof **items)))) {
        if (raw != raw_stack)
            free(raw);
        *items = on_stack;
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory for %s", label);
    }
    st = read_part(p, set->list + (uint64_t)first * 4, (size_t)count * 4, raw, label, err);
    uint32_t crc = st == CLCPACK_OK ? clcpk_crc32_more(clcpk_crc32(slot, 8), raw, (size_t)count * 4)
                                    : 0;
    if (st == CLCPACK_OK && crc != get_le32(slot + 8))
        st = clcpk_fail(err, CLCPACK_E_CHECKSUM,
                        "%s: checksum mismatch: 0x%08x stored, 0x%08x computed (the index is "
                        "damaged)",
                        label, get_le32(slot + 8), crc);
    for (uint32_t k = 0; st == CLCPACK_OK && k < count; k++) {
        uint32_t e = get_le32(raw + 4 * k);
        if (e >= p->n_entries || (k > 0 && e <= (*items)[k - 1]))
            st = clcpk_fail(err, CLCPACK_E_FORMAT, "%s: item %u is entry %u (%s)", label, k, e,
                            e >= p->n_entries ? "past the last entry" : "out of order");
        else if ((st = clcpk_entry_ready(p, e, err)) == CLCPACK_OK)
            (*items)[k] = e;
    }
    if (raw != raw_stack)
        free(raw);
    if (st == CLCPACK_OK)
        *n = count;
    return st;
}

clcpack_status clcpk_lookup_find(const clcpack *p, const clcpack_key *key, size_t *indices,
                                 size_t cap, size_t *count, clcpack_error *err)
{
    uint32_t on_stack[ITEMS_STACK], *items, n;
    *count = 0;
    clcpack_status st = read_bucket(p, KEYS, clcpk_key_index_hash(key), on_stack, &items, &n, err);
    size_t found = 0;
    for (uint32_t k = 0; st == CLCPACK_OK && k < n; k++) {
        if (!clcpk_entry_matches(&p->entries[items[k]].info, key))
            continue;
        if (found < cap)
            indices[found] = items[k];
        found++;
    }
    if (items != on_stack)
        free(items);
    if (st == CLCPACK_OK)
        *count = found;
    return st;
}

clcpack_status clcpk_lookup_named(const clcpack *p, const char *name, const uint32_t wg[3],
                                  size_t **out, size_t *count, clcpack_error *err)
{
    uint32_t on_stack[ITEMS_STACK], *items, n;
    *out = NULL;
    *count = 0;
    clcpack_status st = read_bucket(p, NAMES, clcpk_key_hash(name, 0, 0, wg), on_stack, &items,
                                    &n, err);
    size_t *list = st == CLCPACK_OK ? malloc((n ? n : 1) * sizeof *list) : NULL;
    if (st == CLCPACK_OK && !list)
        st = clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory for the entries of %s", name);
    size_t found = 0;
    for (uint32_t k = 0; st == CLCPACK_OK && k < n; k++) {
        const clcpack_entry_info *e = &p->entries[items[k]].info;
        if (clcpk_entry_has_name(e, name) && e->wg[0] == wg[0] && e->wg[1] == wg[1] &&
            e->wg[2] == wg[2])
            list[found++] = items[k];
    }
    if (items != on_stack)
        free(items);
    if (st != CLCPACK_OK) {
        free(list);
        return st;
    }
    *out = list;
    *count = found;
    return CLCPACK_OK;
}

/* ---------------------------------------------------------------------- */
/* What lookup_check.c reads through the load's own code. */

clcpack_status clcpk_lookup_record(const clcpack *p, int sources, size_t i, uint64_t *rec_at,
                                   clcpack_error *err)
{
    parse_ctx c = {0};
    uint8_t *block;
    pk_cursor rec;
    clcpack_status st =
        read_record(p, sources ? SOURCES : ENTRIES, i, &block, &c, &rec, rec_at, err);
    if (st == CLCPACK_OK)
        free(block);
    return st;
}

uint32_t clcpk_lookup_bucket_count(const clcpack *p, int names)
{
    return p->lazy ? p->lazy->sets[names ? NAMES : KEYS].count : 0;
}

clcpack_status clcpk_lookup_bucket(const clcpack *p, int names, uint32_t b, uint32_t **items,
                                   uint32_t *n, clcpack_error *err)
{
    uint32_t on_stack[ITEMS_STACK], *got;
    *items = NULL;
    clcpack_status st = read_bucket(p, names ? NAMES : KEYS, b, on_stack, &got, n, err);
    if (st != CLCPACK_OK || got != on_stack) {
        if (st == CLCPACK_OK)
            *items = got;
        else if (got != on_stack)
            free(got);
        return st;
    }
    *items = malloc((*n ? *n : 1) * sizeof **items);
    if (!*items)
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory for a lookup bucket");
    memcpy(*items, on_stack, *n * sizeof **items);
    return CLCPACK_OK;
}
