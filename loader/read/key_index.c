/*
 * key_index.c — a hash index from key (kernel or program name, define set,
 * wg) to the entries that have it, built once when a pack is opened.
 *
 * A load looks its key up every time; on an NVIDIA GPU a cubin loads in
 * about 25 µs, so a scan of every entry with string compares (hundreds of
 * entries in a default pack) would be a visible share of it. The define set
 * is a set, so the hash combines the defines' hashes with an addition, which
 * does not depend on their order. Collisions are harmless: every candidate
 * is still compared in full with clcpk_entry_matches.
 */
#include <stdlib.h>

#include "key_hash.h"
#include "pack_reader.h"

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
