/* lcache.c — the variant cache's entries (lcache.h). */
#include "lcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "clcpack_write.h"
#include "fd_io.h"
#include "file_atomic.h"
#include "sha256.h"

/* A value that names a folder: set, not empty, absolute (a relative one
 * would name a different folder from every working folder). */
static const char *absolute_env(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] == '/' ? v : NULL;
}

int lcache_folder(char *out, size_t cap, const char **from)
{
    const char *v;
    if ((v = absolute_env("CLC_PACK_CACHE_DIR"))) {
        *from = "CLC_PACK_CACHE_DIR";
        bfmt(out, cap, "%s/%s", v, LCACHE_SUBFOLDER);
    } else if ((v = absolute_env("XDG_CACHE_HOME"))) {
        *from = "XDG_CACHE_HOME";
        bfmt(out, cap, "%s/clc-pack/%s", v, LCACHE_SUBFOLDER);
    } else if ((v = absolute_env("HOME"))) {
        *from = "HOME";
        bfmt(out, cap, "%s/.cache/clc-pack/%s", v, LCACHE_SUBFOLDER);
    } else {
        *from = NULL;
        out[0] = '\0';
        return -1;
    }
    return 0;
}

static int env_on(const char *name)
{
    const char *v = getenv(name);
    return v && (strcmp(v, "1") == 0 || strcasecmp(v, "yes") == 0 ||
                 strcasecmp(v, "true") == 0 || strcasecmp(v, "on") == 0);
}

int lcache_env_off(void)
{
    /* CLCPACK_ is the library's prefix; a user who spells the tool's
     * variable that way means the same. */
    return env_on("CLC_PACK_NO_CACHE") || env_on("CLCPACK_NO_CACHE");
}

int lcache_env_load_hits(void)
{
    return env_on("CLC_PACK_CACHE_LOAD");
}

int lcache_parse_size(const char *s, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long n = strtoull(s, &end, 10);
    if (errno || n == 0)
        return -1;
    static const char units[] = "KMGT";
    const char *u = *end ? strchr(units, *end & ~0x20) : NULL;
    unsigned shift = 0;
    if (u) {
        shift = 10u * (unsigned)(u - units + 1);
        end++;
        /* "K", "KB", "KiB" alike: the cache's bound is no place for
         * powers of 1000. */
        if (end[0] == 'i' && (end[1] == 'B' || end[1] == 'b'))
            end += 2;
        else if (end[0] == 'B' || end[0] == 'b')
            end++;
    }
    if (*end || (shift && n > (UINT64_MAX >> shift)))
        return -1;
    *out = (uint64_t)n << shift;
    return 0;
}

void lcache_entry_path(const char *folder, const char *key, char *out, size_t cap)
{
    bfmt(out, cap, "%s/%s%s", folder, key, LCACHE_SUFFIX);
}

void lcache_encode(const rcache_record *rec, strbuf *out)
{
    strbuf body;
    sb_init(&body);
    rcache_record_encode(rec, &body);
    if (body.failed) {
        out->failed = 1;
        sb_free(&body);
        return;
    }
    uint8_t digest[CLCPACK_SHA256_SIZE];
    clcpk_digest_sha256(body.data, body.len, digest);
    sb_put(out, LCACHE_MAGIC, 8);
    sb_put(out, digest, sizeof digest);
    sb_put(out, body.data, body.len);
    sb_free(&body);
}

int lcache_decode(const unsigned char *data, size_t size, rcache_record *rec,
                  char why[LCACHE_MSG_MAX])
{
    memset(rec, 0, sizeof *rec);
    if (size < LCACHE_HEAD_SIZE || size - LCACHE_HEAD_SIZE > RCACHE_RECORD_OBJECT_MAX) {
        bfmt(why, LCACHE_MSG_MAX, "the entry has %zu bytes", size);
        return -1;
    }
    if (memcmp(data, LCACHE_MAGIC, 8) != 0) {
        bfmt(why, LCACHE_MSG_MAX, "the entry does not start with %s", LCACHE_MAGIC);
        return -1;
    }
    uint8_t digest[CLCPACK_SHA256_SIZE];
    clcpk_digest_sha256(data + LCACHE_HEAD_SIZE, size - LCACHE_HEAD_SIZE, digest);
    if (memcmp(digest, data + 8, sizeof digest) != 0) {
        bfmt(why, LCACHE_MSG_MAX, "the record's SHA-256 is not the one in the entry's head");
        return -1;
    }
    char err[RCACHE_RECORD_ERR_MAX];
    if (rcache_record_decode(data + LCACHE_HEAD_SIZE, size - LCACHE_HEAD_SIZE, rec, err) != 0) {
        bfmt(why, LCACHE_MSG_MAX, "%s", err);
        return -1;
    }
    return 0;
}

/* Entries are renamed into place whole, never written in place, so the
 * size fstat gives is the file's. */
int lcache_read_whole(int fd, uint64_t max, unsigned char **data, size_t *size)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
    if (!S_ISREG(st.st_mode)) {
        errno = EINVAL;
        return -1;
    }
    if ((uint64_t)st.st_size > max) {
        errno = EFBIG;
        return -1;
    }
    *size = (size_t)st.st_size;
    *data = malloc(*size ? *size : 1);
    if (!*data)
        return -1;
    if (clcpk_fd_read_all((clcpk_fd)fd, *data, *size) != 0) {
        int e = errno;
        free(*data);
        errno = e;
        return -1;
    }
    return 0;
}

/* A writer may have renamed a good entry over the bad one since. */
void lcache_remove_if_same(const char *path, int fd)
{
    struct stat mine, now;
    if (fstat(fd, &mine) == 0 && lstat(path, &now) == 0 && mine.st_dev == now.st_dev &&
        mine.st_ino == now.st_ino)
        unlink(path);
}

build_variant_remote lcache_lookup(const char *folder, const char *key, const char *key_text,
                                   size_t key_len, rcache_record *rec, char why[LCACHE_MSG_MAX])
{
    memset(rec, 0, sizeof *rec);
    why[0] = '\0';
    char path[4096];
    lcache_entry_path(folder, key, path, sizeof path);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return BUILD_VARIANT_REMOTE_MISS; /* ENOENT; anything else is a miss as well */
    unsigned char *data = NULL;
    size_t size = 0;
    if (lcache_read_whole(fd, LCACHE_HEAD_SIZE + (uint64_t)RCACHE_RECORD_OBJECT_MAX, &data, &size) !=
        0) {
        bfmt(why, LCACHE_MSG_MAX, "cannot read %s: %s", path, strerror(errno));
        if (errno == EFBIG || errno == EIO)
            lcache_remove_if_same(path, fd); /* too large, or shorter than it says */
        close(fd);
        return BUILD_VARIANT_REMOTE_REJECTED;
    }
    if (lcache_decode(data, size, rec, why) == 0 &&
        (rec->key_len != key_len || memcmp(rec->key_text, key_text, key_len) != 0)) {
        rcache_record_free(rec);
        bfmt(why, LCACHE_MSG_MAX, "the entry was built for another variant (its key text differs)");
    }
    free(data);
    if (why[0]) {
        lcache_remove_if_same(path, fd);
        close(fd);
        return BUILD_VARIANT_REMOTE_REJECTED;
    }
    /* Its last use, which the bound evicts by (lcache_space.h). */
    futimens(fd, NULL);
    close(fd);
    return BUILD_VARIANT_REMOTE_HIT;
}

int lcache_store(const char *folder, const char *key, const rcache_record *rec,
                 char why[LCACHE_MSG_MAX])
{
    why[0] = '\0';
    strbuf b;
    sb_init(&b);
    lcache_encode(rec, &b);
    if (b.failed || b.len > LCACHE_HEAD_SIZE + (size_t)RCACHE_RECORD_OBJECT_MAX) {
        sb_free(&b);
        bfmt(why, LCACHE_MSG_MAX, "the entry is too large or out of memory");
        return -1;
    }
    char path[4096];
    lcache_entry_path(folder, key, path, sizeof path);
    clcpack_error e;
    clcpack_status st = clcpk_write_file_atomic(path, b.data, b.len, &e);
    sb_free(&b);
    if (st != CLCPACK_OK) {
        bfmt(why, LCACHE_MSG_MAX, "%s", e.message);
        return -1;
    }
    return 0;
}

void lcache_drop(const char *folder, const char *key)
{
    char path[4096];
    lcache_entry_path(folder, key, path, sizeof path);
    unlink(path);
}
