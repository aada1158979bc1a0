/* rec_capture.c — capture files of `clc-pack record` (rec_capture.h). */
#include "rec_capture.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "bounded_fmt.h"

#define MAGIC "CLCPREC2"

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

/* A length-prefixed field as a malloc'd NUL-terminated copy. */
static char *get_field(rd *r, int len_bytes, size_t *size)
{
    uint64_t n = get_le(r, len_bytes);
    if (r->bad || n > r->left) {
        r->bad = 1;
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (!s) {
        r->bad = 1;
        return NULL;
    }
    memcpy(s, r->p, (size_t)n);
    s[n] = '\0';
    r->p += n;
    r->left -= (size_t)n;
    if (size)
        *size = (size_t)n;
    return s;
}

static void get_fp_str(rd *r, char dst[CLCPACK_FP_STR])
{
    char *s = get_field(r, 4, NULL);
    if (s)
        bfmt(dst, CLCPACK_FP_STR, "%s", s);
    free(s);
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

static unsigned char *slurp(const char *path, size_t *size, char *err, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        bfmt(err, cap, "%s: cannot open", path);
        return NULL;
    }
    struct stat st;
    unsigned char *buf = NULL;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
        (uint64_t)st.st_size > RC_MAX_FILE) {
        bfmt(err, cap, "%s: not a regular file of a plausible size", path);
        goto out;
    }
    buf = malloc((size_t)st.st_size ? (size_t)st.st_size : 1);
    if (!buf) {
        bfmt(err, cap, "%s: out of memory", path);
        goto out;
    }
    if (fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        bfmt(err, cap, "%s: short read", path);
        free(buf);
        buf = NULL;
        goto out;
    }
    *size = (size_t)st.st_size;
out:
    fclose(f);
    return buf;
}

void rec_capture_free(rec_capture *c)
{
    free(c->key);
    free(c->source);
    free(c->options);
    free(c->kernel_names);
    free(c->binary);
    memset(c, 0, sizeof *c);
}

int rec_capture_read(const char *path, rec_capture *c, char *err, size_t cap)
{
    memset(c, 0, sizeof *c);
    size_t size = 0;
    unsigned char *buf = slurp(path, &size, err, cap);
    if (!buf)
        return -1;
    if (size < 12 || memcmp(buf, MAGIC, 8) != 0) {
        bfmt(err, cap, "%s: not a capture file (no %s magic)", path, MAGIC);
        free(buf);
        return -1;
    }
    uint32_t want = (uint32_t)buf[size - 4] | (uint32_t)buf[size - 3] << 8 |
                    (uint32_t)buf[size - 2] << 16 | (uint32_t)buf[size - 1] << 24;
    uLong crc = crc32(0L, Z_NULL, 0);
    for (size_t off = 0; off < size - 4;) {
        uInt k = size - 4 - off > (1u << 30) ? (1u << 30) : (uInt)(size - 4 - off);
        crc = crc32(crc, buf + off, k);
        off += k;
    }
    if ((uint32_t)crc != want) {
        bfmt(err, cap, "%s: CRC-32 mismatch (a damaged or partial capture)", path);
        free(buf);
        return -1;
    }
    rd r = {buf + 8, size - 12, 0};
    clcpack_device_info *d = &c->device;
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
    free(buf);
    if (r.bad || strncmp(c->key ? c->key : "", "rec:", 4) != 0) {
        free(bin);
        rec_capture_free(c);
        bfmt(err, cap, "%s: malformed capture (a field runs past the end)", path);
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
