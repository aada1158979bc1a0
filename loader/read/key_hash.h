/*
 * key_hash.h — a key made (key_hash.c): checked, hashed, indexed, compared
 * with an entry and written as text. The 64-bit hash of a key (name,
 * define set, wg) is the one the in-memory key index and a pack's lookup
 * table both use; docs/FORMAT.md ("The key hash") defines it, so a reader
 * written from the document finds the same bucket. Internal to libclcpack.
 */
#ifndef CLCPACK_KEY_HASH_H
#define CLCPACK_KEY_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "pack_reader.h"

/* One define's share of the set hash (value NULL is the empty value).
 * The set hash is the wrapping sum of its defines' shares, so it does not
 * depend on their order. */
uint64_t clcpk_key_hash_define(const char *name, const char *value);

/* The key's hash from its name, the sum of its defines' shares, their
 * number and the work-group size. */
uint64_t clcpk_key_hash(const char *name, uint64_t define_set, size_t define_count,
                        const uint32_t wg[3]);

/* The key's hash as the key index and lookup tables use it. */
uint64_t clcpk_key_index_hash(const clcpack_key *key);

/* Builds the key index of an open pack. CLCPACK_OK or CLCPACK_E_NOMEM. */
clcpack_status clcpk_key_index_build(clcpack *p);

/* The first node of the key's slot (CLCPACK_NONE for none); the next are
 * p->node_next[n], each for entry p->node_entry[n], in ascending entry
 * order (an entry may come twice in a row). Candidates still have to be
 * compared with clcpk_entry_matches. The key must have passed
 * clcpk_check_key. */
uint32_t clcpk_key_index_first(const clcpack *p, const clcpack_key *key);

/* CLCPACK_OK when the key is usable (names present, no define twice). */
clcpack_status clcpk_check_key(const clcpack_key *key, clcpack_error *err);

/* 1 when entry e answers to name: its kernel (or program) name, or one of
 * a program entry's kernel names. */
int clcpk_entry_has_name(const clcpack_entry_info *e, const char *name);

/* 1 when entry e answers to the key's kernel name and has exactly its
 * define set and wg. The key must have passed clcpk_check_key. */
int clcpk_entry_matches(const clcpack_entry_info *e, const clcpack_key *key);

/* Every define of the key is in e with the same value (e may have more),
 * and the kernel name and wg are e's. */
int clcpk_key_defines_within(const clcpack_entry_info *e, const clcpack_key *key);

/* Describes entry i's key, e.g. "sgemm [TS=32 WPT=8] wg 32x4". */
void clcpk_describe_entry_key(const clcpack_entry_info *e, char *buf, size_t cap);

/* Describes a caller's key the same way (defines in the order given). */
void clcpk_describe_key(const clcpack_key *key, char *buf, size_t cap);

/* Entry e's define set and work-group alone, e.g. "[TS=32 WPT=8] wg 32x4". */
void clcpk_describe_entry_variant(const clcpack_entry_info *e, char *buf, size_t cap);

#endif /* CLCPACK_KEY_HASH_H */
