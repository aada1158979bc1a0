/*
 * own_timings.h — the timings of programs other than the bundled kernels
 * (a user's program packed with --tune-cmd, docs/TUNING.md "Your own
 * timing"): reported by their own axes, each timed variant's defines and
 * work-group, where the bundled kernels' tables go by family and filter
 * width (cmd_tune_report.c).
 */
#ifndef CLC_OWN_TIMINGS_H
#define CLC_OWN_TIMINGS_H

#include <stdint.h>

#include "clcpack.h"

/* The bundled kernels' families (the seeds' manifest): tune-report's width
 * tables and `best --family` are for these. */
#define OWN_N_BUNDLED 3
extern const char *const own_bundled_families[OWN_N_BUNDLED];

/* Whether name is one of own_bundled_families. */
int own_is_bundled_family(const char *name);

/* Prints, as Markdown, one table per program on pack device d (dev its
 * fingerprint) whose entries are not of a bundled family and hold timings:
 * every timed variant, fastest first within each problem size, with how
 * much slower it is than that fastest. name (NULL: all) keeps the entries
 * it names (a program or a kernel it holds). Returns 1 when it printed a
 * table, 0 when there was none, -1 when out of memory. */
int own_report(const clcpack *p, uint32_t d, const clcpack_device_info *dev, const char *name);

#endif /* CLC_OWN_TIMINGS_H */
