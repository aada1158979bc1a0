/* The build workers: message encoding (clc/engine/wire.h, clc/engine/worker_proto.h) and
 * the process pool (clc/engine/worker_pool.h) — real workers (the clc-pack next to
 * this test's folder), workers that die, that cannot start, that answer
 * garbage. */
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_variant.h"
#include "check.h"
#include "variant_plan.h"
#include "fd_io.h"
#include "wire.h"
#include "worker_pool.h"
#include "worker_proto.h"
#include "manifest_jobs.h"
#include "kernelgen.h"

static manifest_file manifest;

static void test_wire(void)
{
    strbuf b;
    sb_init(&b);
    wire_put_u32(&b, 0x01020304u);
    wire_put_u64(&b, 0x1122334455667788ull);
    wire_put_str(&b, "hello");
    wire_put_str(&b, NULL);
    wire_put_blob(&b, "\0\1\2", 3);
    CHECK(!b.failed && b.len == 4 + 8 + 9 + 4 + 11, "encoded length %zu", b.len);
    CHECK(b.data[0] == 4 && b.data[3] == 1, "little-endian u32");

    wire_reader r;
    wire_reader_init(&r, b.data, b.len);
    CHECK(wire_get_u32(&r) == 0x01020304u, "u32 back");
    CHECK(wire_get_u64(&r) == 0x1122334455667788ull, "u64 back");
    char s[8];
    wire_get_str(&r, s, sizeof s);
    CHECK(strcmp(s, "hello") == 0, "string back");
    char *empty = wire_get_str_dup(&r, 100);
    CHECK(empty == NULL && !r.failed, "empty string is NULL");
    size_t n;
    unsigned char *blob = wire_get_blob_dup(&r, 100, &n);
    CHECK(blob && n == 3 && blob[2] == 2, "blob back");
    free(blob);
    CHECK(!r.failed && r.left == 0, "all read");
    CHECK(wire_get_u32(&r) == 0 && r.failed, "reading past the end fails");

    wire_reader_init(&r, b.data, b.len);
    wire_get_u32(&r);
    wire_get_u64(&r);
    char tiny[4];
    wire_get_str(&r, tiny, sizeof tiny);
    CHECK(r.failed && tiny[0] == '\0', "a string too long for its buffer fails");
    wire_reader_init(&r, b.data, 10);
    wire_get_u32(&r);
    wire_get_u64(&r);
    CHECK(r.failed, "a cut buffer fails");
    sb_free(&b);
}

static void test_job_roundtrip(void)
{
    variant_plan_request req;
    memset(&req, 0, sizeof req);
    req.n_kernels = 1;
    req.kernels[0] = "reda_local";
    variant_plan plan;
    char err[VARIANT_PLAN_ERR_MAX];
    if (!CHECK(variant_plan_make(&manifest, &req, &plan, err) == 0 && plan.n > 0, "plan: %s", err))
        return;
    build_job_list jobs = {0};
    char merr[MANIFEST_ERR_MAX];
    if (!CHECK(manifest_jobs_make(&manifest, &plan, &jobs, merr) == 0 && jobs.n == plan.n, "jobs: %s", merr))
        return;
    const build_job *v = &jobs.jobs[jobs.n - 1];
    CHECK(strcmp(v->check, "reda_local") == 0 && v->n_kernels == 1 &&
              strcmp(v->kernels[0], "reda_local") == 0 && !v->program_entry,
          "a manifest job is checked by its seed and holds its kernel");
    strbuf b;
    sb_init(&b);
    worker_proto_encode_job(&b, 42, 3, WORKER_PROTO_JOB_NO_LOOKUP, v);
    CHECK(!b.failed && b.len > 12, "job encoded");
    build_job back;
    uint32_t job, slot, flags;
    char perr[WORKER_PROTO_ERR_MAX];
    if (CHECK(worker_proto_decode_job(b.data + 12, b.len - 12, &job, &slot, &flags, &back, perr) == 0,
              "job decodes: %s", perr)) {
        CHECK(job == 42 && slot == 3 && flags == WORKER_PROTO_JOB_NO_LOOKUP &&
                  strcmp(back.entry_name, v->entry_name) == 0,
              "ids, flags and name back");
        CHECK(back.n_defines == v->n_defines && memcmp(back.wg, v->wg, sizeof v->wg) == 0 &&
                  strcmp(back.options, v->options) == 0 && back.source_size == v->source_size &&
                  memcmp(back.source, v->source, v->source_size) == 0 &&
                  strcmp(back.source_name, v->source_name) == 0,
              "defines, wg, options and source back");
        for (size_t i = 0; i < v->n_defines; i++)
            CHECK(strcmp(back.defines[i].name, v->defines[i].name) == 0 &&
                      strcmp(back.defines[i].value, v->defines[i].value) == 0,
                  "define %zu back", i);
        CHECK(back.n_kernels == 1 && strcmp(back.kernels[0], "reda_local") == 0 &&
                  strcmp(back.check, "reda_local") == 0,
              "kernels and check back");
        build_job_free(&back);
    }
    for (size_t cut = 0; cut < b.len - 12; cut += 97)
        CHECK(worker_proto_decode_job(b.data + 12, cut, &job, &slot, &flags, &back, perr) == -1,
              "a job cut to %zu bytes is refused", cut);
    sb_free(&b);
    build_job_list_free(&jobs);
    variant_plan_free(&plan);
}

static void test_result_roundtrip(void)
{
    build_variant_result r;
    memset(&r, 0, sizeof r);
    r.status = BUILD_VARIANT_OK;
    r.note = strdup("ptxas failed, PTX only: something");
    r.n_kernel_names = 2;
    r.kernel_names = calloc(2, sizeof *r.kernel_names);
    r.kernel_names[0] = strdup("a");
    r.kernel_names[1] = strdup("b");
    r.n_forms = 3;
    r.forms[0] = (build_variant_form){.kind = CLCPACK_KIND_PTX, .arch = 86,
                           .data = (unsigned char *)strdup(".version 8.0"), .size = 12};
    r.forms[1] = (build_variant_form){.kind = CLCPACK_KIND_CUBIN, .arch = 86,
                           .data = (unsigned char *)strdup("\177ELF"), .size = 4};
    r.forms[2] = (build_variant_form){.kind = CLCPACK_KIND_INTEL, .arch = 12u << 22 | 55u << 12 | 8u,
                           .data = (unsigned char *)strdup("\177ELF"), .size = 4,
                           .target = "acm-g10"};
    r.build_s = 0.75;
    for (int p = 0; p < BUILD_VARIANT_N_PHASES; p++)
        r.phase_s[p] = 0.125 * (p + 1);
    r.n_tunings = 2;
    r.tunings[0] = (clcpack_tuning){3, 2048, 2048, 11, 41200};
    r.tunings[1] = (clcpack_tuning){7, 2048, 2048, 11, 95000};
    r.remote = BUILD_VARIANT_REMOTE_REJECTED;
    r.upload = BUILD_VARIANT_UPLOAD_FAILED;
    r.remote_note = strdup("the object's SHA-256 is 0123..., not 4567...");
    r.upload_note = strdup("PUT .../cas/89ab...: HTTP 413");
    r.local = BUILD_VARIANT_REMOTE_RETRY;
    r.local_stored = 1;
    r.local_note = strdup("the cached variant failed its check");
    strbuf b;
    sb_init(&b);
    worker_proto_encode_result(&b, 7, &r);
    build_variant_result back;
    uint32_t job;
    char err[WORKER_PROTO_ERR_MAX];
    CHECK(worker_proto_decode_result(b.data + 12, b.len - 12, &job, &back, err) == 0, "result decodes: %s",
          err);
    CHECK(job == 7 && back.status == BUILD_VARIANT_OK && back.n_forms == 3, "status and forms back");
    CHECK(back.forms[2].kind == CLCPACK_KIND_INTEL && back.forms[2].arch == r.forms[2].arch &&
              strcmp(back.forms[2].target, "acm-g10") == 0 && back.forms[0].target[0] == '\0',
          "an offline form's kind, arch and target back");
    CHECK(back.forms[0].kind == CLCPACK_KIND_PTX && back.forms[0].arch == 86 &&
              back.forms[0].size == 12 && memcmp(back.forms[0].data, ".version 8.0", 12) == 0,
          "PTX form back");
    CHECK(back.forms[1].kind == CLCPACK_KIND_CUBIN && back.forms[1].size == 4, "cubin back");
    CHECK(back.n_kernel_names == 2 && strcmp(back.kernel_names[0], "a") == 0 &&
              strcmp(back.kernel_names[1], "b") == 0,
          "kernel names back");
    CHECK(back.note && strstr(back.note, "ptxas") && back.message == NULL && back.log == NULL,
          "note back, no message or log");
    CHECK(back.build_s > 0.74 && back.build_s < 0.76, "build time back");
    for (int p = 0; p < BUILD_VARIANT_N_PHASES; p++)
        CHECK(back.phase_s[p] == 0.125 * (p + 1), "phase %d's time back", p);
    CHECK(back.n_tunings == 2 && back.tunings[0].runtime_value == 3 &&
              back.tunings[0].median_ns == 41200 && back.tunings[1].runtime_value == 7 &&
              back.tunings[1].width == 2048 && back.tunings[1].runs == 11 &&
              back.tunings[1].median_ns == 95000,
          "--tune timings back");
    CHECK(back.remote == BUILD_VARIANT_REMOTE_REJECTED && back.upload == BUILD_VARIANT_UPLOAD_FAILED &&
              back.remote_note && strstr(back.remote_note, "SHA-256") && back.upload_note &&
              strstr(back.upload_note, "413"),
          "what the remote cache did, and why, back");
    CHECK(back.local == BUILD_VARIANT_REMOTE_RETRY && back.local_stored == 1 && back.local_note &&
              strstr(back.local_note, "cached variant"),
          "what the variant cache did, and why, back");
    build_variant_result_free(&back);
    for (size_t cut = 0; cut < b.len - 12; cut += 5)
        CHECK(worker_proto_decode_result(b.data + 12, cut, &job, &back, err) == -1,
              "a result cut to %zu bytes is refused", cut);

    /* A frame on a pipe: whole, then a bad magic, then an oversized one. */
    int fds[2];
    if (CHECK(pipe(fds) == 0, "pipe")) {
        CHECK(clcpk_fd_write_all(fds[1], b.data, b.len) == 0, "frame written");
        unsigned char head[12] = {'X', 'X', 'X', 'X', 0, 0, 0, 0, 0, 0, 0, 0};
        CHECK(clcpk_fd_write_all(fds[1], head, sizeof head) == 0, "bad frame written");
        close(fds[1]);
        unsigned char *payload;
        size_t size;
        CHECK(worker_proto_read_frame(fds[0], WORKER_PROTO_RESULT_MAGIC, WORKER_PROTO_RESULT_MAX, &payload, &size, err) == 0 &&
                  size == b.len - 12,
              "frame read back");
        free(payload);
        CHECK(worker_proto_read_frame(fds[0], WORKER_PROTO_RESULT_MAGIC, WORKER_PROTO_RESULT_MAX, &payload, &size, err) == -1 &&
                  strstr(err, "magic"),
              "a bad magic is refused: %s", err);
        CHECK(worker_proto_read_frame(fds[0], WORKER_PROTO_RESULT_MAGIC, WORKER_PROTO_RESULT_MAX, &payload, &size, err) == 1,
              "end of file reads as 1");
        close(fds[0]);
    }
    r.status = BUILD_VARIANT_BUILD_FAILED;
    for (size_t i = 0; i < r.n_forms; i++)
        free(r.forms[i].data);
    r.n_forms = 0;
    r.log = strdup("error: expected ';'");
    sb_free(&b);
    sb_init(&b);
    worker_proto_encode_result(&b, 8, &r);
    CHECK(worker_proto_decode_result(b.data + 12, b.len - 12, &job, &back, err) == 0 &&
              back.status == BUILD_VARIANT_BUILD_FAILED && back.log && strstr(back.log, "expected"),
          "a failed build's log comes back");
    build_variant_result_free(&back);
    build_variant_result_free(&r);
    sb_free(&b);
}

typedef struct collected {
    size_t n, ok, started;
    int seen[16];
    char last_message[512];
} collected;

static void on_started(void *ctx, size_t job, size_t worker)
{
    (void)job;
    (void)worker;
    ((collected *)ctx)->started++;
}

static void on_finished(void *ctx, size_t job, build_variant_result *r)
{
    collected *c = ctx;
    c->n++;
    if (job < 16)
        c->seen[job]++;
    if (r->status == BUILD_VARIANT_OK && r->n_forms > 0 && r->forms[0].size > 0 && r->n_kernel_names > 0)
        c->ok++;
    if (r->message)
        snprintf(c->last_message, sizeof c->last_message, "%s", r->message);
}

static int stop_after_one(void *ctx)
{
    return ((collected *)ctx)->n >= 1;
}

/* A retry callback: each job once more after its first death. */
static int retried[16];

static int retry_once(void *ctx, size_t job, const build_variant_result *r, int died)
{
    (void)ctx;
    (void)r;
    if (job >= 16 || !died)
        return 0;
    return retried[job]++ == 0;
}

/* Jobs for the first n variants of a small plan, on device slot 0. */
static size_t make_jobs(strbuf *jobs, size_t n, build_job_list *plan)
{
    variant_plan_request req;
    memset(&req, 0, sizeof req);
    req.n_kernels = 1;
    req.kernels[0] = "poly_numcoeffs";
    char err[VARIANT_PLAN_ERR_MAX];
    variant_plan vp;
    if (variant_plan_make(&manifest, &req, &vp, err) != 0)
        return 0;
    char merr[MANIFEST_ERR_MAX];
    memset(plan, 0, sizeof *plan);
    int rc = manifest_jobs_make(&manifest, &vp, plan, merr);
    variant_plan_free(&vp);
    if (rc != 0)
        return 0;
    if (n > plan->n)
        n = plan->n;
    for (size_t i = 0; i < n; i++) {
        sb_init(&jobs[i]);
        worker_proto_encode_job(&jobs[i], (uint32_t)i, 0, 0, &plan->jobs[i]);
    }
    return n;
}

static void test_pool(const char *argv0)
{
    strbuf jobs[4];
    build_job_list plan;
    size_t n = make_jobs(jobs, 3, &plan);
    if (!CHECK(n == 3, "three jobs"))
        return;
    worker_pool_callbacks cb;
    collected c;
    char err[512];

    /* A worker that reads its job and dies: each job fails, naming how. */
    memset(&c, 0, sizeof c);
    cb = (worker_pool_callbacks){&c, on_started, on_finished, NULL, NULL, 0, NULL, NULL, NULL, NULL};
    char *die_argv[] = {(char *)"sh", (char *)"-c", (char *)"head -c 12 >/dev/null; exit 3",
                        NULL};
    CHECK(worker_pool_run("/bin/sh", die_argv, 2, 0, jobs, NULL, n, &cb, err, sizeof err) == 0,
          "a dying worker still ends the run: %s", err);
    CHECK(c.n == 3 && c.ok == 0 && c.seen[0] == 1 && c.seen[1] == 1 && c.seen[2] == 1,
          "each job gets exactly one failed result (%zu)", c.n);
    CHECK(strstr(c.last_message, "exited with status 3") != NULL, "the death is named: %s",
          c.last_message);

    /* Stopped (an interrupt) once a job has finished: the running job
     * finishes, no other starts, and the run ends without an error. */
    memset(&c, 0, sizeof c);
    cb.stop = stop_after_one;
    CHECK(worker_pool_run("/bin/sh", die_argv, 1, 0, jobs, NULL, n, &cb, err, sizeof err) == 0 &&
              c.n == 1 && c.started == 1,
          "a stopped run: %zu of %zu jobs started and finished (%s)", c.n, n, err);
    cb.stop = NULL;
    /* The same with a retry callback that hands each job out once more:
     * each job is started twice and finished once, after its second
     * death, on a fresh worker each time. */
    memset(&c, 0, sizeof c);
    memset(retried, 0, sizeof retried);
    cb = (worker_pool_callbacks){&c, on_started, on_finished, NULL, NULL, 0, NULL, retry_once, NULL, NULL};
    CHECK(worker_pool_run("/bin/sh", die_argv, 2, 0, jobs, NULL, n, &cb, err, sizeof err) == 0,
          "a dying worker with retries ends the run: %s", err);
    CHECK(c.started == 6 && c.n == 3 && c.seen[0] == 1 && c.seen[1] == 1 && c.seen[2] == 1,
          "each job is started twice (%zu) and finished once (%zu)", c.started, c.n);
    CHECK(retried[0] == 2 && retried[1] == 2 && retried[2] == 2,
          "the callback is asked at each death (%d %d %d)", retried[0], retried[1], retried[2]);
    cb.retry = NULL;

    /* A worker that exits before reading anything: the jobs are retried
     * on fresh workers, then the run gives up saying why. */
    memset(&c, 0, sizeof c);
    char *false_argv[] = {(char *)"false", NULL};
    int rc = worker_pool_run("/bin/false", false_argv, 2, 0, jobs, NULL, n, &cb, err, sizeof err);
    CHECK(c.n < 3 ? rc == -1 && strstr(err, "not run") && strstr(err, "exited with status 1")
                  : rc == 0,
          "workers that never read: %zu results, rc %d: %s", c.n, rc, err);

    /* A worker that answers garbage. */
    memset(&c, 0, sizeof c);
    char *junk_argv[] = {(char *)"sh", (char *)"-c",
                         (char *)"head -c 12 >/dev/null; printf 'CLCRgarbage!' >&3", NULL};
    CHECK(worker_pool_run("/bin/sh", junk_argv, 1, 0, jobs, NULL, 1, &cb, err, sizeof err) == 0,
          "garbage run ends: %s", err);
    CHECK(c.n == 1 && c.ok == 0 && c.last_message[0], "garbage is a failed job: %s",
          c.last_message);

    /* Groups: jobs of one group never run at the same time. Each fake
     * worker takes one job, logs its start and end, and dies. */
    {
        strbuf same[4];
        for (size_t i = 0; i < 4; i++) {
            sb_init(&same[i]);
            worker_proto_encode_job(&same[i], (uint32_t)i, 0, 0, &plan.jobs[0]);
        }
        char log[] = "/tmp/test_worker_log.XXXXXX";
        int lfd = mkstemp(log);
        if (lfd >= 0)
            close(lfd);
        char script[1024];
        snprintf(script, sizeof script,
                 "f=$(mktemp); head -c %zu >\"$f\"; id=$(od -An -tu4 -j12 -N4 \"$f\" | tr -d ' ');"
                 " echo \"start $id\" >>%s; sleep 0.3; echo \"end $id\" >>%s; rm -f \"$f\"; exit 3",
                 same[0].len, log, log);
        char *group_argv[] = {(char *)"sh", (char *)"-c", script, NULL};
        const size_t group[4] = {0, 0, 1, 1};
        memset(&c, 0, sizeof c);
        CHECK(worker_pool_run("/bin/sh", group_argv, 2, 0, same, group, 4, &cb, err, sizeof err) == 0 &&
                  c.n == 4,
              "grouped run: %zu results: %s", c.n, err);
        FILE *f = fopen(log, "r");
        int running[4] = {0}, clash = 0, overlap = 0, lines = 0;
        char word[16];
        unsigned id;
        while (f && fscanf(f, "%15s %u", word, &id) == 2 && id < 4) {
            lines++;
            if (strcmp(word, "start") == 0) {
                for (unsigned o = 0; o < 4; o++)
                    if (running[o] && o != id) {
                        if (group[o] == group[id])
                            clash = 1;
                        else
                            overlap = 1;
                    }
                running[id] = 1;
            } else {
                running[id] = 0;
            }
        }
        if (f)
            fclose(f);
        unlink(log);
        CHECK(lines == 8, "every job started and ended once (%d lines)", lines);
        CHECK(!clash, "no two jobs of one group ran together");
        CHECK(overlap, "jobs of different groups did run together");
        for (size_t i = 0; i < 4; i++)
            sb_free(&same[i]);
    }

    /* A worker that cannot start. */
    memset(&c, 0, sizeof c);
    err[0] = '\0';
    CHECK(worker_pool_run("/nonexistent/clc-pack", false_argv, 2, 0, jobs, NULL, n, &cb, err,
                    sizeof err) == -1 &&
              strstr(err, "/nonexistent/clc-pack"),
          "an exe that cannot start is an error naming it: %s", err);

    /* Real workers: the clc-pack built beside this test. */
    char exe[4096], dir[4096];
    snprintf(dir, sizeof dir, "%s", argv0);
    snprintf(exe, sizeof exe, "%s/../clc-pack", dirname(dir));
    if (access(exe, X_OK) != 0) {
        CHECK_SKIP("%s not built: the real worker run", exe);
    } else {
        const char *kdir = getenv("CLC_KERNELS_DIR");
        char *argv[] = {(char *)"clc-pack", (char *)"--worker", (char *)"--kernels",
                        (char *)(kdir && *kdir ? kdir : "kernels"), (char *)"--device",
                        (char *)"0:0", NULL};
        memset(&c, 0, sizeof c);
        CHECK(worker_pool_run(exe, argv, 2, 0, jobs, NULL, 2, &cb, err, sizeof err) == 0,
              "real run: %s", err);
        CHECK(c.n == 2 && c.ok == 2 && c.started == 2, "two real builds come back (%zu ok): %s",
              c.ok, c.last_message);
        /* A device slot the worker was not given. */
        strbuf bad;
        sb_init(&bad);
        worker_proto_encode_job(&bad, 0, 5, 0, &plan.jobs[0]);
        memset(&c, 0, sizeof c);
        CHECK(worker_pool_run(exe, argv, 1, 0, &bad, NULL, 1, &cb, err, sizeof err) == 0 && c.n == 1 &&
                  c.ok == 0 && strstr(c.last_message, "slot"),
              "an unknown device slot is a failed job: %s", c.last_message);
        sb_free(&bad);
    }
    for (size_t i = 0; i < n; i++)
        sb_free(&jobs[i]);
    build_job_list_free(&plan);
}

int main(int argc, char **argv)
{
    source_gen_install(&kernelgen_generator); /* the bundled manifest's generators */
    (void)argc;
    const char *dir = getenv("CLC_KERNELS_DIR");
    char err[MANIFEST_ERR_MAX];
    test_wire();
    if (CHECK(manifest_load(dir && *dir ? dir : "kernels", &manifest, err) == 0, "manifest: %s", err)) {
        test_job_roundtrip();
        test_result_roundtrip();
        test_pool(argv[0]);
    }
    return check_summary();
}
