/*
 * tune_data.h — the bytes of a T1 argument or reference (FillType
 * Constant, Random, Generator, BinaryRaw) and the comparison of an output
 * with its reference (ValidationMethod). docs/TUNING.md says what each
 * fill gives: Random is uniform in [0, 1) for floating-point types and in
 * 0..99 for integers, from a seeded generator that is the same on every
 * machine; Generator's DataSource is an expression of i, the index of the
 * scalar (lane) being filled.
 */
#ifndef CLC_TUNE_DATA_H
#define CLC_TUNE_DATA_H

#include <stddef.h>

#include "t1_spec.h"

/* The default check of an output against the first valid configuration's
 * (no ReferenceArguments): |got - want| <= tolerance * (1 + |want|) for
 * floating-point data, equality for integers. */
#define TUNE_DATA_DEFAULT_TOLERANCE 1e-4

/* a's data made from d (a's own, or a reference's for a's output):
 * malloc'd bytes, a->count elements. 0, or -1 with err. */
int tune_data_make(const t1_arg *a, const t1_data *d, void **out, size_t *bytes, char *err,
                   size_t cap);

/* How an output compares with its reference. method < 0: the default
 * check above, with threshold as the tolerance. Returns 1 when it passes,
 * 0 when not (then *worst is the measure that failed, where says at which
 * element). */
int tune_data_compare(const t1_arg *a, const void *got, const void *want, int method,
                      double threshold, double *worst, size_t *where);

#endif /* CLC_TUNE_DATA_H */
