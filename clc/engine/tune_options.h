/*
 * tune_options.h — what --tune asks of a build (docs/TUNING.md): the
 * problem size, how many timed and warm-up launches, and the values of a
 * run-time size argument to time a kernel at. The engine carries these to
 * the check hook (check_hook.h), which knows how to launch the kernel.
 */
#ifndef CLC_TUNE_OPTIONS_H
#define CLC_TUNE_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#define TUNE_OPTIONS_MAX_WIDTHS 64
#define TUNE_OPTIONS_DEFAULT_SIZE 2048
#define TUNE_OPTIONS_DEFAULT_RUNS 11   /* a median of at least 10 runs */
#define TUNE_OPTIONS_WARMUP 2
#define TUNE_OPTIONS_NOTE_MAX 512

typedef struct tune_options {
    int enabled;
    uint32_t width, height;      /* problem size; poly kernels take width*height inputs */
    int runs, warmup;
    size_t n_widths;             /* filter widths for width-argument kernels */
    uint32_t widths[TUNE_OPTIONS_MAX_WIDTHS];
    /* The device's lock (device_lock.h) the timed launches take, after the
     * problem is made and uploaded, so that only launches wait for each
     * other; "" for none. Set by the engine for each build. */
    char device_key[16];
} tune_options;

void tune_options_default(tune_options *o);

#endif /* CLC_TUNE_OPTIONS_H */
