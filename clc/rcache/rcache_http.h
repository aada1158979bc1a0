/*
 * rcache_http.h — the remote cache's HTTP requests (docs/REMOTE_CACHE.md,
 * "HTTP: timeouts, retries, errors"), through libcurl: GET with a bound on
 * the body, HEAD, PUT, under a base URL, with a bearer token or basic
 * authentication, time limits, retries with backoff, no redirects, http and
 * https only. One client keeps its connection open across requests; a
 * client is used by one thread. Nothing here prints.
 *
 * Built without libcurl (make CURL=0), rcache_http_open fails saying so.
 */
#ifndef CLC_RCACHE_HTTP_H
#define CLC_RCACHE_HTTP_H

#include <stddef.h>
#include <stdint.h>

#define RCACHE_HTTP_MSG_MAX 512
#define RCACHE_HTTP_TRIES 3 /* a request and at most two retries */

typedef struct rcache_http_client rcache_http_client;

typedef struct rcache_http_config {
    const char *base;      /* http(s)://host[:port][/path], no trailing '/' */
    int timeout_s;         /* connect, stall: S; a whole request: 6*S */
    const char *bearer;    /* a token for "Authorization: Bearer", or NULL */
    const char *userpwd;   /* "user:password" for basic authentication, or NULL */
} rcache_http_config;

typedef enum rcache_http_status {
    RCACHE_HTTP_OK = 0,            /* 2xx */
    RCACHE_HTTP_NOT_FOUND = 1,     /* 404 */
    RCACHE_HTTP_DENIED = 2,        /* 401, 403: the credentials are refused */
    RCACHE_HTTP_REFUSED = 3,       /* another answer (3xx, 4xx; 5xx after the retries) */
    RCACHE_HTTP_UNREACHABLE = 4,   /* no connection, or it broke (after the retries) */
    RCACHE_HTTP_TIMEOUT = 5,       /* a time limit passed (never retried) */
    RCACHE_HTTP_TOO_LARGE = 6,     /* the body was longer than allowed */
    RCACHE_HTTP_ERROR = 7          /* anything else: memory, libcurl */
} rcache_http_status;

/* Whether this clc-pack was built with libcurl; its version text or "". */
int rcache_http_available(void);
const char *rcache_http_version(void);

/* Once per process, before any other thread may call libcurl (the build
 * workers call it first thing). 0, or -1. */
int rcache_http_global_init(void);
/* At the end of such a process. */
void rcache_http_global_cleanup(void);

/* A client for c (the strings are copied). NULL with err when libcurl is
 * missing or fails. */
rcache_http_client *rcache_http_open(const rcache_http_config *c, char *err, size_t cap);
void rcache_http_close(rcache_http_client *c);

/* GET base/path: on RCACHE_HTTP_OK *body (malloc'd) holds *len bytes, at most max
 * (a longer body is RCACHE_HTTP_TOO_LARGE). why names the request and what went
 * wrong on any other status. */
rcache_http_status rcache_http_get(rcache_http_client *c, const char *path, size_t max, unsigned char **body,
                   size_t *len, char why[RCACHE_HTTP_MSG_MAX]);

/* HEAD base/path: RCACHE_HTTP_OK when it exists (*length its Content-Length, or
 * -1 when not given). */
rcache_http_status rcache_http_head(rcache_http_client *c, const char *path, int64_t *length, char why[RCACHE_HTTP_MSG_MAX]);

/* PUT base/path with len bytes of data. */
rcache_http_status rcache_http_put(rcache_http_client *c, const char *path, const void *data, size_t len,
                   char why[RCACHE_HTTP_MSG_MAX]);

/* Whether url is one a client can use: http:// or https://, a host, no
 * user name or password, no query or fragment, at most 2000 characters.
 * 0, or -1 with err saying what is wrong. */
int rcache_http_check_url(const char *url, char *err, size_t cap);

#endif /* CLC_RCACHE_HTTP_H */
