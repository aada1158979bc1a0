/* rebuild_cache.c — the rebuild cache (rebuild_cache.h, docs/CACHE.md). */
#include "rebuild_cache.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "codec.h"
#include "crc32.h"
#include "errors.h"
#include "file_atomic.h"
#include "make_dirs.h"
#include "pack_reader.h"
#include "platform.h"
#include "text.h"
#include "text_format.h"

static char *cache_folder(uint32_t flags)
{
    char *env = clcpk_os_getenv("CLCPACK_CACHE_DIR");
    if (env || !(flags & CLCPACK_LOAD_CACHE))
        return env;
    return clcpk_os_cache_root();
}

clcpack_status clcpack_cache_folder(char *buf, size_t cap, size_t *len, clcpack_error *err)
{
    if (!buf && cap)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_cache_folder: buf is NULL");
    char *dir = cache_folder(CLCPACK_LOAD_CACHE);
    if (!dir)
        return clcpk_fail(err, CLCPACK_E_NOT_FOUND,
                          "no rebuild cache folder: none of CLCPACK_CACHE_DIR and %s names one",
                          clcpk_os_cache_vars);
    size_t n = strlen(dir);
    if (len)
        *len = n;
    clcpack_status st = CLCPACK_OK;
    if (n + 1 > cap)
        st = clcpk_fail(err, CLCPACK_E_BUFFER, "clcpack_cache_folder: %zu bytes needed, %zu given",
                        n + 1, cap);
    else
        memcpy(buf, dir, n + 1);
    free(dir);
    return st;
}

static void hex16(char *out, const uint8_t *b)
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[32] = '\0';
}

/* The key text: everything that decides the binary a source build makes. */
static char *key_text(const clcpack *p, size_t entry, const clcpack_device_info *d)
{
    const clcpack_entry_info *e = &p->entries[entry].info;
    size_t cap = 8192 + strlen(e->options);
    for (size_t i = 0; i < e->define_count; i++)
        cap += strlen(e->defines[i].name) + strlen(e->defines[i].value) + 16;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    pk_text t;
    clcpk_text_init(&t, buf, cap);
    char du[33], dr[33];
    hex16(du, d->device_uuid);
    hex16(dr, d->driver_uuid);
    /* A binary built from a SPIR-V entry is keyed by the module, one
     * built from the source by the source. */
    if (e->kind == CLCPACK_KIND_SPIRV)
        clcpk_text_add(&t, "clcpack rebuild cache 1\nspirv crc32=%08x size=%llu\noptions %s\n",
                       e->raw_crc32, (unsigned long long)e->raw_size, e->options);
    else
        clcpk_text_add(&t, "clcpack rebuild cache 1\nsource crc32=%08x size=%llu\noptions %s\n",
                       p->sources[e->source].info.raw_crc32,
                       (unsigned long long)p->sources[e->source].info.raw_size, e->options);
    for (size_t i = 0; i < e->define_count; i++)
        clcpk_text_add(&t, "define %s=%s\n", e->defines[i].name, e->defines[i].value);
    clcpk_text_add(&t,
                   "platform %s\nplatform_version %s\ndevice %s\ndevice_version %s\n"
                   "driver_version %s\nopencl_c_version %s\ntype %llu vendor %u address_bits %u\n"
                   "uuid %u %s %s\nnv_cc %u.%u\n",
                   d->platform_name, d->platform_version, d->device_name, d->device_version,
                   d->driver_version, d->opencl_c_version, (unsigned long long)d->device_type,
                   d->vendor_id, d->address_bits, d->has_uuid, du, dr, d->nv_cc_major,
                   d->nv_cc_minor);
    /* Only where there is one, so the keys of every other device stay
     * those of earlier versions. */
    if (d->intel_ip_version || d->intel_device_id)
        clcpk_text_add(&t, "intel %u %u\n", d->intel_ip_version, d->intel_device_id);
    return buf;
}

int clcpk_cache_begin(pk_cache *c, const clcpack *p, size_t entry,
                      const clcpack_device_info *here, uint32_t flags, char *why,
                      size_t why_cap)
{
    memset(c, 0, sizeof *c);
    if (why_cap)
        why[0] = '\0';
    if (flags & CLCPACK_LOAD_NO_CACHE)
        return 0;
    c->dir = cache_folder(flags);
    if (!c->dir) {
        if ((flags & CLCPACK_LOAD_CACHE) && why_cap)
            snprintf(why, why_cap, "no folder (set CLCPACK_CACHE_DIR or HOME)");
        return 0;
    }
    c->key = key_text(p, entry, here);
    if (c->key) {
        c->key_len = strlen(c->key);
        uint64_t h = 0xcbf29ce484222325ull;
        for (size_t i = 0; i < c->key_len; i++)
            h = (h ^ (uint8_t)c->key[i]) * 0x100000001b3ull;
        c->path = clcpk_strdup_printf("%s/%016llx%08x.clcbin", c->dir, (unsigned long long)h,
                             clcpk_crc32(c->key, c->key_len));
    }
    if (!c->key || !c->path || c->key_len > PK_CACHE_KEY_MAX) {
        if (why_cap)
            snprintf(why, why_cap, "%s", c->key && c->path ? "key too long" : "out of memory");
        clcpk_cache_end(c);
        return 0;
    }
    return 1;
}

void clcpk_cache_end(pk_cache *c)
{
    free(c->dir);
    free(c->path);
    free(c->key);
    memset(c, 0, sizeof *c);
}

/* n bytes at *at, *at moved past them; 0 or -1. */
static int read_exact(clcpk_fd fd, uint8_t *buf, size_t n, uint64_t *at)
{
    while (n) {
        size_t r;
        if (clcpk_os_pread(fd, buf, n, *at, &r) != 0 || r == 0)
            return -1;
        buf += r;
        n -= r;
        *at += r;
    }
    return 0;
}

uint8_t *clcpk_cache_read(const pk_cache *c, size_t *size, char *why, size_t cap)
{
    why[0] = '\0';
    clcpk_fd fd;
    if (clcpk_os_open_read(c->path, &fd) != 0)
        return NULL;
    clcpk_stat st;
    uint64_t at = 0;
    uint8_t head[PK_CACHE_HEADER];
    uint8_t *file = NULL;
    const char *bad = NULL;
    if (clcpk_os_fstat(fd, &st) != 0 || st.kind != CLCPK_KIND_FILE) {
        bad = "not a regular file";
    } else if (st.size < PK_CACHE_HEADER || read_exact(fd, head, sizeof head, &at) != 0) {
        bad = "shorter than its header";
    } else if (memcmp(head, PK_CACHE_MAGIC, 8) != 0) {
        bad = "not a rebuild cache file (magic)";
    } else if (get_le32(head + 28) != clcpk_crc32(head, 28)) {
        bad = "header checksum mismatch";
    } else {
        uint32_t key_len = get_le32(head + 8);
        uint64_t bin_len = get_le64(head + 12);
        if (key_len != c->key_len || bin_len == 0 || bin_len > PK_CACHE_BINARY_MAX) {
            bad = key_len != c->key_len ? "written for another key" : "implausible binary size";
        } else if (st.size != PK_CACHE_HEADER + key_len + bin_len) {
            bad = "its size does not match its header";
        } else if (!(file = malloc(key_len + (size_t)bin_len))) {
            bad = "out of memory";
        } else if (read_exact(fd, file, key_len + (size_t)bin_len, &at) != 0) {
            bad = "read failed";
        } else if (get_le32(head + 24) != clcpk_crc32(file, key_len) ||
                   memcmp(file, c->key, key_len) != 0) {
            bad = "written for another key";
        } else if (get_le32(head + 20) != clcpk_crc32(file + key_len, (size_t)bin_len)) {
            bad = "binary checksum mismatch";
        } else {
            memmove(file, file + key_len, (size_t)bin_len);
            *size = (size_t)bin_len;
        }
    }
    clcpk_os_close(fd);
    if (bad) {
        free(file);
        snprintf(why, cap, "%s", bad);
        return NULL;
    }
    /* A use: eviction removes the files unused the longest. */
    clcpk_os_touch(c->path);
    return file;
}

typedef struct cached_file {
    char *name;
    uint64_t size;
    int64_t mtime_ns;
} cached_file;

static int older_first(const void *a, const void *b)
{
    const cached_file *x = a, *y = b;
    if (x->mtime_ns != y->mtime_ns)
        return x->mtime_ns < y->mtime_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

static uint64_t cache_bound(void)
{
    const char *env = getenv("CLCPACK_CACHE_MAX_MB");
    char *end;
    unsigned long long mb = env && *env ? strtoull(env, &end, 10) : PK_CACHE_DEFAULT_MB;
    if (env && *env && (*end || mb == 0 || mb > (1ull << 30)))
        mb = PK_CACHE_DEFAULT_MB;
    return (uint64_t)mb * 1024 * 1024;
}

/* The .clcbin files of the cache's folder, gathered by list_dir. */
typedef struct cache_scan {
    cached_file *files;
    size_t n, cap;
    uint64_t total;
    const char *keep;
} cache_scan;

static int gather(void *ctx, const char *name, const clcpk_stat *st)
{
    cache_scan *s = ctx;
    size_t len = strlen(name);
    if (len < 8 || strcmp(name + len - 7, ".clcbin") != 0 || !st || st->kind != CLCPK_KIND_FILE)
        return 0;
    if (s->n == s->cap) {
        size_t ncap = s->cap ? 2 * s->cap : 64;
        cached_file *grown = realloc(s->files, ncap * sizeof *grown);
        if (!grown)
            return 1;
        s->files = grown;
        s->cap = ncap;
    }
    cached_file *f = &s->files[s->n];
    if (!(f->name = strdup(name)))
        return 1;
    f->size = st->size;
    f->mtime_ns = strcmp(name, s->keep) == 0 ? INT64_MAX : st->mtime_ns; /* keep: newest */
    s->total += st->size;
    s->n++;
    return 0;
}

/* Removes the least recently used .clcbin files until the folder's total
 * is within the bound; keep (the file just written) goes last. */
static void trim(const char *dir, const char *keep, uint64_t bound)
{
    cache_scan s = {NULL, 0, 0, 0, keep};
    if (clcpk_os_list_dir(dir, gather, &s) != 0)
        return;
    if (s.n)
        qsort(s.files, s.n, sizeof *s.files, older_first);
    for (size_t i = 0; i < s.n && s.total > bound; i++) {
        char *path = clcpk_strdup_printf("%s/%s", dir, s.files[i].name);
        int e = path ? clcpk_os_unlink(path) : ENOMEM;
        if (e == 0 || e == ENOENT)
            s.total -= s.files[i].size;
        free(path);
    }
    for (size_t i = 0; i < s.n; i++)
        free(s.files[i].name);
    free(s.files);
}

int clcpk_cache_store(const pk_cache *c, const uint8_t *bin, size_t size, char *why, size_t cap)
{
    uint64_t bound = cache_bound();
    if (size == 0 || (uint64_t)size > PK_CACHE_BINARY_MAX ||
        PK_CACHE_HEADER + c->key_len + (uint64_t)size > bound) {
        snprintf(why, cap, "a binary of %zu bytes does not fit the cache's bound", size);
        return -1;
    }
    int err_no = clcpk_make_dirs(c->dir, 0755, 0700) != 0 ? errno : 0;
    if (err_no != 0) {
        char msg[128];
        snprintf(why, cap, "cannot create the folder %s: %s", c->dir,
                 clcpk_errno_text(err_no, msg, sizeof msg));
        return -1;
    }
    size_t total = PK_CACHE_HEADER + c->key_len + size;
    uint8_t *file = malloc(total);
    if (!file) {
        snprintf(why, cap, "out of memory");
        return -1;
    }
    memcpy(file, PK_CACHE_MAGIC, 8);
    put_le32(file + 8, (uint32_t)c->key_len);
    put_le64(file + 12, (uint64_t)size);
    put_le32(file + 20, clcpk_crc32(bin, size));
    put_le32(file + 24, clcpk_crc32(c->key, c->key_len));
    put_le32(file + 28, clcpk_crc32(file, 28));
    memcpy(file + PK_CACHE_HEADER, c->key, c->key_len);
    memcpy(file + PK_CACHE_HEADER + c->key_len, bin, size);
    clcpack_error e;
    clcpack_status st = clcpk_write_file_atomic(c->path, file, total, &e);
    free(file);
    if (st != CLCPACK_OK) {
        snprintf(why, cap, "%s", e.message);
        return -1;
    }
    const char *name = c->path;
    for (const char *q = c->path; *q; q++)
        if (clcpk_os_is_sep(*q))
            name = q + 1;
    trim(c->dir, name, bound);
    return 0;
}

uint8_t *clcpk_cache_program_binary(cl_program prog, size_t *size)
{
    cl_uint n = 0;
    if (clGetProgramInfo(prog, CL_PROGRAM_NUM_DEVICES, sizeof n, &n, NULL) != CL_SUCCESS ||
        n != 1)
        return NULL;
    size_t len = 0;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, NULL) != CL_SUCCESS ||
        len == 0)
        return NULL;
    unsigned char *bin = malloc(len);
    if (!bin)
        return NULL;
    unsigned char *bins[1] = {bin};
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) != CL_SUCCESS) {
        free(bin);
        return NULL;
    }
    *size = len;
    return bin;
}
