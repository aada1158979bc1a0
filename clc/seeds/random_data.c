/* random_data.c — deterministic inputs (random_data.h). */
#include "random_data.h"

/* splitmix64 (Steele, Lea, Flood 2014): full period, every seed usable. */
static uint64_t next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* 24 random bits as a float in [0, 1]: exact in float. */
static float unit(uint64_t r) { return (float)(r >> 40) * (1.0f / 16777215.0f); }

void random_data_fill_signed(float *dst, size_t n, uint64_t seed)
{
    uint64_t state = seed;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = next(&state);
        float mag = 0.125f + 0.875f * unit(r);
        dst[i] = (r & 1) ? -mag : mag;
    }
}

void random_data_fill_range(float *dst, size_t n, float lo, float hi, uint64_t seed)
{
    uint64_t state = seed;
    for (size_t i = 0; i < n; i++)
        dst[i] = lo + (hi - lo) * unit(next(&state));
}
