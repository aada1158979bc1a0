/*
 * bench_stats.h — clocks and medians for the benchmarks.
 */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stddef.h>

/* Milliseconds on the monotonic clock. */
double bench_now_ms(void);

/* Median of n values (sorts v in place); 0 when n is 0. */
double bench_median(double *v, size_t n);

#endif /* BENCH_STATS_H */
