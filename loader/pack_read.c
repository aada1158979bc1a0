/*
 * pack_read.c — opening a pack: the header and index checks of
 * docs/FORMAT.md, and the parsed tables every later call reads.
 *
 * Nothing from the file is trusted: counts are capped by the bytes that
 * could hold them before anything is allocated, every offset and size is
 * checked against the file with subtractions (no overflow), and every field
 * read goes through the bounded cursor of bytes.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytes.h"
#include "codec.h"
#include "errors.h"
#include "pack_format.h"
#include "pack_reader.h"
#include "sha256.h"
#include "target_match.h"

typedef struct header {
    uint16_t format_version, min_reader;
    uint32_t header_size, flags;
    uint64_t file_size, index_offset, index_size;
} header;

/* State of one index parse. `problem` holds what is wrong with the record
 * being read; the caller adds which record and where. */
typedef struct parse_ctx {
    clcpack *p;
    const header *h;
    const uint8_t *index;
    char *arena;
    size_t arena_used, arena_cap;
    size_t defines_used, defines_cap;
    size_t knames_used, knames_cap;
    clcpack_status problem_status;
    char problem[512];
} parse_ctx;

static int problem(parse_ctx *c, clcpack_status st, const char *fmt, ...) PK_PRINTF(3, 4);

static int problem(parse_ctx *c, clcpack_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->problem, sizeof c->problem, fmt, ap);
    va_end(ap);
    c->problem_status = st;
    return -1;
}

/* Header checks 1 to 7 of docs/FORMAT.md: d holds the first
 * min(size, PK_HEADER_SIZE) bytes of a pack of `size` bytes, so a file's
 * header can be judged before the rest of it is read or mapped. */
static clcpack_status check_header_fields(const uint8_t *d, size_t size, header *h,
                                          clcpack_error *err)
{
    if (size < PK_MAGIC_SIZE || memcmp(d, PK_MAGIC, PK_MAGIC_SIZE) != 0)
        return clcpk_fail(err, CLCPACK_E_FORMAT,
                       size < PK_MAGIC_SIZE ? "not a pack: %zu bytes, too short for the magic"
                                            : "not a pack: bad magic at offset 0 (%zu bytes)",
                       size);
    if (size < PK_OFF_HEADER_SIZE)
        return clcpk_fail(err, CLCPACK_E_FORMAT,
                       "pack is truncated: %zu bytes, the header's version fields end at %u", size,
                       (unsigned)PK_OFF_HEADER_SIZE);
    h->format_version = get_le16(d + PK_OFF_FORMAT_VERSION);
    h->min_reader = get_le16(d + PK_OFF_MIN_READER);
    if (h->min_reader > PK_READER_VERSION)
        return clcpk_fail(err, CLCPACK_E_VERSION,
                       "pack format version %u needs a reader of version %u or newer; this "
                       "library reads version %u",
                       h->format_version, h->min_reader, PK_READER_VERSION);
    if (h->format_version == 0 || h->format_version < h->min_reader)
        return clcpk_fail(err, CLCPACK_E_FORMAT,
                       "bad header: format version %u with minimum reader version %u",
                       h->format_version, h->min_reader);
    if (size < PK_HEADER_SIZE)
        return clcpk_fail(err, CLCPACK_E_FORMAT,
                       "pack is truncated: %zu bytes, shorter than the %u-byte header", size,
                       PK_HEADER_SIZE);
    h->header_size = get_le32(d + PK_OFF_HEADER_SIZE);
    h->file_size = get_le64(d + PK_OFF_FILE_SIZE);
    h->index_offset = get_le64(d + PK_OFF_INDEX_OFFSET);
    h->index_size = get_le64(d + PK_OFF_INDEX_SIZE);
    h->flags = get_le32(d + PK_OFF_FLAGS);
    if (h->file_size != size)
        return clcpk_fail(err, CLCPACK_E_FORMAT,
                       h->file_size > size ? "pack is truncated: the header says %llu bytes, %zu are there"
                                           : "pack has trailing bytes: the header says %llu bytes, %zu are there",
                       (unsigned long long)h->file_size, size);
    if (h->header_size < PK_HEADER_SIZE || h->header_size > size)
        return clcpk_fail(err, CLCPACK_E_FORMAT, "bad header: header size %u (at offset %d) not in [%u, %zu]",
                       h->header_size, PK_OFF_HEADER_SIZE, PK_HEADER_SIZE, size);
    if (h->index_offset < h->header_size || h->index_offset > size ||
        h->index_size > size - h->index_offset)
        return clcpk_fail(err, CLCPACK_E_FORMAT,
                       "bad header: index of %llu bytes at offset %llu is outside the %zu-byte pack",
                       (unsigned long long)h->index_size, (unsigned long long)h->index_offset, size);
    if (h->index_size < PK_COUNTS_RECORD_MIN)
        return clcpk_fail(err, CLCPACK_E_FORMAT, "bad header: index of %llu bytes is too small",
                       (unsigned long long)h->index_size);
    return CLCPACK_OK;
}

static clcpack_status check_header(const uint8_t *d, size_t size, header *h, clcpack_error *err)
{
    clcpack_status st = check_header_fields(d, size, h, err);
    if (st != CLCPACK_OK)
        return st;
    uint32_t stored = get_le32(d + PK_OFF_CHECKSUM);
    uint32_t crc = clcpk_crc32(d, PK_OFF_CHECKSUM);
    crc = clcpk_crc32_more(crc, d + PK_OFF_RESERVED, h->header_size - PK_OFF_RESERVED);
    crc = clcpk_crc32_more(crc, d + h->index_offset, (size_t)h->index_size);
    if (crc != stored)
        return clcpk_fail(err, CLCPACK_E_CHECKSUM,
                       "header and index checksum mismatch: 0x%08x stored at offset %d, 0x%08x "
                       "computed (the header or index is damaged)",
                       stored, PK_OFF_CHECKSUM, crc);
    return CLCPACK_OK;
}

static int rd_u32(parse_ctx *c, pk_cursor *r, uint32_t *v, const char *field)
{
    if (pk_take_u32(r, v) == 0)
        return 0;
    return problem(c, CLCPACK_E_FORMAT, "record ends inside its %s field", field);
}

static int rd_u64(parse_ctx *c, pk_cursor *r, uint64_t *v, const char *field)
{
    if (pk_take_u64(r, v) == 0)
        return 0;
    return problem(c, CLCPACK_E_FORMAT, "record ends inside its %s field", field);
}

/* Reads a str field into a NUL-terminated copy in the arena. max_len is the
 * longest string the field may hold (SIZE_MAX: only the record bounds it). */
static int rd_str(parse_ctx *c, pk_cursor *r, const char **out, size_t max_len, const char *field)
{
    const uint8_t *bytes;
    uint32_t len;
    if (pk_take_str(r, &bytes, &len) != 0)
        return problem(c, CLCPACK_E_FORMAT, "record ends inside its %s field", field);
    if (len > max_len)
        return problem(c, CLCPACK_E_FORMAT, "%s is %u bytes, more than %zu", field, len, max_len);
    if (memchr(bytes, 0, len))
        return problem(c, CLCPACK_E_FORMAT, "%s contains a NUL byte", field);
    /* The arena was sized from the index: each string takes len+4 bytes
     * there and len+1 here, so this cannot run out; checked all the same. */
    if ((size_t)len + 1 > c->arena_cap - c->arena_used)
        return problem(c, CLCPACK_E_FORMAT, "%s does not fit the string table", field);
    char *dst = c->arena + c->arena_used;
    memcpy(dst, bytes, len);
    dst[len] = '\0';
    c->arena_used += (size_t)len + 1;
    *out = dst;
    return 0;
}

/* Splits the next record off the index: checks its length field and gives
 * a cursor over the bytes after it. *at gets the record's file offset. */
static int next_record(parse_ctx *c, pk_cursor *idx, pk_cursor *rec, uint64_t *at)
{
    *at = c->h->index_offset + idx->pos;
    uint32_t len;
    if (pk_take_u32(idx, &len) != 0)
        return problem(c, CLCPACK_E_FORMAT, "the index ends before the record's length field");
    if (len < 4 || (size_t)len - 4 > pk_left(idx))
        return problem(c, CLCPACK_E_FORMAT, "record length %u runs past the end of the index", len);
    *rec = pk_cursor_make(idx->p + idx->pos, (size_t)len - 4);
    idx->pos += (size_t)len - 4;
    return 0;
}

/* The rules every blob obeys (docs/FORMAT.md, "Checks on blobs"). */
static int check_blob(parse_ctx *c, uint32_t codec, uint32_t max_codec, uint64_t offset,
                      uint64_t stored, uint64_t raw)
{
    const header *h = c->h;
    if (codec > max_codec)
        return problem(c, CLCPACK_E_FORMAT, "unknown codec %u", codec);
    if (offset < h->header_size || offset > h->index_offset || stored > h->index_offset - offset)
        return problem(c, CLCPACK_E_FORMAT,
                       "blob of %llu bytes at offset %llu is outside the payload [%u, %llu)",
                       (unsigned long long)stored, (unsigned long long)offset, h->header_size,
                       (unsigned long long)h->index_offset);
    if (raw == 0)
        return problem(c, CLCPACK_E_FORMAT, "raw size is 0");
    if (raw > PK_MAX_RAW_SIZE)
        return problem(c, CLCPACK_E_LIMIT, "raw size %llu is more than the %llu-byte limit",
                       (unsigned long long)raw, (unsigned long long)PK_MAX_RAW_SIZE);
    if (codec == PK_CODEC_STORED && raw != stored)
        return problem(c, CLCPACK_E_FORMAT, "stored blob with raw size %llu but stored size %llu",
                       (unsigned long long)raw, (unsigned long long)stored);
    /* stored is at most the file size here, so the product cannot overflow. */
    if (codec != PK_CODEC_STORED && raw > stored * PK_ZLIB_MAX_RATIO + PK_ZLIB_MAX_SLACK)
        return problem(c, CLCPACK_E_LIMIT,
                       "raw size %llu is more than zlib can expand %llu stored bytes to",
                       (unsigned long long)raw, (unsigned long long)stored);
    return 0;
}

static int parse_device(parse_ctx *c, pk_cursor *r, clcpack_device_info *d)
{
    const size_t max = CLCPACK_FP_STR - 1;
    struct {
        char *dst;
        const char *field;
    } strs[] = {
        {d->platform_name, "platform name"},   {d->platform_version, "platform version"},
        {d->device_name, "device name"},       {d->device_version, "device version"},
        {d->driver_version, "driver version"}, {d->opencl_c_version, "OpenCL C version"},
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        const char *s;
        if (rd_str(c, r, &s, max, strs[i].field) != 0)
            return -1;
        memcpy(strs[i].dst, s, strlen(s) + 1);
    }
    const uint8_t *uuid;
    if (rd_u64(c, r, &d->device_type, "device type") != 0 ||
        rd_u32(c, r, &d->vendor_id, "vendor id") != 0 ||
        rd_u32(c, r, &d->address_bits, "address bits") != 0 ||
        rd_u32(c, r, &d->has_uuid, "has_uuid") != 0)
        return -1;
    if (d->has_uuid > 1)
        return problem(c, CLCPACK_E_FORMAT, "has_uuid is %u, not 0 or 1", d->has_uuid);
    if (pk_take_bytes(r, &uuid, 16) != 0)
        return problem(c, CLCPACK_E_FORMAT, "record ends inside its device UUID field");
    memcpy(d->device_uuid, uuid, 16);
    if (pk_take_bytes(r, &uuid, 16) != 0)
        return problem(c, CLCPACK_E_FORMAT, "record ends inside its driver UUID field");
    memcpy(d->driver_uuid, uuid, 16);
    if (rd_u32(c, r, &d->nv_cc_major, "compute capability major") != 0 ||
        rd_u32(c, r, &d->nv_cc_minor, "compute capability minor") != 0)
        return -1;
    /* Format 4's Intel fields, when the record goes on; bytes after them
     * belong to later versions. */
    if (c->h->format_version >= PK_FORMAT_VERSION_TARGETS && pk_left(r) >= 8 &&
        (rd_u32(c, r, &d->intel_ip_version, "Intel IP version") != 0 ||
         rd_u32(c, r, &d->intel_device_id, "Intel device id") != 0))
        return -1;
    return 0;
}

static int parse_source(parse_ctx *c, pk_cursor *r, pk_source *s)
{
    if (rd_str(c, r, &s->info.name, SIZE_MAX, "name") != 0 ||
        rd_u32(c, r, &s->codec, "codec") != 0 || rd_u64(c, r, &s->offset, "offset") != 0 ||
        rd_u64(c, r, &s->info.stored_size, "stored size") != 0 ||
        rd_u64(c, r, &s->info.raw_size, "raw size") != 0 ||
        rd_u32(c, r, &s->info.raw_crc32, "raw CRC-32") != 0)
        return -1;
    if (s->info.name[0] == '\0')
        return problem(c, CLCPACK_E_FORMAT, "empty name");
    return check_blob(c, s->codec, PK_CODEC_ZLIB, s->offset, s->info.stored_size,
                      s->info.raw_size);
}

static int parse_defines(parse_ctx *c, pk_cursor *r, clcpack_entry_info *e)
{
    uint32_t n;
    if (rd_u32(c, r, &n, "define count") != 0)
        return -1;
    if ((uint64_t)n * PK_DEFINE_MIN > pk_left(r) || n > c->defines_cap - c->defines_used)
        return problem(c, CLCPACK_E_LIMIT, "%u defines declared, the record has room for %zu", n,
                       pk_left(r) / PK_DEFINE_MIN);
    clcpack_define *defs = c->p->defines + c->defines_used;
    for (uint32_t k = 0; k < n; k++) {
        if (rd_str(c, r, &defs[k].name, SIZE_MAX, "define name") != 0 ||
            rd_str(c, r, &defs[k].value, SIZE_MAX, "define value") != 0)
            return -1;
        if (defs[k].name[0] == '\0')
            return problem(c, CLCPACK_E_FORMAT, "define %u has an empty name", k);
        if (k > 0 && strcmp(defs[k - 1].name, defs[k].name) >= 0)
            return problem(c, CLCPACK_E_FORMAT,
                           "defines not in strict name order ('%s' after '%s')", defs[k].name,
                           defs[k - 1].name);
    }
    c->defines_used += n;
    e->defines = defs;
    e->define_count = n;
    return 0;
}

/* Format 2's tuning list: read only in a pack of format version 2 or later
 * whose record has room for its count after the v1 fields; otherwise what
 * follows the v1 fields belongs to a later version and is skipped. The
 * records stay in the index and are decoded on request. */
static int parse_tuning_list(parse_ctx *c, pk_cursor *r, pk_entry *pe)
{
    if (c->h->format_version < PK_FORMAT_VERSION_TUNING_LIST || pk_left(r) < 4)
        return 0;
    uint32_t n;
    if (rd_u32(c, r, &n, "tuning count") != 0)
        return -1;
    if ((uint64_t)n * PK_TUNING_RECORD_SIZE > pk_left(r))
        return problem(c, CLCPACK_E_FORMAT, "%u timings declared, the record has room for %zu",
                       n, pk_left(r) / PK_TUNING_RECORD_SIZE);
    const uint8_t *list;
    pk_take_bytes(r, &list, (size_t)n * PK_TUNING_RECORD_SIZE);
    for (uint32_t k = 0; k < n; k++) {
        const uint8_t *t = list + (size_t)k * PK_TUNING_RECORD_SIZE;
        if (get_le32(t + 4) == 0)
            return problem(c, CLCPACK_E_FORMAT, "timing %u has 0 runs", k);
        if (k > 0 && get_le32(t) <= get_le32(t - PK_TUNING_RECORD_SIZE))
            return problem(c, CLCPACK_E_FORMAT,
                           "timings not in strictly increasing filter width (%u after %u)",
                           get_le32(t), get_le32(t - PK_TUNING_RECORD_SIZE));
    }
    pe->tunings = n ? list : NULL;
    pe->n_tunings = n;
    return 0;
}

/* Format 3's kernel names and flags, when the record goes on after the
 * tuning list. Bytes after them belong to later versions. */
static int parse_program_fields(parse_ctx *c, pk_cursor *r, clcpack_entry_info *e)
{
    if (c->h->format_version < PK_FORMAT_VERSION_PROGRAMS || pk_left(r) < 4)
        return 0;
    uint32_t n;
    if (rd_u32(c, r, &n, "kernel name count") != 0)
        return -1;
    /* A str takes at least 4 bytes: the count cannot outrun the record. */
    if ((uint64_t)n * 4 > pk_left(r))
        return problem(c, CLCPACK_E_FORMAT, "%u kernel names declared, the record has room for %zu",
                       n, pk_left(r) / 4);
    if (n > c->knames_cap - c->knames_used)
        return problem(c, CLCPACK_E_FORMAT, "kernel names do not fit the name table");
    const char **names = c->p->knames + c->knames_used;
    for (uint32_t k = 0; k < n; k++) {
        if (rd_str(c, r, &names[k], SIZE_MAX, "kernel name") != 0)
            return -1;
        if (names[k][0] == '\0')
            return problem(c, CLCPACK_E_FORMAT, "kernel name %u is empty", k);
        if (k > 0 && strcmp(names[k - 1], names[k]) >= 0)
            return problem(c, CLCPACK_E_FORMAT,
                           "kernel names not in strict byte order ('%s' after '%s')", names[k],
                           names[k - 1]);
    }
    c->knames_used += n;
    e->kernel_names = n ? names : NULL;
    e->kernel_name_count = n;
    if (pk_left(r) >= 4 && rd_u32(c, r, &e->flags, "entry flags") != 0)
        return -1;
    /* Format 4's target, when the record goes on after the flags. */
    if (c->h->format_version >= PK_FORMAT_VERSION_TARGETS && pk_left(r) >= 4 &&
        rd_str(c, r, &e->target, CLCPACK_TARGET_MAX, "target") != 0)
        return -1;
    return 0;
}

static int parse_entry(parse_ctx *c, pk_cursor *r, size_t i, pk_entry *pe)
{
    clcpack_entry_info *e = &pe->info;
    uint32_t kind;
    if (rd_u32(c, r, &e->device, "device") != 0 || rd_u32(c, r, &e->source, "source") != 0 ||
        rd_str(c, r, &e->kernel, SIZE_MAX, "kernel") != 0 ||
        rd_str(c, r, &e->family, SIZE_MAX, "family") != 0 ||
        rd_str(c, r, &e->options, SIZE_MAX, "options") != 0 || parse_defines(c, r, e) != 0 ||
        rd_u32(c, r, &e->wg[0], "wg") != 0 || rd_u32(c, r, &e->wg[1], "wg") != 0 ||
        rd_u32(c, r, &e->wg[2], "wg") != 0 || rd_u32(c, r, &kind, "kind") != 0 ||
        rd_u32(c, r, &e->arch, "arch") != 0 || rd_u32(c, r, &e->codec, "codec") != 0 ||
        rd_u32(c, r, &e->base, "base") != 0 || rd_u64(c, r, &pe->offset, "offset") != 0 ||
        rd_u64(c, r, &e->stored_size, "stored size") != 0 ||
        rd_u64(c, r, &e->raw_size, "raw size") != 0 ||
        rd_u32(c, r, &e->raw_crc32, "raw CRC-32") != 0 ||
        rd_u32(c, r, &e->tune_runs, "tuning runs") != 0 ||
        rd_u32(c, r, &e->tune_width, "tuning width") != 0 ||
        rd_u32(c, r, &e->tune_height, "tuning height") != 0 ||
        rd_u64(c, r, &e->tune_median_ns, "tuning median") != 0)
        return -1;
    e->target = "";
    if (parse_tuning_list(c, r, pe) != 0 || parse_program_fields(c, r, e) != 0)
        return -1;
    if (e->kernel[0] == '\0')
        return problem(c, CLCPACK_E_FORMAT, "empty kernel name");
    if (e->device >= c->p->n_devices)
        return problem(c, CLCPACK_E_FORMAT, "device %u, the pack has %zu", e->device,
                       c->p->n_devices);
    if (e->source != CLCPACK_NONE && e->source >= c->p->n_sources)
        return problem(c, CLCPACK_E_FORMAT, "source %u, the pack has %zu", e->source,
                       c->p->n_sources);
    if (kind > PK_KIND_MAX)
        return problem(c, CLCPACK_E_FORMAT, "unknown binary kind %u", kind);
    if (kind == CLCPACK_KIND_NATIVE && e->arch != 0)
        return problem(c, CLCPACK_E_FORMAT, "arch %u on a native binary (0 expected)", e->arch);
    const char *why = clcpk_target_problem(kind, e->arch, e->target);
    if (why)
        return problem(c, CLCPACK_E_FORMAT, "%s (kind %u, arch 0x%x, target '%s')", why, kind,
                       e->arch, e->target);
    e->kind = (clcpack_binary_kind)kind;
    if (check_blob(c, e->codec, PK_CODEC_XOR_ZLIB, pe->offset, e->stored_size, e->raw_size) != 0)
        return -1;
    pe->chain = 1;
    pe->chain_bytes = e->raw_size;
    if (e->codec == PK_CODEC_XOR_ZLIB) {
        if (e->base >= i)
            return problem(c, CLCPACK_E_FORMAT,
                           "delta base %u is not an earlier entry (bases come first)", e->base);
        pk_entry *base = &c->p->entries[e->base];
        pe->chain = base->chain + 1;
        if (pe->chain > CLCPACK_MAX_DELTA_CHAIN)
            return problem(c, CLCPACK_E_FORMAT, "delta chain of %u entries, more than %d",
                           pe->chain, CLCPACK_MAX_DELTA_CHAIN);
        /* Raw sizes are at most 1 GiB and chains 8 long: no overflow. */
        if (base->info.raw_size > PK_BASE_MAX_RATIO * e->raw_size)
            return problem(c, CLCPACK_E_LIMIT,
                           "delta base %u of %llu bytes is more than %u times the entry's %llu",
                           e->base, (unsigned long long)base->info.raw_size, PK_BASE_MAX_RATIO,
                           (unsigned long long)e->raw_size);
        pe->chain_bytes = e->raw_size + base->chain_bytes;
        if (pe->chain_bytes > (uint64_t)CLCPACK_CHAIN_BUDGET * e->raw_size)
            return problem(c, CLCPACK_E_LIMIT,
                           "its delta chain decodes %llu bytes, more than %d times the entry's "
                           "%llu",
                           (unsigned long long)pe->chain_bytes, CLCPACK_CHAIN_BUDGET,
                           (unsigned long long)e->raw_size);
        base->is_base = 1;
    } else if (e->base != CLCPACK_NONE) {
        return problem(c, CLCPACK_E_FORMAT, "delta base %u on an entry that is not a delta",
                       e->base);
    }
    return 0;
}

static clcpack_status fail_record(parse_ctx *c, clcpack_error *err, const char *what, size_t i,
                                  uint64_t at)
{
    return clcpk_fail(err, c->problem_status, "%s %zu (index record at offset %llu): %s", what, i,
                   (unsigned long long)at, c->problem);
}

static clcpack_status parse_index(clcpack *p, const header *h, clcpack_error *err)
{
    parse_ctx c = {0};
    c.p = p;
    c.h = h;
    c.index = p->data + h->index_offset;
    size_t index_size = (size_t)h->index_size;
    pk_cursor idx = pk_cursor_make(c.index, index_size);

    pk_cursor rec;
    uint64_t at;
    uint32_t n_dev, n_src, n_ent;
    if (next_record(&c, &idx, &rec, &at) != 0 || rd_u32(&c, &rec, &n_dev, "device count") != 0 ||
        rd_u32(&c, &rec, &n_src, "source count") != 0 ||
        rd_u32(&c, &rec, &n_ent, "entry count") != 0)
        return fail_record(&c, err, "counts record", 0, at);

    /* Cap the counts by what the rest of the index could hold, before
     * allocating anything for them. */
    uint64_t left = pk_left(&idx);
    uint64_t need = (uint64_t)n_dev * PK_DEVICE_RECORD_MIN;
    if (need > left)
        return clcpk_fail(err, CLCPACK_E_LIMIT,
                       "index declares %u devices, its %llu remaining bytes hold at most %llu",
                       n_dev, (unsigned long long)left,
                       (unsigned long long)(left / PK_DEVICE_RECORD_MIN));
    left -= need;
    need = (uint64_t)n_src * PK_SOURCE_RECORD_MIN;
    if (need > left)
        return clcpk_fail(err, CLCPACK_E_LIMIT,
                       "index declares %u sources, its remaining bytes hold at most %llu", n_src,
                       (unsigned long long)(left / PK_SOURCE_RECORD_MIN));
    left -= need;
    need = (uint64_t)n_ent * PK_ENTRY_RECORD_MIN;
    if (need > left)
        return clcpk_fail(err, CLCPACK_E_LIMIT,
                       "index declares %u entries, its remaining bytes hold at most %llu", n_ent,
                       (unsigned long long)(left / PK_ENTRY_RECORD_MIN));

    p->n_devices = n_dev;
    p->n_sources = n_src;
    p->n_entries = n_ent;
    p->devices = calloc(n_dev ? n_dev : 1, sizeof *p->devices);
    p->sources = calloc(n_src ? n_src : 1, sizeof *p->sources);
    p->entries = calloc(n_ent ? n_ent : 1, sizeof *p->entries);
    /* A str takes 4+len bytes in the index and len+1 in the arena; a define
     * at least 8 index bytes: both tables are bounded by the index size. */
    c.arena_cap = index_size + 1;
    c.defines_cap = index_size / PK_DEFINE_MIN + 1;
    p->strings = c.arena = malloc(c.arena_cap);
    p->defines = calloc(c.defines_cap, sizeof *p->defines);
    c.knames_cap = index_size / 4 + 1;
    p->knames = calloc(c.knames_cap, sizeof *p->knames);
    if (!p->devices || !p->sources || !p->entries || !p->strings || !p->defines || !p->knames)
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory reading an index of %zu bytes",
                       index_size);

    for (size_t i = 0; i < n_dev; i++)
        if (next_record(&c, &idx, &rec, &at) != 0 || parse_device(&c, &rec, &p->devices[i]) != 0)
            return fail_record(&c, err, "device", i, at);
    for (size_t i = 0; i < n_src; i++)
        if (next_record(&c, &idx, &rec, &at) != 0 || parse_source(&c, &rec, &p->sources[i]) != 0)
            return fail_record(&c, err, "source", i, at);
    for (size_t i = 0; i < n_ent; i++)
        if (next_record(&c, &idx, &rec, &at) != 0 || parse_entry(&c, &rec, i, &p->entries[i]) != 0)
            return fail_record(&c, err, "entry", i, at);
    /* Bytes after the last entry belong to later versions: skipped. */
    return CLCPACK_OK;
}

clcpack_status clcpack_open_memory(const void *data, size_t size, clcpack **out,
                                   clcpack_error *err)
{
    if (!out)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_open_memory: out is NULL");
    *out = NULL;
    if (!data && size)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_open_memory: data is NULL");
    static const uint8_t empty[1];
    const uint8_t *d = data ? data : empty;
    header h;
    clcpack_status st = check_header(d, size, &h, err);
    if (st != CLCPACK_OK)
        return st;
    clcpack *p = calloc(1, sizeof *p);
    if (!p)
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory opening a pack");
    p->data = d;
    p->size = size;
    p->flags = h.flags;
    st = parse_index(p, &h, err);
    if (st == CLCPACK_OK && (clcpk_key_index_build(p) != CLCPACK_OK ||
                             clcpk_device_cache_new(p) != CLCPACK_OK ||
                             clcpk_base_cache_new(p) != CLCPACK_OK))
        st = clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory indexing %zu entries",
                        p->n_entries);
    if (st != CLCPACK_OK) {
        clcpack_close(p);
        return st;
    }
    *out = p;
    return CLCPACK_OK;
}

/* Reads n bytes at offset `at` of fd into buf. */
static clcpack_status read_at(int fd, const char *path, uint8_t *buf, size_t n, size_t at,
                              clcpack_error *err)
{
    char msg[128];
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, buf + got, n - got, (off_t)(at + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return clcpk_fail(err, CLCPACK_E_IO, "cannot read '%s': %s", path,
                              clcpk_errno_text(errno, msg, sizeof msg));
        if (r == 0)
            return clcpk_fail(err, CLCPACK_E_IO, "'%s' shrank while being read (%zu of %zu bytes)",
                              path, at + got, at + n);
        got += (size_t)r;
    }
    return CLCPACK_OK;
}

/* The bytes of an open pack file: read into malloc'd memory (*owned) or
 * mapped (*map). The header is read and checked first, so a file that is
 * not a pack, or whose header sizes disagree with the file, costs one
 * 64-byte read whatever its size. `whole` forces a read (a pinned pack is
 * hashed and parsed from the same private copy). */
static clcpack_status load_file(const char *path, int whole, const uint8_t **data, size_t *size,
                                void **owned, void **map, clcpack_error *err)
{
    char msg[128];
    /* O_NONBLOCK: a FIFO or device opens at once and is then refused as
     * not a regular file; it has no effect on a regular file's reads. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return clcpk_fail(err, CLCPACK_E_IO, "cannot open '%s': %s", path,
                          clcpk_errno_text(errno, msg, sizeof msg));
    struct stat sb;
    clcpack_status st = CLCPACK_OK;
    if (fstat(fd, &sb) != 0)
        st = clcpk_fail(err, CLCPACK_E_IO, "cannot stat '%s': %s", path,
                        clcpk_errno_text(errno, msg, sizeof msg));
    else if (!S_ISREG(sb.st_mode))
        st = clcpk_fail(err, CLCPACK_E_IO, "'%s' is not a regular file", path);
    else if (sb.st_size < 0 || (uint64_t)sb.st_size > SIZE_MAX - 1)
        st = clcpk_fail(err, CLCPACK_E_LIMIT, "'%s' is too large to read", path);
    size_t n = st == CLCPACK_OK ? (size_t)sb.st_size : 0;
    uint8_t head[PK_HEADER_SIZE];
    header h;
    clcpack_error inner;
    if (st == CLCPACK_OK)
        st = read_at(fd, path, head, n < sizeof head ? n : sizeof head, 0, err);
    if (st == CLCPACK_OK && (st = check_header_fields(head, n, &h, &inner)) != CLCPACK_OK)
        clcpk_fail(err, st, "%s: %s", path, inner.message);
    if (st == CLCPACK_OK && (whole || n <= PK_READ_WHOLE_MAX)) {
        uint8_t *buf = malloc(n);
        if (!buf)
            st = clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory reading '%s' (%zu bytes)", path, n);
        else if ((st = read_at(fd, path, buf, n, 0, err)) != CLCPACK_OK)
            free(buf);
        else
            *data = *owned = buf;
    } else if (st == CLCPACK_OK) {
        /* Read-only and private: the mapping is of the inode opened here,
         * so a pack replaced by rename while open is not seen. */
        void *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
        int e = errno;
        if (m == MAP_FAILED)
            st = clcpk_fail(err, e == ENOMEM ? CLCPACK_E_NOMEM : CLCPACK_E_IO,
                            "cannot map '%s' (%zu bytes): %s", path, n,
                            clcpk_errno_text(e, msg, sizeof msg));
        else
            *data = *map = m;
    }
    close(fd);
    *size = n;
    return st;
}

static clcpack_status open_file(const char *path, const uint8_t *pin, clcpack **out,
                                clcpack_error *err)
{
    const uint8_t *data = NULL;
    void *owned = NULL, *map = NULL;
    size_t size = 0;
    clcpack_status st = load_file(path, pin != NULL, &data, &size, &owned, &map, err);
    if (st != CLCPACK_OK)
        return st;
    if (pin) {
        uint8_t got[CLCPACK_SHA256_SIZE];
        clcpack_digest_sha256(data, size, got);
        if (memcmp(got, pin, sizeof got) != 0) {
            char want_hex[2 * CLCPACK_SHA256_SIZE + 1], got_hex[2 * CLCPACK_SHA256_SIZE + 1];
            clcpk_hex(pin, CLCPACK_SHA256_SIZE, want_hex);
            clcpk_hex(got, CLCPACK_SHA256_SIZE, got_hex);
            free(owned);
            return clcpk_fail(err, CLCPACK_E_CHECKSUM,
                              "%s: not the pinned pack: SHA-256 %s, pinned %s (the file was "
                              "replaced or changed)",
                              path, got_hex, want_hex);
        }
    }
    clcpack_error inner;
    st = clcpack_open_memory(data, size, out, &inner);
    if (st != CLCPACK_OK) {
        free(owned);
        if (map)
            munmap(map, size);
        return clcpk_fail(err, st, "%s: %s", path, inner.message);
    }
    (*out)->owned = owned;
    (*out)->map = map;
    return CLCPACK_OK;
}

clcpack_status clcpack_open_file(const char *path, clcpack **out, clcpack_error *err)
{
    if (!out)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_open_file: out is NULL");
    *out = NULL;
    if (!path)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_open_file: path is NULL");
    return open_file(path, NULL, out, err);
}

clcpack_status clcpack_open_file_pinned(const char *path, const uint8_t sha256[32], clcpack **out,
                                        clcpack_error *err)
{
    if (!out)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_open_file_pinned: out is NULL");
    *out = NULL;
    if (!path || !sha256)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_open_file_pinned: %s is NULL",
                          path ? "sha256" : "path");
    return open_file(path, sha256, out, err);
}

clcpack_status clcpack_pack_sha256(const clcpack *p, uint8_t out[32])
{
    if (!p || !out)
        return CLCPACK_E_INVALID_ARG;
    clcpk_sha256 s;
    clcpk_sha256_init(&s);
    /* In pieces, so that a mapped pack's pages can be dropped once hashed:
     * hashing a multi-GB pack then does not hold it all in memory. */
    const size_t piece = (size_t)64 << 20;
    for (size_t at = 0; at < p->size; at += piece) {
        size_t n = p->size - at < piece ? p->size - at : piece;
        clcpk_sha256_update(&s, p->data + at, n);
        if (p->map) {
            /* Whole pages only: the mapping starts page-aligned and piece
             * is a multiple of any page size. */
            size_t drop = at + n == p->size ? n : piece;
            madvise((uint8_t *)p->map + at, drop, MADV_DONTNEED);
        }
    }
    clcpk_sha256_final(&s, out);
    return CLCPACK_OK;
}

void clcpack_close(clcpack *p)
{
    if (!p)
        return;
    free(p->devices);
    free(p->sources);
    free(p->entries);
    free(p->strings);
    free(p->defines);
    free(p->knames);
    free(p->slot_head);
    free(p->node_entry);
    free(p->node_next);
    clcpk_device_cache_free(p);
    clcpk_base_cache_free(p);
    free(p->owned);
    if (p->map)
        munmap(p->map, p->size);
    free(p);
}

size_t clcpack_device_count(const clcpack *p) { return p ? p->n_devices : 0; }
size_t clcpack_source_count(const clcpack *p) { return p ? p->n_sources : 0; }
size_t clcpack_entry_count(const clcpack *p) { return p ? p->n_entries : 0; }

clcpack_status clcpack_get_device(const clcpack *p, size_t i, clcpack_device_info *out)
{
    if (!p || !out)
        return CLCPACK_E_INVALID_ARG;
    if (i >= p->n_devices)
        return CLCPACK_E_NOT_FOUND;
    *out = p->devices[i];
    return CLCPACK_OK;
}

clcpack_status clcpack_get_source(const clcpack *p, size_t i, clcpack_source_info *out)
{
    if (!p || !out)
        return CLCPACK_E_INVALID_ARG;
    if (i >= p->n_sources)
        return CLCPACK_E_NOT_FOUND;
    *out = p->sources[i].info;
    return CLCPACK_OK;
}

clcpack_status clcpack_get_entry(const clcpack *p, size_t i, clcpack_entry_info *out)
{
    if (!p || !out)
        return CLCPACK_E_INVALID_ARG;
    if (i >= p->n_entries)
        return CLCPACK_E_NOT_FOUND;
    *out = p->entries[i].info;
    return CLCPACK_OK;
}

/* A v1-only timing is for the entry's FILTER_WIDTH define (0 without one). */
static uint32_t define_filter_width(const clcpack_entry_info *e)
{
    for (size_t k = 0; k < e->define_count; k++)
        if (strcmp(e->defines[k].name, "FILTER_WIDTH") == 0) {
            char *end;
            unsigned long v = strtoul(e->defines[k].value, &end, 10);
            return *end == '\0' && v <= UINT32_MAX ? (uint32_t)v : 0;
        }
    return 0;
}

size_t clcpack_entry_tuning_count(const clcpack *p, size_t entry)
{
    if (!p || entry >= p->n_entries)
        return 0;
    const pk_entry *pe = &p->entries[entry];
    if (pe->n_tunings)
        return pe->n_tunings;
    return pe->info.tune_runs ? 1 : 0;
}

clcpack_status clcpack_get_entry_tuning(const clcpack *p, size_t entry, size_t k,
                                        clcpack_tuning *out)
{
    if (!p || !out)
        return CLCPACK_E_INVALID_ARG;
    if (k >= clcpack_entry_tuning_count(p, entry))
        return CLCPACK_E_NOT_FOUND;
    const pk_entry *pe = &p->entries[entry];
    if (pe->n_tunings) {
        const uint8_t *t = pe->tunings + k * PK_TUNING_RECORD_SIZE;
        out->filter_width = get_le32(t);
        out->runs = get_le32(t + 4);
        out->width = get_le32(t + 8);
        out->height = get_le32(t + 12);
        out->median_ns = get_le64(t + 16);
        return CLCPACK_OK;
    }
    out->filter_width = define_filter_width(&pe->info);
    out->runs = pe->info.tune_runs;
    out->width = pe->info.tune_width;
    out->height = pe->info.tune_height;
    out->median_ns = pe->info.tune_median_ns;
    return CLCPACK_OK;
}

uint32_t clcpack_writer_version(const clcpack *p)
{
    if (!p || p->size < PK_OFF_WRITER_VERSION + 4)
        return 0;
    const uint8_t *b = p->data + PK_OFF_WRITER_VERSION;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
