/* rebuild_cache.c — the rebuild cache (rebuild_cache.h, docs/CACHE.md). */
#include "rebuild_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytes.h"
#include "codec.h"
#include "errors.h"
#include "fd_io.h"
#include "file_atomic.h"
#include "make_dirs.h"
#include "pack_reader.h"
#include "text.h"
#include "text_format.h"

static char *cache_folder(uint32_t flags)
{
    const char *env = getenv("CLCPACK_CACHE_DIR");
    if (!(flags & CLCPACK_LOAD_CACHE) && !(env && *env))
        return NULL;
    if (env && *env)
        return strdup(env);
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && xdg[0] == '/')
        return clcpk_strdup_printf("%s/clcpack", xdg);
    const char *home = getenv("HOME");
    if (home && home[0] == '/')
        return clcpk_strdup_printf("%s/.cache/clcpack", home);
    return NULL;
}

clcpack_status clcpack_cache_folder(char *buf, size_t cap, size_t *len, clcpack_error *err)
{
    if (!buf && cap)
        return clcpk_fail(err, CLCPACK_E_INVALID_ARG, "clcpack_cache_folder: buf is NULL");
    char *dir = cache_folder(CLCPACK_LOAD_CACHE);
    if (!dir)
        return clcpk_fail(err, CLCPACK_E_NOT_FOUND,
                          "no rebuild cache folder: none of CLCPACK_CACHE_DIR, XDG_CACHE_HOME "
                          "and HOME names one");
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

uint8_t *clcpk_cache_read(const pk_cache *c, size_t *size, char *why, size_t cap)
{
    why[0] = '\0';
    int fd = open(c->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    uint8_t head[PK_CACHE_HEADER];
    uint8_t *file = NULL;
    const char *bad = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        bad = "not a regular file";
    } else if ((uint64_t)st.st_size < PK_CACHE_HEADER ||
               clcpk_fd_read_all(fd, head, sizeof head) != 0) {
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
        } else if ((uint64_t)st.st_size != PK_CACHE_HEADER + key_len + bin_len) {
            bad = "its size does not match its header";
        } else if (!(file = malloc(key_len + (size_t)bin_len))) {
            bad = "out of memory";
        } else if (clcpk_fd_read_all(fd, file, key_len + (size_t)bin_len) != 0) {
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
    close(fd);
    if (bad) {
        free(file);
        snprintf(why, cap, "%s", bad);
        return NULL;
    }
    /* A use: eviction removes the files unused the longest. */
    utimensat(AT_FDCWD, c->path, NULL, 0);
    return file;
}

typedef struct cached_file {
    char *name;
    off_t size;
    struct timespec mtime;
} cached_file;

static int older_first(const void *a, const void *b)
{
    const cached_file *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec)
        return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
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

/* Removes the least recently used .clcbin files until the folder's total
 * is within the bound; keep (the file just written) goes last. */
static void trim(const char *dir, const char *keep, uint64_t bound)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    cached_file *files = NULL;
    size_t n = 0, cap = 0;
    uint64_t total = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 8 || strcmp(de->d_name + len - 7, ".clcbin") != 0)
            continue;
        struct stat st;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (n == cap) {
            size_t ncap = cap ? 2 * cap : 64;
            cached_file *grown = realloc(files, ncap * sizeof *grown);
            if (!grown)
                break;
            files = grown;
            cap = ncap;
        }
        if (!(files[n].name = strdup(de->d_name)))
            break;
        files[n].size = st.st_size;
        files[n].mtime = st.st_mtim;
        if (strcmp(de->d_name, keep) == 0)
            files[n].mtime.tv_sec = (time_t)((~(uint64_t)0) >> 2); /* newest */
        total += (uint64_t)st.st_size;
        n++;
    }
    if (n)
        qsort(files, n, sizeof *files, older_first);
    for (size_t i = 0; i < n && total > bound; i++)
        if (unlinkat(dirfd(d), files[i].name, 0) == 0 || errno == ENOENT)
            total -= (uint64_t)files[i].size;
    for (size_t i = 0; i < n; i++)
        free(files[i].name);
    free(files);
    closedir(d);
}

int clcpk_cache_store(const pk_cache *c, const uint8_t *bin, size_t size, char *why, size_t cap)
{
    uint64_t bound = cache_bound();
    if (size == 0 || (uint64_t)size > PK_CACHE_BINARY_MAX ||
        PK_CACHE_HEADER + c->key_len + (uint64_t)size > bound) {
        snprintf(why, cap, "a binary of %zu bytes does not fit the cache's bound", size);
        return -1;
    }
    if (clcpk_make_dirs(c->dir, 0755, 0700) != 0) {
        snprintf(why, cap, "cannot create the folder %s: %s", c->dir, strerror(errno));
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
    const char *slash = strrchr(c->path, '/');
    trim(c->dir, slash ? slash + 1 : c->path, bound);
    return 0;
}
