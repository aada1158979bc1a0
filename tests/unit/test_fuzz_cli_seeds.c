/*
 * test_fuzz_cli_seeds.c — the binary seeds of the worker protocol, PoCL
 * canonicalization and remote cache record fuzz targets
 * (tests/fuzz/corpus_worker_proto/, tests/fuzz/corpus_pocl_canon/synth_*,
 * tests/fuzz/corpus_remote_record/; docs/ROBUSTNESS.md) are what the
 * encoders make today: each is made again here and compared with the
 * committed file, so a change of an encoding fails this test instead of
 * leaving the fuzzers seeds of an older one.
 *
 *   test_fuzz_cli_seeds            compare (make test, make check)
 *   test_fuzz_cli_seeds --write    write them anew into tests/fuzz/
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fuzz_replay.h"
#include "rcache_record.h"
#include "worker_proto.h"

static int write_mode;

/* Compares (or, with --write, writes) tests/fuzz/SUB/NAME. */
static void save(const char *sub, const char *name, const void *p, size_t n)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s/%s", fuzz_replay_dir(), sub, name);
    if (write_mode) {
        FILE *f = fopen(path, "wb");
        int ok = f && fwrite(p, 1, n, f) == n;
        ok = (f && fclose(f) == 0) && ok;
        CHECK(ok, "%s written (%zu bytes)", path, n);
        return;
    }
    size_t have = 0;
    uint8_t *old = fuzz_replay_read(path, &have);
    CHECK(old != NULL, "%s: the seed is committed", path);
    if (old)
        CHECK(have == n && memcmp(old, p, n) == 0,
              "%s: the committed seed (%zu bytes) is what the encoder makes today (%zu bytes); "
              "rewrite the seeds with test_fuzz_cli_seeds --write",
              path, have, n);
    free(old);
}

static void worker_corpus(void)
{
    build_job j;
    memset(&j, 0, sizeof j);
    static char src[] = "__kernel void k(__global int *o) { o[0] = TS; }\n";
    j.entry_name = "tiles";
    j.program_entry = 1;
    j.source_name = "tiled.cl";
    j.source = src;
    j.source_size = sizeof src - 1;
    j.options = "-cl-std=CL1.2 -DTS=16 -DWPT=2";
    build_job_define defs[2] = {{"TS", "16"}, {"WPT", "2"}};
    j.defines = defs;
    j.n_defines = 2;
    j.wg[0] = 16;
    j.wg[1] = 8;
    j.wg[2] = 1;
    char *kernels[2] = {"j", "k"};
    j.kernels = kernels;
    j.n_kernels = 2;
    j.check = "";
    j.check_cmd = "./test {binary} {defines}";
    j.tune_cmd = "";
    strbuf b;
    sb_init(&b);
    worker_proto_encode_job(&b, 7, 0, 0, &j);
    save("corpus_worker_proto", "job_payload", b.data + 12, b.len - 12);
    worker_proto_encode_job(&b, 8, 1, WORKER_PROTO_JOB_NO_LOOKUP, &j);
    save("corpus_worker_proto", "job_stream_two", b.data, b.len);
    sb_free(&b);

    build_variant_result r;
    memset(&r, 0, sizeof r);
    r.status = BUILD_VARIANT_OK;
    r.message = "built";
    r.note = "ptxas failed: PTX only";
    static unsigned char ptx[] = ".version 7.0\n.target sm_80\n";
    r.n_forms = 2;
    r.forms[0].kind = CLCPACK_KIND_PTX;
    r.forms[0].arch = 80;
    r.forms[0].data = ptx;
    r.forms[0].size = sizeof ptx - 1;
    r.forms[1].kind = CLCPACK_KIND_NATIVE;
    r.forms[1].data = ptx;
    r.forms[1].size = 4;
    r.n_kernel_names = 2;
    r.kernel_names = kernels;
    r.build_s = 1.25;
    r.n_tunings = 1;
    r.tunings[0].runtime_value = 5;
    r.tunings[0].width = 64;
    r.tunings[0].height = 32;
    r.tunings[0].runs = 3;
    r.tunings[0].median_ns = 123456;
    r.remote = BUILD_VARIANT_REMOTE_MISS;
    r.upload = BUILD_VARIANT_UPLOAD_FAILED;
    r.upload_note = "PUT http://127.0.0.1:1/cas/0123456789ab...: HTTP 413";
    r.local = BUILD_VARIANT_REMOTE_MISS;
    r.local_stored = 1;
    sb_init(&b);
    worker_proto_encode_result(&b, 7, &r);
    save("corpus_worker_proto", "result_payload", b.data + 12, b.len - 12);
    save("corpus_worker_proto", "result_stream", b.data, b.len);
    sb_free(&b);

    memset(&r, 0, sizeof r);
    r.status = BUILD_VARIANT_BUILD_FAILED;
    r.message = "clBuildProgram failed";
    r.log = "error: use of undeclared identifier 'TS'";
    r.remote = BUILD_VARIANT_REMOTE_REJECTED;
    r.remote_note = "the object's SHA-256 is 000000000000..., not 111111111111... (its address)";
    r.local = BUILD_VARIANT_REMOTE_REJECTED;
    r.local_note = "the record's SHA-256 is not the one in the entry's head";
    sb_init(&b);
    worker_proto_encode_result(&b, 9, &r);
    save("corpus_worker_proto", "result_failed_payload", b.data + 12, b.len - 12);
    sb_free(&b);

    sb_init(&b);
    worker_proto_encode_load_job(&b, 3, 12);
    save("corpus_worker_proto", "load_job_payload", b.data + 12, b.len - 12);
    sb_free(&b);
}

/* A small PoCL binary of format 9 (pocl_binary_canon.c describes it): two
 * kernels, each with a generic folder and work-group specializations. */
static unsigned char pb[4096];
static size_t pn;

static void p32(uint32_t v)
{
    for (int i = 0; i < 4; i++)
        pb[pn++] = (unsigned char)(v >> (8 * i));
}

static void p64(uint64_t v)
{
    p32((uint32_t)v);
    p32((uint32_t)(v >> 32));
}

static void pbytes(const void *p, size_t n)
{
    memcpy(pb + pn, p, n);
    pn += n;
}

static void pfile(const char *path, const char *content)
{
    p32((uint32_t)strlen(path));
    pbytes(path, strlen(path));
    p32((uint32_t)strlen(content));
    pbytes(content, strlen(content));
}

static void pkernel(const char *name, const char *const *files, size_t n, const char *loose)
{
    size_t at = pn;
    p64(0);
    p64(0);
    p32(4);                      /* arginfo size */
    p32((uint32_t)strlen(name));
    pbytes(name, strlen(name));
    pbytes("meta", 4);
    size_t files_at = pn;
    for (size_t i = 0; i < n; i++) {
        char path[128];
        snprintf(path, sizeof path, "/%s/%s/parallel.bc", name, files[i]);
        pfile(path, "BC\xc0\xde tempfile_Ab3xZ9.cl");
    }
    if (loose)
        pfile(loose, "ELF");
    size_t end = pn;
    pn = at;
    p64(end - at);
    p64(end - files_at);
    pn = end;
}

static void pocl_corpus(void)
{
    pn = 0;
    pbytes("poclbin\0", 8);
    p64(0x1234);
    p32(9);
    p32(2);
    p32(0);
    p32(1);
    p32(1);
    char hash[41];
    memset(hash, 'h', sizeof hash);
    pbytes(hash, sizeof hash);
    size_t bc_at = pn;
    p64(0);
    pfile("/program.bc", "BC\xc0\xde tempfile_q1w2e3.cl");
    size_t bc_end = pn;
    pn = bc_at;
    p64(bc_end - bc_at - 8);
    pn = bc_end;
    static const char *const conv[] = {"16-16-1-goffs0-smallgrid", "0-0-0", "8-8-1-goffs0",
                                       "8-8-1-goffs0-smallgrid"};
    static const char *const other[] = {"8-8-1-goffs0", "0-0-0", "32-1-1"};
    pkernel("Convolve_Def", conv, 4, NULL);
    pkernel("Other", other, 3, NULL);
    save("corpus_pocl_canon", "synth_two_kernels", pb, pn);

    /* One kernel without the own specialization, a file in its folder. */
    pn = bc_end;
    pb[20] = 1;
    static const char *const no_own[] = {"0-0-0", "8-8-1-goffs1", "8-8-1-goffs0"};
    pkernel("Convolve_Def", no_own, 3, "/Convolve_Def/loose.so");
    save("corpus_pocl_canon", "synth_no_own", pb, pn);
}

/* A corpus input of remote_record_target.h: the selector byte, then the bytes. */
static void save_selected(const char *name, int selector, const void *p, size_t n)
{
    unsigned char *buf = malloc(n + 1);
    if (!CHECK(buf != NULL, "%zu bytes for %s", n + 1, name))
        return;
    buf[0] = (unsigned char)selector;
    memcpy(buf + 1, p, n);
    save("corpus_remote_record", name, buf, n + 1);
    free(buf);
}

static void remote_corpus(void)
{
    static unsigned char native[] = "\x7f" "ELF then the rest of a binary";
    static unsigned char ptx[] = ".version 7.0\n.target sm_80\n";
    char *names[2] = {"blur", "sharpen"};
    rcache_record r;
    memset(&r, 0, sizeof r);
    r.key_text = "clc-pack-key 1:1\ntool 5:0.1.0\n";
    r.key_len = strlen(r.key_text);
    r.signature = "blur(1) a1 x3 q0 float* a\nsharpen(1) a1 x3 q0 float* a\n";
    r.n_kernel_names = 2;
    r.kernel_names = names;
    r.note = "";
    r.n_forms = 1;
    r.forms[0] = (build_variant_form){.kind = CLCPACK_KIND_NATIVE, .arch = 0, .data = native, .size = sizeof native - 1};
    strbuf b;
    sb_init(&b);
    rcache_record_encode(&r, &b);
    save_selected("record_native", 0, b.data, b.len);
    sb_free(&b);
    r.note = "no cubin for sm_75";
    r.n_forms = 2;
    r.forms[0] = (build_variant_form){.kind = CLCPACK_KIND_PTX, .arch = 80, .data = ptx, .size = sizeof ptx - 1};
    r.forms[1] = (build_variant_form){.kind = CLCPACK_KIND_CUBIN, .arch = 80, .data = native, .size = sizeof native - 1};
    sb_init(&b);
    rcache_record_encode(&r, &b);
    save_selected("record_ptx_cubin", 0, b.data, b.len);
    sb_free(&b);
    unsigned char ac[RCACHE_RECORD_AC_MAX];
    size_t n = rcache_record_ac_encode("9c0e5d2a00112233445566778899aabbccddeeff00112233445566778899aabb",
                             4242, ac);
    save_selected("action_result", 1, ac, n);
    /* An exit code and another output file before ours. */
    unsigned char more[RCACHE_RECORD_AC_MAX];
    static const unsigned char head[] = {0x20, 0x05, 0x12, 0x07, 0x0a, 0x05,
                                         'o',  't',  'h',  'e',  'r'};
    memcpy(more, head, sizeof head);
    memcpy(more + sizeof head, ac, n);
    save_selected("action_result_more_fields", 1, more, sizeof head + n);
}

int main(int argc, char **argv)
{
    write_mode = argc == 2 && strcmp(argv[1], "--write") == 0;
    if (argc > 1 && !write_mode) {
        fprintf(stderr, "usage: test_fuzz_cli_seeds [--write]\n");
        return 2;
    }
    worker_corpus();
    pocl_corpus();
    remote_corpus();
    return check_summary();
}
