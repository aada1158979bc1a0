/*
 * pack_decode.h — the functions of pack_decode.c: an entry's or a source's
 * bytes decoded and their CRC-32 checked. Internal to libclcpack.
 */
#ifndef CLCPACK_PACK_DECODE_H
#define CLCPACK_PACK_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "base_cache.h"
#include "pack_reader.h"

/* Raw bytes of entry blobs this handle has inflated so far: what the tests
 * check the decode budget and the base cache against. Thread-safe. */
uint64_t clcpk_inflated_bytes(const clcpack *p);

/* Decodes entry i into dst (exactly its raw_size bytes) and checks its
 * CRC-32 (and its delta bases'). On error err says which entry and why. */
clcpack_status clcpk_decode_entry(const clcpack *p, size_t i, uint8_t *dst, clcpack_error *err);

/* Decodes entry i into a new malloc'd buffer (raw_size bytes). */
clcpack_status clcpk_decode_entry_alloc(const clcpack *p, size_t i, uint8_t **out,
                                     clcpack_error *err);

/* Entry i's checked bytes for a driver, as cheaply as possible: in a pack
 * in memory, a stored blob (codec 0) at an address aligned to
 * PK_VIEW_ALIGN is checked where it lies and *view points at it (*owned
 * NULL); any other blob, and every blob of a pack file, is decoded (read)
 * into a malloc'd *owned, and *view is *owned; but an entry that is a
 * delta base of others is decoded into the base cache (or found there),
 * *view is its bytes and *held a reference to them, *owned NULL. The
 * caller frees *owned and releases *held (clcpk_decoded_release). Either
 * way *view holds raw_size bytes whose CRC-32 matched. */
#define PK_VIEW_ALIGN 16 /* what malloc gives, for drivers that parse in place */
clcpack_status clcpk_entry_view(const clcpack *p, size_t i, const uint8_t **view,
                                uint8_t **owned, pk_decoded **held, clcpack_error *err);

/* Decodes source i into a new malloc'd buffer of raw_size + 1 bytes, the
 * last one NUL, so it can be handed to clCreateProgramWithSource. */
clcpack_status clcpk_decode_source_alloc(const clcpack *p, size_t i, char **out,
                                      clcpack_error *err);

#endif /* CLCPACK_PACK_DECODE_H */
