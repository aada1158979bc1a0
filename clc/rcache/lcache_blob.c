/* lcache_blob.c — the encoder's results in the variant cache's folder (lcache_blob.h). */
#include "lcache_blob.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "clcpack_write.h"
#include "file_atomic.h"
#include "sha256.h"

void lcache_blob_path(const char *folder, const uint8_t key[LCACHE_BLOB_KEY_SIZE], char *out,
                      size_t cap)
{
    char hex[2 * LCACHE_BLOB_KEY_SIZE + 1];
    clcpk_hex(key, LCACHE_BLOB_KEY_SIZE, hex);
    bfmt(out, cap, "%s/%s%s", folder, hex, LCACHE_BLOB_SUFFIX);
}

/* Why size bytes at d are not key's file, or NULL when they are. */
static const char *damage(const unsigned char *d, size_t size, const uint8_t *key)
{
    if (size < LCACHE_BLOB_HEAD_SIZE)
        return "shorter than its head";
    if (memcmp(d, LCACHE_BLOB_MAGIC, 8) != 0)
        return "it does not start with " LCACHE_BLOB_MAGIC;
    if (memcmp(d + 8, key, LCACHE_BLOB_KEY_SIZE) != 0)
        return "it holds another key (a file copied or renamed)";
    uint8_t digest[CLCPACK_SHA256_SIZE];
    clcpk_digest_sha256(d + LCACHE_BLOB_HEAD_SIZE, size - LCACHE_BLOB_HEAD_SIZE, digest);
    if (memcmp(digest, d + 8 + LCACHE_BLOB_KEY_SIZE, sizeof digest) != 0)
        return "its bytes' SHA-256 is not the one in its head";
    return NULL;
}

int lcache_blob_get(const char *folder, const uint8_t key[LCACHE_BLOB_KEY_SIZE], uint8_t **data,
                    size_t *n, char why[LCACHE_MSG_MAX])
{
    *data = NULL;
    *n = 0;
    why[0] = '\0';
    char path[4096];
    lcache_blob_path(folder, key, path, sizeof path);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    unsigned char *d = NULL;
    size_t size = 0;
    const char *bad = NULL;
    int err = 0;
    if (lcache_read_whole(fd, LCACHE_BLOB_HEAD_SIZE + LCACHE_BLOB_MAX, &d, &size) != 0) {
        err = errno;
        bfmt(why, LCACHE_MSG_MAX, "cannot read %s: %s", path, strerror(err));
    } else if ((bad = damage(d, size, key))) {
        bfmt(why, LCACHE_MSG_MAX, "%s: %s", path, bad);
    }
    if (why[0]) {
        free(d);
        if (bad || err == EFBIG || err == EIO) /* too large, or shorter than it says */
            lcache_remove_if_same(path, fd);
        close(fd);
        return -1;
    }
    futimens(fd, NULL); /* its last use, which the bound evicts by */
    close(fd);
    memmove(d, d + LCACHE_BLOB_HEAD_SIZE, size - LCACHE_BLOB_HEAD_SIZE);
    *data = d;
    *n = size - LCACHE_BLOB_HEAD_SIZE;
    return 1;
}

int lcache_blob_put(const char *folder, const uint8_t key[LCACHE_BLOB_KEY_SIZE], const void *data,
                    size_t n, char why[LCACHE_MSG_MAX])
{
    why[0] = '\0';
    if (n > LCACHE_BLOB_MAX) {
        bfmt(why, LCACHE_MSG_MAX, "%zu bytes: larger than any blob", n);
        return -1;
    }
    unsigned char *b = malloc(LCACHE_BLOB_HEAD_SIZE + n);
    if (!b) {
        bfmt(why, LCACHE_MSG_MAX, "out of memory");
        return -1;
    }
    memcpy(b, LCACHE_BLOB_MAGIC, 8);
    memcpy(b + 8, key, LCACHE_BLOB_KEY_SIZE);
    clcpk_digest_sha256(data, n, b + 8 + LCACHE_BLOB_KEY_SIZE);
    if (n)
        memcpy(b + LCACHE_BLOB_HEAD_SIZE, data, n);
    char path[4096];
    lcache_blob_path(folder, key, path, sizeof path);
    clcpack_error e;
    clcpack_status st = clcpk_write_file_atomic(path, b, LCACHE_BLOB_HEAD_SIZE + n, &e);
    free(b);
    if (st != CLCPACK_OK) {
        bfmt(why, LCACHE_MSG_MAX, "%s", e.message);
        return -1;
    }
    return 0;
}
