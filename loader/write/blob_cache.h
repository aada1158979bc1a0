/*
 * blob_cache.h — the encoder's side of the caller's store of encoder
 * results (clcpack_writer_set_blob_cache, clcpack_write.h): the keys that
 * name a zstd frame or a trained dictionary by everything that decides its
 * bytes, and lookups checked before a result is used (a frame must decode
 * to exactly the raw bytes it stands for). Internal to libclcpack; called
 * by pack_encode.c on the writing thread only. Nothing here prints.
 */
#ifndef CLCPACK_BLOB_CACHE_H
#define CLCPACK_BLOB_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "codec.h"
#include "pack_writer.h"
#include "sha256.h"

/* Bumped when what the encoder makes from the same inputs changes in a way
 * the keys do not already hold (the trainer's parameters, how a trained
 * dictionary is cut), so that older results are never found. */
#define CLCPK_BLOB_KEY_EPOCH 1

/* Whether w has a store the encoder uses. */
int clcpk_blob_cache_on(const clcpack_writer *w);

/* The key of a zstd frame of codec `codec` at `level` of raw_n bytes whose
 * SHA-256 is raw, with the dictionary or prefix of ref_n bytes whose
 * SHA-256 is ref (NULL: neither). */
void clcpk_blob_key_frame(uint8_t key[CLCPACK_BLOB_KEY_SIZE], uint32_t codec, int level,
                          const uint8_t raw[32], uint64_t raw_n, const uint8_t *ref, uint64_t ref_n);

/* The key of a dictionary of at most cap bytes trained from n samples:
 * begin, then each sample's SHA-256 and size in order, then end. */
void clcpk_blob_key_dict_begin(clcpk_sha256 *s, size_t cap, size_t n);
void clcpk_blob_key_dict_sample(clcpk_sha256 *s, const uint8_t hash[32], uint64_t size);
void clcpk_blob_key_dict_end(clcpk_sha256 *s, uint8_t key[CLCPACK_BLOB_KEY_SIZE]);

/* A dictionary of key from the store into a malloc'd *out of 1 to cap
 * bytes: 1; 0 when there is none or it is refused (its size). */
int clcpk_blob_fetch_dict(const clcpack_writer *w, const uint8_t *key, const char *what,
                          size_t cap, uint8_t **out, size_t *n);

/* A frame of key from the store into a malloc'd *out: 1 when it decodes
 * to exactly the raw_n bytes at raw with dict or prefix (as
 * clcpk_unzstd_exact); 0 when there is none or it is refused. */
int clcpk_blob_fetch_frame(const clcpack_writer *w, const uint8_t *key, const char *what,
                           const uint8_t *raw, size_t raw_n, const clcpk_zdict *dict,
                           const uint8_t *prefix, size_t prefix_n, uint8_t **out, size_t *n);

/* Gives n bytes to the store under key. */
void clcpk_blob_store(const clcpack_writer *w, const uint8_t *key, const char *what,
                      const void *data, size_t n);

#endif /* CLCPACK_BLOB_CACHE_H */
