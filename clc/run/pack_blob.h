/*
 * pack_blob.h — an entry's binary or a source of an open pack, decoded
 * (CRC-checked) into a buffer of its own: the library's two-call size query
 * done once for every subcommand that needs whole blobs.
 */
#ifndef CLC_PACK_BLOB_H
#define CLC_PACK_BLOB_H

#include <stddef.h>

#include "clcpack.h"

typedef enum pack_blob_kind { PACK_BLOB_BINARY, PACK_BLOB_SOURCE } pack_blob_kind;

/* Entry `index`'s binary (PACK_BLOB_BINARY) or source `index` (PACK_BLOB_SOURCE), malloc'd
 * (caller frees), its size in *size. NULL on failure, with *err filled in
 * (CLCPACK_E_NOMEM when the buffer could not be had). */
unsigned char *pack_blob_read(const clcpack *p, pack_blob_kind kind, size_t index, size_t *size,
                       clcpack_error *err);

#endif /* CLC_PACK_BLOB_H */
