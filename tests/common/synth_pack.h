/*
 * synth_pack.h — synthetic writer contents shaped like an NVIDIA pack (per
 * variant one PTX and cubins for seven architectures that differ a little,
 * variants of a kernel that differ a little) plus binaries that exercise
 * the writer's other choices: incompressible ones with small changes, tiny
 * near-identical ones (a delta wins the fast ranking, then level 9 is not
 * smaller than the raw bytes) and unrelated random ones. For the writer's
 * tests and its bench; the same seed gives the same bytes.
 */
#ifndef SYNTH_PACK_H
#define SYNTH_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "clcpack_write.h"

typedef struct synth_entry {
    char kernel[32];
    char value[16];     /* the value of define V */
    uint32_t device;    /* 0: the NVIDIA device (sm_90), 1: a CPU device */
    clcpack_binary_kind kind;
    uint32_t arch;
    uint8_t *bin;
    size_t size;
} synth_entry;

typedef struct synth_corpus {
    clcpack_device_info devices[2];
    char *source;
    size_t source_size;
    synth_entry *entries;
    size_t n, cap;
} synth_corpus;

/* Fills c: kernels x variants x 8 NVIDIA forms of min..max bytes, and
 * with `others` the CPU groups described above. 0, or -1 when out of
 * memory (c is then freed). */
int synth_make(synth_corpus *c, size_t kernels, size_t variants, size_t min, size_t max,
               int others, uint64_t seed);
void synth_free(synth_corpus *c);

/* A writer (clcpack_writer_new flags) holding all of c; NULL with err set
 * on failure. */
clcpack_writer *synth_writer(const synth_corpus *c, uint32_t flags, clcpack_error *err);

/* Adds to w a program entry "prog" of two kernels, "alpha" and "beta"
 * (native, device 1, work-group 8, no source), with the defines and binary
 * given: the shape whose kernel names share and split lookup buckets.
 * *spec is left describing it (its kernel names static), for a tuning
 * added after. CLCPACK_OK, or the writer's status with err set. */
clcpack_status synth_add_program(clcpack_writer *w, const clcpack_define *defs,
                                 size_t define_count, const void *bin, size_t bin_size,
                                 clcpack_entry_spec *spec, clcpack_error *err);

/* Whether pack entry i holds the binary of c's entry with the same key
 * and form: 0 yes, -1 no (why says what differs). */
int synth_check_entry(const clcpack *p, size_t i, const synth_corpus *c, char *why, size_t cap);

#endif /* SYNTH_PACK_H */
