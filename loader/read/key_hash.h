/*
 * key_hash.h — the 64-bit hash of a key (name, define set, wg), the one
 * the in-memory key index and a pack's lookup table both use; docs/FORMAT.md
 * ("The key hash") defines it, so a reader written from the document finds
 * the same bucket. Internal to libclcpack.
 */
#ifndef CLCPACK_KEY_HASH_H
#define CLCPACK_KEY_HASH_H

#include <stddef.h>
#include <stdint.h>

/* One define's share of the set hash (value NULL is the empty value).
 * The set hash is the wrapping sum of its defines' shares, so it does not
 * depend on their order. */
uint64_t clcpk_key_hash_define(const char *name, const char *value);

/* The key's hash from its name, the sum of its defines' shares, their
 * number and the work-group size. */
uint64_t clcpk_key_hash(const char *name, uint64_t define_set, size_t define_count,
                        const uint32_t wg[3]);

#endif /* CLCPACK_KEY_HASH_H */
