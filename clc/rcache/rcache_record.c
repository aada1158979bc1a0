/* rcache_record.c — the remote cache's record and action result (rcache_record.h). */
#include "rcache_record.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "bounded_fmt.h"

static const unsigned char MAGIC[8] = {'C', 'L', 'C', 'P', 'K', 'R', 'E', 'C'};
#define HEAD_SIZE 24 /* magic, two versions, the record's size */

static uint32_t crc_of(const unsigned char *p, size_t n)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    while (n > 0) {
        uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = crc32(crc, p, k);
        p += k;
        n -= k;
    }
    return (uint32_t)crc;
}

/* Whether a form of r is an offline toolchain's (kinds 3-5), which only
 * version 2 carries with its target. */
static int has_offline_form(const rcache_record *r)
{
    for (size_t i = 0; i < r->n_forms; i++)
        if (r->forms[i].kind >= CLCPACK_KIND_INTEL)
            return 1;
    return 0;
}

void rcache_record_encode(const rcache_record *r, strbuf *out)
{
    size_t start = out->len;
    /* A device's record stays version 1, byte for byte: readers of
     * version 1 still take it from a shared server. */
    uint32_t version = has_offline_form(r) ? 2 : 1;
    sb_put(out, MAGIC, sizeof MAGIC);
    wire_put_u32(out, version);
    wire_put_u32(out, version); /* the oldest reader that can read it */
    size_t size_at = out->len;
    wire_put_u64(out, 0);           /* the record's size, once known */
    wire_put_u32(out, (uint32_t)r->key_len);
    sb_put(out, r->key_text, r->key_len);
    wire_put_str(out, r->signature);
    wire_put_u32(out, (uint32_t)r->n_kernel_names);
    for (size_t i = 0; i < r->n_kernel_names; i++)
        wire_put_str(out, r->kernel_names[i]);
    wire_put_str(out, r->note);
    wire_put_u32(out, (uint32_t)r->n_forms);
    for (size_t i = 0; i < r->n_forms; i++) {
        wire_put_u32(out, (uint32_t)r->forms[i].kind);
        wire_put_u32(out, r->forms[i].arch);
        wire_put_blob(out, r->forms[i].data, r->forms[i].size);
    }
    if (version >= 2)
        for (size_t i = 0; i < r->n_forms; i++)
            wire_put_str(out, r->forms[i].target);
    if (out->failed)
        return;
    uint64_t size = (uint64_t)(out->len - start) + 4;
    for (int i = 0; i < 8; i++)
        out->data[size_at + (size_t)i] = (unsigned char)(size >> (8 * i));
    wire_put_u32(out, crc_of(out->data + start, out->len - start));
}

void rcache_record_free(rcache_record *r)
{
    free(r->key_text);
    free(r->signature);
    for (size_t i = 0; i < r->n_kernel_names; i++)
        free(r->kernel_names[i]);
    free(r->kernel_names);
    free(r->note);
    for (size_t i = 0; i < r->n_forms; i++)
        free(r->forms[i].data);
    memset(r, 0, sizeof *r);
}

/* A str of at most max bytes with no NUL, as a malloc'd C string ("" when
 * empty), its length in *len; NULL (and the reader failed) otherwise. */
static char *get_text(wire_reader *rd, size_t max, size_t *len)
{
    wire_reader peek = *rd;
    uint32_t declared = wire_get_u32(&peek);
    char *s = wire_get_str_alloc(rd, max);
    if (!s)
        return NULL;
    if (strlen(s) != declared) { /* a NUL inside */
        free(s);
        rd->failed = 1;
        return NULL;
    }
    *len = declared;
    return s;
}

static int fail(rcache_record *r, char err[RCACHE_RECORD_ERR_MAX], const char *what)
{
    rcache_record_free(r);
    bfmt(err, RCACHE_RECORD_ERR_MAX, "the record %s", what);
    return -1;
}

int rcache_record_decode(const unsigned char *data, size_t size, rcache_record *r, char err[RCACHE_RECORD_ERR_MAX])
{
    memset(r, 0, sizeof *r);
    if (size < HEAD_SIZE + 4 || memcmp(data, MAGIC, sizeof MAGIC) != 0)
        return fail(r, err, "does not start with CLCPKREC");
    if (size > RCACHE_RECORD_OBJECT_MAX)
        return fail(r, err, "is larger than 256 MiB");
    wire_reader head;
    wire_reader_init(&head, data + 8, HEAD_SIZE - 8);
    uint32_t version = wire_get_u32(&head), min_reader = wire_get_u32(&head);
    uint64_t declared = wire_get_u64(&head);
    if (version < 1 || min_reader < 1) {
        bfmt(err, RCACHE_RECORD_ERR_MAX, "the record has version %u (oldest reader %u)", version,
             min_reader);
        return -1;
    }
    if (min_reader > RCACHE_RECORD_VERSION) {
        bfmt(err, RCACHE_RECORD_ERR_MAX, "the record needs a reader of version %u; this clc-pack reads %d",
             min_reader, RCACHE_RECORD_VERSION);
        return -1;
    }
    if (declared != size) {
        bfmt(err, RCACHE_RECORD_ERR_MAX, "the record says it has %llu bytes; %zu came",
             (unsigned long long)declared, size);
        return -1;
    }
    wire_reader crc_rd;
    wire_reader_init(&crc_rd, data + size - 4, 4);
    uint32_t want = wire_get_u32(&crc_rd), got = crc_of(data, size - 4);
    if (want != got) {
        bfmt(err, RCACHE_RECORD_ERR_MAX, "the record's CRC-32 is 0x%08x; its bytes give 0x%08x",
             (unsigned)want, (unsigned)got);
        return -1;
    }

    wire_reader rd;
    wire_reader_init(&rd, data + HEAD_SIZE, size - HEAD_SIZE - 4);
    size_t len = 0;
    r->key_text = get_text(&rd, RCACHE_RECORD_KEY_MAX, &r->key_len);
    if (!r->key_text)
        return fail(r, err, "has a bad key text");
    r->signature = get_text(&rd, RCACHE_RECORD_SIGNATURE_MAX, &len);
    if (!r->signature)
        return fail(r, err, "has a bad kernel signature");
    uint32_t nk = wire_get_u32(&rd);
    if (rd.failed || nk > RCACHE_RECORD_NAMES_MAX || (size_t)nk * 4 > rd.left)
        return fail(r, err, "has a bad kernel name count");
    r->kernel_names = calloc(nk ? nk : 1, sizeof *r->kernel_names);
    if (!r->kernel_names)
        return fail(r, err, "does not fit in memory");
    for (uint32_t i = 0; i < nk; i++) {
        char *name = get_text(&rd, RCACHE_RECORD_NAME_MAX, &len);
        if (!name || len == 0) {
            free(name);
            return fail(r, err, "has a bad kernel name");
        }
        r->kernel_names[r->n_kernel_names++] = name;
    }
    r->note = get_text(&rd, RCACHE_RECORD_NOTE_MAX, &len);
    if (!r->note)
        return fail(r, err, "has a bad note");
    uint32_t nf = wire_get_u32(&rd);
    if (rd.failed || nf < 1 || nf > BUILD_VARIANT_MAX_FORMS)
        return fail(r, err, "has a bad form count");
    for (uint32_t i = 0; i < nf; i++) {
        uint32_t kind = wire_get_u32(&rd), arch = wire_get_u32(&rd);
        size_t fsize = 0;
        unsigned char *bytes = wire_get_blob_dup(&rd, RCACHE_RECORD_OBJECT_MAX, &fsize);
        uint32_t top = version >= 2 ? CLCPACK_KIND_SPIRV : CLCPACK_KIND_CUBIN;
        if (!bytes || kind > top || (kind == CLCPACK_KIND_NATIVE && arch != 0)) {
            free(bytes);
            return fail(r, err, "has a bad form");
        }
        for (size_t k = 0; k < r->n_forms; k++)
            if ((uint32_t)r->forms[k].kind == kind && r->forms[k].arch == arch) {
                free(bytes);
                return fail(r, err, "holds one form twice");
            }
        build_variant_form *f = &r->forms[r->n_forms++];
        memset(f, 0, sizeof *f);
        f->kind = (clcpack_binary_kind)kind;
        f->arch = arch;
        f->data = bytes;
        f->size = fsize;
    }
    /* Version 2: each form's target, an offline kind's name it is stored
     * under (docs/REMOTE_CACHE.md), "" for a device's. */
    for (size_t i = 0; version >= 2 && i < r->n_forms; i++) {
        char *t = get_text(&rd, CLCPACK_TARGET_MAX + 1, &len);
        int offline = r->forms[i].kind >= CLCPACK_KIND_INTEL;
        if (!t || len > CLCPACK_TARGET_MAX || (offline != (len > 0)) || memchr(t, '\0', len)) {
            free(t);
            return fail(r, err, "has a bad form target");
        }
        memcpy(r->forms[i].target, t, len + 1);
        free(t);
    }
    /* Bytes left over are fields of a later version: skipped. */
    return 0;
}

/* Protocol buffers' base-128 varint. */
static size_t put_varint(unsigned char *p, uint64_t v)
{
    size_t n = 0;
    do {
        unsigned char c = v & 0x7F;
        v >>= 7;
        p[n++] = c | (v ? 0x80 : 0);
    } while (v);
    return n;
}

static int get_varint(const unsigned char **p, const unsigned char *end, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*p >= end)
            return -1;
        unsigned char c = *(*p)++;
        if (shift == 63 && c > 1)
            return -1;
        v |= (uint64_t)(c & 0x7F) << shift;
        if (!(c & 0x80)) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

/* A length-delimited field: tag, length, bytes. */
static size_t put_len_field(unsigned char *p, unsigned field, const void *data, size_t n)
{
    size_t at = put_varint(p, (uint64_t)field << 3 | 2);
    at += put_varint(p + at, n);
    memcpy(p + at, data, n);
    return at + n;
}

size_t rcache_record_ac_encode(const char *hash, uint64_t size, unsigned char out[RCACHE_RECORD_AC_MAX])
{
    unsigned char digest[128], file[256];
    /* Digest { hash = 1; size_bytes = 2 } */
    size_t d = put_len_field(digest, 1, hash, 64);
    d += put_varint(digest + d, 2 << 3 | 0);
    d += put_varint(digest + d, size);
    /* OutputFile { path = 1; digest = 2 } */
    size_t f = put_len_field(file, 1, RCACHE_RECORD_OUTPUT_PATH, strlen(RCACHE_RECORD_OUTPUT_PATH));
    f += put_len_field(file + f, 2, digest, d);
    /* ActionResult { output_files = 2 } */
    return put_len_field(out, 2, file, f);
}

/* Calls fn for each field of the message [p, end): number, wire type, and
 * for a length-delimited one its bytes (a varint's value in *v). Skips
 * what fn ignores. 0, or -1 when the message is malformed. */
typedef int (*field_fn)(void *ctx, uint64_t number, const unsigned char *bytes, size_t n,
                        uint64_t v, int type);

static int walk(const unsigned char *p, const unsigned char *end, field_fn fn, void *ctx)
{
    while (p < end) {
        uint64_t tag, v = 0;
        if (get_varint(&p, end, &tag) != 0 || tag >> 3 == 0)
            return -1;
        int type = (int)(tag & 7);
        const unsigned char *bytes = NULL;
        size_t n = 0;
        switch (type) {
        case 0:
            if (get_varint(&p, end, &v) != 0)
                return -1;
            break;
        case 1:
        case 5:
            n = type == 1 ? 8 : 4;
            if ((size_t)(end - p) < n)
                return -1;
            p += n;
            n = 0;
            break;
        case 2:
            if (get_varint(&p, end, &v) != 0 || v > (uint64_t)(end - p))
                return -1;
            bytes = p;
            n = (size_t)v;
            p += n;
            break;
        default: /* groups (3, 4) and unknown types */
            return -1;
        }
        if (fn(ctx, tag >> 3, bytes, n, v, type) != 0)
            return -1;
    }
    return 0;
}

typedef struct ac_digest {
    const unsigned char *hash;
    size_t hash_len;
    uint64_t size;
    int have_hash, have_size;
} ac_digest;

static int on_digest(void *ctx, uint64_t number, const unsigned char *bytes, size_t n,
                     uint64_t v, int type)
{
    ac_digest *d = ctx;
    if (number == 1 && type == 2) {
        d->hash = bytes;
        d->hash_len = n;
        d->have_hash = 1;
    } else if (number == 2 && type == 0) {
        d->size = v;
        d->have_size = 1;
    }
    return 0;
}

typedef struct ac_file {
    const unsigned char *path, *digest;
    size_t path_len, digest_len;
    int have_digest;
} ac_file;

static int on_file(void *ctx, uint64_t number, const unsigned char *bytes, size_t n, uint64_t v,
                   int type)
{
    (void)v;
    ac_file *f = ctx;
    if (number == 1 && type == 2) {
        f->path = bytes;
        f->path_len = n;
    } else if (number == 2 && type == 2) {
        f->digest = bytes;
        f->digest_len = n;
        f->have_digest = 1;
    }
    return 0;
}

typedef struct ac_result {
    ac_file chosen;
    int found;
    int bad;
} ac_result;

static int on_result(void *ctx, uint64_t number, const unsigned char *bytes, size_t n,
                     uint64_t v, int type)
{
    (void)v;
    ac_result *r = ctx;
    if (number != 2 || type != 2 || r->found)
        return 0;
    ac_file f;
    memset(&f, 0, sizeof f);
    if (walk(bytes, bytes + n, on_file, &f) != 0)
        return -1;
    if (f.path_len == strlen(RCACHE_RECORD_OUTPUT_PATH) &&
        memcmp(f.path, RCACHE_RECORD_OUTPUT_PATH, f.path_len) == 0) {
        r->chosen = f;
        r->found = 1;
    }
    return 0;
}

int rcache_record_ac_decode(const unsigned char *data, size_t size, char hash[RCACHE_KEY_HEX_SIZE],
                  uint64_t *record_size, char err[RCACHE_RECORD_ERR_MAX])
{
    if (size > RCACHE_RECORD_AC_MAX) {
        bfmt(err, RCACHE_RECORD_ERR_MAX, "the action result has %zu bytes (at most %u)", size, RCACHE_RECORD_AC_MAX);
        return -1;
    }
    ac_result r;
    memset(&r, 0, sizeof r);
    if (walk(data, data + size, on_result, &r) != 0) {
        bfmt(err, RCACHE_RECORD_ERR_MAX, "the action result is not a well-formed ActionResult message");
        return -1;
    }
    if (!r.found || !r.chosen.have_digest) {
        bfmt(err, RCACHE_RECORD_ERR_MAX, "the action result names no output file %s with a digest",
             RCACHE_RECORD_OUTPUT_PATH);
        return -1;
    }
    ac_digest d;
    memset(&d, 0, sizeof d);
    if (walk(r.chosen.digest, r.chosen.digest + r.chosen.digest_len, on_digest, &d) != 0 ||
        !d.have_hash || !d.have_size) {
        bfmt(err, RCACHE_RECORD_ERR_MAX, "the action result's digest is malformed");
        return -1;
    }
    if (!rcache_key_is_hex_digest((const char *)d.hash, d.hash_len)) {
        bfmt(err, RCACHE_RECORD_ERR_MAX, "the action result's digest is not 64 lowercase hex digits");
        return -1;
    }
    if (d.size < HEAD_SIZE + 4 || d.size > RCACHE_RECORD_OBJECT_MAX) {
        bfmt(err, RCACHE_RECORD_ERR_MAX, "the action result names an object of %llu bytes",
             (unsigned long long)d.size);
        return -1;
    }
    memcpy(hash, d.hash, 64);
    hash[64] = '\0';
    *record_size = d.size;
    return 0;
}
