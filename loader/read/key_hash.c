/*
 * key_hash.c — a key made: checked, hashed, indexed, compared with an
 * entry and written as text. Everything a lookup asks of a key is here,
 * and it calls no other file of the lookup, so the way down is one way:
 * key_find.c (clcpack_find) → pack_lookup.c (a lookup table's bucket) →
 * here, and key_miss.c → here for a miss's message.
 *
 * A key is (kernel, define set, work-group size). The define set is a set:
 * the caller may give it in any order, so its hash is a sum of its
 * defines' hashes. The hash is the one of docs/FORMAT.md ("The key hash"):
 * FNV-1a over the strings, a 64-bit finalising mix so that the low bits
 * used as a bucket depend on every input bit. Collisions are harmless:
 * every candidate is still compared in full with clcpk_entry_matches.
 *
 * The index is built once when a pack is opened: a load looks its key up
 * every time, and on an NVIDIA GPU a cubin loads in about 25 µs, so a scan
 * of every entry with string compares (hundreds of entries in a default
 * pack) would be a visible share of it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "key_hash.h"
#include "text.h"

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv_str(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * FNV_PRIME;
    return h;
}

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

uint64_t clcpk_key_hash_define(const char *name, const char *value)
{
    /* name '=' value; an ambiguous split only makes a collision. */
    uint64_t d = fnv_str(FNV_OFFSET, name);
    d = (d ^ '=') * FNV_PRIME;
    return mix(fnv_str(d, value ? value : ""));
}

uint64_t clcpk_key_hash(const char *name, uint64_t define_set, size_t define_count,
                        const uint32_t wg[3])
{
    uint64_t h = fnv_str(FNV_OFFSET, name);
    h = (h ^ define_set) * FNV_PRIME;
    h = (h ^ (uint64_t)define_count) * FNV_PRIME;
    for (int k = 0; k < 3; k++)
        h = (h ^ wg[k]) * FNV_PRIME;
    return mix(h);
}

/* The key index. */

/* Every define's share of the key hash, summed: the define set's part. */
static uint64_t define_set(const clcpack_define *defs, size_t n)
{
    uint64_t set = 0;
    for (size_t i = 0; i < n; i++)
        set += clcpk_key_hash_define(defs[i].name, defs[i].value);
    return set;
}

clcpack_status clcpk_key_index_build(clcpack *p)
{
    /* One node per name an entry answers to: its kernel (or program) name
     * and, for a program entry, each kernel it holds. */
    size_t n_nodes = 0;
    for (size_t i = 0; i < p->n_entries; i++)
        n_nodes += 1 + p->entries[i].info.kernel_name_count;
    size_t slots = 16;
    while (slots < 2 * n_nodes)
        slots *= 2;
    p->slot_head = malloc(slots * sizeof *p->slot_head);
    p->node_entry = malloc((n_nodes ? n_nodes : 1) * sizeof *p->node_entry);
    p->node_next = malloc((n_nodes ? n_nodes : 1) * sizeof *p->node_next);
    if (!p->slot_head || !p->node_entry || !p->node_next)
        return CLCPACK_E_NOMEM;
    p->slot_mask = slots - 1;
    for (size_t s = 0; s < slots; s++)
        p->slot_head[s] = CLCPACK_NONE;
    /* Pushing from the last entry to the first leaves every chain in
     * ascending entry order, the order clcpack_find promises; an entry's
     * own nodes are pushed together, so where two of its names share a
     * slot they are neighbours in the chain. */
    size_t node = 0;
    for (size_t i = p->n_entries; i-- > 0;) {
        const clcpack_entry_info *e = &p->entries[i].info;
        uint64_t set = define_set(e->defines, e->define_count);
        for (size_t k = 0; k <= e->kernel_name_count; k++) {
            const char *name = k ? e->kernel_names[k - 1] : e->kernel;
            size_t s = (size_t)clcpk_key_hash(name, set, e->define_count, e->wg) & p->slot_mask;
            p->node_entry[node] = (uint32_t)i;
            p->node_next[node] = p->slot_head[s];
            p->slot_head[s] = (uint32_t)node;
            node++;
        }
    }
    return CLCPACK_OK;
}

uint32_t clcpk_key_index_first(const clcpack *p, const clcpack_key *key)
{
    size_t s = (size_t)clcpk_key_index_hash(key) & p->slot_mask;
    return p->slot_head[s];
}

uint64_t clcpk_key_index_hash(const clcpack_key *key)
{
    return clcpk_key_hash(key->kernel, define_set(key->defines, key->define_count),
                          key->define_count, key->wg);
}

/* Comparing a key with an entry, and writing either as text. */

static const char *value_or_empty(const char *v) { return v ? v : ""; }

clcpack_status clcpk_check_key(const clcpack_key *key, clcpack_error *err)
{
    if (!key)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "key is NULL");
    if (!key->kernel || !key->kernel[0])
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "key has no kernel name");
    if (key->define_count && !key->defines)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "key of %s: %zu defines but defines is NULL",
                       key->kernel, key->define_count);
    for (size_t i = 0; i < key->define_count; i++) {
        const char *name = key->defines[i].name;
        if (!name || !name[0])
            return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "key of %s: define %zu has no name",
                           key->kernel, i);
        for (size_t j = 0; j < i; j++)
            if (strcmp(key->defines[j].name, name) == 0)
                return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "key of %s: define %s given twice",
                               key->kernel, name);
    }
    return CLCPACK_OK;
}

/* The entry's defines are sorted by name: binary search. */
static const clcpack_define *entry_define(const clcpack_entry_info *e, const char *name)
{
    size_t lo = 0, hi = e->define_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(e->defines[mid].name, name);
        if (c == 0)
            return &e->defines[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int clcpk_entry_has_name(const clcpack_entry_info *e, const char *name)
{
    if (strcmp(e->kernel, name) == 0)
        return 1;
    return e->kernel_name_count &&
           bsearch(&name, e->kernel_names, e->kernel_name_count, sizeof *e->kernel_names,
                   cmp_name) != NULL;
}

/* e answers to key's name and work-group and holds every define of the key
 * with its value (key names are distinct). */
static int key_within(const clcpack_entry_info *e, const clcpack_key *key)
{
    if (!clcpk_entry_has_name(e, key->kernel))
        return 0;
    for (int k = 0; k < 3; k++)
        if (e->wg[k] != key->wg[k])
            return 0;
    for (size_t i = 0; i < key->define_count; i++) {
        const clcpack_define *d = entry_define(e, key->defines[i].name);
        if (!d || strcmp(d->value, value_or_empty(key->defines[i].value)) != 0)
            return 0;
    }
    return 1;
}

int clcpk_entry_matches(const clcpack_entry_info *e, const clcpack_key *key)
{
    /* The same count and every key define found: the two sets are equal. */
    return e->define_count == key->define_count && key_within(e, key);
}

/* Every define of the key is in e with the same value (e may have more). */
int clcpk_key_defines_within(const clcpack_entry_info *e, const clcpack_key *key)
{
    return e->define_count >= key->define_count && key_within(e, key);
}

/* The define set and work-group: "[T=float RADIUS=1] wg 8x8". A wg is
 * written as given, but for the third size 1 of a 2-D one: a key of
 * {16,16,0} reads "16x16x0", apart from an entry's {16,16,1} ("16x16"). */
static void describe_variant(pk_text *t, const clcpack_define *defs, size_t n, const uint32_t wg[3])
{
    if (n) {
        clcpk_text_add(t, " [");
        for (size_t i = 0; i < n; i++) {
            const char *v = value_or_empty(defs[i].value);
            clcpk_text_add(t, "%s%s%s%s", i ? " " : "", defs[i].name ? defs[i].name : "?",
                        v[0] ? "=" : "", v);
        }
        clcpk_text_add(t, "]");
    }
    if (!wg[0] && !wg[1] && !wg[2])
        clcpk_text_add(t, " no wg");
    else if (wg[2] == 1)
        clcpk_text_add(t, " wg %ux%u", wg[0], wg[1]);
    else
        clcpk_text_add(t, " wg %ux%ux%u", wg[0], wg[1], wg[2]);
}

void clcpk_describe_entry_key(const clcpack_entry_info *e, char *buf, size_t cap)
{
    pk_text t;
    clcpk_text_init(&t, buf, cap);
    clcpk_text_add(&t, "%s", e->kernel);
    describe_variant(&t, e->defines, e->define_count, e->wg);
}

void clcpk_describe_entry_variant(const clcpack_entry_info *e, char *buf, size_t cap)
{
    pk_text t;
    clcpk_text_init(&t, buf, cap);
    describe_variant(&t, e->defines, e->define_count, e->wg);
    if (t.len && buf[0] == ' ')
        memmove(buf, buf + 1, t.len); /* the NUL too */
}

void clcpk_describe_key(const clcpack_key *key, char *buf, size_t cap)
{
    pk_text t;
    clcpk_text_init(&t, buf, cap);
    clcpk_text_add(&t, "%s", key->kernel ? key->kernel : "?");
    describe_variant(&t, key->defines, key->defines ? key->define_count : 0, key->wg);
}
