/* mono_clock.c — seconds on the monotonic clock (mono_clock.h). */
#include "mono_clock.h"

#include <time.h>

double mono_clock_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
