/* rcache_http.c — the remote cache's HTTP requests through libcurl (rcache_http.h). */
#include "rcache_http.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bounded_fmt.h"

#define URL_MAX 2000

int rcache_http_check_url(const char *url, char *err, size_t cap)
{
    char clip[BFMT_QUOTE_MAX + 4];
    size_t skip = strncmp(url, "http://", 7) == 0    ? 7
                  : strncmp(url, "https://", 8) == 0 ? 8
                                                     : 0;
    if (!skip) {
        bfmt(err, cap, "'%s' is not an http:// or https:// URL", bfmt_clip(url, clip));
        return -1;
    }
    if (strlen(url) > URL_MAX) {
        bfmt(err, cap, "the URL is longer than %d characters", URL_MAX);
        return -1;
    }
    const char *host = url + skip;
    size_t authority = strcspn(host, "/");
    if (authority == 0) {
        bfmt(err, cap, "'%s' names no host", bfmt_clip(url, clip));
        return -1;
    }
    if (memchr(host, '@', authority)) {
        bfmt(err, cap, "'%s' holds a user name or password: give credentials in "
                       "CLC_PACK_REMOTE_CACHE_TOKEN or CLC_PACK_REMOTE_CACHE_BASIC_AUTH "
                       "(a command line is visible to every user of the machine)",
             bfmt_clip(url, clip));
        return -1;
    }
    for (const char *c = url; *c; c++)
        if (*c == '?' || *c == '#' || (unsigned char)*c <= ' ' || (unsigned char)*c >= 0x7F) {
            bfmt(err, cap, "'%s': a base URL has no query, fragment, blank or control character",
                 bfmt_clip(url, clip));
            return -1;
        }
    return 0;
}

#ifdef CLC_HAVE_CURL

#include <curl/curl.h>

struct rcache_http_client {
    CURL *curl;
    char *base;
    int timeout_s;
    char *auth_header;     /* "Authorization: Bearer ..." or NULL */
    char *userpwd;
    struct curl_slist *headers;
    char curl_err[CURL_ERROR_SIZE];
};

int rcache_http_available(void)
{
    return 1;
}

const char *rcache_http_version(void)
{
    return curl_version();
}

int rcache_http_global_init(void)
{
    return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1;
}

void rcache_http_global_cleanup(void)
{
    curl_global_cleanup();
}

rcache_http_client *rcache_http_open(const rcache_http_config *c, char *err, size_t cap)
{
    rcache_http_client *k = calloc(1, sizeof *k);
    if (!k) {
        bfmt(err, cap, "out of memory");
        return NULL;
    }
    k->curl = curl_easy_init();
    k->base = strdup(c->base);
    k->timeout_s = c->timeout_s > 0 ? c->timeout_s : 10;
    if (c->bearer && *c->bearer) {
        size_t n = strlen(c->bearer) + 32;
        k->auth_header = malloc(n);
        if (k->auth_header)
            bfmt(k->auth_header, n, "Authorization: Bearer %s", c->bearer);
    }
    if (c->userpwd && *c->userpwd)
        k->userpwd = strdup(c->userpwd);
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/octet-stream");
    /* No 100-continue round trip before each upload. */
    h = h ? curl_slist_append(h, "Expect:") : NULL;
    if (h && k->auth_header)
        h = curl_slist_append(h, k->auth_header);
    k->headers = h;
    if (!k->curl || !k->base || !h || (c->bearer && *c->bearer && !k->auth_header) ||
        (c->userpwd && *c->userpwd && !k->userpwd)) {
        bfmt(err, cap, k->curl ? "out of memory" : "libcurl could not start a session");
        rcache_http_close(k);
        return NULL;
    }
    return k;
}

void rcache_http_close(rcache_http_client *c)
{
    if (!c)
        return;
    if (c->curl)
        curl_easy_cleanup(c->curl);
    curl_slist_free_all(c->headers);
    free(c->base);
    if (c->auth_header) {
        memset(c->auth_header, 0, strlen(c->auth_header));
        free(c->auth_header);
    }
    if (c->userpwd) {
        memset(c->userpwd, 0, strlen(c->userpwd));
        free(c->userpwd);
    }
    free(c);
}

typedef struct sink {
    CURL *curl;
    unsigned char *data;
    size_t len, cap, max;
    size_t discarded;
    int too_large;
    int keep;              /* GET keeps a 200 answer's body; others discard */
} sink;

/* Keeps the body of a 200 answer, up to max bytes; discards others (error
 * pages), up to a bound, so a hostile server cannot make us read forever. */
static size_t on_body(char *p, size_t size, size_t n, void *ctx)
{
    sink *s = ctx;
    size_t bytes = size * n;
    long code = 0;
    curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &code);
    if (code != 200 || !s->keep) {
        s->discarded += bytes;
        return s->discarded > (64u << 10) ? 0 : bytes;
    }
    if (bytes > s->max - s->len) {
        s->too_large = 1;
        return 0;
    }
    if (s->len + bytes > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + bytes)
            cap *= 2;
        if (cap > s->max)
            cap = s->max;
        unsigned char *grown = realloc(s->data, cap);
        if (!grown)
            return 0;
        s->data = grown;
        s->cap = cap;
    }
    memcpy(s->data + s->len, p, bytes);
    s->len += bytes;
    return bytes;
}

typedef struct source {
    const unsigned char *data;
    size_t len, at;
} source;

static size_t on_read(char *p, size_t size, size_t n, void *ctx)
{
    source *s = ctx;
    size_t room = size * n, left = s->len - s->at;
    size_t k = room < left ? room : left;
    memcpy(p, s->data + s->at, k);
    s->at += k;
    return k;
}

static int on_seek(void *ctx, curl_off_t offset, int origin)
{
    source *s = ctx;
    if (origin != SEEK_SET || offset < 0 || (uint64_t)offset > s->len)
        return CURL_SEEKFUNC_FAIL;
    s->at = (size_t)offset;
    return CURL_SEEKFUNC_OK;
}

/* The request's path in messages: a 64-digit name cut to 12 and "...". */
static void show_url(const rcache_http_client *c, const char *path, char *buf, size_t cap)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (strlen(name) == 64)
        bfmt(buf, cap, "%s/%.*s%.12s...", c->base, (int)(name - path), path, name);
    else
        bfmt(buf, cap, "%s/%s", c->base, path);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

typedef enum { GET, HEAD, PUT } method;

static int transient(CURLcode rc, long code)
{
    if (rc == CURLE_OK)
        return code == 408 || code == 429 || code == 500 || code == 502 || code == 503 ||
               code == 504;
    return rc == CURLE_COULDNT_CONNECT || rc == CURLE_SEND_ERROR || rc == CURLE_RECV_ERROR ||
           rc == CURLE_GOT_NOTHING || rc == CURLE_PARTIAL_FILE;
}

static rcache_http_status request(rcache_http_client *c, method m, const char *path, const void *data,
                          size_t len, size_t max, sink *out, int64_t *length,
                          char why[RCACHE_HTTP_MSG_MAX])
{
    static const char *const names[] = {"GET", "HEAD", "PUT"};
    char url[URL_MAX + 200], shown[URL_MAX + 200];
    bfmt(url, sizeof url, "%s/%s", c->base, path);
    show_url(c, path, shown, sizeof shown);
    long backoff_ms = 250;
    rcache_http_status st = RCACHE_HTTP_ERROR;
    for (int attempt = 1; attempt <= RCACHE_HTTP_TRIES; attempt++) {
        CURL *k = c->curl;
        curl_easy_reset(k); /* keeps the open connection */
        sink body = {k, NULL, 0, 0, max, 0, 0, m == GET};
        source src = {data, len, 0};
        c->curl_err[0] = '\0';
        curl_easy_setopt(k, CURLOPT_URL, url);
        curl_easy_setopt(k, CURLOPT_ERRORBUFFER, c->curl_err);
        curl_easy_setopt(k, CURLOPT_NOSIGNAL, 1L);
#if LIBCURL_VERSION_NUM >= 0x075500
        curl_easy_setopt(k, CURLOPT_PROTOCOLS_STR, "http,https");
#else
        curl_easy_setopt(k, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
        curl_easy_setopt(k, CURLOPT_FOLLOWLOCATION, 0L);
        curl_easy_setopt(k, CURLOPT_USERAGENT, "clc-pack");
        curl_easy_setopt(k, CURLOPT_HTTPHEADER, c->headers);
        curl_easy_setopt(k, CURLOPT_CONNECTTIMEOUT, (long)c->timeout_s);
        curl_easy_setopt(k, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(k, CURLOPT_LOW_SPEED_TIME, (long)c->timeout_s);
        curl_easy_setopt(k, CURLOPT_TIMEOUT, 6L * c->timeout_s);
        if (c->userpwd) {
            curl_easy_setopt(k, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
            curl_easy_setopt(k, CURLOPT_USERPWD, c->userpwd);
        }
        curl_easy_setopt(k, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(k, CURLOPT_WRITEDATA, &body);
        if (m == HEAD)
            curl_easy_setopt(k, CURLOPT_NOBODY, 1L);
        /* A server may compress what it sends (nginx's gzip, bazel-remote's
         * zstd): records are binaries that shrink about 5:1. The bound on
         * a body applies to the bytes after decoding. */
        if (m == GET)
            curl_easy_setopt(k, CURLOPT_ACCEPT_ENCODING, "");
        if (m == PUT) {
            curl_easy_setopt(k, CURLOPT_UPLOAD, 1L);
            curl_easy_setopt(k, CURLOPT_READFUNCTION, on_read);
            curl_easy_setopt(k, CURLOPT_READDATA, &src);
            curl_easy_setopt(k, CURLOPT_SEEKFUNCTION, on_seek);
            curl_easy_setopt(k, CURLOPT_SEEKDATA, &src);
            curl_easy_setopt(k, CURLOPT_INFILESIZE_LARGE, (curl_off_t)len);
        }
        CURLcode rc = curl_easy_perform(k);
        long code = 0;
        curl_easy_getinfo(k, CURLINFO_RESPONSE_CODE, &code);
        if (rc == CURLE_OK && code >= 200 && code < 300) {
            if (m == GET && code != 200) {
                free(body.data);
                bfmt(why, RCACHE_HTTP_MSG_MAX, "%s %s: HTTP %ld, not 200", names[m], shown, code);
                return RCACHE_HTTP_REFUSED;
            }
            if (length) {
                curl_off_t cl = -1;
                curl_easy_getinfo(k, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
                *length = cl;
            }
            if (out) {
                *out = body;
                return RCACHE_HTTP_OK;
            }
            free(body.data);
            return RCACHE_HTTP_OK;
        }
        free(body.data);
        const char *tries = attempt > 1 ? (attempt == 2 ? " (2 tries)" : " (3 tries)") : "";
        if (rc == CURLE_OK) {
            st = code == 404                 ? RCACHE_HTTP_NOT_FOUND
                 : code == 401 || code == 403 ? RCACHE_HTTP_DENIED
                                              : RCACHE_HTTP_REFUSED;
            bfmt(why, RCACHE_HTTP_MSG_MAX, "%s %s: HTTP %ld%s%s", names[m], shown, code,
                 st == RCACHE_HTTP_DENIED ? " (the credentials are refused)" : "", tries);
        } else if (body.too_large) {
            bfmt(why, RCACHE_HTTP_MSG_MAX, "%s %s: the answer is longer than %zu bytes", names[m],
                 shown, max);
            return RCACHE_HTTP_TOO_LARGE;
        } else {
            st = rc == CURLE_OPERATION_TIMEDOUT ? RCACHE_HTTP_TIMEOUT
                 : rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
                         rc == CURLE_COULDNT_RESOLVE_PROXY || transient(rc, 0)
                     ? RCACHE_HTTP_UNREACHABLE
                     : RCACHE_HTTP_ERROR;
            bfmt(why, RCACHE_HTTP_MSG_MAX, "%s %s: %s%s%s", names[m], shown,
                 st == RCACHE_HTTP_TIMEOUT ? "timed out: " : "",
                 c->curl_err[0] ? c->curl_err : curl_easy_strerror(rc), tries);
        }
        if (attempt == RCACHE_HTTP_TRIES || !transient(rc, code))
            return st;
        sleep_ms(backoff_ms);
        backoff_ms *= 4;
    }
    return st;
}

rcache_http_status rcache_http_get(rcache_http_client *c, const char *path, size_t max, unsigned char **body,
                   size_t *len, char why[RCACHE_HTTP_MSG_MAX])
{
    sink s;
    *body = NULL;
    *len = 0;
    rcache_http_status st = request(c, GET, path, NULL, 0, max, &s, NULL, why);
    if (st == RCACHE_HTTP_OK) {
        *body = s.data ? s.data : malloc(1);
        *len = s.len;
        if (!*body) {
            bfmt(why, RCACHE_HTTP_MSG_MAX, "out of memory");
            return RCACHE_HTTP_ERROR;
        }
    }
    return st;
}

rcache_http_status rcache_http_head(rcache_http_client *c, const char *path, int64_t *length, char why[RCACHE_HTTP_MSG_MAX])
{
    return request(c, HEAD, path, NULL, 0, 0, NULL, length, why);
}

rcache_http_status rcache_http_put(rcache_http_client *c, const char *path, const void *data, size_t len,
                   char why[RCACHE_HTTP_MSG_MAX])
{
    return request(c, PUT, path, data, len, 0, NULL, NULL, why);
}

#else /* built without libcurl */

int rcache_http_available(void)
{
    return 0;
}

const char *rcache_http_version(void)
{
    return "";
}

int rcache_http_global_init(void)
{
    return 0;
}

void rcache_http_global_cleanup(void)
{
}

rcache_http_client *rcache_http_open(const rcache_http_config *c, char *err, size_t cap)
{
    (void)c;
    bfmt(err, cap, "this clc-pack was built without libcurl (make CURL=0), so it has no "
                   "remote cache");
    return NULL;
}

void rcache_http_close(rcache_http_client *c)
{
    (void)c;
}

rcache_http_status rcache_http_get(rcache_http_client *c, const char *path, size_t max, unsigned char **body,
                   size_t *len, char why[RCACHE_HTTP_MSG_MAX])
{
    (void)c;
    (void)path;
    (void)max;
    *body = NULL;
    *len = 0;
    bfmt(why, RCACHE_HTTP_MSG_MAX, "no libcurl");
    return RCACHE_HTTP_ERROR;
}

rcache_http_status rcache_http_head(rcache_http_client *c, const char *path, int64_t *length, char why[RCACHE_HTTP_MSG_MAX])
{
    (void)c;
    (void)path;
    *length = -1;
    bfmt(why, RCACHE_HTTP_MSG_MAX, "no libcurl");
    return RCACHE_HTTP_ERROR;
}

rcache_http_status rcache_http_put(rcache_http_client *c, const char *path, const void *data, size_t len,
                   char why[RCACHE_HTTP_MSG_MAX])
{
    (void)c;
    (void)path;
    (void)data;
    (void)len;
    bfmt(why, RCACHE_HTTP_MSG_MAX, "no libcurl");
    return RCACHE_HTTP_ERROR;
}

#endif
