/*
 * hostile_pack.h — packs made to cost a reader as much as the format lets
 * them, for test_hardening and the hardening bench: a delta chain whose
 * entries share one tiny blob that inflates to a large size, and a valid
 * pack with a multi-GB hole (a sparse file) before its index.
 */
#ifndef CLC_TEST_HOSTILE_PACK_H
#define CLC_TEST_HOSTILE_PACK_H

#include <stddef.h>
#include <stdint.h>

/* A pack of `chain` entries (1..8), entry 0 zlib and entry k a delta
 * against entry k-1, every one `raw` bytes of zeros from the same zlib
 * blob; `n_extra` more entries (chain >= 2) are deltas against the
 * second-last one, as long a chain as the last. base_scale > 1 makes each base that many
 * times larger than the entry after it (a budget the reader must refuse).
 * Malloc'd, *size bytes; NULL when out of memory. */
uint8_t *hostile_chain_pack(size_t chain, size_t n_extra, uint64_t raw, unsigned base_scale,
                            size_t *size);

/* Writes at path a valid pack of one small entry whose index comes after
 * `hole` bytes of a hole in the payload (a sparse file: it costs no disk).
 * 0 on success. */
int hostile_sparse_pack(const char *path, uint64_t hole);

/* A pack of format_version with one stored native entry of the given
 * arch whose record goes on for `tail` bytes of 0xEE after the version-1
 * fields. Malloc'd, *size bytes. */
uint8_t *hostile_tail_pack(uint16_t format_version, size_t tail, uint32_t arch, size_t *size);

/* Writes at path a copy of the pack (size bytes, any format version)
 * grown to about `target` bytes by filler entries: stored native entries of
 * filler_raw zero bytes for device 0, keyed filler_NNNNNNN, whose blobs lie
 * in a hole (a sparse file) between the pack's payload and its index. The
 * pack's own entries keep their offsets; the fillers' records go after
 * them. *n_fillers (may be NULL) gets how many. 0 on success. */
int hostile_padded_pack(const uint8_t *pack, size_t size, const char *path, uint64_t target,
                        uint64_t filler_raw, size_t *n_fillers);

/* Resident memory of this process now, in KiB (/proc/self/statm), or 0. */
size_t hostile_rss_kib(void);

/* Peak resident memory of this process, in KiB (getrusage). */
size_t hostile_peak_rss_kib(void);

#endif
