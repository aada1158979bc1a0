/*
 * hostile_pack.c — see hostile_pack.h. The packs are laid out byte by byte
 * from docs/FORMAT.md, not through the library's writer (which would not
 * write them).
 */
#include "hostile_pack.h"

#include "clcpack.h"
#include "lookup_table.h"
#include "portable.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#include <psapi.h>
#else
#include <sys/resource.h>
#endif
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
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_BINARY, 0644);
    int rc = fd < 0 || pwrite(fd, h, 64, 0) != 64 ||
             pwrite(fd, bin, sizeof bin, (off_t)blob_off) != (ssize_t)sizeof bin ||
             pwrite(fd, ix.p, ix.n, (off_t)index_offset) != (ssize_t)ix.n;
    if (fd >= 0 && close(fd) != 0)
        rc = 1;
    free(ix.p);
    return rc ? -1 : 0;
}

#ifdef _WIN32
/* The working set: what Windows calls resident. */
static size_t working_set_kib(int peak)
{
    PROCESS_MEMORY_COUNTERS pmc = {.cb = sizeof pmc};
    if (!K32GetProcessMemoryInfo(GetCurrentProcess(), &pmc, sizeof pmc))
        return 0;
    return (peak ? pmc.PeakWorkingSetSize : pmc.WorkingSetSize) / 1024;
}

size_t hostile_rss_kib(void) { return working_set_kib(0); }

size_t hostile_peak_rss_kib(void) { return working_set_kib(1); }
#else
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
#endif

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

/* The lookup table's names of the padded pack: the pack's own entries'
 * keys (read with the library) and the fillers'. names and the strings
 * they point to are in *mem (free each). */
typedef struct pad_names {
    lt_name *names;
    size_t n;
    char (*filler)[32];
    const char **defs; /* every define name and value, back to back */
    clcpack *p;
} pad_names;

static const char *const filler_def_names[2] = {"FILTER_WIDTH", "HALF_FILTER_SIZE"};
static const char *const filler_def_values[2] = {"7", "3"};

static int pad_names_make(pad_names *pn, const uint8_t *pack, size_t size, uint32_t n_ent,
                          uint64_t n_fill)
{
    memset(pn, 0, sizeof *pn);
    clcpack_error err;
    if (clcpack_open_memory(pack, size, &pn->p, &err) != CLCPACK_OK)
        return -1;
    size_t n_names = (size_t)n_fill, n_defs = 0;
    for (uint32_t i = 0; i < n_ent; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        if (clcpack_get_entry(pn->p, i, &e) != CLCPACK_OK)
            return -1;
        n_names += 1 + e.kernel_name_count;
        n_defs += 2 * e.define_count;
    }
    pn->names = calloc(n_names ? n_names : 1, sizeof *pn->names);
    pn->filler = calloc(n_fill ? (size_t)n_fill : 1, sizeof *pn->filler);
    pn->defs = calloc(n_defs ? n_defs : 1, sizeof *pn->defs);
    if (!pn->names || !pn->filler || !pn->defs)
        return -1;
    size_t d = 0;
    for (uint32_t i = 0; i < n_ent; i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        clcpack_get_entry(pn->p, i, &e);
        const char **dn = pn->defs + d, **dv = dn + e.define_count;
        for (size_t k = 0; k < e.define_count; k++) {
            dn[k] = e.defines[k].name;
            dv[k] = e.defines[k].value;
        }
        d += 2 * e.define_count;
        for (size_t k = 0; k <= e.kernel_name_count; k++)
            pn->names[pn->n++] = (lt_name){k ? e.kernel_names[k - 1] : e.kernel, dn, dv,
                                           e.define_count, {e.wg[0], e.wg[1], e.wg[2]}, i};
    }
    for (uint64_t k = 0; k < n_fill; k++) {
        snprintf(pn->filler[k], sizeof pn->filler[k], "filler_%07llu", (unsigned long long)k);
        pn->names[pn->n++] = (lt_name){pn->filler[k], filler_def_names, filler_def_values, 2,
                                       {16, 16, 1}, (uint32_t)(n_ent + k)};
    }
    return 0;
}

static void pad_names_free(pad_names *pn)
{
    free(pn->names);
    free(pn->filler);
    free(pn->defs);
    clcpack_close(pn->p);
}

int hostile_padded_pack(const uint8_t *pack, size_t size, const char *path, uint64_t target,
                        uint64_t filler_raw, size_t *n_fillers)
{
    if (size < 64 || filler_raw == 0)
        return -1;
    uint16_t version = (uint16_t)(pack[8] | pack[9] << 8), min_reader = (uint16_t)(pack[10] | pack[11] << 8);
    uint32_t header_size = get32(pack + 12);
    uint64_t index_offset = get64(pack + 24), index_size = get64(pack + 32);
    if (index_offset > size || index_size > size - index_offset || index_size < 16 ||
        header_size < 64 || header_size > index_offset)
        return -1;
    /* A pack with a lookup table gets a new one, from docs/FORMAT.md. */
    int lookup = version >= 5 && header_size >= 128 && get64(pack + 64) != 0;
    const uint8_t *ix = pack + index_offset;
    uint32_t counts_len = get32(ix), n_dev = get32(ix + 4), n_src = get32(ix + 8),
             n_ent = get32(ix + 12);
    /* Where the entry records end: the fillers go there, before any
     * record a later version puts after the entries. */
    uint64_t at = counts_len, head_n = 0;
    uint32_t *rec_at = malloc(((size_t)n_src + n_ent + 1) * sizeof *rec_at);
    if (!rec_at)
        return -1;
    for (uint64_t r = 0; r < (uint64_t)n_dev + n_src + n_ent; r++) {
        if (at + 4 > index_size || get32(ix + at) < 4 || get32(ix + at) > index_size - at) {
            free(rec_at);
            return -1;
        }
        if (r == n_dev)
            head_n = at;
        if (r >= n_dev)
            rec_at[r - n_dev] = (uint32_t)at;
        at += get32(ix + at);
    }
    if ((uint64_t)n_dev + n_src + n_ent == n_dev)
        head_n = at;
    /* After the entries: the dictionary records, and a lookup table that
     * is not copied (a new one is made). */
    uint64_t tail_n = index_size - at;
    if (lookup) {
        const uint8_t *dir = pack + get64(pack + 64);
        tail_n = get64(dir + 24) + get32(dir + 32) - index_offset - at;
    }
    uint64_t n = target > size ? (target - size) / filler_raw : 0;
    if (n > 0xFFFFFFF0u - n_ent) {
        free(rec_at);
        return -1;
    }
    uint32_t *ent_at = malloc(((size_t)n_ent + (size_t)n + 1) * sizeof *ent_at);
    if (!ent_at) {
        free(rec_at);
        return -1;
    }
    memcpy(ent_at, rec_at + n_src, (size_t)n_ent * sizeof *ent_at);
    uint64_t hole = n * filler_raw;
    uint32_t crc = crc_zeros(filler_raw);
    hb out = {0};
    put(&out, ix, counts_len);
    if (!out.failed)
        le32(out.p + 12, (uint32_t)(n_ent + n));
    put(&out, ix + counts_len, (size_t)(at - counts_len));
    for (uint64_t k = 0; k < n; k++) {
        size_t start = out.n;
        ent_at[n_ent + k] = (uint32_t)start;
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
    size_t dict_at = out.n;
    put(&out, ix + at, (size_t)tail_n);
    uint64_t new_offset = index_offset + hole;
    uint8_t h[128] = {0}, lt_hdr[64];
    pad_names pn;
    int failed = out.failed;
    if (!failed && lookup) {
        uint8_t *full = NULL;
        size_t full_n = 0;
        failed = pad_names_make(&pn, pack, size, n_ent, n) != 0 ||
                 lt_append(out.p, out.n, new_offset, (size_t)head_n, dict_at, (size_t)tail_n,
                           ent_at, (size_t)(n_ent + n), rec_at, n_src, pn.names, pn.n, &full,
                           &full_n, lt_hdr) != 0;
        pad_names_free(&pn);
        free(out.p);
        out.p = full;
        out.n = out.cap = full_n;
        failed |= !full;
    }
    free(rec_at);
    free(ent_at);
    if (failed) {
        free(out.p);
        return -1;
    }
    uint32_t hsize = lookup ? 128 : 64;
    header_v(h, version, new_offset + out.n, new_offset, &out);
    h[10] = (uint8_t)min_reader;
    h[11] = (uint8_t)(min_reader >> 8);
    le32(h + 12, hsize);
    /* Keep the flags and the writer's version; the checksum covers them. */
    memcpy(h + 40, pack + 40, 4);
    memcpy(h + 48, pack + 48, 16);
    if (lookup) {
        memcpy(h + 64, lt_hdr, 64);
        lt_seal_header(h);
    }
    uLong c = crc32(0, h, 44);
    c = crc32(c, h + 48, hsize - 48);
    c = crc32(c, out.p, (uInt)out.n);
    le32(h + 44, (uint32_t)c);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_BINARY, 0644);
    int rc = fd < 0 || pwrite(fd, h, hsize, 0) != (ssize_t)hsize ||
             pwrite(fd, pack + hsize, (size_t)index_offset - hsize, hsize) !=
                 (ssize_t)(index_offset - hsize) ||
             pwrite(fd, out.p, out.n, (off_t)new_offset) != (ssize_t)out.n;
    if (fd >= 0 && close(fd) != 0)
        rc = 1;
    free(out.p);
    if (n_fillers)
        *n_fillers = (size_t)n;
    return rc ? -1 : 0;
}
