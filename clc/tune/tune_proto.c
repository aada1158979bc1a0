/* tune_proto.c — the tuner's frames (tune_proto.h). */
#include "tune_proto.h"

#include <stdlib.h>
#include <string.h>

#include "fd_io.h"
#include "wire.h"

const char *tune_verdict_name(tune_verdict v)
{
    static const char *const names[] = {"correct", "compile", "constraints",
                                        "runtime", "correctness", "timeout"};
    return (unsigned)v < sizeof names / sizeof names[0] ? names[v] : "runtime";
}

static void put_f64(strbuf *b, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    wire_put_u64(b, u);
}

static double get_f64(wire_reader *r)
{
    uint64_t u = wire_get_u64(r);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

void tune_proto_put_request(strbuf *b, const tune_request *r)
{
    wire_put_u32(b, (uint32_t)r->op);
    wire_put_u64(b, r->raw);
    wire_put_u32(b, r->is_reference);
    wire_put_blob(b, r->binary, r->binary_size);
}

int tune_proto_get_request(const unsigned char *payload, size_t size, tune_request *r)
{
    wire_reader rd;
    wire_reader_init(&rd, payload, size);
    memset(r, 0, sizeof *r);
    r->op = (tune_op)wire_get_u32(&rd);
    r->raw = wire_get_u64(&rd);
    r->is_reference = wire_get_u32(&rd);
    uint64_t n = wire_get_u64(&rd);
    if (rd.failed || n > rd.left || (r->op != TUNE_OP_BUILD && r->op != TUNE_OP_TIME))
        return -1;
    r->binary = rd.p;
    r->binary_size = (size_t)n;
    return 0;
}

void tune_proto_put_reply(strbuf *b, const tune_reply *r)
{
    wire_put_u32(b, (uint32_t)r->verdict);
    put_f64(b, r->compile_s);
    put_f64(b, r->load_s);
    put_f64(b, r->validation_s);
    put_f64(b, r->error);
    put_f64(b, r->setup_s);
    wire_put_u32(b, r->n_runs);
    for (uint32_t i = 0; i < r->n_runs; i++)
        put_f64(b, r->runs_ns[i]);
    wire_put_str(b, r->message);
    wire_put_blob(b, r->binary, r->binary_size);
}

int tune_proto_get_reply(const unsigned char *payload, size_t size, tune_reply *r)
{
    wire_reader rd;
    wire_reader_init(&rd, payload, size);
    memset(r, 0, sizeof *r);
    r->verdict = (tune_verdict)wire_get_u32(&rd);
    r->compile_s = get_f64(&rd);
    r->load_s = get_f64(&rd);
    r->validation_s = get_f64(&rd);
    r->error = get_f64(&rd);
    r->setup_s = get_f64(&rd);
    r->n_runs = wire_get_u32(&rd);
    if (r->n_runs > TUNE_PROTO_RUNS_MAX || r->verdict > TUNE_TIMEOUT)
        return -1;
    for (uint32_t i = 0; i < r->n_runs; i++)
        r->runs_ns[i] = get_f64(&rd);
    wire_get_str(&rd, r->message, sizeof r->message);
    r->binary = wire_get_blob_dup(&rd, TUNE_PROTO_FRAME_MAX, &r->binary_size);
    return rd.failed ? -1 : 0;
}

int tune_proto_write(int fd, const strbuf *payload)
{
    unsigned char head[8];
    uint32_t n = (uint32_t)payload->len;
    for (int i = 0; i < 4; i++) {
        head[i] = (unsigned char)(TUNE_PROTO_MAGIC >> (8 * i));
        head[4 + i] = (unsigned char)(n >> (8 * i));
    }
    if (payload->failed || payload->len > TUNE_PROTO_FRAME_MAX)
        return -1;
    return clcpk_fd_write_all(fd, head, 8) == 0 && clcpk_fd_write_all(fd, payload->data, payload->len) == 0
               ? 0 : -1;
}

int tune_proto_read(int fd, unsigned char **payload, size_t *size)
{
    unsigned char head[8];
    *payload = NULL;
    *size = 0;
    int rc = clcpk_fd_read_all(fd, head, 8);
    if (rc != 0)
        return rc > 0 ? 1 : -1;
    uint32_t magic = 0, n = 0;
    for (int i = 0; i < 4; i++) {
        magic |= (uint32_t)head[i] << (8 * i);
        n |= (uint32_t)head[4 + i] << (8 * i);
    }
    if (magic != TUNE_PROTO_MAGIC || n > TUNE_PROTO_FRAME_MAX)
        return -1;
    *payload = malloc(n ? n : 1);
    if (!*payload)
        return -1;
    if (clcpk_fd_read_all(fd, *payload, n) != 0) {
        free(*payload);
        *payload = NULL;
        return -1;
    }
    *size = n;
    return 0;
}
