/*
 * pack_parse.c — the checks of docs/FORMAT.md on a pack's header and index
 * records, and the parse of the whole index into the tables every later
 * call reads (pack_read.c opens, pack_lookup.c reads records one by one).
 *
 * Nothing from the file is trusted: counts are capped by the bytes that
 * could hold them before anything is allocated, every offset and size is
 * checked against the file with subtractions (no overflow), and every field
 * read goes through the bounded cursor of bytes.h.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "codec.h"
#include "crc32.h"
#include "cold_memory.h"
#include "errors.h"
#include "pack_format.h"
#include "pack_parse.h"
#include "target_match.h"

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
clcpack_status clcpk_check_header_fields(const uint8_t *d, size_t size, pk_header *h,
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
    if (h->index_size > PK_MAX_INDEX_SIZE || h->header_size > PK_MAX_INDEX_SIZE)
        return clcpk_fail(err, CLCPACK_E_LIMIT,
                          "%s of %llu bytes is more than the %llu-byte limit",
                          h->index_size > PK_MAX_INDEX_SIZE ? "index" : "header",
                          (unsigned long long)(h->index_size > PK_MAX_INDEX_SIZE ? h->index_size
                                                                                 : h->header_size),
                          (unsigned long long)PK_MAX_INDEX_SIZE);
    return CLCPACK_OK;
}

/* Check 8: the checksum over the header (head: its first PK_HEADER_SIZE
 * bytes, then the rest of a longer header at ext) and the index. */
clcpack_status clcpk_check_checksum(const uint8_t *head, const uint8_t *ext, const pk_header *h,
                                     const uint8_t *index, clcpack_error *err)
{
    uint32_t stored = get_le32(head + PK_OFF_CHECKSUM);
    uint32_t crc = clcpk_crc32(head, PK_OFF_CHECKSUM);
    crc = clcpk_crc32_more(crc, head + PK_OFF_RESERVED, PK_HEADER_SIZE - PK_OFF_RESERVED);
    crc = clcpk_crc32_more(crc, ext, h->header_size - PK_HEADER_SIZE);
    crc = clcpk_crc32_more(crc, index, (size_t)h->index_size);
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
int clcpk_next_record(parse_ctx *c, pk_cursor *idx, pk_cursor *rec, uint64_t *at)
{
    *at = c->at0 + idx->pos;
    uint32_t len;
    if (pk_take_u32(idx, &len) != 0)
        return problem(c, CLCPACK_E_FORMAT, "the index ends before the record's length field");
    if (len < 4 || (size_t)len - 4 > pk_left(idx))
        return problem(c, CLCPACK_E_FORMAT, "record length %u runs past the end of the index", len);
    *rec = pk_cursor_make(idx->p + idx->pos, (size_t)len - 4);
    idx->pos += (size_t)len - 4;
    return 0;
}

/* Which codecs each kind of blob may use (docs/FORMAT.md, "Codecs"). */
#define CODECS_SOURCE (1u << PK_CODEC_STORED | 1u << PK_CODEC_ZLIB | 1u << PK_CODEC_ZSTD | \
                       1u << PK_CODEC_ZSTD_DICT)
#define CODECS_ENTRY ((2u << PK_CODEC_MAX) - 1)
#define CODECS_DICT (1u << PK_CODEC_STORED | 1u << PK_CODEC_ZSTD)

static int is_zstd(uint32_t codec) { return codec >= PK_CODEC_ZSTD && codec <= PK_CODEC_MAX; }

/* The rules every blob obeys (docs/FORMAT.md, "Checks on blobs"): codec
 * one of `codecs` (a bit per codec), raw size at most max_raw. */
static int check_blob(parse_ctx *c, uint32_t codec, uint32_t codecs, uint64_t offset,
                      uint64_t stored, uint64_t raw, uint64_t max_raw)
{
    const pk_header *h = c->h;
    if (codec > PK_CODEC_MAX || !(codecs >> codec & 1u))
        return problem(c, CLCPACK_E_FORMAT, codec > PK_CODEC_MAX ? "unknown codec %u"
                                                                 : "codec %u is not allowed here",
                       codec);
    if (is_zstd(codec) && h->format_version < PK_FORMAT_VERSION_ZSTD)
        return problem(c, CLCPACK_E_FORMAT, "codec %u in a pack of format version %u (zstd codecs "
                                            "are format 4)", codec, h->format_version);
    if (offset < h->header_size || offset > h->index_offset || stored > h->index_offset - offset)
        return problem(c, CLCPACK_E_FORMAT,
                       "blob of %llu bytes at offset %llu is outside the payload [%u, %llu)",
                       (unsigned long long)stored, (unsigned long long)offset, h->header_size,
                       (unsigned long long)h->index_offset);
    if (raw == 0)
        return problem(c, CLCPACK_E_FORMAT, "raw size is 0");
    if (raw > max_raw)
        return problem(c, CLCPACK_E_LIMIT, "raw size %llu is more than the %llu-byte limit",
                       (unsigned long long)raw, (unsigned long long)max_raw);
    if (codec == PK_CODEC_STORED && raw != stored)
        return problem(c, CLCPACK_E_FORMAT, "stored blob with raw size %llu but stored size %llu",
                       (unsigned long long)raw, (unsigned long long)stored);
    /* stored is at most the file size here, so the products cannot overflow. */
    if (is_zstd(codec) && raw > stored * PK_ZSTD_MAX_RATIO)
        return problem(c, CLCPACK_E_LIMIT,
                       "raw size %llu is more than zstd can expand %llu stored bytes to",
                       (unsigned long long)raw, (unsigned long long)stored);
    if (!is_zstd(codec) && codec != PK_CODEC_STORED &&
        raw > stored * PK_ZLIB_MAX_RATIO + PK_ZLIB_MAX_SLACK)
        return problem(c, CLCPACK_E_LIMIT,
                       "raw size %llu is more than zlib can expand %llu stored bytes to",
                       (unsigned long long)raw, (unsigned long long)stored);
    return 0;
}

/* Codec 4's dictionary index, for an entry's base or a source's dict. */
static int check_dict_ref(parse_ctx *c, uint32_t codec, uint32_t dict, const char *field)
{
    if (codec == PK_CODEC_ZSTD_DICT && dict >= c->p->n_dicts)
        return problem(c, CLCPACK_E_FORMAT, "dictionary %u, the pack has %zu", dict,
                       c->p->n_dicts);
    if (codec != PK_CODEC_ZSTD_DICT && field && dict != CLCPACK_NONE)
        return problem(c, CLCPACK_E_FORMAT, "%s %u on a source that is not coded with a dictionary",
                       field, dict);
    return 0;
}

int clcpk_parse_device(parse_ctx *c, pk_cursor *r, clcpack_device_info *d)
{
    d->struct_size = sizeof *d;
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

int clcpk_parse_source(parse_ctx *c, pk_cursor *r, pk_source *s)
{
    s->info.struct_size = sizeof s->info;
    if (rd_str(c, r, &s->info.name, SIZE_MAX, "name") != 0 ||
        rd_u32(c, r, &s->codec, "codec") != 0 || rd_u64(c, r, &s->offset, "offset") != 0 ||
        rd_u64(c, r, &s->info.stored_size, "stored size") != 0 ||
        rd_u64(c, r, &s->info.raw_size, "raw size") != 0 ||
        rd_u32(c, r, &s->info.raw_crc32, "raw CRC-32") != 0)
        return -1;
    if (s->info.name[0] == '\0')
        return problem(c, CLCPACK_E_FORMAT, "empty name");
    /* Format 4's dict, when the record goes on. */
    s->dict = CLCPACK_NONE;
    if (c->h->format_version >= PK_FORMAT_VERSION_ZSTD && pk_left(r) >= 4 &&
        rd_u32(c, r, &s->dict, "dictionary") != 0)
        return -1;
    if (check_blob(c, s->codec, CODECS_SOURCE, s->offset, s->info.stored_size, s->info.raw_size,
                   PK_MAX_RAW_SIZE) != 0)
        return -1;
    if (s->codec == PK_CODEC_ZSTD_DICT && s->dict == CLCPACK_NONE)
        return problem(c, CLCPACK_E_FORMAT, "codec 4 source without a dictionary field");
    return check_dict_ref(c, s->codec, s->dict, "dictionary");
}

/* A dictionary record (format 4). */
int clcpk_parse_dict(parse_ctx *c, pk_cursor *r, pk_dict *d)
{
    d->info.struct_size = sizeof d->info;
    clcpack_dictionary_info *in = &d->info;
    if (rd_u32(c, r, &in->codec, "codec") != 0 || rd_u64(c, r, &d->offset, "offset") != 0 ||
        rd_u64(c, r, &in->stored_size, "stored size") != 0 ||
        rd_u64(c, r, &in->raw_size, "raw size") != 0 ||
        rd_u32(c, r, &in->raw_crc32, "raw CRC-32") != 0)
        return -1;
    if (check_blob(c, in->codec, CODECS_DICT, d->offset, in->stored_size, in->raw_size,
                   PK_MAX_DICT_SIZE) != 0)
        return -1;
    /* Every raw size is at most 1 MiB: the sum cannot overflow. */
    c->dict_total += in->raw_size;
    if (c->dict_total > PK_MAX_DICT_TOTAL)
        return problem(c, CLCPACK_E_LIMIT,
                       "the dictionaries add up to more than the %llu-byte limit",
                       (unsigned long long)PK_MAX_DICT_TOTAL);
    return 0;
}

static int parse_defines(parse_ctx *c, pk_cursor *r, clcpack_entry_info *e)
{
    uint32_t n;
    if (rd_u32(c, r, &n, "define count") != 0)
        return -1;
    if ((uint64_t)n * PK_DEFINE_MIN > pk_left(r) || n > c->defines_cap - c->defines_used)
        return problem(c, CLCPACK_E_LIMIT, "%u defines declared, the record has room for %zu", n,
                       pk_left(r) / PK_DEFINE_MIN);
    clcpack_define *defs = c->defines + c->defines_used;
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
                           "timings not in strictly increasing run-time value (%u after %u)",
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
    const char **names = c->knames + c->knames_used;
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

int clcpk_parse_entry(parse_ctx *c, pk_cursor *r, size_t i, pk_entry *pe)
{
    clcpack_entry_info *e = &pe->info;
    e->struct_size = sizeof *e;
    uint32_t kind;
    if (rd_u32(c, r, &e->device, "device") != 0 || rd_u32(c, r, &e->source, "source") != 0 ||
        rd_str(c, r, &e->kernel, SIZE_MAX, "kernel") != 0 ||
        rd_str(c, r, &pe->family, SIZE_MAX, "family") != 0 ||
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
    if (check_blob(c, e->codec, CODECS_ENTRY, pe->offset, e->stored_size, e->raw_size,
                   PK_MAX_RAW_SIZE) != 0)
        return -1;
    pe->chain = 1;
    pe->chain_bytes = e->raw_size;
    if (e->codec == PK_CODEC_ZSTD_DICT)
        return check_dict_ref(c, e->codec, e->base, NULL);
    if (e->codec == PK_CODEC_XOR_ZLIB || e->codec == PK_CODEC_ZSTD_PREFIX) {
        if (e->base >= i)
            return problem(c, CLCPACK_E_FORMAT,
                           "delta base %u is not an earlier entry (bases come first)", e->base);
        if (c->need_base && c->need_base(c, e->base) != 0)
            return -1;
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
        atomic_store_explicit(&base->is_base, 1, memory_order_relaxed);
    } else if (e->base != CLCPACK_NONE) {
        return problem(c, CLCPACK_E_FORMAT, "base %u on an entry coded without a base",
                       e->base);
    }
    return 0;
}

clcpack_status clcpk_fail_record(parse_ctx *c, clcpack_error *err, const char *what, size_t i,
                                  uint64_t at)
{
    return clcpk_fail(err, c->problem_status, "%s %zu (index record at offset %llu): %s", what, i,
                   (unsigned long long)at, c->problem);
}

clcpack_status clcpk_parse_counts(parse_ctx *c, pk_cursor *idx, uint32_t counts[4],
                                  clcpack_error *err)
{
    pk_cursor rec;
    uint64_t at;
    uint32_t n_dev, n_src, n_ent, n_dict = 0;
    if (clcpk_next_record(c, idx, &rec, &at) != 0 || rd_u32(c, &rec, &n_dev, "device count") != 0 ||
        rd_u32(c, &rec, &n_src, "source count") != 0 ||
        rd_u32(c, &rec, &n_ent, "entry count") != 0)
        return clcpk_fail_record(c, err, "counts record", 0, at);
    /* Format 4's dictionary count, when the record goes on. */
    if (c->h->format_version >= PK_FORMAT_VERSION_ZSTD && pk_left(&rec) >= 4)
        rd_u32(c, &rec, &n_dict, "dictionary count");

    /* Cap the counts by what the rest of the index could hold, before
     * allocating anything for them. */
    uint64_t left = c->h->index_size - (uint64_t)idx->pos;
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
    left -= need;
    need = (uint64_t)n_dict * PK_DICT_RECORD_MIN;
    if (need > left)
        return clcpk_fail(err, CLCPACK_E_LIMIT,
                          "index declares %u dictionaries, its remaining bytes hold at most %llu",
                          n_dict, (unsigned long long)(left / PK_DICT_RECORD_MIN));
    counts[0] = n_dev;
    counts[1] = n_src;
    counts[2] = n_ent;
    counts[3] = n_dict;
    return CLCPACK_OK;
}

clcpack_status clcpk_alloc_tables(clcpack *p, const uint32_t counts[4], clcpack_error *err)
{
    if (counts[3]) {
        p->dicts = calloc(counts[3], sizeof *p->dicts);
        if (!p->dicts || pthread_mutex_init(&p->dict_lock, NULL) != 0) {
            free(p->dicts);
            p->dicts = NULL;
            return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory for %u dictionaries",
                              counts[3]);
        }
        p->n_dicts = counts[3];
    }
    p->n_devices = counts[0];
    p->n_sources = counts[1];
    p->n_entries = counts[2];
    /* Freed by clcpack_close with these counts. A lookup-table open
     * touches only the rows of the entries a load reads. */
    p->devices = clcpk_table_new(counts[0], sizeof *p->devices);
    p->sources = clcpk_table_new(counts[1], sizeof *p->sources);
    p->entries = clcpk_table_new(counts[2], sizeof *p->entries);
    if (!p->devices || !p->sources || !p->entries)
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory for %u entries", counts[2]);
    return CLCPACK_OK;
}

clcpack_status clcpk_parse_index(clcpack *p, const pk_header *h, const uint8_t *index,
                                 _Atomic uint8_t *const ready[2], clcpack_error *err)
{
    parse_ctx c = {0};
    c.p = p;
    c.h = h;
    c.at0 = h->index_offset;
    size_t index_size = (size_t)h->index_size;
    pk_cursor idx = pk_cursor_make(index, index_size);
    uint32_t counts[4];
    clcpack_status st = clcpk_parse_counts(&c, &idx, counts, err);
    if (st != CLCPACK_OK)
        return st;
    if (!ready && (st = clcpk_alloc_tables(p, counts, err)) != CLCPACK_OK)
        return st;
    if (ready && (counts[0] != p->n_devices || counts[1] != p->n_sources ||
                  counts[2] != p->n_entries || counts[3] != p->n_dicts))
        return clcpk_fail(err, CLCPACK_E_FORMAT,
                          "the counts record differs from the lookup table's head");
    /* A str takes 4+len bytes in the index and len+1 in the arena; a define
     * at least 8 index bytes: both tables are bounded by the index size. */
    c.arena_cap = index_size + 1;
    c.defines_cap = index_size / PK_DEFINE_MIN + 1;
    c.knames_cap = index_size / 4 + 1;
    p->strings = c.arena = malloc(c.arena_cap);
    p->defines = c.defines = calloc(c.defines_cap, sizeof *p->defines);
    p->knames = c.knames = calloc(c.knames_cap, sizeof *p->knames);
    if (!p->strings || !p->defines || !p->knames)
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory reading an index of %zu bytes",
                       index_size);

    /* Records already parsed through the lookup table are checked again,
     * into scratch, and kept: other threads may be reading them. */
    pk_cursor rec;
    uint64_t at;
    clcpack_device_info dev_scratch;
    pk_source src_scratch;
    pk_entry ent_scratch;
    pk_dict dict_scratch;
    for (size_t i = 0; i < counts[0]; i++)
        if (clcpk_next_record(&c, &idx, &rec, &at) != 0 ||
            clcpk_parse_device(&c, &rec, ready ? &dev_scratch : &p->devices[i]) != 0)
            return clcpk_fail_record(&c, err, "device", i, at);
    for (size_t i = 0; i < counts[1]; i++) {
        int have = ready && atomic_load_explicit(&ready[1][i], memory_order_acquire);
        if (clcpk_next_record(&c, &idx, &rec, &at) != 0 ||
            clcpk_parse_source(&c, &rec, have ? &src_scratch : &p->sources[i]) != 0)
            return clcpk_fail_record(&c, err, "source", i, at);
        if (ready && !have)
            atomic_store_explicit(&ready[1][i], 1, memory_order_release);
    }
    for (size_t i = 0; i < counts[2]; i++) {
        int have = ready && atomic_load_explicit(&ready[0][i], memory_order_acquire);
        if (clcpk_next_record(&c, &idx, &rec, &at) != 0 ||
            clcpk_parse_entry(&c, &rec, i, have ? &ent_scratch : &p->entries[i]) != 0)
            return clcpk_fail_record(&c, err, "entry", i, at);
        if (ready && !have)
            atomic_store_explicit(&ready[0][i], 1, memory_order_release);
    }
    for (size_t i = 0; i < counts[3]; i++)
        if (clcpk_next_record(&c, &idx, &rec, &at) != 0 ||
            clcpk_parse_dict(&c, &rec, ready ? &dict_scratch : &p->dicts[i]) != 0)
            return clcpk_fail_record(&c, err, "dictionary", i, at);
    /* Bytes after the last record belong to later versions: skipped. */
    return CLCPACK_OK;
}
