/*
 * hostile_pack.c — see hostile_pack.h. The packs are laid out byte by byte
 * from docs/FORMAT.md, not through the library's writer (which would not
 * write them).
 */
#include "hostile_pack.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

typedef struct hb {
    uint8_t *p;
    size_t n, cap;
    int failed;
} hb;

static void put(hb *b, const void *src, size_t n)
{
    if (b->failed)
        return;
    if (b->n + n > b->cap) {
        size_t cap = (b->n + n) * 2 + 256;
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->n, src, n);
    b->n += n;
}

static void le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void u32(hb *b, uint32_t v)
{
    uint8_t x[4];
    le32(x, v);
    put(b, x, 4);
}

static void u64(hb *b, uint64_t v)
{
    u32(b, (uint32_t)v);
    u32(b, (uint32_t)(v >> 32));
}

static void str(hb *b, const char *s)
{
    u32(b, (uint32_t)strlen(s));
    put(b, s, strlen(s));
}

/* One device record: "hostile" on a made-up platform. */
static void device_record(hb *ix)
{
    size_t start = ix->n;
    u32(ix, 0);
    const char *strs[6] = {"Hostile Platform", "OpenCL 1.2", "hostile", "OpenCL 1.2", "1", "OpenCL C 1.2"};
    for (int i = 0; i < 6; i++)
        str(ix, strs[i]);
    u64(ix, 2); /* CL_DEVICE_TYPE_CPU */
    u32(ix, 0);
    u32(ix, 64);
    u32(ix, 0);
    uint8_t zero[32] = {0};
    put(ix, zero, 32);
    u32(ix, 0);
    u32(ix, 0);
    if (!ix->failed)
        le32(ix->p + start, (uint32_t)(ix->n - start));
}

static void entry_record_ex(hb *ix, size_t i, uint32_t codec, uint32_t base, uint64_t off,
                            uint64_t stored, uint64_t raw, uint32_t crc, uint32_t arch,
                            size_t tail)
{
    size_t start = ix->n;
    char value[32];
    snprintf(value, sizeof value, "%zu", i);
    u32(ix, 0);
    u32(ix, 0);          /* device */
    u32(ix, 0xFFFFFFFFu); /* no source */
    str(ix, "hostile");
    str(ix, "");
    str(ix, "");
    u32(ix, 1);
    str(ix, "N");
    str(ix, value);
    for (int k = 0; k < 3; k++)
        u32(ix, 0);
    u32(ix, 0); /* native */
    u32(ix, arch);
    u32(ix, codec);
    u32(ix, base);
    u64(ix, off);
    u64(ix, stored);
    u64(ix, raw);
    u32(ix, crc);
    u32(ix, 0);
    u32(ix, 0);
    u32(ix, 0);
    u64(ix, 0);
    for (size_t k = 0; k < tail; k++)
        put(ix, "\xEE", 1);
    if (!ix->failed)
        le32(ix->p + start, (uint32_t)(ix->n - start));
}

static void entry_record(hb *ix, size_t i, uint32_t codec, uint32_t base, uint64_t off,
                         uint64_t stored, uint64_t raw, uint32_t crc)
{
    entry_record_ex(ix, i, codec, base, off, stored, raw, crc, 0, 0);
}

/* Header of a pack of `size` bytes whose index is ix at index_offset. */
static void header_v(uint8_t h[64], uint16_t version, uint64_t size, uint64_t index_offset,
                     const hb *ix)
{
    memset(h, 0, 64);
    memcpy(h, "\x89" "CLCPK\r\n", 8);
    h[8] = (uint8_t)version;
    h[9] = (uint8_t)(version >> 8);
    h[10] = 1;
    le32(h + 12, 64);
    for (int i = 0; i < 8; i++) {
        h[16 + i] = (uint8_t)(size >> (8 * i));
        h[24 + i] = (uint8_t)(index_offset >> (8 * i));
        h[32 + i] = (uint8_t)((uint64_t)ix->n >> (8 * i));
    }
    uLong crc = crc32(0, h, 44);
    crc = crc32(crc, h + 48, 16);
    crc = crc32(crc, ix->p, (uInt)ix->n);
    le32(h + 44, (uint32_t)crc);
}

static void header(uint8_t h[64], uint64_t size, uint64_t index_offset, const hb *ix)
{
    header_v(h, 1, size, index_offset, ix);
}

/* A zlib stream of n zero bytes, deflated piece by piece. */
static uint8_t *deflate_zeros(uint64_t n, size_t *out_n)
{
    z_stream zs = {0};
    if (deflateInit(&zs, 9) != Z_OK)
        return NULL;
    static const uint8_t zeros[1 << 16];
    hb out = {0};
    uint8_t buf[1 << 16];
    int rc;
    do {
        size_t take = n > sizeof zeros ? sizeof zeros : (size_t)n;
        n -= take;
        zs.next_in = (Bytef *)zeros;
        zs.avail_in = (uInt)take;
        do {
            zs.next_out = buf;
            zs.avail_out = sizeof buf;
            rc = deflate(&zs, n ? Z_NO_FLUSH : Z_FINISH);
            put(&out, buf, sizeof buf - zs.avail_out);
        } while (zs.avail_out == 0);
    } while (n);
    deflateEnd(&zs);
    if (rc != Z_STREAM_END || out.failed) {
        free(out.p);
        return NULL;
    }
    *out_n = out.n;
    return out.p;
}

static uint32_t crc_zeros(uint64_t n)
{
    static const uint8_t zeros[1 << 16];
    uLong crc = crc32(0, Z_NULL, 0);
    while (n) {
        size_t take = n > sizeof zeros ? sizeof zeros : (size_t)n;
        crc = crc32(crc, zeros, (uInt)take);
        n -= take;
    }
    return (uint32_t)crc;
}

uint8_t *hostile_chain_pack(size_t chain, size_t n_extra, uint64_t raw, unsigned base_scale,
                            size_t *size)
{
    if (base_scale < 1)
        base_scale = 1;
    /* Entry k of the chain has raw size raw * scale^(chain-1-k): one blob
     * per distinct size, shared by every entry of that size. */
    uint64_t sizes[8];
    uint8_t *blobs[8] = {0};
    size_t blob_n[8];
    uint64_t blob_off[8];
    uint32_t crcs[8];
    hb f = {0}, ix = {0};
    uint8_t h[64] = {0};
    put(&f, h, 64);
    int ok = chain >= 1 && chain <= 8;
    for (size_t k = 0; ok && k < chain; k++) {
        sizes[k] = raw;
        for (size_t j = k + 1; j < chain; j++)
            sizes[k] *= base_scale;
        if (k > 0 && sizes[k] == sizes[k - 1]) {
            blob_off[k] = blob_off[k - 1];
            blob_n[k] = blob_n[k - 1];
            crcs[k] = crcs[k - 1];
            continue;
        }
        blobs[k] = deflate_zeros(sizes[k], &blob_n[k]);
        ok = blobs[k] != NULL;
        if (ok) {
            blob_off[k] = f.n;
            put(&f, blobs[k], blob_n[k]);
            crcs[k] = crc_zeros(sizes[k]);
        }
    }
    for (size_t k = 0; k < 8; k++)
        free(blobs[k]);
    if (!ok) {
        free(f.p);
        return NULL;
    }
    uint64_t index_offset = f.n;
    u32(&ix, 16);
    u32(&ix, 1);
    u32(&ix, 0);
    u32(&ix, (uint32_t)(chain + (chain >= 2 ? n_extra : 0)));
    device_record(&ix);
    for (size_t k = 0; k < chain; k++)
        entry_record(&ix, k, k ? 2 : 1, k ? (uint32_t)(k - 1) : 0xFFFFFFFFu, blob_off[k], blob_n[k],
                     sizes[k], crcs[k]);
    /* Extras hang off the chain's second-last entry, so they are as long. */
    for (size_t k = 0; chain >= 2 && k < n_extra; k++)
        entry_record(&ix, chain + k, 2, (uint32_t)(chain - 2), blob_off[chain - 1],
                     blob_n[chain - 1], raw, crcs[chain - 1]);
    put(&f, ix.p, ix.n);
    if (f.failed || ix.failed) {
        free(f.p);
        free(ix.p);
        return NULL;
    }
    header(h, f.n, index_offset, &ix);
    memcpy(f.p, h, 64);
    free(ix.p);
    *size = f.n;
    return f.p;
}

int hostile_sparse_pack(const char *path, uint64_t hole)
{
    static const char bin[] = "a small binary";
    hb ix = {0};
    uint64_t blob_off = 64, index_offset = 64 + sizeof bin + hole;
    u32(&ix, 16);
    u32(&ix, 1);
    u32(&ix, 0);
    u32(&ix, 1);
    device_record(&ix);
    entry_record(&ix, 0, 0, 0xFFFFFFFFu, blob_off, sizeof bin, sizeof bin,
                 (uint32_t)crc32(0, (const Bytef *)bin, sizeof bin));
    if (ix.failed)
        return -1;
    uint8_t h[64];
    header(h, index_offset + ix.n, index_offset, &ix);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc = fd < 0 || pwrite(fd, h, 64, 0) != 64 ||
             pwrite(fd, bin, sizeof bin, (off_t)blob_off) != (ssize_t)sizeof bin ||
             pwrite(fd, ix.p, ix.n, (off_t)index_offset) != (ssize_t)ix.n;
    if (fd >= 0 && close(fd) != 0)
        rc = 1;
    free(ix.p);
    return rc ? -1 : 0;
}

size_t hostile_rss_kib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages_total, pages_resident;
    size_t kib = 0;
    if (f && fscanf(f, "%lu %lu", &pages_total, &pages_resident) == 2)
        kib = (size_t)pages_resident * (size_t)(sysconf(_SC_PAGESIZE) / 1024);
    if (f)
        fclose(f);
    return kib;
}

size_t hostile_peak_rss_kib(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? (size_t)ru.ru_maxrss : 0;
}

uint8_t *hostile_tail_pack(uint16_t format_version, size_t tail, uint32_t arch, size_t *size)
{
    static const char bin[] = "a small binary";
    hb f = {0}, ix = {0};
    uint8_t h[64] = {0};
    put(&f, h, 64);
    uint64_t off = f.n;
    put(&f, bin, sizeof bin);
    uint64_t index_offset = f.n;
    u32(&ix, 16);
    u32(&ix, 1);
    u32(&ix, 0);
    u32(&ix, 1);
    device_record(&ix);
    entry_record_ex(&ix, 0, 0, 0xFFFFFFFFu, off, sizeof bin, sizeof bin,
                    (uint32_t)crc32(0, (const Bytef *)bin, sizeof bin), arch, tail);
    put(&f, ix.p, ix.n);
    if (f.failed || ix.failed) {
        free(f.p);
        free(ix.p);
        return NULL;
    }
    header_v(h, format_version, f.n, index_offset, &ix);
    memcpy(f.p, h, 64);
    free(ix.p);
    *size = f.n;
    return f.p;
}

/* Little-endian reads of a pack's own fields. */
static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }

int hostile_padded_pack(const uint8_t *pack, size_t size, const char *path, uint64_t target,
                        uint64_t filler_raw, size_t *n_fillers)
{
    if (size < 64 || filler_raw == 0)
        return -1;
    uint16_t version = (uint16_t)(pack[8] | pack[9] << 8), min_reader = (uint16_t)(pack[10] | pack[11] << 8);
    uint64_t index_offset = get64(pack + 24), index_size = get64(pack + 32);
    if (index_offset > size || index_size > size - index_offset || index_size < 16)
        return -1;
    const uint8_t *ix = pack + index_offset;
    uint32_t counts_len = get32(ix), n_dev = get32(ix + 4), n_src = get32(ix + 8),
             n_ent = get32(ix + 12);
    /* Where the entry records end: the fillers go there, before any
     * record a later version puts after the entries. */
    uint64_t at = counts_len;
    for (uint64_t r = 0; r < (uint64_t)n_dev + n_src + n_ent; r++) {
        if (at + 4 > index_size || get32(ix + at) < 4 || get32(ix + at) > index_size - at)
            return -1;
        at += get32(ix + at);
    }
    uint64_t n = target > size ? (target - size) / filler_raw : 0;
    if (n > 0xFFFFFFF0u - n_ent)
        return -1;
    uint64_t hole = n * filler_raw;
    uint32_t crc = crc_zeros(filler_raw);
    hb out = {0};
    put(&out, ix, counts_len);
    if (!out.failed)
        le32(out.p + 12, (uint32_t)(n_ent + n));
    put(&out, ix + counts_len, (size_t)(at - counts_len));
    for (uint64_t k = 0; k < n; k++) {
        size_t start = out.n;
        char name[32];
        snprintf(name, sizeof name, "filler_%07llu", (unsigned long long)k);
        u32(&out, 0);
        u32(&out, 0);           /* device 0 */
        u32(&out, 0xFFFFFFFFu); /* no source */
        str(&out, name);
        str(&out, "");
        str(&out, "-cl-std=CL1.2");
        u32(&out, 2);
        str(&out, "FILTER_WIDTH");
        str(&out, "7");
        str(&out, "HALF_FILTER_SIZE");
        str(&out, "3");
        u32(&out, 16);
        u32(&out, 16);
        u32(&out, 1);
        u32(&out, 0); /* native */
        u32(&out, 0);
        u32(&out, 0); /* stored */
        u32(&out, 0xFFFFFFFFu);
        u64(&out, index_offset + k * filler_raw);
        u64(&out, filler_raw);
        u64(&out, filler_raw);
        u32(&out, crc);
        u32(&out, 0);
        u32(&out, 0);
        u32(&out, 0);
        u64(&out, 0);
        if (!out.failed)
            le32(out.p + start, (uint32_t)(out.n - start));
    }
    put(&out, ix + at, (size_t)(index_size - at));
    if (out.failed) {
        free(out.p);
        return -1;
    }
    uint64_t new_offset = index_offset + hole;
    uint8_t h[64];
    header_v(h, version, new_offset + out.n, new_offset, &out);
    h[10] = (uint8_t)min_reader;
    h[11] = (uint8_t)(min_reader >> 8);
    /* Keep the flags and the writer's version; the checksum covers them. */
    memcpy(h + 40, pack + 40, 4);
    memcpy(h + 48, pack + 48, 16);
    uLong c = crc32(0, h, 44);
    c = crc32(c, h + 48, 16);
    c = crc32(c, out.p, (uInt)out.n);
    le32(h + 44, (uint32_t)c);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc = fd < 0 || pwrite(fd, h, 64, 0) != 64 ||
             pwrite(fd, pack + 64, (size_t)index_offset - 64, 64) != (ssize_t)(index_offset - 64) ||
             pwrite(fd, out.p, out.n, (off_t)new_offset) != (ssize_t)out.n;
    if (fd >= 0 && close(fd) != 0)
        rc = 1;
    free(out.p);
    if (n_fillers)
        *n_fillers = (size_t)n;
    return rc ? -1 : 0;
}
