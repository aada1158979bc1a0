/*
 * tune_space.h — a T1 spec's configuration space: every combination of its
 * parameters' values that meets its conditions, and what one configuration
 * means for a launch (its -D defines, its global and local sizes).
 *
 * A configuration is named by its raw index: the mixed-radix number of its
 * value indices, the first parameter most significant, so the valid list
 * comes out sorted and a configuration is found by binary search. The
 * enumeration is depth-first and checks each condition as soon as the
 * last parameter it reads is bound, so a space of millions of raw
 * combinations is walked in well under a second (docs/TUNING.md).
 *
 * Nothing here prints or opens a device.
 */
#ifndef CLC_TUNE_SPACE_H
#define CLC_TUNE_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include "t1_spec.h"

#define TUNE_SPACE_VALID_MAX (1u << 24)      /* valid configurations kept */
#define TUNE_SPACE_VISITS_MAX (1ull << 33)   /* partial combinations tried */
#define TUNE_SPACE_ERR_MAX 1400

typedef struct tune_space {
    const t1_spec *spec;
    uint64_t *stride;      /* per parameter: its weight in the raw index */
    uint64_t n_raw;        /* every combination, valid or not */
    uint64_t *valid;       /* the valid ones' raw indices, ascending */
    size_t n_valid, cap_valid;
    uint64_t visits;       /* partial combinations the walk tried */
} tune_space;

/* Walks the space of s (which must outlive it). 0, or -1 with err: a
 * condition that fails to evaluate, a GlobalSize that is no multiple of
 * its LocalSize, a space over the limits above. */
int tune_space_build(tune_space *sp, const t1_spec *s, char err[TUNE_SPACE_ERR_MAX]);
void tune_space_free(tune_space *sp);

/* The value index of each parameter of raw into idx[spec->n_params]. */
void tune_space_decode(const tune_space *sp, uint64_t raw, uint32_t *idx);
uint64_t tune_space_encode(const tune_space *sp, const uint32_t *idx);
/* The position of raw in the valid list, or -1 when it is not valid. */
long long tune_space_find(const tune_space *sp, uint64_t raw);

/* The slots an expression of the spec reads (t1_spec.c's resolver), for
 * configuration idx: the parameters' values, then ProblemSize (its items in
 * prob[3]). slots holds n_params + 1 values. */
void tune_space_bind(const tune_space *sp, const uint32_t *idx, t1_value *slots, t1_value prob[3]);

/* The launch of raw: global and local sizes in work-items (1 beyond the
 * spec's dimensions). 0, or -1 with err naming the field. */
int tune_space_launch(const tune_space *sp, uint64_t raw, size_t global[3], size_t local[3],
                      char *err, size_t cap);

/* "TS=32,WPT=8": the configuration as messages and --reference spell it;
 * malloc'd, NULL out of memory. */
char *tune_space_label(const tune_space *sp, uint64_t raw);

/* The build options of raw: CompilerOptions, then -D NAME=VALUE for each
 * parameter in the spec's order (what the workers build and the pack
 * stores); malloc'd, NULL out of memory. */
char *tune_space_options(const tune_space *sp, uint64_t raw);

/* The position of the configuration "NAME=V,..." (every parameter named
 * once, each value as its define spells it: --reference), or -1 with err. */
long long tune_space_find_config(const tune_space *sp, const char *text, char *err, size_t cap);

#endif /* CLC_TUNE_SPACE_H */
