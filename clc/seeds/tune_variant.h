/*
 * tune_variant.h — timing one built kernel variant for clc-pack --tune
 * (docs/TUNING.md): warm-up launches, then TV runs timed with OpenCL event
 * profiling on random data, the median kept. A kernel that takes the filter
 * width as an argument is timed at each width of the pack's width list, so
 * it can be compared with the FILTER_WIDTH variants at every width.
 * Nothing here prints.
 */
#ifndef CLC_TUNE_VARIANT_H
#define CLC_TUNE_VARIANT_H

#include <stddef.h>
#include <stdint.h>

#include "clcpack.h"
#include "manifest.h"

#include "tune_options.h"

/* Times v (built in prog) as o says. Writes up to TUNE_OPTIONS_MAX_WIDTHS timings to
 * out and their count to *n. Returns 0; -1 when a timing could not be
 * taken (note says which and why; the timings taken before are kept). */
int tune_variant_measure(cl_context ctx, cl_command_queue q, cl_program prog, const manifest_variant *v,
               const tune_options *o, clcpack_tuning *out, size_t *n, char note[TUNE_OPTIONS_NOTE_MAX]);

#endif /* CLC_TUNE_VARIANT_H */
