/*
 * bench_entry.h — from a pack's entries to what the benchmarks measure:
 * the manifest variant of an entry (how to launch and check it) and the
 * distinct keys (kernel, defines, work-group) a pack holds.
 */
#ifndef BENCH_ENTRY_H
#define BENCH_ENTRY_H

#include <stddef.h>

#include "clcpack.h"
#include "manifest.h"

/* The variant an entry was built as: its kernel from the manifest, its
 * defines, work-group and build options. Returns 0, or -1 when the
 * manifest has no such kernel or the entry has too many defines. */
int bench_entry_variant(const manifest_file *m, const clcpack_entry_info *e, manifest_variant *v);

/* The entry's FILTER_WIDTH define, or 0 when it has none. */
int bench_entry_filter_width(const clcpack_entry_info *e);

/* "reda_local FILTER_WIDTH=5,HALF_FILTER_SIZE=2 wg=8x8": the key alone,
 * without the form of the entry it was read from. */
void bench_key_label(const clcpack_entry_info *e, char *buf, size_t cap);

/* The entry's work-group as text: "16x16", "64", or "-". */
void bench_wg_text(const uint32_t wg[3], char *buf, size_t cap);

/* Indices of the first entry of each distinct key, in entry order
 * (malloc'd into *first, count in *n; caller frees). Returns 0, or -1 when
 * out of memory or the pack cannot be read. */
int bench_distinct_keys(const clcpack *p, size_t **first, size_t *n);

#endif /* BENCH_ENTRY_H */
