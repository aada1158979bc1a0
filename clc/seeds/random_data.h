/*
 * random_data.h — the deterministic random inputs kernels are checked and
 * timed on (docs/KERNELS.md, "Checking"): the same seed gives the same
 * numbers on every machine (splitmix64, no libc rand).
 */
#ifndef CLC_RANDOM_DATA_H
#define CLC_RANDOM_DATA_H

#include <stddef.h>
#include <stdint.h>

/* Image and filter values: magnitude uniform in [1/8, 1], random sign. No
 * value is zero or tiny, so a kernel that drops or misplaces a term changes
 * its output by a visible amount. */
void random_data_fill_signed(float *dst, size_t n, uint64_t seed);

/* Uniform in [lo, hi]. */
void random_data_fill_range(float *dst, size_t n, float lo, float hi, uint64_t seed);

#endif /* CLC_RANDOM_DATA_H */
