/* worker_proto.c — job and result frames (worker_proto.h). */
#include "worker_proto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounded_fmt.h"

/* Writes the frame header in place once the payload length is known. */
static size_t begin_frame(wire_buf *b, uint32_t magic)
{
    wire_put_u32(b, magic);
    size_t at = b->len;
    wire_put_u64(b, 0);
    return at;
}

static void end_frame(wire_buf *b, size_t at)
{
    if (b->failed)
        return;
    uint64_t n = (uint64_t)(b->len - at - 8);
    for (int i = 0; i < 8; i++)
        b->data[at + (size_t)i] = (unsigned char)(n >> (8 * i));
}

void wp_encode_job(wire_buf *b, uint32_t job, uint32_t device_slot, const mf_variant *v)
{
    size_t at = begin_frame(b, WP_JOB_MAGIC);
    wire_put_u32(b, job);
    wire_put_u32(b, device_slot);
    wire_put_str(b, v->kernel->name);
    wire_put_u32(b, (uint32_t)v->n_defines);
    for (size_t i = 0; i < v->n_defines; i++) {
        wire_put_str(b, v->define_names[i]);
        wire_put_str(b, v->define_values[i]);
    }
    for (int i = 0; i < 3; i++)
        wire_put_u32(b, v->wg[i]);
    wire_put_str(b, v->options);
    end_frame(b, at);
}

int wp_decode_job(const void *payload, size_t size, const mf_manifest *m, uint32_t *job,
                  uint32_t *device_slot, mf_variant *v, char err[WP_ERR_MAX])
{
    wire_reader r;
    wire_reader_init(&r, payload, size);
    memset(v, 0, sizeof *v);
    *job = wire_get_u32(&r);
    *device_slot = wire_get_u32(&r);
    char kernel[MF_NAME_MAX];
    wire_get_str(&r, kernel, sizeof kernel);
    uint32_t nd = wire_get_u32(&r);
    if (nd > MF_MAX_DEFINES) {
        bfmt(err, WP_ERR_MAX, "job %u: %u defines", (unsigned)*job, (unsigned)nd);
        return -1;
    }
    v->n_defines = nd;
    for (uint32_t i = 0; i < nd; i++) {
        wire_get_str(&r, v->define_names[i], sizeof v->define_names[i]);
        wire_get_str(&r, v->define_values[i], sizeof v->define_values[i]);
    }
    for (int i = 0; i < 3; i++)
        v->wg[i] = wire_get_u32(&r);
    wire_get_str(&r, v->options, sizeof v->options);
    if (r.failed || r.left != 0) {
        bfmt(err, WP_ERR_MAX, "malformed job frame (%zu bytes)", size);
        return -1;
    }
    v->kernel = mf_find(m, kernel);
    if (!v->kernel) {
        bfmt(err, WP_ERR_MAX, "job %u: no kernel '%s' in the manifest", (unsigned)*job, kernel);
        return -1;
    }
    return 0;
}

void wp_encode_load_job(wire_buf *b, uint32_t job, uint32_t entry)
{
    size_t at = begin_frame(b, WP_JOB_MAGIC);
    wire_put_u32(b, job);
    wire_put_u32(b, entry);
    end_frame(b, at);
}

int wp_decode_load_job(const void *payload, size_t size, uint32_t *job, uint32_t *entry,
                       char err[WP_ERR_MAX])
{
    wire_reader r;
    wire_reader_init(&r, payload, size);
    *job = wire_get_u32(&r);
    *entry = wire_get_u32(&r);
    if (r.failed || r.left != 0) {
        bfmt(err, WP_ERR_MAX, "malformed load job frame (%zu bytes)", size);
        return -1;
    }
    return 0;
}

void wp_encode_result(wire_buf *b, uint32_t job, const bv_result *r)
{
    size_t at = begin_frame(b, WP_RESULT_MAGIC);
    wire_put_u32(b, job);
    wire_put_u32(b, (uint32_t)r->status);
    wire_put_str(b, r->message);
    wire_put_str(b, r->log);
    wire_put_str(b, r->note);
    wire_put_str(b, r->source_name);
    wire_put_blob(b, r->source, r->source_size);
    wire_put_u64(b, (uint64_t)(r->build_s * 1e6));
    wire_put_u32(b, (uint32_t)r->n_forms);
    for (size_t i = 0; i < r->n_forms; i++) {
        wire_put_u32(b, (uint32_t)r->forms[i].kind);
        wire_put_u32(b, r->forms[i].arch);
        wire_put_blob(b, r->forms[i].data, r->forms[i].size);
    }
    wire_put_u32(b, (uint32_t)r->n_tunings);
    for (size_t i = 0; i < r->n_tunings; i++) {
        const clcpack_tuning *t = &r->tunings[i];
        wire_put_u32(b, t->filter_width);
        wire_put_u32(b, t->width);
        wire_put_u32(b, t->height);
        wire_put_u32(b, t->runs);
        wire_put_u64(b, t->median_ns);
    }
    end_frame(b, at);
}

int wp_decode_result(const void *payload, size_t size, uint32_t *job, bv_result *r,
                     char err[WP_ERR_MAX])
{
    wire_reader rd;
    wire_reader_init(&rd, payload, size);
    memset(r, 0, sizeof *r);
    *job = wire_get_u32(&rd);
    uint32_t st = wire_get_u32(&rd);
    r->status = st <= BV_ERROR ? (bv_status)st : BV_ERROR;
    r->message = wire_get_str_dup(&rd, WP_RESULT_MAX);
    r->log = wire_get_str_dup(&rd, WP_RESULT_MAX);
    r->note = wire_get_str_dup(&rd, WP_RESULT_MAX);
    wire_get_str(&rd, r->source_name, sizeof r->source_name);
    unsigned char *src = wire_get_blob_dup(&rd, WP_RESULT_MAX, &r->source_size);
    if (src || r->source_size == 0) {
        /* Sources are text: keep them NUL-terminated like ks_program_source does. */
        char *text = realloc(src, r->source_size + 1);
        if (text) {
            text[r->source_size] = '\0';
            r->source = text;
        } else {
            free(src);
            rd.failed = 1;
        }
    }
    r->build_s = (double)wire_get_u64(&rd) * 1e-6;
    uint32_t nf = wire_get_u32(&rd);
    if (nf > BV_MAX_FORMS)
        rd.failed = 1;
    for (uint32_t i = 0; i < nf && !rd.failed; i++) {
        bv_form *f = &r->forms[r->n_forms];
        uint32_t kind = wire_get_u32(&rd);
        f->kind = (clcpack_binary_kind)kind;
        f->arch = wire_get_u32(&rd);
        f->data = wire_get_blob_dup(&rd, WP_RESULT_MAX, &f->size);
        if (kind > CLCPACK_KIND_CUBIN || !f->data) {
            free(f->data);
            f->data = NULL;
            rd.failed = 1;
            break;
        }
        r->n_forms++;
    }
    uint32_t nt = rd.failed ? 0 : wire_get_u32(&rd);
    if (nt > TV_MAX_WIDTHS)
        rd.failed = 1;
    for (uint32_t i = 0; i < nt && !rd.failed; i++) {
        clcpack_tuning *t = &r->tunings[r->n_tunings++];
        t->filter_width = wire_get_u32(&rd);
        t->width = wire_get_u32(&rd);
        t->height = wire_get_u32(&rd);
        t->runs = wire_get_u32(&rd);
        t->median_ns = wire_get_u64(&rd);
    }
    /* A build result without forms is the caller's to refuse (cmd_pack.c):
     * load results (verify --load) have none. */
    if (rd.failed || rd.left != 0) {
        bv_result_free(r);
        bfmt(err, WP_ERR_MAX, "malformed result frame (%zu bytes)", size);
        return -1;
    }
    return 0;
}

int wp_read_frame(int fd, uint32_t magic, size_t max, unsigned char **payload, size_t *size,
                  char err[WP_ERR_MAX])
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
    if (got < 0 || wire_read_fd(fd, head + 1, sizeof head - 1) != 0) {
        bfmt(err, WP_ERR_MAX, "the frame header was cut short");
        return -1;
    }
    wire_reader r;
    wire_reader_init(&r, head, sizeof head);
    uint32_t m = wire_get_u32(&r);
    uint64_t n = wire_get_u64(&r);
    if (m != magic) {
        bfmt(err, WP_ERR_MAX, "bad frame magic 0x%08x", (unsigned)m);
        return -1;
    }
    if (n > max) {
        bfmt(err, WP_ERR_MAX, "a %llu-byte frame is beyond the %zu-byte limit",
             (unsigned long long)n, max);
        return -1;
    }
    unsigned char *buf = malloc(n ? (size_t)n : 1);
    if (!buf) {
        bfmt(err, WP_ERR_MAX, "out of memory for a %llu-byte frame", (unsigned long long)n);
        return -1;
    }
    if (wire_read_fd(fd, buf, (size_t)n) != 0) {
        free(buf);
        bfmt(err, WP_ERR_MAX, "the frame was cut short");
        return -1;
    }
    *payload = buf;
    *size = (size_t)n;
    return 0;
}
