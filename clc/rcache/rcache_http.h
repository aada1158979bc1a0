/*
 * rcache_http.h — the remote cache's HTTP requests (docs/REMOTE_CACHE.md,
 * "HTTP: timeouts, retries, errors"), through libcurl: GET with a bound on
 * the body, HEAD, PUT, under a base URL, with a bearer token or basic
 * authentication, time limits, retries with backoff, no redirects, http and
 * https only. One client keeps its connection open across requests; a
 * client is used by one thread. Nothing here prints.
 *
 * Built without libcurl (make CURL=0), rch_open fails saying so.
 */
#ifndef CLC_RCACHE_HTTP_H
#define CLC_RCACHE_HTTP_H

#include <stddef.h>
#include <stdint.h>

#define RCH_MSG_MAX 512
#define RCH_TRIES 3 /* a request and at most two retries */

typedef struct rch_client rch_client;

typedef struct rch_config {
    const char *base;      /* http(s)://host[:port][/path], no trailing '/' */
    int timeout_s;         /* connect, stall: S; a whole request: 6*S */
    const char *bearer;    /* a token for "Authorization: Bearer", or NULL */
    const char *userpwd;   /* "user:password" for basic authentication, or NULL */
} rch_config;

typedef enum rch_status {
    RCH_OK = 0,            /* 2xx */
    RCH_NOT_FOUND = 1,     /* 404 */
    RCH_DENIED = 2,        /* 401, 403: the credentials are refused */
    RCH_REFUSED = 3,       /* another answer (3xx, 4xx; 5xx after the retries) */
    RCH_UNREACHABLE = 4,   /* no connection, or it broke (after the retries) */
    RCH_TIMEOUT = 5,       /* a time limit passed (never retried) */
    RCH_TOO_LARGE = 6,     /* the body was longer than allowed */
    RCH_ERROR = 7          /* anything else: memory, libcurl */
} rch_status;

/* Whether this clc-pack was built with libcurl; its version text or "". */
int rch_available(void);
const char *rch_version(void);

/* Once per process, before any other thread may call libcurl (the build
 * workers call it first thing). 0, or -1. */
int rch_global_init(void);
/* At the end of such a process. */
void rch_global_cleanup(void);

/* A client for c (the strings are copied). NULL with err when libcurl is
 * missing or fails. */
rch_client *rch_open(const rch_config *c, char *err, size_t cap);
void rch_close(rch_client *c);

/* GET base/path: on RCH_OK *body (malloc'd) holds *len bytes, at most max
 * (a longer body is RCH_TOO_LARGE). why names the request and what went
 * wrong on any other status. */
rch_status rch_get(rch_client *c, const char *path, size_t max, unsigned char **body,
                   size_t *len, char why[RCH_MSG_MAX]);

/* HEAD base/path: RCH_OK when it exists (*length its Content-Length, or
 * -1 when not given). */
rch_status rch_head(rch_client *c, const char *path, int64_t *length, char why[RCH_MSG_MAX]);

/* PUT base/path with len bytes of data. */
rch_status rch_put(rch_client *c, const char *path, const void *data, size_t len,
                   char why[RCH_MSG_MAX]);

/* Whether url is one a client can use: http:// or https://, a host, no
 * user name or password, no query or fragment, at most 2000 characters.
 * 0, or -1 with err saying what is wrong. */
int rch_check_url(const char *url, char *err, size_t cap);

#endif /* CLC_RCACHE_HTTP_H */
