/*
 * worker_proto_target.h — the fuzz target over the worker protocol
 * (worker_proto.h): the input as a job, load job and result payload, each
 * decoded, and what decodes encoded again, decoded and encoded once more:
 * the two encodings must be the same bytes. Then the input as the stream
 * a pipe carries: frames are read from it with worker_proto_read_frame (job magic,
 * or result magic when the stream starts with that) and each payload decoded,
 * until the end of the stream or a bad frame. A refusal must carry a
 * message. Shared by fuzz_worker_proto.c and tests/unit/test_fuzz_targets.c.
 */
#ifndef CLC_WORKER_PROTO_TARGET_H
#define CLC_WORKER_PROTO_TARGET_H

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "cli_fuzz.h"
#include "worker_proto.h"

#define WPT_PIPE_MAX 65536   /* what a pipe holds without a reader */

static inline void wpt_job(const void *payload, size_t size)
{
    build_job j;
    uint32_t id = 0, slot = 0, flags = 0;
    char err[WORKER_PROTO_ERR_MAX];
    err[0] = '\0';
    memset(&j, 0, sizeof j);
    if (worker_proto_decode_job(payload, size, &id, &slot, &flags, &j, err) != 0) {
        cf_require_message(err, sizeof err);
        build_job_free(&j);
        return;
    }
    strbuf a, b;
    sb_init(&a);
    sb_init(&b);
    worker_proto_encode_job(&a, id, slot, flags, &j);
    build_job_free(&j);
    if (!a.failed) {
        cf_require(a.len >= 12);
        build_job j2;
        memset(&j2, 0, sizeof j2);
        uint32_t id2 = 0, slot2 = 0, flags2 = 0;
        cf_require(worker_proto_decode_job(a.data + 12, a.len - 12, &id2, &slot2, &flags2, &j2, err) == 0);
        cf_require(id2 == id && slot2 == slot && flags2 == flags);
        worker_proto_encode_job(&b, id2, slot2, flags2, &j2);
        build_job_free(&j2);
        cf_require(b.failed || (b.len == a.len && memcmp(a.data, b.data, a.len) == 0));
    }
    sb_free(&a);
    sb_free(&b);
}

static inline void wpt_result(const void *payload, size_t size)
{
    build_variant_result r;
    uint32_t id = 0;
    char err[WORKER_PROTO_ERR_MAX];
    err[0] = '\0';
    memset(&r, 0, sizeof r);
    if (worker_proto_decode_result(payload, size, &id, &r, err) != 0) {
        cf_require_message(err, sizeof err);
        build_variant_result_free(&r);
        return;
    }
    cf_require(r.n_forms <= BUILD_VARIANT_MAX_FORMS && r.n_tunings <= TUNE_OPTIONS_MAX_WIDTHS);
    strbuf a, b;
    sb_init(&a);
    sb_init(&b);
    worker_proto_encode_result(&a, id, &r);
    build_variant_result_free(&r);
    if (!a.failed) {
        build_variant_result r2;
        memset(&r2, 0, sizeof r2);
        uint32_t id2 = 0;
        cf_require(a.len >= 12);
        cf_require(worker_proto_decode_result(a.data + 12, a.len - 12, &id2, &r2, err) == 0 && id2 == id);
        worker_proto_encode_result(&b, id2, &r2);
        build_variant_result_free(&r2);
        cf_require(b.failed || (b.len == a.len && memcmp(a.data, b.data, a.len) == 0));
    }
    sb_free(&a);
    sb_free(&b);
}

static inline void wpt_stream(const uint8_t *data, size_t size)
{
    int fds[2];
    if (pipe(fds) != 0)
        return;
    size_t n = size < WPT_PIPE_MAX ? size : WPT_PIPE_MAX;
    fcntl(fds[1], F_SETFL, O_NONBLOCK);
    size_t put = 0;
    while (put < n) {
        ssize_t w = write(fds[1], data + put, n - put);
        if (w <= 0)
            break;
        put += (size_t)w;
    }
    close(fds[1]);
    int result = size >= 4 && data[3] == (WORKER_PROTO_RESULT_MAGIC >> 24);
    uint32_t magic = result ? WORKER_PROTO_RESULT_MAGIC : WORKER_PROTO_JOB_MAGIC;
    size_t max = magic == WORKER_PROTO_JOB_MAGIC ? WORKER_PROTO_JOB_MAX : WORKER_PROTO_RESULT_MAX;
    for (int frames = 0; frames < 64; frames++) {
        unsigned char *payload = (unsigned char *)1;
        size_t psize = 7;
        char err[WORKER_PROTO_ERR_MAX];
        err[0] = '\0';
        int rc = worker_proto_read_frame(fds[0], magic, max, &payload, &psize, err);
        if (rc != 0) {
            cf_require(rc == 1 || rc == -1);
            cf_require(payload == NULL && psize == 0);
            if (rc == -1)
                cf_require_message(err, sizeof err);
            break;
        }
        cf_require(psize <= put);
        if (magic == WORKER_PROTO_JOB_MAGIC)
            wpt_job(payload, psize);
        else
            wpt_result(payload, psize);
        free(payload);
    }
    close(fds[0]);
}

static inline int fuzz_worker_proto(const uint8_t *data, size_t size)
{
    wpt_job(data, size);
    wpt_result(data, size);
    uint32_t id, entry;
    char err[WORKER_PROTO_ERR_MAX];
    err[0] = '\0';
    if (worker_proto_decode_load_job(data, size, &id, &entry, err) != 0)
        cf_require_message(err, sizeof err);
    wpt_stream(data, size);
    return 0;
}

#endif /* CLC_WORKER_PROTO_TARGET_H */
