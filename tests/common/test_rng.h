/*
 * test_rng.h — the tests' deterministic random numbers (xorshift64): the
 * same seed gives the same data on every machine, so a failure repeats.
 */
#ifndef TEST_RNG_H
#define TEST_RNG_H

#include <stddef.h>
#include <stdint.h>

/* The next number of the sequence in *state (never 0: seed it non-zero). */
uint64_t test_rng_next(uint64_t *state);

/* n random bytes. */
void test_rng_fill(uint64_t *state, uint8_t *p, size_t n);

#endif /* TEST_RNG_H */
