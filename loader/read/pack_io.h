/*
 * pack_io.h — the functions of pack_io.c: a pack's bytes, from memory or
 * read from its file on demand, and the count of what was read. Internal
 * to libclcpack.
 */
#ifndef CLCPACK_PACK_IO_H
#define CLCPACK_PACK_IO_H

#include <stddef.h>
#include <stdint.h>

#include "pack_reader.h"

/* Bytes this handle has read from its file so far (header, index, blobs);
 * 0 for a pack in memory. Thread-safe. */
uint64_t clcpk_file_bytes_read(const clcpack *p);

/* Bytes [offset, offset + n) of the pack (pack_io.c): in a pack in memory
 * *view points at them and *owned is NULL; from a file they are read into
 * a malloc'd *owned and *view is *owned (the caller frees *owned). The
 * range was checked against the pack at open. E_IO when the file cannot be
 * read or has shrunk, E_NOMEM; why says which. Thread-safe. */
clcpack_status clcpk_pack_bytes(const clcpack *p, uint64_t offset, size_t n, const uint8_t **view,
                                uint8_t **owned, char *why, size_t why_cap);

/* The same bytes copied into dst. Thread-safe. */
clcpack_status clcpk_pack_read(const clcpack *p, uint64_t offset, size_t n, uint8_t *dst,
                               char *why, size_t why_cap);

/* Reads n bytes at offset `at` of fd into buf, counting them in *counter
 * (may be NULL). E_IO naming path when the read fails or the file ends
 * first ("shrank"). */
clcpack_status clcpk_read_at(clcpk_fd fd, const char *path, uint8_t *buf, size_t n, uint64_t at,
                             _Atomic uint64_t *counter, char *why, size_t why_cap);

#endif /* CLCPACK_PACK_IO_H */
