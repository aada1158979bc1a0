/*
 * rcache_record.h — the two objects of the remote cache
 * (docs/REMOTE_CACHE.md): the record of one built variant (`/cas/<sha256>`:
 * its key text, the source build's kernel signatures and names, the note,
 * the forms; versioned, with its own CRC-32) and the action result that
 * points at it (`/ac/<key>`: a Remote Execution API v2 ActionResult
 * naming one output file, `clc-pack.record`, by SHA-256 and size).
 *
 * Both decoders take bytes from a server: every length is checked against
 * the bytes left and against a cap before anything is allocated, and any
 * input gives a record or an error, never a crash. Nothing here prints.
 */
#ifndef CLC_RCACHE_RECORD_H
#define CLC_RCACHE_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "build_variant.h"
#include "rcache_key.h"
#include "wire.h"

#define RCACHE_RECORD_VERSION 2 /* 2: offline kinds, with each form's target */
#define RCACHE_RECORD_OBJECT_MAX (256u << 20)   /* a record, at most */
#define RCACHE_RECORD_AC_MAX 4096u              /* an action result, at most */
#define RCACHE_RECORD_KEY_MAX (64u << 10)
#define RCACHE_RECORD_SIGNATURE_MAX (8u << 20)
#define RCACHE_RECORD_NAMES_MAX 65536u
#define RCACHE_RECORD_NAME_MAX (64u << 10)
#define RCACHE_RECORD_NOTE_MAX (64u << 10)
#define RCACHE_RECORD_OUTPUT_PATH "clc-pack.record"
#define RCACHE_RECORD_ERR_MAX 256

/* One record: what a build worker needs to store a variant without
 * building it, and to check it first. Decoded records own every pointer. */
typedef struct rcache_record {
    char *key_text;
    size_t key_len;
    char *signature;          /* roundtrip_signature of the source build */
    size_t n_kernel_names;
    char **kernel_names;      /* sorted */
    char *note;               /* "" when none */
    size_t n_forms;
    build_variant_form forms[BUILD_VARIANT_MAX_FORMS];
} rcache_record;

/* Appends the record's bytes to out (out->failed on no memory). Only
 * reads r. */
void rcache_record_encode(const rcache_record *r, strbuf *out);

/* Decodes a whole record of size bytes into *r (free with rcache_record_free); 0, or
 * -1 with err saying what is wrong (r is then empty). */
int rcache_record_decode(const unsigned char *data, size_t size, rcache_record *r, char err[RCACHE_RECORD_ERR_MAX]);

void rcache_record_free(rcache_record *r);

/* The action result naming the record whose SHA-256 is hash (64 hex
 * digits) and size; returns its length (at most RCACHE_RECORD_AC_MAX). */
size_t rcache_record_ac_encode(const char *hash, uint64_t size, unsigned char out[RCACHE_RECORD_AC_MAX]);

/* Reads an action result: the digest of its output file clc-pack.record.
 * 0, or -1 with err. */
int rcache_record_ac_decode(const unsigned char *data, size_t size, char hash[RCACHE_KEY_HEX_SIZE],
                  uint64_t *record_size, char err[RCACHE_RECORD_ERR_MAX]);

#endif /* CLC_RCACHE_RECORD_H */
