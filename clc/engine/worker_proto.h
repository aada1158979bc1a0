/*
 * worker_proto.h — the messages between clc-pack and its build workers.
 *
 * A worker is clc-pack itself, re-executed with --worker (build_worker.h).
 * It reads job frames on fd 0 and writes one result frame per job on fd 3
 * (WORKER_PROTO_RESULT_FD).
 * A frame is: u32 magic, u64 payload length, payload (wire.h encoding).
 *   job:    u32 job id, u32 device slot, u32 flags (WP_JOB_*), the
 *           build_job (entry name, program flag, source name and text,
 *           options, defines, work-group, kernels to find, check name,
 *           the user's check and tune commands)
 *   result: u32 job id, the build_variant_result (status, message, log, note, kernel
 *           names, build time and its phases' times (build_variant_phase), forms,
 *           --tune timings, what the remote cache did and why)
 * End of file on fd 0 tells the worker to exit. A build worker may also
 * have fds 4 and 5: the pipe of slots idle workers lend (spare_slots.h).
 *
 * The load worker of `verify --load` (`clc-pack --load-worker`, started
 * the same way, cmd_verify.c) takes other job frames, same magic:
 *   load job: u32 job id, u32 entry index (the key of that entry is loaded)
 * and answers with the same result frame: status BUILD_VARIANT_OK (loaded),
 * BUILD_VARIANT_CHECK_FAILED (loaded, wrong output) or BUILD_VARIANT_ERROR (not loaded); message
 * the line to print or the error; note the loader's account of what it
 * tried; source name the load path ("native", "cubin", ...); no forms.
 */
#ifndef CLC_WORKER_PROTO_H
#define CLC_WORKER_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "build_variant.h"
#include "build_job.h"
#include "wire.h"

#define WORKER_PROTO_JOB_MAGIC 0x4a434c43u    /* "CLCJ" */
#define WORKER_PROTO_RESULT_MAGIC 0x52434c43u /* "CLCR" */
#define WORKER_PROTO_JOB_MAX (256u << 20)    /* a program text of up to 64 MiB and the rest */
#define WORKER_PROTO_NAME_MAX (64u << 10)    /* a name, define value or message */
#define WORKER_PROTO_MAX_LIST 65536          /* defines or kernel names in one frame */
#define WORKER_PROTO_RESULT_MAX (1024u << 20)
#define WORKER_PROTO_ERR_MAX 256
#define WORKER_PROTO_BUILD_US_MAX (UINT64_C(1) << 40) /* a build time in microseconds: 12.7 days */
#define WORKER_PROTO_RESULT_FD 3             /* where a worker writes its results */
/* Job slots from here on are the offline toolchains (offline_targets.h's
 * offline_targets_chain added to it), not devices. */
#define WORKER_PROTO_OFFLINE_SLOT 0x4000u

/* A job flag: build it without looking it up in the remote cache, and
 * upload it in place of what the server has: a fetched binary of it failed
 * on the device, or a worker died with it (which may have been a fetched
 * binary crashing the driver). */
#define WORKER_PROTO_JOB_NO_LOOKUP 1u

/* Appends a whole job frame to b. */
void worker_proto_encode_job(strbuf *b, uint32_t job, uint32_t device_slot, uint32_t flags,
                   const build_job *j);

/* Decodes a job payload into *j (free with build_job_free). 0, or -1 with err. */
int worker_proto_decode_job(const void *payload, size_t size, uint32_t *job, uint32_t *device_slot,
                  uint32_t *flags, build_job *j, char err[WORKER_PROTO_ERR_MAX]);

/* Appends a whole load job frame (verify --load) to b. */
void worker_proto_encode_load_job(strbuf *b, uint32_t job, uint32_t entry);

/* Decodes a load job payload. 0, or -1 with err. */
int worker_proto_decode_load_job(const void *payload, size_t size, uint32_t *job, uint32_t *entry,
                       char err[WORKER_PROTO_ERR_MAX]);

/* Appends a whole result frame to b. */
void worker_proto_encode_result(strbuf *b, uint32_t job, const build_variant_result *r);

/* Decodes a result payload into *r (free with build_variant_result_free). 0, or -1. */
int worker_proto_decode_result(const void *payload, size_t size, uint32_t *job, build_variant_result *r,
                     char err[WORKER_PROTO_ERR_MAX]);

/* Reads one frame with the given magic from fd: *payload is malloc'd.
 * Returns 0, 1 on a clean end of file before the frame, -1 on an error or
 * a bad frame (err says which). */
int worker_proto_read_frame(int fd, uint32_t magic, size_t max, unsigned char **payload, size_t *size,
                  char err[WORKER_PROTO_ERR_MAX]);

/* A worker's answer to one job frame: decodes payload (size bytes) and
 * fills *r, and *job with the job's id when the payload names one. */
typedef void (*worker_proto_job_fn)(void *self, const unsigned char *payload, size_t size, uint32_t *job,
                          build_variant_result *r);

/* A worker's loop: reads job frames on fd 0 until its end, answers each
 * with run, writes the result frame on WORKER_PROTO_RESULT_FD. Returns 0 at the end
 * of fd 0; 1 when a frame could not be read ("clc-pack: WHO: why" on
 * stderr) or a result could not be written (the parent is gone). */
int worker_proto_serve(const char *who, worker_proto_job_fn run, void *self);

#endif /* CLC_WORKER_PROTO_H */
