/* stats.h — what the kernels of kernels/stats.cl share. GROUP, the
 * work-group size, is given on the command line (-D GROUP=64,128). */
#ifndef STATS_H
#define STATS_H

#ifndef GROUP
#error "stats.cl needs -D GROUP=<work-group size>"
#endif

/* A closed interval, passed to a kernel by value. */
typedef struct stats_range {
    float lo;
    float hi;
} stats_range;

#define STATS_CLAMP(v, r) clamp((v), (r).lo, (r).hi)

#endif
