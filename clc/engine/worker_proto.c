/* worker_proto.c — job and result frames (worker_proto.h). */
#include "worker_proto.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounded_fmt.h"
#include "fd_io.h"

/* Writes the frame header in place once the payload length is known. */
static size_t begin_frame(strbuf *b, uint32_t magic)
{
    wire_put_u32(b, magic);
    size_t at = b->len;
    wire_put_u64(b, 0);
    return at;
}

static void end_frame(strbuf *b, size_t at)
{
    if (b->failed)
        return;
    uint64_t n = (uint64_t)(b->len - at - 8);
    for (int i = 0; i < 8; i++)
        b->data[at + (size_t)i] = (unsigned char)(n >> (8 * i));
}

void worker_proto_encode_job(strbuf *b, uint32_t job, uint32_t device_slot, uint32_t flags,
                   const build_job *j)
{
    size_t at = begin_frame(b, WORKER_PROTO_JOB_MAGIC);
    wire_put_u32(b, job);
    wire_put_u32(b, device_slot);
    wire_put_u32(b, flags);
    wire_put_str(b, j->entry_name);
    wire_put_u32(b, (uint32_t)j->program_entry);
    wire_put_str(b, j->source_name);
    wire_put_blob(b, j->source, j->source_size);
    wire_put_str(b, j->options);
    wire_put_u32(b, (uint32_t)j->n_defines);
    for (size_t i = 0; i < j->n_defines; i++) {
        wire_put_str(b, j->defines[i].name);
        wire_put_str(b, j->defines[i].value);
    }
    for (int i = 0; i < 3; i++)
        wire_put_u32(b, j->wg[i]);
    wire_put_u32(b, (uint32_t)j->n_kernels);
    for (size_t i = 0; i < j->n_kernels; i++)
        wire_put_str(b, j->kernels[i]);
    wire_put_str(b, j->check);
    wire_put_str(b, j->check_cmd ? j->check_cmd : "");
    wire_put_str(b, j->tune_cmd ? j->tune_cmd : "");
    end_frame(b, at);
}

int worker_proto_decode_job(const void *payload, size_t size, uint32_t *job, uint32_t *device_slot,
                  uint32_t *flags, build_job *j, char err[WORKER_PROTO_ERR_MAX])
{
    wire_reader r;
    wire_reader_init(&r, payload, size);
    memset(j, 0, sizeof *j);
    *job = wire_get_u32(&r);
    *device_slot = wire_get_u32(&r);
    *flags = wire_get_u32(&r);
    j->entry_name = wire_get_str_alloc(&r, WORKER_PROTO_NAME_MAX);
    j->program_entry = wire_get_u32(&r) != 0;
    j->source_name = wire_get_str_alloc(&r, WORKER_PROTO_NAME_MAX);
    unsigned char *src = wire_get_blob_dup(&r, WORKER_PROTO_JOB_MAX, &j->source_size);
    char *text = src && !r.failed ? realloc(src, j->source_size + 1) : NULL;
    if (text) {
        text[j->source_size] = '\0';
        j->source = text;
    } else {
        free(src);
        r.failed = 1;
    }
    j->options = wire_get_str_alloc(&r, WORKER_PROTO_JOB_MAX);
    uint32_t nd = wire_get_u32(&r);
    if (nd > WORKER_PROTO_MAX_LIST || (size_t)nd * 8 > r.left)
        r.failed = 1;
    if (!r.failed) {
        j->defines = calloc(nd ? nd : 1, sizeof *j->defines);
        if (!j->defines)
            r.failed = 1;
    }
    for (uint32_t i = 0; i < nd && !r.failed; i++) {
        j->defines[i].name = wire_get_str_alloc(&r, WORKER_PROTO_NAME_MAX);
        j->defines[i].value = wire_get_str_alloc(&r, WORKER_PROTO_NAME_MAX);
        j->n_defines = i + 1;
        if (!j->defines[i].name || !j->defines[i].value)
            r.failed = 1;
    }
    for (int i = 0; i < 3; i++)
        j->wg[i] = wire_get_u32(&r);
    uint32_t nk = r.failed ? 0 : wire_get_u32(&r);
    if (nk > WORKER_PROTO_MAX_LIST || (size_t)nk * 4 > r.left)
        r.failed = 1;
    if (!r.failed) {
        j->kernels = calloc(nk ? nk : 1, sizeof *j->kernels);
        if (!j->kernels)
            r.failed = 1;
    }
    for (uint32_t i = 0; i < nk && !r.failed; i++) {
        j->kernels[i] = wire_get_str_alloc(&r, WORKER_PROTO_NAME_MAX);
        j->n_kernels = i + 1;
        if (!j->kernels[i])
            r.failed = 1;
    }
    j->check = r.failed ? NULL : wire_get_str_alloc(&r, WORKER_PROTO_NAME_MAX);
    j->check_cmd = r.failed ? NULL : wire_get_str_alloc(&r, WORKER_PROTO_NAME_MAX);
    j->tune_cmd = r.failed ? NULL : wire_get_str_alloc(&r, WORKER_PROTO_NAME_MAX);
    if (r.failed || r.left != 0 || !j->entry_name || !j->source_name || !j->options ||
        !j->check || !j->check_cmd || !j->tune_cmd) {
        build_job_free(j);
        bfmt(err, WORKER_PROTO_ERR_MAX, "malformed job frame (%zu bytes)", size);
        return -1;
    }
    return 0;
}

void worker_proto_encode_load_job(strbuf *b, uint32_t job, uint32_t entry)
{
    size_t at = begin_frame(b, WORKER_PROTO_JOB_MAGIC);
    wire_put_u32(b, job);
    wire_put_u32(b, entry);
    end_frame(b, at);
}

int worker_proto_decode_load_job(const void *payload, size_t size, uint32_t *job, uint32_t *entry,
                       char err[WORKER_PROTO_ERR_MAX])
{
    wire_reader r;
    wire_reader_init(&r, payload, size);
    *job = wire_get_u32(&r);
    *entry = wire_get_u32(&r);
    if (r.failed || r.left != 0) {
        bfmt(err, WORKER_PROTO_ERR_MAX, "malformed load job frame (%zu bytes)", size);
        return -1;
    }
    return 0;
}

/* Whole microseconds, rounded (a decoded time encodes back the same); a
 * time beyond what a result may carry (WORKER_PROTO_BUILD_US_MAX) goes as 0. */
static void put_seconds(strbuf *b, double s)
{
    double us = s * 1e6;
    wire_put_u64(b, us > 0 && us <= (double)WORKER_PROTO_BUILD_US_MAX ? (uint64_t)(us + 0.5) : 0);
}

static double get_seconds(wire_reader *rd)
{
    uint64_t us = wire_get_u64(rd);
    if (us > WORKER_PROTO_BUILD_US_MAX)
        rd->failed = 1;
    return (double)us * 1e-6;
}

void worker_proto_encode_result(strbuf *b, uint32_t job, const build_variant_result *r)
{
    size_t at = begin_frame(b, WORKER_PROTO_RESULT_MAGIC);
    wire_put_u32(b, job);
    wire_put_u32(b, (uint32_t)r->status);
    wire_put_str(b, r->message);
    wire_put_str(b, r->log);
    wire_put_str(b, r->note);
    wire_put_u32(b, (uint32_t)r->n_kernel_names);
    for (size_t i = 0; i < r->n_kernel_names; i++)
        wire_put_str(b, r->kernel_names[i]);
    put_seconds(b, r->build_s);
    for (int p = 0; p < BUILD_VARIANT_N_PHASES; p++)
        put_seconds(b, r->phase_s[p]);
    wire_put_u32(b, (uint32_t)r->n_forms);
    for (size_t i = 0; i < r->n_forms; i++) {
        wire_put_u32(b, (uint32_t)r->forms[i].kind);
        wire_put_u32(b, r->forms[i].arch);
        wire_put_str(b, r->forms[i].target);
        wire_put_blob(b, r->forms[i].data, r->forms[i].size);
    }
    wire_put_u32(b, (uint32_t)r->n_tunings);
    for (size_t i = 0; i < r->n_tunings; i++) {
        const clcpack_tuning *t = &r->tunings[i];
        wire_put_u32(b, t->runtime_value);
        wire_put_u32(b, t->width);
        wire_put_u32(b, t->height);
        wire_put_u32(b, t->runs);
        wire_put_u64(b, t->median_ns);
    }
    wire_put_u32(b, (uint32_t)r->remote);
    wire_put_u32(b, (uint32_t)r->upload);
    wire_put_str(b, r->remote_note);
    wire_put_str(b, r->upload_note);
    wire_put_u32(b, (uint32_t)r->local);
    wire_put_u32(b, (uint32_t)(r->local_stored != 0));
    wire_put_str(b, r->local_note);
    end_frame(b, at);
}

int worker_proto_decode_result(const void *payload, size_t size, uint32_t *job, build_variant_result *r,
                     char err[WORKER_PROTO_ERR_MAX])
{
    wire_reader rd;
    wire_reader_init(&rd, payload, size);
    memset(r, 0, sizeof *r);
    *job = wire_get_u32(&rd);
    uint32_t st = wire_get_u32(&rd);
    r->status = st <= BUILD_VARIANT_ERROR ? (build_variant_status)st : BUILD_VARIANT_ERROR;
    r->message = wire_get_str_dup(&rd, WORKER_PROTO_RESULT_MAX);
    r->log = wire_get_str_dup(&rd, WORKER_PROTO_RESULT_MAX);
    r->note = wire_get_str_dup(&rd, WORKER_PROTO_RESULT_MAX);
    uint32_t nk = wire_get_u32(&rd);
    if (nk > WORKER_PROTO_MAX_LIST || (size_t)nk * 4 > rd.left)
        rd.failed = 1;
    if (!rd.failed && nk) {
        r->kernel_names = calloc(nk, sizeof *r->kernel_names);
        if (!r->kernel_names)
            rd.failed = 1;
    }
    for (uint32_t i = 0; i < nk && !rd.failed; i++) {
        r->kernel_names[i] = wire_get_str_alloc(&rd, WORKER_PROTO_NAME_MAX);
        r->n_kernel_names = i + 1;
        if (!r->kernel_names[i])
            rd.failed = 1;
    }
    r->build_s = get_seconds(&rd);
    for (int p = 0; p < BUILD_VARIANT_N_PHASES; p++)
        r->phase_s[p] = get_seconds(&rd);
    uint32_t nf = wire_get_u32(&rd);
    if (nf > BUILD_VARIANT_MAX_FORMS)
        rd.failed = 1;
    for (uint32_t i = 0; i < nf && !rd.failed; i++) {
        build_variant_form *f = &r->forms[r->n_forms];
        uint32_t kind = wire_get_u32(&rd);
        f->kind = (clcpack_binary_kind)kind;
        f->arch = wire_get_u32(&rd);
        wire_get_str(&rd, f->target, sizeof f->target);
        f->data = wire_get_blob_dup(&rd, WORKER_PROTO_RESULT_MAX, &f->size);
        if (kind > CLCPACK_KIND_SPIRV || !f->data) {
            free(f->data);
            f->data = NULL;
            rd.failed = 1;
            break;
        }
        r->n_forms++;
    }
    uint32_t nt = rd.failed ? 0 : wire_get_u32(&rd);
    if (nt > TUNE_OPTIONS_MAX_WIDTHS)
        rd.failed = 1;
    for (uint32_t i = 0; i < nt && !rd.failed; i++) {
        clcpack_tuning *t = &r->tunings[r->n_tunings++];
        t->runtime_value = wire_get_u32(&rd);
        t->width = wire_get_u32(&rd);
        t->height = wire_get_u32(&rd);
        t->runs = wire_get_u32(&rd);
        t->median_ns = wire_get_u64(&rd);
    }
    uint32_t remote = wire_get_u32(&rd), upload = wire_get_u32(&rd);
    if (remote > BUILD_VARIANT_REMOTE_RETRY || upload > BUILD_VARIANT_UPLOAD_FAILED)
        rd.failed = 1;
    r->remote = (build_variant_remote)remote;
    r->upload = (build_variant_upload)upload;
    r->remote_note = rd.failed ? NULL : wire_get_str_dup(&rd, WORKER_PROTO_NAME_MAX);
    r->upload_note = rd.failed ? NULL : wire_get_str_dup(&rd, WORKER_PROTO_NAME_MAX);
    uint32_t local = wire_get_u32(&rd), stored = wire_get_u32(&rd);
    if (local > BUILD_VARIANT_REMOTE_RETRY || stored > 1)
        rd.failed = 1;
    r->local = (build_variant_remote)local;
    r->local_stored = (int)stored;
    r->local_note = rd.failed ? NULL : wire_get_str_dup(&rd, WORKER_PROTO_NAME_MAX);
    /* A build result without forms is the caller's to refuse (cmd_pack.c):
     * load results (verify --load) have none. */
    if (rd.failed || rd.left != 0) {
        build_variant_result_free(r);
        bfmt(err, WORKER_PROTO_ERR_MAX, "malformed result frame (%zu bytes)", size);
        return -1;
    }
    return 0;
}

int worker_proto_read_frame(int fd, uint32_t magic, size_t max, unsigned char **payload, size_t *size,
                  char err[WORKER_PROTO_ERR_MAX])
{
    *payload = NULL;
    *size = 0;
    unsigned char head[12];
    ssize_t got;
    do
        got = read(fd, head, 1);
    while (got < 0 && errno == EINTR);
    if (got == 0)
        return 1;
    if (got < 0 || clcpk_fd_read_all(fd, head + 1, sizeof head - 1) != 0) {
        bfmt(err, WORKER_PROTO_ERR_MAX, "the frame header was cut short");
        return -1;
    }
    wire_reader r;
    wire_reader_init(&r, head, sizeof head);
    uint32_t m = wire_get_u32(&r);
    uint64_t n = wire_get_u64(&r);
    if (m != magic) {
        bfmt(err, WORKER_PROTO_ERR_MAX, "bad frame magic 0x%08x", (unsigned)m);
        return -1;
    }
    if (n > max) {
        bfmt(err, WORKER_PROTO_ERR_MAX, "a %llu-byte frame is beyond the %zu-byte limit",
             (unsigned long long)n, max);
        return -1;
    }
    unsigned char *buf = malloc(n ? (size_t)n : 1);
    if (!buf) {
        bfmt(err, WORKER_PROTO_ERR_MAX, "out of memory for a %llu-byte frame", (unsigned long long)n);
        return -1;
    }
    if (clcpk_fd_read_all(fd, buf, (size_t)n) != 0) {
        free(buf);
        bfmt(err, WORKER_PROTO_ERR_MAX, "the frame was cut short");
        return -1;
    }
    *payload = buf;
    *size = (size_t)n;
    return 0;
}

int worker_proto_serve(const char *who, worker_proto_job_fn run, void *self)
{
    for (;;) {
        unsigned char *payload;
        size_t size;
        char ferr[WORKER_PROTO_ERR_MAX];
        int rc = worker_proto_read_frame(0, WORKER_PROTO_JOB_MAGIC, WORKER_PROTO_JOB_MAX, &payload, &size, ferr);
        if (rc == 1)
            return 0;
        if (rc < 0) {
            fprintf(stderr, "clc-pack: %s: %s\n", who, ferr);
            return 1;
        }
        uint32_t job = 0;
        build_variant_result r;
        run(self, payload, size, &job, &r);
        free(payload);
        strbuf out;
        sb_init(&out);
        worker_proto_encode_result(&out, job, &r);
        build_variant_result_free(&r);
        int wrc = out.failed ? -1 : clcpk_fd_write_all(WORKER_PROTO_RESULT_FD, out.data, out.len);
        sb_free(&out);
        if (wrc != 0)
            return 1; /* the parent is gone or the result did not fit in memory */
    }
}
