/*
 * key_match.c — what it means for an entry to have a key, finding the
 * one-line description of a key used in messages: the predicates that the
 * lookup (pack_lookup.c), the search (key_find.c) and the miss
 * (key_miss.c) share. It calls none of them, so a lookup runs one way,
 * key_find → pack_lookup → key_index → key_hash.
 *
 * A key is (kernel, define set, work-group size). The define set is a set:
 * the caller may give it in any order. An entry whose define set equals the
 * key's is found through the index; failing that, a key that names only
 * some of the defines (the axes, leaving out derived ones) matches the
 * entries whose set holds all of them, if those entries share one set.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "pack_reader.h"
#include "text.h"

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
