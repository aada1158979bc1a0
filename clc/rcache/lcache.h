/*
 * lcache.h — the variant cache on this machine's disk, the local tier in
 * front of the remote cache (docs/CACHE.md, "The variant cache"): one file
 * per key, FOLDER/<key>.rec, holding the remote cache's record
 * (rcache_record.h) behind a magic and the record's SHA-256. The key is
 * the remote cache's (rcache_key.h), so a variant has one name in both.
 *
 * Several processes may share a folder: an entry is written to a
 * temporary file, synced and renamed into place (clcpk_write_file_atomic),
 * so a reader finds a whole entry or none; one that fails any check is
 * removed and never trusted. The checks on the device are
 * build_variant_adopt's (build_variant.h), as for a remote hit. What keeps
 * the folder under its bound, and the counts, are lcache_space.h's.
 * Nothing here prints.
 */
#ifndef CLC_LCACHE_H
#define CLC_LCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "build_variant.h"
#include "rcache_record.h"

#define LCACHE_MAGIC "CLCPKLC1"
#define LCACHE_HEAD_SIZE 40              /* the magic and the record's SHA-256 */
#define LCACHE_SUFFIX ".rec"
#define LCACHE_SUBFOLDER "variants"      /* in the cache's folder */
#define LCACHE_DEFAULT_BOUND (1ull << 30)
#define LCACHE_MSG_MAX 640

/* The cache's folder (docs/CACHE.md): $CLC_PACK_CACHE_DIR, else
 * $XDG_CACHE_HOME/clc-pack, else $HOME/.cache/clc-pack (empty and relative
 * values count as unset), with "/variants" appended. 0, or -1 when no
 * variable names one. *from gets the variable it came from. */
int lcache_folder(char *out, size_t cap, const char **from);

/* Whether the environment turns the cache off (CLC_PACK_NO_CACHE or
 * CLCPACK_NO_CACHE: 1, yes, true, on). */
int lcache_env_off(void);

/* Whether the environment asks for every hit to be loaded back on the
 * device, as a remote hit is (CLC_PACK_CACHE_LOAD=1, yes, true, on):
 * docs/CACHE.md, "Where it is used". */
int lcache_env_load_hits(void);

/* A size: bytes, or a number with K, M, G, T (powers of 1024; "KiB", "MB"
 * read the same), above 0. 0, or -1 when s is not one. */
int lcache_parse_size(const char *s, uint64_t *out);

/* The path of key's entry in folder. */
void lcache_entry_path(const char *folder, const char *key, char *out, size_t cap);

/* Looks the variant of key (hex) and key_text up in folder.
 * BUILD_VARIANT_REMOTE_HIT with *rec (free with rcache_record_free), the
 * entry's last use set to now; BUILD_VARIANT_REMOTE_MISS when there is
 * none; BUILD_VARIANT_REMOTE_REJECTED with why when it is damaged or for
 * another variant (the entry is then removed). */
build_variant_remote lcache_lookup(const char *folder, const char *key, const char *key_text,
                                   size_t key_len, rcache_record *rec, char why[LCACHE_MSG_MAX]);

/* Writes rec as key's entry in folder, replacing one there. 0, or -1 with
 * why. */
int lcache_store(const char *folder, const char *key, const rcache_record *rec,
                 char why[LCACHE_MSG_MAX]);

/* The whole file at fd, malloc'd; one of more than max bytes is refused
 * by its size, unread. 0, or -1 with errno (EFBIG for one too large). */
int lcache_read_whole(int fd, uint64_t max, unsigned char **data, size_t *size);

/* Removes path when it is still the file fd was opened on. */
void lcache_remove_if_same(const char *path, int fd);

/* Removes key's entry (a hit that failed the device's checks). */
void lcache_drop(const char *folder, const char *key);

/* An entry's bytes: the head, then the record encoded (out->failed on no
 * memory). Only reads rec. */
void lcache_encode(const rcache_record *rec, strbuf *out);

/* Decodes an entry of size bytes into *rec (free with
 * rcache_record_free): 0, or -1 with why. */
int lcache_decode(const unsigned char *data, size_t size, rcache_record *rec,
                  char why[LCACHE_MSG_MAX]);

#endif /* CLC_LCACHE_H */
