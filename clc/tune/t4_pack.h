/*
 * t4_pack.h — the timings a pack holds, as T4 results (the format of
 * t4_results.h), for `clc-pack tune-report PACK --t4 FILE`: whatever
 * timed them (the bundled kernels' --tune, --tune-cmd, clc-pack tune), so
 * that tools reading T4 see a pack's measurements too.
 *
 * One result per timed variant, per device, per timing: the forms of one
 * variant (PTX and cubin, say) share their timing and give one result.
 * Its configuration is what the variant is: "kernel" (a program entry's
 * program), each define by its name (an integer where the value is one),
 * "work_group" ("16x16"; "none"), "runtime_value" where the timing is for
 * a run-time value, and "problem_size" ([width, height] as the timing
 * gave them). Its measurements are "time" (the median, ms) and "runs". A
 * pack keeps only correct variants, and only their medians: every result
 * is "correct", and "times" holds no runtimes.
 */
#ifndef CLC_T4_PACK_H
#define CLC_T4_PACK_H

#include "clcpack.h"
#include "t4_results.h"

/* Whether entry i of p is to be written (the report's --kernel, --family). */
typedef int (*t4_pack_keep_fn)(const clcpack *p, size_t i, const clcpack_entry_info *e, void *ctx);

/* The timings of p's entries that keep accepts (keep NULL: all) written to
 * path as T4 results; pack_path names the pack in them. *n_results gets
 * how many. 0, or -1 with err (out of memory, or the file could not be
 * written). */
int t4_pack_write(const char *path, const clcpack *p, const char *pack_path, t4_pack_keep_fn keep,
                  void *ctx, size_t *n_results, char err[T4_ERR_MAX]);

#endif /* CLC_T4_PACK_H */
