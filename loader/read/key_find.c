/*
 * key_find.c — clcpack_find: the entries that have a key, through the
 * lookup table (pack_lookup.c) or the hash index, with the key's check and
 * predicates (both key_hash.c); a miss is described by key_miss.c. The
 * calls go down alone: none of those files calls back into this one.
 *
 * An entry whose define set equals the key's is found through the index;
 * failing that, a key that names only some of the defines (the axes,
 * leaving out derived ones) matches the entries whose set holds all of
 * them, if those entries share one set.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "entry_key.h"
#include "errors.h"
#include "key_hash.h"
#include "key_miss.h"
#include "pack_lookup.h"
#include "pack_reader.h"

/* A key that leaves out derived defines: the entries among cands (n of
 * them; NULL: every entry) whose define set holds the key's, if they all
 * have the same set. *n_found and indices as clcpack_find. */
static clcpack_status find_within(const clcpack *p, const clcpack_key *key, const size_t *cands,
                                  size_t n_cands, size_t *indices, size_t cap, size_t *n_found,
                                  clcpack_error *err)
{
    size_t n = 0, first = SIZE_MAX, other = SIZE_MAX;
    for (size_t c = 0; c < n_cands; c++) {
        size_t i = cands ? cands[c] : c;
        const clcpack_entry_info *e = &p->entries[i].info;
        if (!clcpk_key_defines_within(e, key))
            continue;
        if (first == SIZE_MAX) {
            first = i;
        } else if (!clcpk_same_defines(&p->entries[first].info, e)) {
            other = i;
            break;
        }
        if (n < cap)
            indices[n] = i;
        n++;
    }
    *n_found = n;
    if (other == SIZE_MAX)
        return CLCPACK_OK;
    *n_found = 0;
    char desc[512], a[512], b[512];
    clcpk_describe_key(key, desc, sizeof desc);
    clcpk_describe_entry_key(&p->entries[first].info, a, sizeof a);
    clcpk_describe_entry_key(&p->entries[other].info, b, sizeof b);
    return clcpk_fail(err, CLCPACK_E_AMBIGUOUS,
                      "%s is ambiguous: it is part of %s (entry %zu) and of %s "
                      "(entry %zu), among others maybe; give more defines",
                      desc, a, first, b, other);
}

/* Through the lookup table: the key's bucket, then for a key without its
 * derived defines the bucket of its name and wg. *done when that gave the
 * answer (found, or an error); otherwise the whole index is wanted. */
static clcpack_status find_lookup(const clcpack *p, const clcpack_key *key, size_t *indices,
                                  size_t cap, size_t *n, int *done, clcpack_error *err)
{
    *done = 1;
    clcpack_status st = clcpk_lookup_find(p, key, indices, cap, n, err);
    if (st != CLCPACK_OK || *n > 0)
        return st;
    size_t *cands, n_cands;
    if ((st = clcpk_lookup_named(p, key->kernel, key->wg, &cands, &n_cands, err)) != CLCPACK_OK)
        return st;
    st = find_within(p, key, cands, n_cands, indices, cap, n, err);
    free(cands);
    /* None: the error's counts need every entry of the name. */
    *done = st != CLCPACK_OK || *n > 0;
    return st;
}

clcpack_status clcpack_find(const clcpack *p, const clcpack_key *key, size_t *indices, size_t cap,
                            size_t *count, clcpack_error *err)
{
    if (count)
        *count = 0;
    if (!p)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_find: pack is NULL");
    if (cap && !indices)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_find: indices is NULL, cap %zu", cap);
    clcpack_status st = clcpk_check_key(key, err);
    if (st != CLCPACK_OK)
        return st;
    size_t n = 0;
    if (clcpk_index_partial(p)) {
        int done;
        st = find_lookup(p, key, indices, cap, &n, &done, err);
        if (done) {
            if (count)
                *count = st == CLCPACK_OK ? n : 0;
            return st;
        }
        if ((st = clcpk_index_all(p, err)) != CLCPACK_OK)
            return st;
    }
    uint32_t last = CLCPACK_NONE;
    for (uint32_t node = clcpk_key_index_first(p, key); node != CLCPACK_NONE;
         node = p->node_next[node]) {
        uint32_t i = p->node_entry[node];
        if (i == last || !clcpk_entry_matches(&p->entries[i].info, key))
            continue;
        last = i;
        if (n < cap)
            indices[n] = i;
        n++;
    }
    /* The key may leave out derived defines. */
    if (n == 0 && (st = find_within(p, key, NULL, p->n_entries, indices, cap, &n, err)) !=
                      CLCPACK_OK) {
        if (count)
            *count = 0;
        return st;
    }
    if (count)
        *count = n;
    if (n == 0)
        return clcpk_key_not_found(p, key, err); /* scans every entry */
    return CLCPACK_OK;
}
