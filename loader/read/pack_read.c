/*
 * pack_read.c — opening a pack (a file read on demand, memory, or a file
 * pinned by its digest) and the calls that read its tables.
 *
 * A file whose header names a lookup table (format 5) is opened by
 * pack_lookup.c without reading its index; any other pack has its whole
 * index checked and parsed at open (pack_parse.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base_cache.h"
#include "bytes.h"
#include "codec.h"
#include "cold_memory.h"
#include "device_cache.h"
#include "dict_cache.h"
#include "errors.h"
#include "key_hash.h"
#include "pack_format.h"
#include "pack_io.h"
#include "pack_lookup.h"
#include "pack_parse.h"
#include "pack_reader.h"
#include "sha256.h"
#include "struct_size.h"

/* A fresh handle with no file and no tables. */
static clcpack *new_handle(void)
{
    clcpack *p = calloc(1, sizeof *p);
    if (p) {
        p->fd = CLCPK_NO_FD;
        p->zpool = clcpk_zpool_new(); /* none: decodes make their own context */
    }
    return p;
}

/* Checks 8 and 9 and the tables every later call reads: the header's first
 * PK_HEADER_SIZE bytes are head (the rest of a longer one at ext), the
 * index at index. On failure p is left for clcpack_close. */
static clcpack_status open_parsed(clcpack *p, const pk_header *h, const uint8_t *head,
                                  const uint8_t *ext, const uint8_t *index, clcpack_error *err)
{
    clcpack_status st = clcpk_check_checksum(head, ext, h, index, err);
    if (st != CLCPACK_OK)
        return st;
    memcpy(p->header, head, PK_HEADER_SIZE);
    p->flags = h->flags;
    st = clcpk_parse_index(p, h, index, NULL, err);
    if (st == CLCPACK_OK && (clcpk_key_index_build(p) != CLCPACK_OK ||
                             clcpk_device_cache_new(p) != CLCPACK_OK ||
                             clcpk_base_cache_new(p) != CLCPACK_OK))
        st = clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory indexing %zu entries",
                        p->n_entries);
    return st;
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
    pk_header h;
    clcpack_status st = clcpk_check_header_fields(d, size, &h, err);
    if (st != CLCPACK_OK)
        return st;
    clcpack *p = new_handle();
    if (!p)
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory opening a pack");
    p->data = d;
    p->size = size;
    st = open_parsed(p, &h, d, d + PK_HEADER_SIZE, d + h.index_offset, err);
    if (st != CLCPACK_OK) {
        clcpack_close(p);
        return st;
    }
    *out = p;
    return CLCPACK_OK;
}

/* Opens path for reading and checks that it is a regular file. *fd and
 * *size on success. */
static clcpack_status open_regular(const char *path, clcpk_fd *fd, size_t *size,
                                   clcpack_error *err)
{
    char msg[128];
    int e = clcpk_os_open_read(path, fd);
    if (e == EISDIR) /* Windows, where a folder is not opened at all */
        return clcpk_fail(err, CLCPACK_E_IO, "'%s' is not a regular file", path);
    if (e)
        return clcpk_fail(err, CLCPACK_E_IO, "cannot open '%s': %s", path,
                          clcpk_errno_text(e, msg, sizeof msg));
    clcpk_stat sb;
    clcpack_status st = CLCPACK_OK;
    if ((e = clcpk_os_fstat(*fd, &sb)) != 0)
        st = clcpk_fail(err, CLCPACK_E_IO, "cannot stat '%s': %s", path,
                        clcpk_errno_text(e, msg, sizeof msg));
    else if (sb.kind != CLCPK_KIND_FILE)
        st = clcpk_fail(err, CLCPACK_E_IO, "'%s' is not a regular file", path);
    else if (sb.size > SIZE_MAX - 1)
        st = clcpk_fail(err, CLCPACK_E_LIMIT, "'%s' is too large to read", path);
    if (st != CLCPACK_OK) {
        clcpk_os_close(*fd);
        *fd = CLCPK_NO_FD;
        return st;
    }
    *size = (size_t)sb.size;
    return CLCPACK_OK;
}

/* Reads n bytes at `at` of an open pack file, the message naming it. */
static clcpack_status read_file_at(clcpk_fd fd, const char *path, uint8_t *buf, size_t n,
                                   uint64_t at,
                                   _Atomic uint64_t *counter, clcpack_error *err)
{
    char why[600];
    clcpack_status st = clcpk_read_at(fd, path, buf, n, at, counter, why, sizeof why);
    return st == CLCPACK_OK ? st : clcpk_fail(err, st, "%s", why);
}

/* Checks 1 to 7 on the first bytes of an open file of `size` bytes: a file
 * that is not a pack, or whose header disagrees with its size, costs one
 * small read. head gets the first PK_HEADER_SIZE_LOOKUP bytes (zeros past
 * the file's end): a format-5 header whole. */
static clcpack_status read_header(clcpk_fd fd, const char *path, size_t size,
                                  uint8_t head[PK_HEADER_SIZE_LOOKUP], pk_header *h,
                                  _Atomic uint64_t *counter, clcpack_error *err)
{
    clcpack_error inner;
    memset(head, 0, PK_HEADER_SIZE_LOOKUP);
    clcpack_status st = read_file_at(
        fd, path, head, size < PK_HEADER_SIZE_LOOKUP ? size : PK_HEADER_SIZE_LOOKUP, 0, counter,
        err);
    if (st == CLCPACK_OK && (st = clcpk_check_header_fields(head, size, h, &inner)) != CLCPACK_OK)
        clcpk_fail(err, st, "%s: %s", path, inner.message);
    return st;
}

/* The header's bytes after the first PK_HEADER_SIZE, then the whole index
 * into p->index_buf, and the checks and parse of open_parsed. */
static clcpack_status open_whole_index(clcpack *p, const char *path, const pk_header *h,
                                       const uint8_t *head, clcpack_error *err)
{
    /* A longer header than this version's is read too: the checksum
     * covers it. index_size was capped by the header checks. */
    size_t ext_n = h->header_size - PK_HEADER_SIZE;
    p->index_buf = malloc((size_t)h->index_size);
    uint8_t *ext = malloc(ext_n ? ext_n : 1);
    clcpack_status st = CLCPACK_OK;
    if (!p->index_buf || !ext)
        st = clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory reading the %llu-byte index of '%s'",
                        (unsigned long long)h->index_size, path);
    if (st == CLCPACK_OK && ext_n)
        st = read_file_at(p->fd, path, ext, ext_n, PK_HEADER_SIZE, &p->file_read, err);
    if (st == CLCPACK_OK)
        st = read_file_at(p->fd, path, p->index_buf, (size_t)h->index_size, h->index_offset,
                          &p->file_read, err);
    if (st == CLCPACK_OK) {
        clcpack_error inner;
        st = open_parsed(p, h, head, ext, p->index_buf, &inner);
        if (st != CLCPACK_OK)
            clcpk_fail(err, st, "%s: %s", path, inner.message);
    }
    free(ext);
    return st;
}

/* Through the lookup table (pack_lookup.c): the directory, devices and
 * dictionaries only. */
static clcpack_status open_lookup(clcpack *p, const char *path, const pk_header *h,
                                  const uint8_t *head, clcpack_error *err)
{
    clcpack_error inner;
    clcpack_status st = clcpk_lookup_open(p, h, head, &inner);
    if (st == CLCPACK_OK &&
        (clcpk_device_cache_new(p) != CLCPACK_OK || clcpk_base_cache_new(p) != CLCPACK_OK))
        st = clcpk_fail(&inner, CLCPACK_E_NOMEM, "out of memory opening the pack");
    return st == CLCPACK_OK ? st : clcpk_fail(err, st, "%s: %s", path, inner.message);
}

/* clcpack_open_file: the header, then the lookup table or the index
 * alone; blobs are read when they are decoded (pack_io.c). */
static clcpack_status open_on_demand(const char *path, clcpack **out, clcpack_error *err)
{
    clcpack *p = new_handle();
    if (!p)
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory opening '%s'", path);
    size_t size = 0;
    pk_header h;
    uint8_t head[PK_HEADER_SIZE_LOOKUP];
    clcpack_status st = open_regular(path, &p->fd, &size, err);
    if (st == CLCPACK_OK)
        st = read_header(p->fd, path, size, head, &h, &p->file_read, err);
    if (st == CLCPACK_OK && !(p->path = malloc(strlen(path) + 1)))
        st = clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory opening '%s'", path);
    if (st == CLCPACK_OK) {
        memcpy(p->path, path, strlen(path) + 1);
        p->size = size;
        st = clcpk_has_lookup(&h, head) ? open_lookup(p, path, &h, head, err)
                                        : open_whole_index(p, path, &h, head, err);
    }
    if (st != CLCPACK_OK) {
        clcpack_close(p);
        return st;
    }
    *out = p;
    return CLCPACK_OK;
}

/* clcpack_open_file_pinned: the whole file into memory, hashed, and the
 * same bytes parsed, so what was checked is what is used. */
static clcpack_status open_pinned(const char *path, const uint8_t *pin, clcpack **out,
                                  clcpack_error *err)
{
    clcpk_fd fd;
    size_t size = 0;
    pk_header h;
    uint8_t head[PK_HEADER_SIZE_LOOKUP];
    clcpack_status st = open_regular(path, &fd, &size, err);
    if (st != CLCPACK_OK)
        return st;
    uint8_t *buf = NULL;
    st = read_header(fd, path, size, head, &h, NULL, err);
    if (st == CLCPACK_OK && !(buf = malloc(size ? size : 1)))
        st = clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory reading '%s' (%zu bytes)", path, size);
    if (st == CLCPACK_OK)
        st = read_file_at(fd, path, buf, size, 0, NULL, err);
    clcpk_os_close(fd);
    if (st == CLCPACK_OK) {
        uint8_t got[CLCPACK_SHA256_SIZE];
        clcpk_digest_sha256(buf, size, got);
        if (memcmp(got, pin, sizeof got) != 0) {
            char want_hex[2 * CLCPACK_SHA256_SIZE + 1], got_hex[2 * CLCPACK_SHA256_SIZE + 1];
            clcpk_hex(pin, CLCPACK_SHA256_SIZE, want_hex);
            clcpk_hex(got, CLCPACK_SHA256_SIZE, got_hex);
            st = clcpk_fail(err, CLCPACK_E_CHECKSUM,
                            "%s: not the pinned pack: SHA-256 %s, pinned %s (the file was "
                            "replaced or changed)",
                            path, got_hex, want_hex);
        }
    }
    if (st == CLCPACK_OK) {
        clcpack_error inner;
        st = clcpack_open_memory(buf, size, out, &inner);
        if (st != CLCPACK_OK)
            clcpk_fail(err, st, "%s: %s", path, inner.message);
    }
    if (st != CLCPACK_OK) {
        free(buf);
        return st;
    }
    (*out)->owned = buf;
    return CLCPACK_OK;
}

clcpack_status clcpack_open_file(const char *path, clcpack **out, clcpack_error *err)
{
    if (!out)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_open_file: out is NULL");
    *out = NULL;
    if (!path)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_open_file: path is NULL");
    return open_on_demand(path, out, err);
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
    return open_pinned(path, sha256, out, err);
}

void clcpack_close(clcpack *p)
{
    if (!p)
        return;
    clcpk_table_free(p->devices, p->n_devices, sizeof *p->devices);
    clcpk_table_free(p->sources, p->n_sources, sizeof *p->sources);
    clcpk_table_free(p->entries, p->n_entries, sizeof *p->entries);
    clcpk_dicts_free(p);
    free(p->dicts);
    free(p->strings);
    free(p->defines);
    free(p->knames);
    free(p->slot_head);
    free(p->node_entry);
    free(p->node_next);
    clcpk_lazy_free(p);
    clcpk_zpool_free(p->zpool);
    clcpk_device_cache_free(p);
    clcpk_base_cache_free(p);
    free(p->owned);
    free(p->index_buf);
    free(p->path);
    if (p->fd != CLCPK_NO_FD)
        clcpk_os_close(p->fd);
    free(p);
}

size_t clcpack_device_count(const clcpack *p) { return p ? p->n_devices : 0; }
size_t clcpack_source_count(const clcpack *p) { return p ? p->n_sources : 0; }
size_t clcpack_entry_count(const clcpack *p) { return p ? p->n_entries : 0; }

clcpack_status clcpack_get_device(const clcpack *p, size_t i, clcpack_device_info *out)
{
    if (!p)
        return CLCPACK_E_INVALID_ARG;
    return clcpk_get_item(p->devices, sizeof *p->devices, p->n_devices, i, sizeof *p->devices,
                          CLCPK_DEVICE_INFO_1_0, out);
}

clcpack_status clcpack_get_source(const clcpack *p, size_t i, clcpack_source_info *out)
{
    if (!p)
        return CLCPACK_E_INVALID_ARG;
    clcpack_status st;
    if (i < p->n_sources && out && (st = clcpk_source_ready(p, i, NULL)) != CLCPACK_OK)
        return st;
    return clcpk_get_item(&p->sources->info, sizeof *p->sources, p->n_sources, i,
                          sizeof p->sources->info, CLCPK_SOURCE_INFO_1_0, out);
}

clcpack_status clcpack_get_entry(const clcpack *p, size_t i, clcpack_entry_info *out)
{
    if (!p)
        return CLCPACK_E_INVALID_ARG;
    clcpack_status st;
    if (i < p->n_entries && out && (st = clcpk_entry_ready(p, i, NULL)) != CLCPACK_OK)
        return st;
    return clcpk_get_item(&p->entries->info, sizeof *p->entries, p->n_entries, i,
                          sizeof p->entries->info, CLCPK_ENTRY_INFO_1_0, out);
}

size_t clcpack_entry_tuning_count(const clcpack *p, size_t entry)
{
    if (!p || entry >= p->n_entries || clcpk_entry_ready(p, entry, NULL) != CLCPACK_OK)
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
        out->runtime_value = get_le32(t);
        out->runs = get_le32(t + 4);
        out->width = get_le32(t + 8);
        out->height = get_le32(t + 12);
        out->median_ns = get_le64(t + 16);
        return CLCPACK_OK;
    }
    /* A format-1 record does not say which run-time value it is for:
     * clcpack_best_variant takes the entry's own (best_variant.c). */
    out->runtime_value = 0;
    out->runs = pe->info.tune_runs;
    out->width = pe->info.tune_width;
    out->height = pe->info.tune_height;
    out->median_ns = pe->info.tune_median_ns;
    return CLCPACK_OK;
}
