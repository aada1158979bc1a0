/*
 * pack_write.c — the writer's add calls: check what the caller gives, copy
 * it, merge what is already there (identical devices and source texts), and
 * refuse two different binaries for one entry. Ordering and encoding wait
 * until the pack is written (pack_encode.c), so the add order never shows in
 * the file.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "crc32.h"
#include "errors.h"
#include "key_hash.h"
#include "pack_format.h"
#include "pack_reader.h"
#include "pack_writer.h"
#include "struct_size.h"
#include "target_match.h"

/* Grows an array to hold one more element. */
static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, ncap * elem);
    if (!p)
        return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

/* FNV-1a, 64 bits, continued over several pieces. */
static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

#define FNV_START 0xcbf29ce484222325ull

static uint64_t fnv_str(uint64_t h, const char *s) { return fnv(h, s, strlen(s) + 1); }

static uint64_t fnv_u32(uint64_t h, uint32_t v) { return fnv(h, &v, sizeof v); }

/* Hash of an entry's identity (kernel, sorted defines, wg, device, kind,
 * arch): exactly one of wd and cd holds the defines. */
static uint64_t entry_hash(const char *kernel, size_t n, const w_define *wd,
                           const clcpack_define *cd, const uint32_t wg[3], uint32_t device,
                           uint32_t kind, uint32_t arch)
{
    uint64_t h = fnv_str(FNV_START, kernel);
    h = fnv_u32(h, (uint32_t)n);
    for (size_t k = 0; k < n; k++) {
        h = fnv_str(h, wd ? wd[k].name : cd[k].name);
        h = fnv_str(h, wd ? wd[k].value : cd[k].value);
    }
    for (int k = 0; k < 3; k++)
        h = fnv_u32(h, wg[k]);
    return fnv_u32(fnv_u32(fnv_u32(h, device), kind), arch);
}

static uint64_t w_entry_hash(const w_entry *e)
{
    return entry_hash(e->kernel, e->n_defines, e->defines, NULL, e->wg, e->device,
                      (uint32_t)e->kind, e->arch);
}

static uint64_t source_hash(uint32_t crc, size_t size)
{
    return fnv(fnv_u32(FNV_START, crc), &size, sizeof size);
}

/* Puts index i with hash h in a table, growing it (and rehashing the n
 * indices before i through rehash) when it is half full. */
static int table_add(uint32_t **slots, size_t *mask, size_t n, uint32_t i, uint64_t h,
                     const clcpack_writer *w, uint64_t (*rehash)(const clcpack_writer *, size_t))
{
    if (*mask == 0 || n + 1 > (*mask + 1) / 2) {
        size_t cap = *mask ? (*mask + 1) * 2 : 64;
        uint32_t *t = malloc(cap * sizeof *t);
        if (!t)
            return -1;
        for (size_t k = 0; k < cap; k++)
            t[k] = CLCPACK_NONE;
        for (size_t j = 0; j < n; j++) {
            size_t k = (size_t)rehash(w, j) & (cap - 1);
            while (t[k] != CLCPACK_NONE)
                k = (k + 1) & (cap - 1);
            t[k] = (uint32_t)j;
        }
        free(*slots);
        *slots = t;
        *mask = cap - 1;
    }
    size_t k = (size_t)h & *mask;
    while ((*slots)[k] != CLCPACK_NONE)
        k = (k + 1) & *mask;
    (*slots)[k] = i;
    return 0;
}

static uint64_t rehash_entry(const clcpack_writer *w, size_t j) { return w_entry_hash(&w->entries[j]); }

static uint64_t rehash_source(const clcpack_writer *w, size_t j)
{
    return source_hash(w->sources[j].crc, w->sources[j].size);
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

clcpack_status clcpack_writer_new(uint32_t flags, clcpack_writer **out, clcpack_error *err)
{
    if (!out)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_writer_new: out is NULL");
    *out = NULL;
    const uint32_t known = CLCPACK_WRITE_NO_SOURCES | CLCPACK_WRITE_COMPRESS_CUBINS |
                           CLCPACK_WRITE_SPOOL | CLCPACK_WRITE_STORE_CUBINS;
    if (flags & ~known)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_writer_new: unknown flags 0x%x",
                       flags & ~known);
    if ((flags & CLCPACK_WRITE_COMPRESS_CUBINS) && (flags & CLCPACK_WRITE_STORE_CUBINS))
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG,
                          "clcpack_writer_new: CLCPACK_WRITE_COMPRESS_CUBINS and "
                          "CLCPACK_WRITE_STORE_CUBINS together");
    clcpack_writer *w = calloc(1, sizeof *w);
    if (!w)
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory");
    w->flags = flags;
    w->spool_fd = CLCPK_NO_FD;
    if (flags & CLCPACK_WRITE_SPOOL) {
        char path[4096], msg[128];
        /* Unnamed: nothing is left behind whatever happens. */
        int e = clcpk_os_scratch_file(&w->spool_fd, path, sizeof path);
        if (e) {
            free(w);
            return clcpk_fail(err, CLCPACK_E_IO, "cannot create a spool file '%s': %s", path,
                              clcpk_errno_text(e, msg, sizeof msg));
        }
    }
    *out = w;
    return CLCPACK_OK;
}

clcpack_status clcpack_writer_set_threads(clcpack_writer *w, unsigned n)
{
    if (!w)
        return CLCPACK_E_INVALID_ARG;
    w->threads = n > CLCPACK_MAX_WRITE_THREADS ? CLCPACK_MAX_WRITE_THREADS : n;
    return CLCPACK_OK;
}

clcpack_status clcpack_writer_set_blob_cache(clcpack_writer *w, const clcpack_blob_cache *cache)
{
    if (!w)
        return CLCPACK_E_INVALID_ARG;
    memset(&w->cache, 0, sizeof w->cache);
    if (cache && cache->get && cache->put)
        w->cache = *cache;
    return CLCPACK_OK;
}

int clcpack_compression_available(clcpack_compression c)
{
    return c == CLCPACK_COMPRESSION_DEFAULT || c == CLCPACK_COMPRESSION_ZLIB ||
           (c == CLCPACK_COMPRESSION_ZSTD && clcpk_zstd_available());
}

clcpack_status clcpack_writer_set_compression(clcpack_writer *w, clcpack_compression c,
                                              clcpack_error *err)
{
    if (!w)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG,
                          "clcpack_writer_set_compression: writer is NULL");
    if (c != CLCPACK_COMPRESSION_DEFAULT && c != CLCPACK_COMPRESSION_ZLIB &&
        c != CLCPACK_COMPRESSION_ZSTD)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG,
                          "clcpack_writer_set_compression: unknown compression %d", (int)c);
    if (!clcpack_compression_available(c))
        return clcpk_fail(err, CLCPACK_E_VERSION,
                          "zstd: this libclcpack was built without zstd (make ZSTD=0); it writes "
                          "zlib packs only");
    w->compression = c;
    return CLCPACK_OK;
}

/* Appends a binary to the spool. 0 or -1. */
static int spool_put(clcpack_writer *w, const void *data, size_t n, uint64_t *at)
{
    *at = w->spool_size;
    if (clcpk_os_pwrite(w->spool_fd, data, n, w->spool_size) != 0)
        return -1;
    w->spool_size += n;
    return 0;
}

static void free_entry(w_entry *e)
{
    free(e->kernel);
    free(e->family);
    free(e->options);
    for (size_t k = 0; k < e->n_defines; k++) {
        free(e->defines[k].name);
        free(e->defines[k].value);
    }
    free(e->defines);
    free(e->bin);
    free(e->tunings);
    for (size_t k = 0; k < e->n_knames; k++)
        free(e->knames[k]);
    free(e->knames);
    free(e->target);
}

void clcpack_writer_free(clcpack_writer *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->n_sources; i++) {
        free(w->sources[i].name);
        free(w->sources[i].text);
    }
    for (size_t i = 0; i < w->n_entries; i++)
        free_entry(&w->entries[i]);
    free(w->devices);
    free(w->sources);
    free(w->entries);
    free(w->ent_slots);
    free(w->src_slots);
    if (w->spool_fd != CLCPK_NO_FD)
        clcpk_os_close(w->spool_fd);
    free(w);
}

/* Copies a fingerprint with every string cut to the field and zero-padded,
 * and the UUIDs zeroed when absent, so equal devices compare equal. */
static void normalize_device(const clcpack_device_info *in, clcpack_device_info *out)
{
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    const char *src[] = {in->platform_name,  in->platform_version, in->device_name,
                         in->device_version, in->driver_version,   in->opencl_c_version};
    char *dst[] = {out->platform_name,  out->platform_version, out->device_name,
                   out->device_version, out->driver_version,   out->opencl_c_version};
    for (size_t i = 0; i < sizeof src / sizeof src[0]; i++)
        memcpy(dst[i], src[i], strnlen(src[i], CLCPACK_FP_STR - 1));
    out->device_type = in->device_type;
    out->vendor_id = in->vendor_id;
    out->address_bits = in->address_bits;
    out->has_uuid = in->has_uuid;
    if (in->has_uuid) {
        memcpy(out->device_uuid, in->device_uuid, 16);
        memcpy(out->driver_uuid, in->driver_uuid, 16);
    }
    out->nv_cc_major = in->nv_cc_major;
    out->nv_cc_minor = in->nv_cc_minor;
    out->intel_ip_version = in->intel_ip_version;
    out->intel_device_id = in->intel_device_id;
}

clcpack_status clcpack_writer_add_device(clcpack_writer *w, const clcpack_device_info *dev,
                                         uint32_t *index, clcpack_error *err)
{
    if (!w || !dev)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_writer_add_device: %s is NULL",
                       w ? "device" : "writer");
    if (!clcpk_size_ok(dev, CLCPK_DEVICE_INFO_1_0))
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG,
                          "clcpack_writer_add_device: dev->struct_size %zu is too small (set it "
                          "to sizeof(clcpack_device_info))",
                          dev->struct_size);
    clcpack_device_info full;
    clcpk_copy_in(&full, dev, sizeof full);
    if (full.has_uuid > 1)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "device '%.255s': has_uuid is %u, not 0 or 1",
                       full.device_name, full.has_uuid);
    clcpack_device_info d;
    normalize_device(&full, &d);
    for (size_t i = 0; i < w->n_devices; i++)
        if (clcpk_device_compare(&w->devices[i], &d) == 0) {
            if (index)
                *index = (uint32_t)i;
            return CLCPACK_OK;
        }
    if (w->n_devices >= CLCPACK_NONE - 1 ||
        grow((void **)&w->devices, &w->cap_devices, w->n_devices, sizeof d) != 0)
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory adding a device");
    w->devices[w->n_devices] = d;
    if (index)
        *index = (uint32_t)w->n_devices;
    w->n_devices++;
    return CLCPACK_OK;
}

clcpack_status clcpack_writer_add_source(clcpack_writer *w, const char *name, const void *text,
                                         size_t size, uint32_t *index, clcpack_error *err)
{
    if (index)
        *index = CLCPACK_NONE;
    if (!w)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_writer_add_source: writer is NULL");
    if (!name || !name[0])
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_writer_add_source: no name");
    if (!text || size == 0)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "source '%s': empty text", name);
    if (size > PK_MAX_RAW_SIZE)
        return clcpk_fail(err, CLCPACK_E_LIMIT, "source '%s': %zu bytes, more than the %llu limit",
                       name, size, (unsigned long long)PK_MAX_RAW_SIZE);
    if (w->flags & CLCPACK_WRITE_NO_SOURCES)
        return CLCPACK_OK;
    uint32_t crc = clcpk_crc32(text, size);
    uint64_t hash = source_hash(crc, size);
    for (size_t k = (size_t)hash & w->src_mask; w->src_mask && w->src_slots[k] != CLCPACK_NONE;
         k = (k + 1) & w->src_mask) {
        size_t i = w->src_slots[k];
        w_source *s = &w->sources[i];
        if (s->size != size || s->crc != crc || memcmp(s->text, text, size) != 0)
            continue;
        /* One text, several names: keep the one that sorts first, so the
         * pack does not depend on which was added first. */
        if (strcmp(name, s->name) < 0) {
            char *n = dup_str(name);
            if (!n)
                return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory adding source '%s'", name);
            free(s->name);
            s->name = n;
        }
        if (index)
            *index = (uint32_t)i;
        return CLCPACK_OK;
    }
    if (w->n_sources >= CLCPACK_NONE - 1 ||
        grow((void **)&w->sources, &w->cap_sources, w->n_sources, sizeof *w->sources) != 0)
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory adding source '%s'", name);
    w_source s = {dup_str(name), malloc(size), size, crc};
    if (!s.name || !s.text ||
        table_add(&w->src_slots, &w->src_mask, w->n_sources, (uint32_t)w->n_sources, hash, w,
                  rehash_source) != 0) {
        free(s.name);
        free(s.text);
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory adding source '%s'", name);
    }
    memcpy(s.text, text, size);
    w->sources[w->n_sources] = s;
    if (index)
        *index = (uint32_t)w->n_sources;
    w->n_sources++;
    return CLCPACK_OK;
}

/* The caller's defines, sorted by name (pointers into the caller's data). */
typedef struct spec_view {
    const clcpack_entry_spec *spec;
    clcpack_define *defs;
    /* Format-3 fields, as 0 when the caller's struct ends before them. */
    const char *const *knames;
    size_t n_knames;
    uint32_t flags;
    const char *target; /* "" when none */
} spec_view;

static int cmp_str_ptr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *describe_spec(const spec_view *v, char *buf, size_t cap)
{
    const clcpack_entry_spec *s = v->spec;
    clcpack_entry_info e = {0};
    e.kernel = s->kernel;
    e.defines = v->defs;
    e.define_count = s->define_count;
    memcpy(e.wg, s->wg, sizeof e.wg);
    clcpk_describe_entry_key(&e, buf, cap);
    return buf;
}

static clcpack_status check_spec(const clcpack_writer *w, const clcpack_entry_spec *s,
                                 spec_view *v, int need_binary, clcpack_error *err)
{
    v->spec = s;
    v->defs = NULL;
    v->knames = NULL;
    v->n_knames = 0;
    v->flags = 0;
    v->target = "";
    if (!w || !s)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "entry spec: %s is NULL", w ? "spec" : "writer");
    const size_t v3_at = offsetof(clcpack_entry_spec, kernel_names);
    if (s->struct_size < v3_at)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG,
                       "entry spec: struct_size %zu, expected at least %zu", s->struct_size, v3_at);
    if (s->struct_size >= offsetof(clcpack_entry_spec, target)) {
        v->knames = s->kernel_names;
        v->n_knames = s->kernel_name_count;
        v->flags = s->flags;
    }
    if (s->struct_size >= sizeof *s && s->target)
        v->target = s->target;
    if (v->n_knames && !v->knames)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG,
                       "entry spec: %zu kernel names but kernel_names is NULL", v->n_knames);
    for (size_t i = 0; i < v->n_knames; i++)
        if (!v->knames[i] || !v->knames[i][0])
            return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "entry spec: kernel name %zu is empty",
                           i);
    if (v->flags & ~(uint32_t)CLCPACK_ENTRY_DEFAULT)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "entry spec: unknown flags 0x%x",
                       v->flags & ~(uint32_t)CLCPACK_ENTRY_DEFAULT);
    if (!s->kernel || !s->kernel[0])
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "entry spec: no kernel name");
    if (s->define_count && !s->defines)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "entry %s: %zu defines but defines is NULL",
                       s->kernel, s->define_count);
    v->defs = malloc((s->define_count ? s->define_count : 1) * sizeof *v->defs);
    if (!v->defs)
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory");
    for (size_t i = 0; i < s->define_count; i++) {
        clcpack_define d = s->defines[i];
        if (!d.name || !d.name[0])
            return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "entry %s: define %zu has no name",
                           s->kernel, i);
        if (!d.value)
            d.value = "";
        size_t k = i; /* insertion sort: define lists are short */
        while (k > 0 && strcmp(v->defs[k - 1].name, d.name) > 0) {
            v->defs[k] = v->defs[k - 1];
            k--;
        }
        if (k > 0 && strcmp(v->defs[k - 1].name, d.name) == 0)
            return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "entry %s: define %s given twice",
                           s->kernel, d.name);
        v->defs[k] = d;
    }
    char desc[512];
    if (s->device >= w->n_devices)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "entry %s: device %u, %zu added",
                       describe_spec(v, desc, sizeof desc), s->device, w->n_devices);
    if ((unsigned)s->kind > PK_KIND_MAX)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "entry %s: unknown binary kind %u",
                       describe_spec(v, desc, sizeof desc), (unsigned)s->kind);
    if (s->kind == CLCPACK_KIND_NATIVE && s->arch != 0)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "entry %s: arch %u on a native binary (0 expected)",
                       describe_spec(v, desc, sizeof desc), s->arch);
    const char *why = clcpk_target_problem((uint32_t)s->kind, s->arch, v->target);
    if (why)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "entry %s: %s (kind %u, arch 0x%x, target '%s')",
                          describe_spec(v, desc, sizeof desc), why, (unsigned)s->kind, s->arch,
                          v->target);
    if (!need_binary)
        return CLCPACK_OK;
    if (s->source != CLCPACK_NONE && s->source >= w->n_sources)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "entry %s: source %u, %zu added%s",
                       describe_spec(v, desc, sizeof desc), s->source, w->n_sources,
                       (w->flags & CLCPACK_WRITE_NO_SOURCES) ? " (the writer stores no sources)" : "");
    if (!s->binary || s->binary_size == 0)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "entry %s: empty binary",
                       describe_spec(v, desc, sizeof desc));
    if (s->binary_size > PK_MAX_RAW_SIZE)
        return clcpk_fail(err, CLCPACK_E_LIMIT, "entry %s: binary of %zu bytes, more than the %llu limit",
                       describe_spec(v, desc, sizeof desc), s->binary_size,
                       (unsigned long long)PK_MAX_RAW_SIZE);
    return CLCPACK_OK;
}

/* The added entry with the same key, device, kind and arch, or NULL. */
static w_entry *find_same(const clcpack_writer *w, const spec_view *v)
{
    const clcpack_entry_spec *s = v->spec;
    uint64_t h = entry_hash(s->kernel, s->define_count, NULL, v->defs, s->wg, s->device,
                            (uint32_t)s->kind, s->arch);
    for (size_t slot = (size_t)h & w->ent_mask; w->ent_mask && w->ent_slots[slot] != CLCPACK_NONE;
         slot = (slot + 1) & w->ent_mask) {
        w_entry *e = &w->entries[w->ent_slots[slot]];
        if (e->device != s->device || e->kind != s->kind || e->arch != s->arch ||
            e->n_defines != s->define_count || memcmp(e->wg, s->wg, sizeof e->wg) != 0 ||
            strcmp(e->kernel, s->kernel) != 0)
            continue;
        size_t k = 0;
        while (k < e->n_defines && strcmp(e->defines[k].name, v->defs[k].name) == 0 &&
               strcmp(e->defines[k].value, v->defs[k].value) == 0)
            k++;
        if (k == e->n_defines)
            return e;
    }
    return NULL;
}

/* The spec's kernel names, sorted, each once. */
static clcpack_status copy_kernel_names(const spec_view *v, w_entry *e)
{
    if (!v->n_knames)
        return CLCPACK_OK;
    e->knames = calloc(v->n_knames, sizeof *e->knames);
    if (!e->knames)
        return CLCPACK_E_NOMEM;
    for (size_t k = 0; k < v->n_knames; k++) {
        e->knames[e->n_knames] = dup_str(v->knames[k]);
        if (!e->knames[e->n_knames])
            return CLCPACK_E_NOMEM;
        e->n_knames++;
    }
    qsort(e->knames, e->n_knames, sizeof *e->knames, cmp_str_ptr);
    size_t n = 0;
    for (size_t k = 0; k < e->n_knames; k++) {
        if (n && strcmp(e->knames[n - 1], e->knames[k]) == 0) {
            free(e->knames[k]);
            continue;
        }
        e->knames[n++] = e->knames[k];
    }
    e->n_knames = n;
    return CLCPACK_OK;
}

/* 1 when the added entry has the spec's kernel names (as a set) and flags. */
static int same_names_and_flags(const w_entry *e, const spec_view *v)
{
    if (e->flags != v->flags)
        return 0;
    for (size_t k = 0; k < v->n_knames; k++) {
        const char *key = v->knames[k];
        if (!bsearch(&key, e->knames, e->n_knames, sizeof *e->knames, cmp_str_ptr))
            return 0;
    }
    for (size_t k = 0; k < e->n_knames; k++) {
        size_t j = 0;
        while (j < v->n_knames && strcmp(v->knames[j], e->knames[k]) != 0)
            j++;
        if (j == v->n_knames)
            return 0;
    }
    return 1;
}

static clcpack_status copy_entry(clcpack_writer *w, const spec_view *v, w_entry *e)
{
    const clcpack_entry_spec *s = v->spec;
    memset(e, 0, sizeof *e);
    e->kernel = dup_str(s->kernel);
    e->family = dup_str(s->family ? s->family : "");
    e->options = dup_str(s->options ? s->options : "");
    e->defines = calloc(s->define_count ? s->define_count : 1, sizeof *e->defines);
    if (w->spool_fd == CLCPK_NO_FD)
        e->bin = malloc(s->binary_size);
    else if (spool_put(w, s->binary, s->binary_size, &e->spool_off) != 0)
        return CLCPACK_E_IO;
    if (!e->kernel || !e->family || !e->options || !e->defines || (w->spool_fd == CLCPK_NO_FD && !e->bin))
        return CLCPACK_E_NOMEM;
    for (size_t k = 0; k < s->define_count; k++) {
        e->n_defines = k + 1;
        e->defines[k].name = dup_str(v->defs[k].name);
        e->defines[k].value = dup_str(v->defs[k].value);
        if (!e->defines[k].name || !e->defines[k].value)
            return CLCPACK_E_NOMEM;
    }
    memcpy(e->wg, s->wg, sizeof e->wg);
    e->device = s->device;
    e->source = s->source;
    e->kind = s->kind;
    e->arch = s->arch;
    if (e->bin)
        memcpy(e->bin, s->binary, s->binary_size);
    e->size = s->binary_size;
    e->crc = clcpk_crc32(s->binary, s->binary_size);
    e->flags = v->flags;
    if (!(e->target = dup_str(v->target)))
        return CLCPACK_E_NOMEM;
    return copy_kernel_names(v, e);
}

clcpack_status clcpack_writer_add_entry(clcpack_writer *w, const clcpack_entry_spec *spec,
                                        clcpack_error *err)
{
    spec_view v;
    clcpack_status st = check_spec(w, spec, &v, 1, err);
    if (st != CLCPACK_OK) {
        free(v.defs);
        return st;
    }
    const w_entry *old = find_same(w, &v);
    if (old) {
        uint8_t *scratch = NULL;
        const uint8_t *old_bin = old->size == spec->binary_size
                                     ? clcpk_entry_bytes(w, old, &scratch)
                                     : NULL;
        int same_bytes = old_bin && memcmp(old_bin, spec->binary, old->size) == 0;
        free(scratch);
        int same = same_bytes &&
                   strcmp(old->options, spec->options ? spec->options : "") == 0 &&
                   strcmp(old->family, spec->family ? spec->family : "") == 0 &&
                   old->source == spec->source && same_names_and_flags(old, &v) &&
                   strcmp(old->target, v.target) == 0;
        char desc[512];
        if (!same)
            st = clcpk_fail(err, CLCPACK_E_CONFLICT,
                         "entry %s for device %u (%s, arch %u) was already added with other %s",
                         describe_spec(&v, desc, sizeof desc), spec->device,
                         clcpk_kind_name(spec->kind),
                         spec->arch,
                         !same_bytes ? "bytes" : "options, family, source, kernel names, flags or target");
        free(v.defs);
        return st;
    }
    if (w->n_entries >= CLCPACK_NONE - 1 ||
        grow((void **)&w->entries, &w->cap_entries, w->n_entries, sizeof *w->entries) != 0) {
        free(v.defs);
        return clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory adding an entry");
    }
    w_entry *e = &w->entries[w->n_entries];
    st = copy_entry(w, &v, e);
    free(v.defs);
    if (st == CLCPACK_OK && table_add(&w->ent_slots, &w->ent_mask, w->n_entries,
                                      (uint32_t)w->n_entries, w_entry_hash(e), w,
                                      rehash_entry) != 0)
        st = CLCPACK_E_NOMEM;
    if (st != CLCPACK_OK) {
        free_entry(e);
        return clcpk_fail(err, st, st == CLCPACK_E_IO ? "cannot write the spool for an entry of %s"
                                                      : "out of memory adding an entry of %s",
                          spec->kernel);
    }
    w->n_entries++;
    return CLCPACK_OK;
}

clcpack_status clcpack_writer_set_tuning(clcpack_writer *w, const clcpack_entry_spec *spec,
                                         uint32_t width, uint32_t height, uint32_t runs,
                                         uint64_t median_ns, clcpack_error *err)
{
    spec_view v;
    clcpack_status st = check_spec(w, spec, &v, 0, err);
    if (st == CLCPACK_OK) {
        w_entry *e = find_same(w, &v);
        if (!e) {
            char desc[512];
            st = clcpk_fail(err, CLCPACK_E_NOT_FOUND, "tuning for %s on device %u: no such entry added",
                         describe_spec(&v, desc, sizeof desc), spec->device);
        } else {
            e->tune_width = width;
            e->tune_height = height;
            e->tune_runs = runs;
            e->tune_median_ns = median_ns;
        }
    }
    free(v.defs);
    return st;
}

/* Inserts t in e's list, kept in increasing run-time value so the encoded
 * bytes do not depend on the order timings were added in. */
static clcpack_status put_tuning(w_entry *e, const clcpack_tuning *t)
{
    size_t k = 0;
    while (k < e->n_tunings && e->tunings[k].runtime_value < t->runtime_value)
        k++;
    if (k == e->n_tunings || e->tunings[k].runtime_value != t->runtime_value) {
        clcpack_tuning *grown = realloc(e->tunings, (e->n_tunings + 1) * sizeof *grown);
        if (!grown)
            return CLCPACK_E_NOMEM;
        e->tunings = grown;
        memmove(&grown[k + 1], &grown[k], (e->n_tunings - k) * sizeof *grown);
        e->n_tunings++;
    }
    e->tunings[k] = *t;
    const clcpack_tuning *first = &e->tunings[0];
    e->tune_width = first->width;
    e->tune_height = first->height;
    e->tune_runs = first->runs;
    e->tune_median_ns = first->median_ns;
    return CLCPACK_OK;
}

clcpack_status clcpack_writer_add_tuning(clcpack_writer *w, const clcpack_entry_spec *spec,
                                         const clcpack_tuning *t, clcpack_error *err)
{
    if (!t)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_writer_add_tuning: t is NULL");
    if (t->runs == 0)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG,
                          "clcpack_writer_add_tuning: a timing of 0 runs");
    spec_view v;
    clcpack_status st = check_spec(w, spec, &v, 0, err);
    if (st == CLCPACK_OK) {
        w_entry *e = find_same(w, &v);
        char desc[512];
        if (!e)
            st = clcpk_fail(err, CLCPACK_E_NOT_FOUND,
                            "tuning for %s on device %u: no such entry added",
                            describe_spec(&v, desc, sizeof desc), spec->device);
        else if (put_tuning(e, t) != CLCPACK_OK)
            st = clcpk_fail(err, CLCPACK_E_NOMEM, "out of memory adding a timing of %s",
                            describe_spec(&v, desc, sizeof desc));
    }
    free(v.defs);
    return st;
}

clcpack_status clcpack_writer_write_memory(clcpack_writer *w, void **data, size_t *size,
                                           clcpack_error *err)
{
    if (!w || !data || !size)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_writer_write_memory: %s is NULL",
                       !w ? "writer" : !data ? "data" : "size");
    *data = NULL;
    *size = 0;
    uint8_t *bytes;
    clcpack_status st = clcpk_encode(w, &bytes, size, err);
    if (st == CLCPACK_OK)
        *data = bytes;
    return st;
}

clcpack_status clcpack_writer_write_file(clcpack_writer *w, const char *path, clcpack_error *err)
{
    if (!w || !path || !path[0])
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_writer_write_file: %s",
                       !w ? "writer is NULL" : "no path");
    clcpk_atomic a;
    clcpack_status st = clcpk_atomic_begin(&a, path, err);
    if (st != CLCPACK_OK)
        return st;
    return clcpk_encode_file(w, &a, err);
}
