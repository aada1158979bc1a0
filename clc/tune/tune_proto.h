/*
 * tune_proto.h — the messages between `clc-pack tune` and its workers
 * (docs/TUNING.md, "How the tuner runs"): frames of a magic, a u32 length
 * and a payload written with wire.h, requests on the worker's fd 0,
 * replies on its fd 3 (its stdout and stderr are the driver's).
 *
 * A worker reads the spec itself (its path and SHA-256 come on its command
 * line), so a request names a configuration by its raw index alone; a
 * timing request also carries the binary a build worker made.
 */
#ifndef CLC_TUNE_PROTO_H
#define CLC_TUNE_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

#define TUNE_PROTO_MAGIC 0x434c5455u   /* "CLTU" */
#define TUNE_PROTO_REPLY_FD 3
#define TUNE_PROTO_FRAME_MAX (1u << 30)
#define TUNE_PROTO_MSG_MAX 4096        /* a reply's message, in bytes */
#define TUNE_PROTO_RUNS_MAX 1000

typedef enum tune_op { TUNE_OP_BUILD = 1, TUNE_OP_TIME = 2 } tune_op;

/* The T4 invalidity of a configuration, in the schema's spelling. */
typedef enum tune_verdict {
    TUNE_CORRECT = 0,
    TUNE_COMPILE = 1,
    TUNE_CONSTRAINTS = 2,
    TUNE_RUNTIME = 3,
    TUNE_CORRECTNESS = 4,
    TUNE_TIMEOUT = 5
} tune_verdict;
const char *tune_verdict_name(tune_verdict v);

typedef struct tune_request {
    tune_op op;
    uint64_t raw;          /* the configuration */
    uint32_t is_reference; /* TIME: its outputs become the reference */
    const unsigned char *binary; /* TIME: the program's binary (not owned) */
    size_t binary_size;
} tune_request;

typedef struct tune_reply {
    tune_verdict verdict;
    double compile_s;      /* BUILD: clBuildProgram from source */
    double load_s;         /* TIME: the binary made a program, the kernel set up */
    double validation_s;   /* TIME: the checked launch and the comparison */
    double error;          /* TIME: the comparison's worst measure */
    double setup_s;        /* the worker's start: process, device, context (and the
                              arguments made and uploaded, for the timing worker) */
    uint32_t n_runs;
    double runs_ns[TUNE_PROTO_RUNS_MAX];
    char message[TUNE_PROTO_MSG_MAX]; /* what failed, or "" */
    unsigned char *binary; /* BUILD: malloc'd */
    size_t binary_size;
} tune_reply;

void tune_proto_put_request(strbuf *b, const tune_request *r);
/* Decodes into r (r->binary points into payload). 0, or -1. */
int tune_proto_get_request(const unsigned char *payload, size_t size, tune_request *r);
void tune_proto_put_reply(strbuf *b, const tune_reply *r);
/* Decodes into r (r->binary malloc'd). 0, or -1. */
int tune_proto_get_reply(const unsigned char *payload, size_t size, tune_reply *r);

/* One frame written whole to fd: 0, or -1 (errno). */
int tune_proto_write(int fd, const strbuf *payload);
/* One frame read from fd into a malloc'd *payload: 0; 1 at a clean end of
 * the stream; -1 on a bad or short frame. */
int tune_proto_read(int fd, unsigned char **payload, size_t *size);

#endif /* CLC_TUNE_PROTO_H */
