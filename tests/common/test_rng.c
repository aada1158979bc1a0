/*
 * test_rng.c — xorshift64 (Marsaglia): fast, and good enough to make test
 * data that is neither zeros nor a pattern.
 */
#include "test_rng.h"

uint64_t test_rng_next(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

void test_rng_fill(uint64_t *state, uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(test_rng_next(state) >> 24);
}
