/*
 * key_hash.c — the key hash of docs/FORMAT.md ("The key hash"): FNV-1a
 * over the strings, a 64-bit finalising mix so that the low bits used as
 * a bucket depend on every input bit, and the define set as a sum so that
 * its order does not matter. Collisions are harmless: whoever looks a key
 * up compares every candidate in full.
 */
#include "key_hash.h"

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
