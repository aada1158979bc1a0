/*
 * rcache.h — a build worker's side of the remote cache
 * (docs/REMOTE_CACHE.md, "Looking up a variant", "Uploading a variant"):
 * the requests, and the checks on what comes back that need no device
 * (the action result's form, the object's SHA-256, the record's format
 * and CRC-32, its key text). The checks on the device are build_variant_adopt's
 * (build_variant.h).
 *
 * A worker that meets a failed request stops asking for the rest of its
 * run (a server that is down costs each worker one failure, not one per
 * variant); one whose upload fails stops uploading. One per worker
 * process, used by one thread. Nothing here prints.
 */
#ifndef CLC_RCACHE_H
#define CLC_RCACHE_H

#include <stddef.h>

#include "rcache_http.h"
#include "rcache_record.h"

#define RCACHE_MSG_MAX 640
#define RCACHE_CRED_MAX 4096

typedef struct rcache rcache;

typedef struct rcache_config {
    const char *url;     /* the base URL (rcache_http_check_url) */
    int timeout_s;
    int readonly;        /* look up, never upload */
} rcache_config;

/* The credentials of the environment (docs/REMOTE_CACHE.md,
 * "Authentication"): a bearer token, else "user:password" for basic
 * authentication, into the buffers ("" when none). note gets a line when
 * a file named by a variable cannot be read ("" otherwise). */
void rcache_credentials(char bearer[RCACHE_CRED_MAX], char userpwd[RCACHE_CRED_MAX], char note[RCACHE_MSG_MAX]);

/* A worker's cache: NULL with err when libcurl is missing or fails. */
rcache *rcache_open(const rcache_config *c, char *err, size_t cap);
void rcache_close(rcache *c);

/* Whether lookups (and uploads) still happen in this worker. */
int rcache_lookups_on(const rcache *c);
int rcache_uploads_on(const rcache *c);

/* Looks the variant of key (hex) and key_text up. BUILD_VARIANT_REMOTE_HIT with *rec
 * (free with rcache_record_free); BUILD_VARIANT_REMOTE_MISS; BUILD_VARIANT_REMOTE_REJECTED with why (the
 * object was wrong: rebuild and upload); BUILD_VARIANT_REMOTE_FAILED with why (the
 * request failed; lookups are now off in this worker); BUILD_VARIANT_REMOTE_NONE when
 * lookups were off already. */
build_variant_remote rcache_lookup(rcache *c, const char *key, const char *key_text, size_t key_len,
                    rcache_record *rec, char why[RCACHE_MSG_MAX]);

/* Uploads rec under key: the object, unless the server has one of that
 * name and size (replace: send it anyway, after the lookup rejected what
 * the server had), then the action result. BUILD_VARIANT_UPLOAD_DONE;
 * BUILD_VARIANT_UPLOAD_FAILED with why (uploads are now off in this worker);
 * BUILD_VARIANT_UPLOAD_NONE when read-only or off already, or the record is larger
 * than RCACHE_RECORD_OBJECT_MAX. */
build_variant_upload rcache_store(rcache *c, const char *key, const rcache_record *rec, int replace,
                   char why[RCACHE_MSG_MAX]);

#endif /* CLC_RCACHE_H */
