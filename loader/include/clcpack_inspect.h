/*
 * clcpack_inspect.h — libclcpack for tools that read packs: what a pack
 * holds beyond what loading needs, and the checks a tool (or a program that
 * gates on a pack) runs. Nothing here writes.
 *
 * clc-pack's verify, list, merge and retarget are built on it; an
 * application that only loads packs includes clcpack.h alone and needs none
 * of this. It includes clcpack.h, and the general contract written there
 * holds here too (statuses, clcpack_error, struct_size, what never
 * changes); docs/API.md, "Three headers". Every function here is in both
 * libraries, libclcpack and the load-only libclcpack_load (which have no
 * writer), exported and versioned like the rest (CLCPACK_1.0, and
 * clcpack_check_index at CLCPACK_1.2), under the same stability promise.
 * clcpack_write.h includes this header, so a tool that includes
 * clcpack_write.h, as before 1.3, sees all of it.
 *
 * Threads: every function here is as thread-safe as its comment says.
 */
#ifndef CLCPACK_INSPECT_H
#define CLCPACK_INSPECT_H

#include "clcpack.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------- */
/* Pack details                                                            */

/* 1 when two fingerprints are identical in every field, the device UUID
 * included (the writer's rule for "the same device"); else 0, also when a
 * or b is NULL or its struct_size is too small. An application's question
 * is clcpack_device_binary_compatible. Thread-safe. (No status: a
 * predicate.) */
CLCPACK_API int clcpack_device_equal(const clcpack_device_info *a, const clcpack_device_info *b);

/* The arch number of an offline target (docs/FORMAT.md, "Offline
 * targets"): for CLCPACK_KIND_AMDGCN a gfx target ID ("gfx1030",
 * "gfx90a:sramecc+:xnack-"), for CLCPACK_KIND_SPIRV "SPIR-V_1.2".
 * CLCPACK_E_INVALID_ARG for another kind (an Intel target's arch is its IP
 * version, which only ocloc knows), a NULL argument or a name that does not
 * parse. Thread-safe. */
CLCPACK_API clcpack_status clcpack_target_arch(clcpack_binary_kind kind, const char *target,
                                               uint32_t *arch);

/* Every structure of p's index a reader trusts, checked with the code a
 * load runs (what `clc-pack verify` runs first): the whole index read and
 * every record parsed (the header's checksum, every invariant of
 * docs/FORMAT.md, delta chains, dictionaries); for a pack opened through
 * its lookup table (format 5) also every row, every bucket of both sets
 * with its list items, and that the table agrees with the records (each
 * row names its own record; each entry is in the key and name buckets of
 * each name it answers to, and in no other). CLCPACK_E_CHECKSUM or
 * CLCPACK_E_FORMAT with err naming the part at fault; blobs are not read
 * (clcpack_read_binary checks them). Thread-safe. */
CLCPACK_API clcpack_status clcpack_check_index(const clcpack *p, clcpack_error *err);

/* The CLCPACK_VERSION_NUMBER of the library that wrote the pack (header
 * bytes 48-51, docs/FORMAT.md); 0 for a pack written before it was kept,
 * and for a NULL p. (No status: a number read from the header.) */
CLCPACK_API uint32_t clcpack_writer_version(const clcpack *p);

/* A dictionary of a format-4 pack (docs/FORMAT.md, "Dictionary record"):
 * what many of its blobs share, which zstd codes them against. An entry or
 * source of codec 4 names its dictionary (entry: `base`). Versioned
 * (struct_size). */
typedef struct clcpack_dictionary_info {
    size_t struct_size;         /* sizeof(clcpack_dictionary_info) */
    uint32_t codec;             /* 0 stored, 3 zstd */
    uint64_t raw_size;
    uint64_t stored_size;
    uint32_t raw_crc32;
} clcpack_dictionary_info;

/* Dictionaries (format 4; 0 in older packs). (Count: no status.) */
CLCPACK_API size_t clcpack_dictionary_count(const clcpack *p);
/* Dictionary i into *out: as clcpack_get_entry. */
CLCPACK_API clcpack_status clcpack_get_dictionary(const clcpack *p, size_t i,
                                                  clcpack_dictionary_info *out);

/* The group label the writer gave entry i (clcpack_entry_spec.family; ""
 * for none), a name clcpack_best_variant answers to, into *family (a
 * pointer into the pack, valid until clcpack_close). CLCPACK_E_NOT_FOUND
 * when i is not below the count; CLCPACK_E_INVALID_ARG for a NULL argument. */
CLCPACK_API clcpack_status clcpack_get_entry_family(const clcpack *p, size_t i,
                                                    const char **family);

/* SHA-256 (FIPS 180-4) of size bytes at data (data may be NULL when size
 * is 0) into out: the digest clcpack_open_file_pinned compares. Thread-safe.
 * (No status: a computation that cannot fail; out must not be NULL.) */
CLCPACK_API void clcpack_digest_sha256(const void *data, size_t size,
                                       uint8_t out[CLCPACK_SHA256_SIZE]);

/* SHA-256 of the whole open pack's bytes, as clcpack_open_file_pinned
 * compares it (a pack file is read again for it). CLCPACK_E_INVALID_ARG
 * when p or out is NULL, CLCPACK_E_IO when the file cannot be read. */
CLCPACK_API clcpack_status clcpack_pack_sha256(const clcpack *p,
                                               uint8_t out[CLCPACK_SHA256_SIZE]);

#ifdef __cplusplus
}
#endif
#endif /* CLCPACK_INSPECT_H */
