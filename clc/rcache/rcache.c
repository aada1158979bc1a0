/* rcache.c — a build worker's side of the remote cache (rcache.h). */
#include "rcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bounded_fmt.h"

struct rcache {
    rcache_http_client *http;
    int readonly;
    int lookups, uploads;  /* still on in this worker */
};

/* The first line of a regular file (at most cap - 1 bytes, a trailing CR
 * dropped): 0, or -1 with errno. */
static int first_line(const char *path, char *out, size_t cap)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    size_t n = 0;
    while (n + 1 < cap) {
        ssize_t got = read(fd, out + n, cap - 1 - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            close(fd);
            errno = e;
            return -1;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    out[n] = '\0';
    out[strcspn(out, "\n")] = '\0';
    size_t len = strlen(out);
    if (len && out[len - 1] == '\r')
        out[len - 1] = '\0';
    return 0;
}

/* One credential: the variable, else the file its _FILE variable names. */
static void one_credential(const char *var, char out[RCACHE_CRED_MAX], char note[RCACHE_MSG_MAX])
{
    out[0] = '\0';
    const char *v = getenv(var);
    if (v && *v) {
        bfmt(out, RCACHE_CRED_MAX, "%s", v);
        return;
    }
    char file_var[96];
    bfmt(file_var, sizeof file_var, "%s_FILE", var);
    const char *path = getenv(file_var);
    if (!path || !*path)
        return;
    if (first_line(path, out, RCACHE_CRED_MAX) != 0) {
        out[0] = '\0';
        if (!note[0])
            bfmt(note, RCACHE_MSG_MAX, "%s=%s cannot be read (%s): no credentials sent", file_var,
                 path, errno == EINVAL ? "not a regular file" : strerror(errno));
    }
}

void rcache_credentials(char bearer[RCACHE_CRED_MAX], char userpwd[RCACHE_CRED_MAX], char note[RCACHE_MSG_MAX])
{
    note[0] = '\0';
    one_credential("CLC_PACK_REMOTE_CACHE_TOKEN", bearer, note);
    userpwd[0] = '\0';
    if (!bearer[0])
        one_credential("CLC_PACK_REMOTE_CACHE_BASIC_AUTH", userpwd, note);
}

rcache *rcache_open(const rcache_config *c, char *err, size_t cap)
{
    char bearer[RCACHE_CRED_MAX], userpwd[RCACHE_CRED_MAX], note[RCACHE_MSG_MAX];
    rcache_credentials(bearer, userpwd, note);
    rcache_http_config hc = {c->url, c->timeout_s, bearer[0] ? bearer : NULL,
                     userpwd[0] ? userpwd : NULL};
    rcache *r = calloc(1, sizeof *r);
    if (!r) {
        bfmt(err, cap, "out of memory");
        return NULL;
    }
    r->http = rcache_http_open(&hc, err, cap);
    memset(bearer, 0, sizeof bearer);
    memset(userpwd, 0, sizeof userpwd);
    if (!r->http) {
        free(r);
        return NULL;
    }
    r->readonly = c->readonly;
    r->lookups = 1;
    r->uploads = !c->readonly;
    return r;
}

void rcache_close(rcache *c)
{
    if (!c)
        return;
    rcache_http_close(c->http);
    free(c);
}

int rcache_lookups_on(const rcache *c)
{
    return c && c->lookups;
}

int rcache_uploads_on(const rcache *c)
{
    return c && c->uploads;
}

/* A failed request: this worker asks no more (a server that is down or
 * refuses us would cost every later variant the same wait). */
static build_variant_remote give_up(rcache *c, char why[RCACHE_MSG_MAX], const char *what)
{
    c->lookups = 0;
    c->uploads = 0;
    bfmt(why, RCACHE_MSG_MAX, "%s; this worker builds without the cache from now on", what);
    return BUILD_VARIANT_REMOTE_FAILED;
}

build_variant_remote rcache_lookup(rcache *c, const char *key, const char *key_text, size_t key_len,
                    rcache_record *rec, char why[RCACHE_MSG_MAX])
{
    memset(rec, 0, sizeof *rec);
    why[0] = '\0';
    if (!c || !c->lookups)
        return BUILD_VARIANT_REMOTE_NONE;
    char path[96], msg[RCACHE_HTTP_MSG_MAX], err[RCACHE_RECORD_ERR_MAX];
    unsigned char *body = NULL;
    size_t len = 0;
    bfmt(path, sizeof path, "ac/%s", key);
    rcache_http_status st = rcache_http_get(c->http, path, RCACHE_RECORD_AC_MAX, &body, &len, msg);
    if (st == RCACHE_HTTP_NOT_FOUND)
        return BUILD_VARIANT_REMOTE_MISS;
    if (st == RCACHE_HTTP_TOO_LARGE) {
        bfmt(why, RCACHE_MSG_MAX, "%s", msg);
        return BUILD_VARIANT_REMOTE_REJECTED;
    }
    if (st != RCACHE_HTTP_OK)
        return give_up(c, why, msg);
    char hash[RCACHE_KEY_HEX_SIZE];
    uint64_t size = 0;
    int bad = rcache_record_ac_decode(body, len, hash, &size, err);
    free(body);
    if (bad) {
        bfmt(why, RCACHE_MSG_MAX, "%s", err);
        return BUILD_VARIANT_REMOTE_REJECTED;
    }
    bfmt(path, sizeof path, "cas/%s", hash);
    st = rcache_http_get(c->http, path, (size_t)size, &body, &len, msg);
    if (st == RCACHE_HTTP_NOT_FOUND)
        return BUILD_VARIANT_REMOTE_MISS; /* the object expired */
    if (st == RCACHE_HTTP_TOO_LARGE) {
        bfmt(why, RCACHE_MSG_MAX, "the object is larger than the %llu bytes its action result says",
             (unsigned long long)size);
        return BUILD_VARIANT_REMOTE_REJECTED;
    }
    if (st != RCACHE_HTTP_OK)
        return give_up(c, why, msg);
    char got[RCACHE_KEY_HEX_SIZE];
    rcache_key_sha256_hex(body, len, got);
    if (len != size) {
        bfmt(why, RCACHE_MSG_MAX, "the object has %zu bytes; its action result says %llu", len,
             (unsigned long long)size);
    } else if (strcmp(got, hash) != 0) {
        bfmt(why, RCACHE_MSG_MAX, "the object's SHA-256 is %.12s..., not %.12s... (its address)",
             got, hash);
    } else if (rcache_record_decode(body, len, rec, err) != 0) {
        bfmt(why, RCACHE_MSG_MAX, "%s", err);
    } else if (rec->key_len != key_len || memcmp(rec->key_text, key_text, key_len) != 0) {
        rcache_record_free(rec);
        bfmt(why, RCACHE_MSG_MAX, "the record was built for another variant (its key text differs)");
    }
    free(body);
    return why[0] ? BUILD_VARIANT_REMOTE_REJECTED : BUILD_VARIANT_REMOTE_HIT;
}

build_variant_upload rcache_store(rcache *c, const char *key, const rcache_record *rec, int replace,
                   char why[RCACHE_MSG_MAX])
{
    why[0] = '\0';
    if (!c || !c->uploads)
        return BUILD_VARIANT_UPLOAD_NONE;
    strbuf obj;
    sb_init(&obj);
    rcache_record_encode(rec, &obj);
    if (obj.failed || obj.len > RCACHE_RECORD_OBJECT_MAX) {
        sb_free(&obj);
        return BUILD_VARIANT_UPLOAD_NONE;
    }
    size_t size = obj.len;
    char hash[RCACHE_KEY_HEX_SIZE], path[96], msg[RCACHE_HTTP_MSG_MAX] = "";
    rcache_key_sha256_hex(obj.data, size, hash);
    bfmt(path, sizeof path, "cas/%s", hash);
    int64_t have = -1;
    rcache_http_status st = replace ? RCACHE_HTTP_NOT_FOUND : rcache_http_head(c->http, path, &have, msg);
    /* An object already there (another runner built the same bytes) is
     * not sent again: its name is its content (unless what the server
     * has under that name was found damaged). A HEAD a server does not
     * allow is no reason not to try the PUT. */
    if (!(st == RCACHE_HTTP_OK && have == (int64_t)size)) {
        if (st == RCACHE_HTTP_OK || st == RCACHE_HTTP_NOT_FOUND || st == RCACHE_HTTP_REFUSED || st == RCACHE_HTTP_DENIED)
            st = rcache_http_put(c->http, path, obj.data, size, msg);
    }
    sb_free(&obj);
    if (st == RCACHE_HTTP_OK) {
        /* The object first, then what points at it: a reader never finds
         * an action result whose object is not complete. */
        unsigned char ac[RCACHE_RECORD_AC_MAX];
        size_t n = rcache_record_ac_encode(hash, (uint64_t)size, ac);
        bfmt(path, sizeof path, "ac/%s", key);
        st = rcache_http_put(c->http, path, ac, n, msg);
    }
    if (st == RCACHE_HTTP_OK)
        return BUILD_VARIANT_UPLOAD_DONE;
    c->uploads = 0;
    bfmt(why, RCACHE_MSG_MAX, "%s; this worker uploads nothing more", msg);
    return BUILD_VARIANT_UPLOAD_FAILED;
}
