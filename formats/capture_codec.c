/* capture_codec.c — encoding and decoding the record files (capture_format.h). */
#include "capture_format.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "strbuf.h"

/* ---------------------------------------------------------------------- */
/* Writing                                                                 */

/* The record's bytes: the one growable buffer (strbuf.h). */
typedef strbuf wbuf;

static void put(wbuf *b, const void *data, size_t n) { sb_put(b, data, n); }

static void put_le(wbuf *b, uint64_t v, int bytes)
{
    unsigned char t[8];
    for (int i = 0; i < bytes; i++)
        t[i] = (unsigned char)(v >> (8 * i));
    put(b, t, (size_t)bytes);
}

/* A field of len_bytes length then its bytes. */
static void put_field(wbuf *b, int len_bytes, const void *p, size_t n)
{
    if (len_bytes == 4 && n > UINT32_MAX) {
        b->failed = 1;
        return;
    }
    put_le(b, n, len_bytes);
    put(b, p, n);
}

static void put_str(wbuf *b, const char *s)
{
    put_field(b, 4, s ? s : "", s ? strlen(s) : 0);
}

static uint32_t crc_of(const unsigned char *p, size_t n)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    while (n) {
        uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = crc32(crc, p, k);
        p += k;
        n -= k;
    }
    return (uint32_t)crc;
}

static int finish(wbuf *b, unsigned char **out, size_t *size)
{
    if (b->failed) {
        sb_free(b);
        return -1;
    }
    *out = b->data;
    *size = b->len;
    return 0;
}

int capture_encode(const capture *c, unsigned char **out, size_t *size)
{
    wbuf b;
    sb_init(&b);
    const clcpack_device_info *d = &c->device;
    put(&b, CAPTURE_MAGIC, CAPTURE_MAGIC_SIZE);
    put_le(&b, (uint32_t)c->kind, 4);
    put_str(&b, c->key);
    put_field(&b, 8, c->source, c->source_size);
    put_str(&b, c->options);
    put_str(&b, c->kernel_names);
    put_str(&b, d->platform_name);
    put_str(&b, d->platform_version);
    put_str(&b, d->device_name);
    put_str(&b, d->device_version);
    put_str(&b, d->driver_version);
    put_str(&b, d->opencl_c_version);
    put_le(&b, d->device_type, 8);
    put_le(&b, d->vendor_id, 4);
    put_le(&b, d->address_bits, 4);
    put_le(&b, d->has_uuid, 4);
    put(&b, d->device_uuid, 16);
    put(&b, d->driver_uuid, 16);
    put_le(&b, d->nv_cc_major, 4);
    put_le(&b, d->nv_cc_minor, 4);
    put_field(&b, 8, c->binary, c->binary ? c->binary_size : 0);
    if (!b.failed)
        put_le(&b, crc_of(b.data, b.len), 4);
    return finish(&b, out, size);
}

int link_desc_encode(const link_input *in, size_t n, unsigned char **out, size_t *size)
{
    wbuf b;
    sb_init(&b);
    put(&b, LINK_DESC_MAGIC, 8);
    put_le(&b, n, 4);
    for (size_t i = 0; i < n; i++) {
        put_field(&b, 8, in[i].source, in[i].source_size);
        put_str(&b, in[i].options);
        put_str(&b, in[i].key);
        put_le(&b, in[i].n_headers, 4);
        for (size_t h = 0; h < in[i].n_headers; h++) {
            put_str(&b, in[i].headers[h].name);
            put_field(&b, 8, in[i].headers[h].source, in[i].headers[h].source_size);
        }
    }
    return finish(&b, out, size);
}

/* ---------------------------------------------------------------------- */
/* Reading                                                                 */

typedef struct rd {
    const unsigned char *p;
    size_t left;
    int bad;
} rd;

static uint64_t get_le(rd *r, int bytes)
{
    if (r->bad || r->left < (size_t)bytes) {
        r->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)r->p[i] << (8 * i);
    r->p += bytes;
    r->left -= (size_t)bytes;
    return v;
}

/* A length-prefixed field, in place: *n bytes at the returned pointer. */
static const unsigned char *get_span(rd *r, int len_bytes, size_t *n)
{
    uint64_t k = get_le(r, len_bytes);
    if (r->bad || k > r->left) {
        r->bad = 1;
        return NULL;
    }
    const unsigned char *s = r->p;
    r->p += k;
    r->left -= (size_t)k;
    *n = (size_t)k;
    return s;
}

/* A length-prefixed field as a malloc'd NUL-terminated copy. */
static char *get_field(rd *r, int len_bytes, size_t *size)
{
    size_t n = 0;
    const unsigned char *s = get_span(r, len_bytes, &n);
    if (!s)
        return NULL;
    char *c = malloc(n + 1);
    if (!c) {
        r->bad = 1;
        return NULL;
    }
    memcpy(c, s, n);
    c[n] = '\0';
    if (size)
        *size = n;
    return c;
}

/* A fingerprint string: cut to the field's size, as the fingerprint does. */
static void get_fp_str(rd *r, char dst[CLCPACK_FP_STR])
{
    size_t n = 0;
    const unsigned char *s = get_span(r, 4, &n);
    if (!s)
        return;
    if (n >= CLCPACK_FP_STR)
        n = CLCPACK_FP_STR - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

static void get_bytes(rd *r, void *dst, size_t n)
{
    if (r->bad || r->left < n) {
        r->bad = 1;
        return;
    }
    memcpy(dst, r->p, n);
    r->p += n;
    r->left -= n;
}

static void say(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *err, size_t cap, const char *fmt, ...)
{
    if (!err || !cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

void capture_free(capture *c)
{
    free(c->key);
    free(c->source);
    free(c->options);
    free(c->kernel_names);
    free(c->binary);
    memset(c, 0, sizeof *c);
}

static int has_prefix(const char *s, const char *prefix)
{
    return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

int capture_decode(const unsigned char *buf, size_t size, capture *c, char *err, size_t cap)
{
    memset(c, 0, sizeof *c);
    int v2 = size >= CAPTURE_MAGIC_SIZE && memcmp(buf, CAPTURE_MAGIC_V2, CAPTURE_MAGIC_SIZE) == 0;
    if (size < CAPTURE_MAGIC_SIZE + 4 ||
        (!v2 && memcmp(buf, CAPTURE_MAGIC, CAPTURE_MAGIC_SIZE) != 0)) {
        say(err, cap, "not a capture file (no %s magic)", CAPTURE_MAGIC);
        return -1;
    }
    uint32_t want = (uint32_t)buf[size - 4] | (uint32_t)buf[size - 3] << 8 |
                    (uint32_t)buf[size - 2] << 16 | (uint32_t)buf[size - 1] << 24;
    if (crc_of(buf, size - 4) != want) {
        say(err, cap, "CRC-32 mismatch (a damaged or partial capture)");
        return -1;
    }
    rd r = {buf + CAPTURE_MAGIC_SIZE, size - CAPTURE_MAGIC_SIZE - 4, 0};
    clcpack_device_info *d = &c->device;
    d->struct_size = sizeof *d;
    uint32_t kind = v2 ? CAPTURE_BUILD : (uint32_t)get_le(&r, 4);
    c->kind = (capture_kind)kind;
    c->key = get_field(&r, 4, NULL);
    c->source = get_field(&r, 8, &c->source_size);
    c->options = get_field(&r, 4, NULL);
    c->kernel_names = get_field(&r, 4, NULL);
    get_fp_str(&r, d->platform_name);
    get_fp_str(&r, d->platform_version);
    get_fp_str(&r, d->device_name);
    get_fp_str(&r, d->device_version);
    get_fp_str(&r, d->driver_version);
    get_fp_str(&r, d->opencl_c_version);
    d->device_type = get_le(&r, 8);
    d->vendor_id = (uint32_t)get_le(&r, 4);
    d->address_bits = (uint32_t)get_le(&r, 4);
    d->has_uuid = (uint32_t)get_le(&r, 4);
    get_bytes(&r, d->device_uuid, 16);
    get_bytes(&r, d->driver_uuid, 16);
    d->nv_cc_major = (uint32_t)get_le(&r, 4);
    d->nv_cc_minor = (uint32_t)get_le(&r, 4);
    size_t bin_size = 0;
    char *bin = get_field(&r, 8, &bin_size);
    if (!r.bad && r.left != 0)
        r.bad = 1;
    if (r.bad) {
        free(bin);
        capture_free(c);
        say(err, cap, "malformed capture (a field runs past the end)");
        return -1;
    }
    int key_ok = (kind == CAPTURE_BUILD && has_prefix(c->key, CAPTURE_BUILD_PREFIX)) ||
                 (kind == CAPTURE_LINK && has_prefix(c->key, CAPTURE_LINK_PREFIX));
    if (!key_ok || strlen(c->key) >= CAPTURE_KEY_MAX) {
        free(bin);
        capture_free(c);
        say(err, cap, "malformed capture (kind %u with an unknown key)", (unsigned)kind);
        return -1;
    }
    if (bin_size) {
        c->binary = (unsigned char *)bin;
        c->binary_size = bin_size;
    } else {
        free(bin);
    }
    return 0;
}

int link_desc_each_key(const unsigned char *desc, size_t size,
                       int (*fn)(const char *key, void *user), void *user)
{
    if (size < 12 || memcmp(desc, LINK_DESC_MAGIC, 8) != 0)
        return -1;
    rd r = {desc + 8, size - 8, 0};
    uint64_t n = get_le(&r, 4);
    if (n > LINK_MAX_INPUTS)
        return -1;
    int stop = 0;
    for (uint64_t i = 0; i < n && !r.bad; i++) {
        size_t k = 0;
        get_span(&r, 8, &k); /* source */
        get_span(&r, 4, &k); /* options */
        const unsigned char *key = get_span(&r, 4, &k);
        char buf[CAPTURE_KEY_MAX];
        if (!key || k >= sizeof buf)
            return -1;
        memcpy(buf, key, k);
        buf[k] = '\0';
        uint64_t nh = get_le(&r, 4);
        if (nh > LINK_MAX_HEADERS)
            return -1;
        for (uint64_t h = 0; h < nh && !r.bad; h++) {
            get_span(&r, 4, &k);
            get_span(&r, 8, &k);
        }
        if (!r.bad && !stop)
            stop = fn(buf, user);
    }
    return r.bad || r.left ? -1 : 0;
}

/* ---------------------------------------------------------------------- */
/* Process files                                                           */

size_t proc_status_format(const proc_status *st, char *buf, size_t cap)
{
    size_t n = 0;
    int k = snprintf(buf, cap, "%s\ncalls %lu\nlayer %d\n", PROC_MAGIC_LINE, st->calls,
                     st->layer ? 1 : 0);
    if (k < 0 || (size_t)k >= cap)
        return 0;
    n = (size_t)k;
    for (int i = 0; i < st->n_loaded && i < 4; i++) {
        k = snprintf(buf + n, cap - n, "loaded %s\n", st->loaded[i]);
        if (k < 0 || (size_t)k >= cap - n)
            return 0;
        n += (size_t)k;
    }
    return n;
}

int proc_status_parse(const char *text, size_t size, proc_status *out)
{
    memset(out, 0, sizeof *out);
    size_t magic = strlen(PROC_MAGIC_LINE);
    if (size < magic + 1 || memcmp(text, PROC_MAGIC_LINE, magic) != 0 || text[magic] != '\n')
        return -1;
    for (size_t at = magic + 1; at < size;) {
        const char *line = text + at;
        const char *nl = memchr(line, '\n', size - at);
        size_t len = nl ? (size_t)(nl - line) : size - at;
        at += len + 1;
        char buf[600];
        if (len >= sizeof buf)
            continue;
        memcpy(buf, line, len);
        buf[len] = '\0';
        if (strncmp(buf, "calls ", 6) == 0)
            out->calls = strtoul(buf + 6, NULL, 10);
        else if (strncmp(buf, "layer ", 6) == 0)
            out->layer = buf[6] == '1';
        else if (strncmp(buf, "loaded ", 7) == 0 && out->n_loaded < 4) {
            size_t k = strlen(buf + 7);
            if (k >= sizeof out->loaded[0])
                k = sizeof out->loaded[0] - 1;
            memcpy(out->loaded[out->n_loaded], buf + 7, k);
            out->loaded[out->n_loaded++][k] = '\0';
        }
    }
    return 0;
}
