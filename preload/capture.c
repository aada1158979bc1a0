/* capture.c — capture files of `clc-pack record` (capture.h). */
#include "capture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define CAPTURE_MAGIC "CLCPREC2"

static unsigned long seq;

typedef struct wbuf {
    unsigned char *p;
    size_t n, cap;
    int oom;
} wbuf;

static void put(wbuf *b, const void *data, size_t n)
{
    if (b->oom)
        return;
    if (b->cap - b->n < n) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap - b->n < n) {
            if (cap > SIZE_MAX / 2) {
                b->oom = 1;
                return;
            }
            cap *= 2;
        }
        unsigned char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, data, n);
    b->n += n;
}

static void put_le(wbuf *b, uint64_t v, int bytes)
{
    unsigned char t[8];
    for (int i = 0; i < bytes; i++)
        t[i] = (unsigned char)(v >> (8 * i));
    put(b, t, (size_t)bytes);
}

static void put_str(wbuf *b, const char *s)
{
    size_t n = strlen(s);
    put_le(b, n, 4);
    put(b, s, n);
}

static void put_blob(wbuf *b, const void *p, size_t n)
{
    put_le(b, n, 8);
    if (n)
        put(b, p, n);
}

static unsigned long next_seq(void)
{
    return __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);
}

/* Writes data as dir/name, or as a new "<pid>-<seq>.<suffix>" when name is
 * NULL or "" (then stored into name when not NULL). */
static int write_named(const char *dir, const char *suffix, const void *data, size_t n,
                       char *name)
{
    char tmp[4096], final[4096], fresh[CAPTURE_NAME_MAX];
    unsigned long k = next_seq();
    long pid = (long)getpid();
    if (!name || !name[0]) {
        snprintf(fresh, sizeof fresh, "%ld-%lu.%s", pid, k, suffix);
        if (name)
            memcpy(name, fresh, sizeof fresh);
    }
    if (snprintf(tmp, sizeof tmp, "%s/.%ld-%lu.tmp", dir, pid, k) >= (int)sizeof tmp ||
        snprintf(final, sizeof final, "%s/%s", dir, name && name[0] ? name : fresh) >=
            (int)sizeof final) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    const unsigned char *p = data;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            errno = e ? e : EIO;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    if (close(fd) != 0 || rename(tmp, final) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

int capture_write(const char *dir, const capture *c, char name[CAPTURE_NAME_MAX])
{
    wbuf b = {0};
    const clcpack_device_info *d = c->device;
    put(&b, CAPTURE_MAGIC, 8);
    put_str(&b, c->key);
    put_blob(&b, c->source, c->source_size);
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
    put_blob(&b, c->binary, c->binary ? c->binary_size : 0);
    if (!b.oom) {
        uLong crc = crc32(0L, Z_NULL, 0);
        size_t left = b.n;
        const unsigned char *p = b.p;
        while (left) {
            uInt k = left > (1u << 30) ? (1u << 30) : (uInt)left;
            crc = crc32(crc, p, k);
            p += k;
            left -= k;
        }
        put_le(&b, crc, 4);
    }
    if (b.oom) {
        free(b.p);
        errno = ENOMEM;
        return -1;
    }
    int rc = write_named(dir, "rec", b.p, b.n, name);
    free(b.p);
    return rc;
}

int capture_note_binary(const char *dir)
{
    return write_named(dir, "binary", "", 0, NULL);
}
