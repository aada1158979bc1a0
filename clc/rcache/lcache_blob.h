/*
 * lcache_blob.h — the encoder's results in the variant cache's folder
 * (docs/CACHE.md, "The encoder's results"): the trained dictionaries and
 * blobs' final frames libclcpack hands to its store
 * (clcpack_writer_set_blob_cache), one file per key in the variant
 * cache's subfolder blobs/, FOLDER/blobs/<key>.blob: a magic, the key,
 * the SHA-256 of the bytes, the bytes. Written and read as the variant
 * cache's entries are (temporary file, fsync, rename; read whole; a
 * damaged one removed, never trusted), and kept under the same bound by
 * lcache_space.h. Nothing here prints.
 */
#ifndef CLC_LCACHE_BLOB_H
#define CLC_LCACHE_BLOB_H

#include <stddef.h>
#include <stdint.h>

#include "lcache.h"

#define LCACHE_BLOB_MAGIC "CLCPKEB1"
#define LCACHE_BLOB_KEY_SIZE 32
#define LCACHE_BLOB_HEAD_SIZE 72           /* the magic, the key, the bytes' SHA-256 */
#define LCACHE_BLOB_SUFFIX ".blob"
#define LCACHE_BLOB_SUBFOLDER "blobs"       /* in the variant cache's folder */
#define LCACHE_BLOB_MAX ((uint64_t)1 << 30) /* the writer's largest blob */

/* The path of key's file in folder. */
void lcache_blob_path(const char *folder, const uint8_t key[LCACHE_BLOB_KEY_SIZE], char *out,
                      size_t cap);

/* The bytes stored under key in folder into a malloc'd *data: 1, its last
 * use set to now; 0 when there are none; -1 with why when the file is
 * damaged or is another key's (it is then removed). */
int lcache_blob_get(const char *folder, const uint8_t key[LCACHE_BLOB_KEY_SIZE], uint8_t **data,
                    size_t *n, char why[LCACHE_MSG_MAX]);

/* Stores n bytes under key in folder, replacing a file there. 0, or -1
 * with why. */
int lcache_blob_put(const char *folder, const uint8_t key[LCACHE_BLOB_KEY_SIZE], const void *data,
                    size_t n, char why[LCACHE_MSG_MAX]);

#endif /* CLC_LCACHE_BLOB_H */
