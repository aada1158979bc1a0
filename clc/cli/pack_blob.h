/*
 * pack_blob.h — an entry's binary or a source of an open pack, decoded
 * (CRC-checked) into a buffer of its own: the library's two-call size query
 * done once for every subcommand that needs whole blobs.
 */
#ifndef CLC_PACK_BLOB_H
#define CLC_PACK_BLOB_H

#include <stddef.h>

#include "clcpack.h"

typedef enum pb_kind { PB_BINARY, PB_SOURCE } pb_kind;

/* Entry `index`'s binary (PB_BINARY) or source `index` (PB_SOURCE), malloc'd
 * (caller frees), its size in *size. NULL on failure, with *err filled in
 * (CLCPACK_E_NOMEM when the buffer could not be had). */
unsigned char *pb_read(const clcpack *p, pb_kind kind, size_t index, size_t *size,
                       clcpack_error *err);

#endif /* CLC_PACK_BLOB_H */
