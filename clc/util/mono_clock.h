/*
 * mono_clock.h — the tool's one clock for durations: seconds on the
 * monotonic clock, which no change of the system's time moves, so that a
 * phase's time, a worker's deadline and a progress line's rate never run
 * backwards.
 */
#ifndef CLC_MONO_CLOCK_H
#define CLC_MONO_CLOCK_H

/* Seconds since an arbitrary start, fixed for the process. */
double mono_clock_s(void);

#endif /* CLC_MONO_CLOCK_H */
