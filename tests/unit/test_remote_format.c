/* test_remote_format.c — the remote cache's key, record and action result
 * (docs/REMOTE_CACHE.md) and the --shard partition (plan_shard.h), without a
 * server or a device: what each field of the key covers, the record's round
 * trip and every way a damaged one is refused, the action result as a
 * protobuf with fields to skip, a partition every runner computes alike,
 * and the variant cache's entries on disk (docs/CACHE.md): their round
 * trip, every damaged one refused and removed, the bound's sizes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "lcache.h"
#include "plan_shard.h"
#include "ptxas_run.h"
#include "rcache_key.h"
#include "rcache_record.h"

static char *xdup(const char *s)
{
    char *d = strdup(s);
    if (!d)
        abort();
    return d;
}

/* A job of two defines and a kernel to find. */
static void make_job(build_job *j, const char *source)
{
    memset(j, 0, sizeof *j);
    j->entry_name = xdup("blur");
    j->program_entry = 1;
    j->family = xdup("");
    j->source_name = xdup("blur.cl");
    j->source = xdup(source);
    j->source_size = strlen(source);
    j->options = xdup("-DR=1 -DT=float");
    const char *names[2] = {"R", "T"}, *values[2] = {"1", "float"};
    if (build_job_set_defines(j, names, values, 2) != 0)
        abort();
    j->wg[0] = 16;
    j->wg[1] = 16;
    j->n_kernels = 1;
    j->kernels = calloc(1, sizeof *j->kernels);
    j->kernels[0] = xdup("blur");
    j->check = xdup("");
}

static void make_device(clcpack_device_info *d)
{
    memset(d, 0, sizeof *d);
    d->struct_size = sizeof *d;
    strcpy(d->platform_name, "Portable Computing Language");
    strcpy(d->platform_version, "OpenCL 3.0 PoCL 3.1");
    strcpy(d->device_name, "pthread-haswell");
    strcpy(d->device_version, "OpenCL 3.0 PoCL HSTR");
    strcpy(d->driver_version, "3.1");
    strcpy(d->opencl_c_version, "OpenCL C 1.2 PoCL");
    d->device_type = 2;
    d->vendor_id = 0x10006;
    d->address_bits = 64;
}

static void key_hex(const rcache_key_target *t, const build_job *j, char hex[RCACHE_KEY_HEX_SIZE])
{
    size_t len = 0;
    char *text = rcache_key_text(t, j, &len);
    if (!text)
        abort();
    rcache_key_sha256_hex(text, len, hex);
    free(text);
}

static void test_key(void)
{
    build_job j;
    make_job(&j, "__kernel void blur(__global float *a) { a[0] = R; }\n");
    clcpack_device_info dev;
    make_device(&dev);
    rcache_key_target t = {&dev, "native", "", "", 1, 0, NULL, NULL};
    char base[RCACHE_KEY_HEX_SIZE], k[RCACHE_KEY_HEX_SIZE];
    key_hex(&t, &j, base);
    CHECK(rcache_key_is_hex_digest(base, strlen(base)), "the key is 64 lowercase hex digits: %s", base);
    key_hex(&t, &j, k);
    CHECK(strcmp(base, k) == 0, "the same inputs give the same key");
    size_t len = 0;
    char *text = rcache_key_text(&t, &j, &len);
    CHECK(text && strncmp(text, "clc-pack-key 1:1\ntool ", 22) == 0 && strlen(text) == len,
          "the key text starts with its version and is a C string of its length");
    CHECK(text && strstr(text, "\nsource 67:") != NULL, "the key text names the source by "
                                                         "its SHA-256 and size");
    free(text);

    /* Each field that decides the bytes changes the key. */
#define CHANGES(what, change, undo)                                                      \
    do {                                                                                 \
        change;                                                                          \
        key_hex(&t, &j, k);                                                              \
        CHECK(strcmp(base, k) != 0, "another %s gives another key", what);              \
        undo;                                                                            \
        key_hex(&t, &j, k);                                                              \
        CHECK(strcmp(base, k) == 0, "and the same %s the same key again", what);        \
    } while (0)
    char was = j.source[30];
    CHANGES("source byte", j.source[30] = 'X', j.source[30] = was);
    CHANGES("option", j.options[2] = 'S', j.options[2] = 'R');
    CHANGES("define value", j.defines[1].value[0] = 'h', j.defines[1].value[0] = 'f');
    CHANGES("work-group", j.wg[1] = 8, j.wg[1] = 16);
    CHANGES("entry name", j.entry_name[0] = 'c', j.entry_name[0] = 'b');
    CHANGES("entry kind", j.program_entry = 0, j.program_entry = 1);
    CHANGES("entry flag", j.entry_flags = 1, j.entry_flags = 0);
    CHANGES("kernel to find", j.kernels[0][0] = 'c', j.kernels[0][0] = 'b');
    CHANGES("driver version", dev.driver_version[0] = '4', dev.driver_version[0] = '3');
    CHANGES("device name", dev.device_name[0] = 'q', dev.device_name[0] = 'p');
    CHANGES("driver UUID", (dev.has_uuid = 1, dev.driver_uuid[3] = 7),
            (dev.has_uuid = 0, dev.driver_uuid[3] = 0));
    CHANGES("compute capability", dev.nv_cc_major = 9, dev.nv_cc_major = 0);
    CHANGES("warm-up", t.warmup = 0, t.warmup = 1);
    CHANGES("form", t.forms = "ptx", t.forms = "native");
    CHANGES("ptxas", t.ptxas = "release 12.8", t.ptxas = "");
    CHANGES("architecture list", t.nv_arch = "75,80", t.nv_arch = "");
    /* The device's own UUID names a card, not what it builds. */
    dev.has_uuid = 1;
    key_hex(&t, &j, base);
    dev.device_uuid[0] = 0x42;
    key_hex(&t, &j, k);
    CHECK(strcmp(base, k) == 0, "two cards of one model and driver share keys");
    dev.has_uuid = 0;
    key_hex(&t, &j, base);

    /* Length-prefixed fields: a value holding what looks like a field is
     * still one value. */
    free(j.defines[1].value);
    j.defines[1].value = xdup("float\ndefine 1:Z");
    key_hex(&t, &j, k);
    free(j.defines[1].value);
    j.defines[1].value = xdup("float");
    const char *names[3] = {"R", "T", "Z"}, *values[3] = {"1", "float", ""};
    build_job j3;
    make_job(&j3, j.source);
    build_job_set_defines(&j3, names, values, 3);
    char k3[RCACHE_KEY_HEX_SIZE];
    key_hex(&t, &j3, k3);
    CHECK(strcmp(k, k3) != 0 && strcmp(base, k3) != 0,
          "a value spelling another define does not collide with that define");
    build_job_free(&j3);
    build_job_free(&j);
    CHECK(!rcache_key_is_hex_digest("ABCDEF", 6) &&
              !rcache_key_is_hex_digest("0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef",
                                 64),
          "upper case and short digests are not digests");
}

static unsigned char *encode(const rcache_record *r, size_t *n)
{
    strbuf b;
    sb_init(&b);
    rcache_record_encode(r, &b);
    if (b.failed)
        abort();
    *n = b.len;
    return b.data;
}

/* Writes the CRC of a record edited by a test, so that what is tested is
 * the check after the CRC. */
static void fix_crc(unsigned char *p, size_t n)
{
    uLong crc = crc32(0L, p, (uInt)(n - 4));
    for (int i = 0; i < 4; i++)
        p[n - 4 + (size_t)i] = (unsigned char)(crc >> (8 * i));
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* A record's fields before its forms. */
static void record_head(rcache_record *r, char *signature, char **names, size_t n_names, char *note,
                        size_t n_forms)
{
    memset(r, 0, sizeof *r);
    r->key_text = "clc-pack-key 1:1\n";
    r->key_len = strlen(r->key_text);
    r->signature = signature;
    r->n_kernel_names = n_names;
    r->kernel_names = names;
    r->note = note;
    r->n_forms = n_forms;
}

static void test_record(void)
{
    static unsigned char native[] = "\x7f" "ELF not really a binary";
    static unsigned char ptx[] = ".version 7.0\n.target sm_80\n";
    char *names[2] = {"blur", "sharpen"};
    rcache_record r;
    record_head(&r, "blur(1) a1 x3 q0 float* a\nsharpen(1) a1 x3 q0 float* a\n", names, 2,
                "no cubin for sm_75", 2);
    r.forms[0] = (build_variant_form){.kind = CLCPACK_KIND_PTX, .arch = 80, .data = ptx, .size = sizeof ptx - 1};
    r.forms[1] = (build_variant_form){.kind = CLCPACK_KIND_CUBIN, .arch = 80, .data = native, .size = sizeof native - 1};
    size_t n;
    unsigned char *bytes = encode(&r, &n);
    char err[RCACHE_RECORD_ERR_MAX];
    rcache_record back;
    CHECK(memcmp(bytes, "CLCPKREC", 8) == 0, "the record starts with its magic");
    if (CHECK(rcache_record_decode(bytes, n, &back, err) == 0, "the record decodes: %s", err)) {
        CHECK(back.key_len == r.key_len && memcmp(back.key_text, r.key_text, r.key_len) == 0 &&
                  strcmp(back.signature, r.signature) == 0 && strcmp(back.note, r.note) == 0,
              "key text, signature and note back");
        CHECK(back.n_kernel_names == 2 && strcmp(back.kernel_names[1], "sharpen") == 0,
              "kernel names back");
        CHECK(back.n_forms == 2 && back.forms[0].kind == CLCPACK_KIND_PTX &&
                  back.forms[0].arch == 80 && back.forms[0].size == sizeof ptx - 1 &&
                  memcmp(back.forms[0].data, ptx, sizeof ptx - 1) == 0 &&
                  back.forms[1].kind == CLCPACK_KIND_CUBIN &&
                  memcmp(back.forms[1].data, native, sizeof native - 1) == 0,
              "forms back, byte for byte");
        rcache_record_free(&back);
    }
    size_t cut_ok = 0, flip_ok = 0;
    for (size_t cut = 0; cut < n; cut++)
        cut_ok += rcache_record_decode(bytes, cut, &back, err) == 0;
    CHECK(cut_ok == 0, "every cut record is refused (%zu accepted)", cut_ok);
    unsigned char *copy = malloc(n);
    for (size_t i = 0; i < n; i++) {
        memcpy(copy, bytes, n);
        copy[i] ^= 0x20;
        if (rcache_record_decode(copy, n, &back, err) == 0) {
            flip_ok++;
            rcache_record_free(&back);
        }
    }
    CHECK(flip_ok == 0, "every flipped byte is refused (%zu accepted)", flip_ok);
    memcpy(copy, bytes, n);
    copy[n - 10] ^= 1;
    CHECK(rcache_record_decode(copy, n, &back, err) != 0 && strstr(err, "CRC-32"),
          "a changed form byte is a CRC mismatch: %s", err);

    /* Edits with the CRC made right again: the checks after it. */
    memcpy(copy, bytes, n);
    put32(copy + 12, 3);
    fix_crc(copy, n);
    CHECK(rcache_record_decode(copy, n, &back, err) != 0 && strstr(err, "reader of version 3"),
          "a record for newer readers is refused: %s", err);
    memcpy(copy, bytes, n);
    copy[16] ^= 1;
    fix_crc(copy, n);
    CHECK(rcache_record_decode(copy, n, &back, err) != 0 && strstr(err, "says it has"),
          "a record whose size field is wrong is refused: %s", err);
    memcpy(copy, bytes, n);
    copy[24 + 4 + 3] = '\0'; /* a NUL in the key text */
    fix_crc(copy, n);
    CHECK(rcache_record_decode(copy, n, &back, err) != 0, "a NUL in the key text is refused: %s", err);

    /* Bad forms, encoded as such. */
    rcache_record bad = r;
    bad.forms[1] = (build_variant_form){.kind = CLCPACK_KIND_PTX, .arch = 80, .data = native, .size = 4};
    free(copy);
    copy = encode(&bad, &n);
    CHECK(rcache_record_decode(copy, n, &back, err) != 0 && strstr(err, "twice"),
          "a record holding one form twice is refused: %s", err);
    free(copy);
    bad.forms[1] = (build_variant_form){.kind = CLCPACK_KIND_NATIVE, .arch = 80, .data = native, .size = 4};
    copy = encode(&bad, &n);
    CHECK(rcache_record_decode(copy, n, &back, err) != 0, "a native form with an arch is refused");
    free(copy);
    bad.forms[1] = (build_variant_form){.kind = (clcpack_binary_kind)6, .arch = 0, .data = native, .size = 4};
    copy = encode(&bad, &n);
    CHECK(rcache_record_decode(copy, n, &back, err) != 0, "an unknown kind is refused");
    free(copy);
    bad.n_forms = 0;
    copy = encode(&bad, &n);
    CHECK(rcache_record_decode(copy, n, &back, err) != 0 && strstr(err, "form count"),
          "a record without forms is refused: %s", err);
    free(copy);

    /* A later version's record with a field this reader does not know,
     * after version 2's targets (empty: a device's forms). */
    free(bytes);
    bytes = encode(&r, &n);
    CHECK(bytes[8] == 1 && bytes[12] == 1, "a device's record is version 1");
    unsigned char *later = calloc(1, n + 16);
    memcpy(later, bytes, n - 4);
    memcpy(later + n + 4, "EXTRA!!!", 8);
    put32(later + 8, 3);
    size_t m = n + 16;
    for (int i = 0; i < 8; i++)
        later[16 + i] = (unsigned char)((uint64_t)m >> (8 * i));
    fix_crc(later, m);
    if (CHECK(rcache_record_decode(later, m, &back, err) == 0,
              "a version-3 record readable by version 1 decodes, its new field skipped: %s",
              err)) {
        CHECK(back.n_forms == 2, "with its forms");
        rcache_record_free(&back);
    }
    free(later);
    free(bytes);
}

/* Version 2: an offline toolchain's forms with their targets. */
static void test_record_offline(void)
{
    static unsigned char spv[] = "\x03\x02\x23\x07 not really SPIR-V";
    static unsigned char elf[] = "\x7f" "ELF not really a code object";
    char *names[1] = {"twice"};
    rcache_record r;
    record_head(&r, "", names, 1, "", 2);
    r.forms[0] = (build_variant_form){.kind = CLCPACK_KIND_AMDGCN, .arch = 0x900a00, .data = elf,
                                      .size = sizeof elf - 1, .target = "gfx90a"};
    r.forms[1] = (build_variant_form){.kind = CLCPACK_KIND_SPIRV, .arch = 0x10000, .data = spv,
                                      .size = sizeof spv - 1, .target = "SPIR-V_1.0"};
    size_t n;
    unsigned char *bytes = encode(&r, &n);
    char err[RCACHE_RECORD_ERR_MAX];
    rcache_record back;
    CHECK(bytes[8] == 2 && bytes[12] == 2, "a record with offline forms is version 2, for readers of 2");
    if (CHECK(rcache_record_decode(bytes, n, &back, err) == 0, "it decodes: %s", err)) {
        CHECK(back.n_forms == 2 && back.forms[0].kind == CLCPACK_KIND_AMDGCN &&
                  back.forms[0].arch == 0x900a00 && strcmp(back.forms[0].target, "gfx90a") == 0 &&
                  strcmp(back.forms[1].target, "SPIR-V_1.0") == 0 &&
                  memcmp(back.forms[1].data, spv, sizeof spv - 1) == 0,
              "its forms and their targets back");
        rcache_record_free(&back);
    }
    size_t cut_ok = 0;
    for (size_t cut = 0; cut < n; cut++)
        cut_ok += rcache_record_decode(bytes, cut, &back, err) == 0;
    CHECK(cut_ok == 0, "every cut version-2 record is refused (%zu accepted)", cut_ok);
    /* Said to be version 1 (what an older writer could not have made). */
    put32(bytes + 8, 1);
    put32(bytes + 12, 1);
    fix_crc(bytes, n);
    CHECK(rcache_record_decode(bytes, n, &back, err) != 0 && strstr(err, "bad form"),
          "an offline kind in a version-1 record is refused: %s", err);
    free(bytes);
    r.forms[1].target[0] = '\0';
    bytes = encode(&r, &n);
    CHECK(rcache_record_decode(bytes, n, &back, err) != 0 && strstr(err, "form target"),
          "an offline form without a target is refused: %s", err);
    free(bytes);
}

static void test_action_result(void)
{
    const char *hash = "9c0e5d2a00112233445566778899aabbccddeeff00112233445566778899aabb";
    unsigned char ac[RCACHE_RECORD_AC_MAX];
    size_t n = rcache_record_ac_encode(hash, 123456, ac);
    char got[RCACHE_KEY_HEX_SIZE], err[RCACHE_RECORD_ERR_MAX];
    uint64_t size = 0;
    CHECK(n > 64 && n < 128, "an action result of %zu bytes", n);
    CHECK(ac[0] == 0x12, "it opens with output_files (field 2, length-delimited)");
    if (CHECK(rcache_record_ac_decode(ac, n, got, &size, err) == 0, "the action result decodes: %s", err))
        CHECK(strcmp(got, hash) == 0 && size == 123456, "its digest back");
    size_t accepted = 0;
    for (size_t cut = 0; cut < n; cut++)
        accepted += rcache_record_ac_decode(ac, cut, got, &size, err) == 0;
    CHECK(accepted == 0, "every cut action result is refused (%zu accepted)", accepted);

    /* Fields of the message clc-pack does not write are skipped: an exit
     * code, a 64-bit and a 32-bit field, another output file first. */
    unsigned char other[RCACHE_RECORD_AC_MAX];
    size_t o = 0;
    other[o++] = 4 << 3 | 0; /* exit_code = 300 */
    other[o++] = 0xAC;
    other[o++] = 0x02;
    other[o++] = 13 << 3 | 1; /* a fixed64 */
    memset(other + o, 7, 8);
    o += 8;
    other[o++] = 14 << 3 | 5; /* a fixed32 */
    memset(other + o, 7, 4);
    o += 4;
    const unsigned char foreign_file[] = {0x12, 0x07, 0x0a, 0x05, 'o', 't', 'h', 'e', 'r'};
    memcpy(other + o, foreign_file, sizeof foreign_file);
    o += sizeof foreign_file;
    memcpy(other + o, ac, n);
    o += n;
    if (CHECK(rcache_record_ac_decode(other, o, got, &size, err) == 0,
              "an action result with other fields decodes: %s", err))
        CHECK(strcmp(got, hash) == 0, "and names our record");
    unsigned char group[RCACHE_RECORD_AC_MAX];
    group[0] = 5 << 3 | 3; /* a group: refused */
    memcpy(group + 1, ac, n);
    CHECK(rcache_record_ac_decode(group, n + 1, got, &size, err) != 0, "a group field is refused");
    unsigned char long_varint[16];
    long_varint[0] = 4 << 3;
    memset(long_varint + 1, 0xFF, 11);
    long_varint[12] = 1;
    CHECK(rcache_record_ac_decode(long_varint, 13, got, &size, err) != 0,
          "a varint longer than 64 bits is refused");
    n = rcache_record_ac_encode("9C0E5D2A00112233445566778899AABBCCDDEEFF00112233445566778899AABB", 100,
                      ac);
    CHECK(rcache_record_ac_decode(ac, n, got, &size, err) != 0 && strstr(err, "hex"),
          "a digest in upper case is refused: %s", err);
    n = rcache_record_ac_encode(hash, 0, ac);
    CHECK(rcache_record_ac_decode(ac, n, got, &size, err) != 0, "an object of 0 bytes is refused");
    n = rcache_record_ac_encode(hash, (uint64_t)RCACHE_RECORD_OBJECT_MAX + 1, ac);
    CHECK(rcache_record_ac_decode(ac, n, got, &size, err) != 0 && strstr(err, "bytes"),
          "an object over 256 MiB is refused: %s", err);
    unsigned char big[RCACHE_RECORD_AC_MAX + 1];
    memset(big, 0, sizeof big);
    CHECK(rcache_record_ac_decode(big, sizeof big, got, &size, err) != 0,
          "an action result over 4 KiB is refused");
    CHECK(rcache_record_ac_decode(ac, 0, got, &size, err) != 0 && strstr(err, "no output file"),
          "an empty action result names no record: %s", err);
}

static void test_shard(void)
{
    plan_shard s;
    char err[PLAN_SHARD_ERR_MAX];
    CHECK(plan_shard_parse("2/4", &s, err) == 0 && s.k == 2 && s.n == 4, "2/4 parses");
    CHECK(plan_shard_parse("1/1", &s, err) == 0 && s.k == 1 && s.n == 1, "1/1 parses");
    const char *bad[] = {"0/4", "5/4", "1/0", "4", "/4", "1/", "a/4", "1/4/2", "-1/4",
                         "1 /4", "1/10001", "", "1/4x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(plan_shard_parse(bad[i], &s, err) != 0 && strstr(err, "--shard"),
              "'%s' is refused: %s", bad[i], err);

    enum { N_JOBS = 101 };
    build_job *jobs = calloc(N_JOBS, sizeof *jobs);
    uint64_t total = 0, biggest = 0;
    for (size_t i = 0; i < N_JOBS; i++) {
        /* Texts of many sizes, some equal (ties go by plan order). */
        jobs[i].source_size = (i * 7919) % 40000 + (i % 5 == 0 ? 0 : 100);
        uint64_t c = plan_shard_cost(&jobs[i]);
        total += c;
        biggest = c > biggest ? c : biggest;
    }
    unsigned parts[] = {1, 2, 4, 7, 16, 200};
    for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
        unsigned n = parts[p];
        unsigned which[N_JOBS], again[N_JOBS];
        uint64_t *cost = calloc(n, sizeof *cost);
        size_t *count = calloc(n, sizeof *count);
        CHECK(plan_shard_partition(jobs, N_JOBS, n, which, cost) == 0, "%u parts", n);
        plan_shard_partition(jobs, N_JOBS, n, again, NULL);
        CHECK(memcmp(which, again, sizeof which) == 0, "%u parts: the same partition twice", n);
        int in_range = 1;
        for (size_t i = 0; i < N_JOBS; i++) {
            in_range &= which[i] < n;
            if (which[i] < n)
                count[which[i]]++;
        }
        CHECK(in_range, "%u parts: every variant in one of them", n);
        uint64_t lo = UINT64_MAX, hi = 0, sum = 0;
        for (unsigned k = 0; k < n; k++) {
            sum += cost[k];
            lo = cost[k] < lo ? cost[k] : lo;
            hi = cost[k] > hi ? cost[k] : hi;
        }
        CHECK(sum == total, "%u parts: the costs add up to the plan's", n);
        /* Longest first: the parts end within one variant of each other. */
        CHECK(n > N_JOBS || hi - lo <= biggest,
              "%u parts: spread %llu within the largest variant's %llu", n,
              (unsigned long long)(hi - lo), (unsigned long long)biggest);
        if (n > N_JOBS) {
            size_t empty = 0;
            for (unsigned k = 0; k < n; k++)
                empty += count[k] == 0;
            CHECK(empty == n - N_JOBS, "%u parts for %d variants: %zu parts empty", n, N_JOBS,
                  empty);
        }
        free(cost);
        free(count);
    }
    /* The partition depends on the plan, not on memory: a copy in another
     * order of allocation gives the same parts. */
    build_job *copy = calloc(N_JOBS, sizeof *copy);
    memcpy(copy, jobs, N_JOBS * sizeof *jobs);
    unsigned a[N_JOBS], b[N_JOBS];
    plan_shard_partition(jobs, N_JOBS, 4, a, NULL);
    plan_shard_partition(copy, N_JOBS, 4, b, NULL);
    CHECK(memcmp(a, b, sizeof a) == 0, "a copy of the plan: the same partition");
    free(copy);
    free(jobs);
}

/* ptxas's identity, as the key names it: the last line of --version,
 * from a stand-in that prints what ptxas prints. */
static void test_ptxas_identity(void)
{
    char dir[] = "/tmp/test_remote_format.XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL, "a temporary folder"))
        return;
    char path[64], id[256];
    snprintf(path, sizeof path, "%s/ptxas", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("#!/bin/sh\n[ \"$1\" = --version ] || exit 3\n"
              "echo 'ptxas: NVIDIA (R) Ptx optimizing assembler'\n"
              "echo 'Copyright (c) 2005-2025 NVIDIA Corporation'\n"
              "echo 'Cuda compilation tools, release 12.8, V12.8.93'\n"
              "echo\n",
              f);
        fclose(f);
    }
    chmod(path, 0700);
    CHECK(ptxas_version(path, id, sizeof id) == 0 &&
              strcmp(id, "Cuda compilation tools, release 12.8, V12.8.93") == 0,
          "ptxas's identity is its last line: '%s'", id);
    f = fopen(path, "w");
    if (f) {
        fputs("#!/bin/sh\nexit 1\n", f);
        fclose(f);
    }
    CHECK(ptxas_version(path, id, sizeof id) != 0 && id[0] == '\0',
          "a ptxas that fails has no identity (no key: the cache is not used)");
    unlink(path);
    rmdir(dir);
}

/* The variant cache's entry: the record behind a magic and its SHA-256. */
static void test_local_entry(void)
{
    static unsigned char native[] = "\x7f" "ELF not really a binary";
    rcache_record r;
    memset(&r, 0, sizeof r);
    r.key_text = "clc-pack-key 1:1\n";
    r.key_len = strlen(r.key_text);
    r.signature = "blur(1) a1 x3 q0 float* a\n";
    r.note = "";
    r.n_forms = 1;
    r.forms[0] = (build_variant_form){.kind = CLCPACK_KIND_NATIVE, .data = native, .size = sizeof native - 1};
    strbuf b;
    sb_init(&b);
    lcache_encode(&r, &b);
    char why[LCACHE_MSG_MAX];
    rcache_record back;
    CHECK(!b.failed && b.len > LCACHE_HEAD_SIZE && memcmp(b.data, "CLCPKLC1", 8) == 0,
          "an entry starts with its magic");
    if (CHECK(lcache_decode(b.data, b.len, &back, why) == 0, "an entry decodes: %s", why)) {
        CHECK(back.key_len == r.key_len && back.n_forms == 1 && back.forms[0].size == r.forms[0].size &&
                  memcmp(back.forms[0].data, native, r.forms[0].size) == 0,
              "its record comes back");
        rcache_record_free(&back);
    }
    size_t flip_ok = 0, cut_ok = 0;
    for (size_t i = 0; i < b.len; i++) {
        b.data[i] ^= 0x10;
        if (lcache_decode(b.data, b.len, &back, why) == 0) {
            flip_ok++;
            rcache_record_free(&back);
        }
        b.data[i] ^= 0x10;
    }
    CHECK(flip_ok == 0, "every flipped byte of an entry is refused (%zu accepted)", flip_ok);
    for (size_t n = 0; n < b.len; n++)
        if (lcache_decode(b.data, n, &back, why) == 0) {
            cut_ok++;
            rcache_record_free(&back);
        }
    CHECK(cut_ok == 0, "every cut entry is refused (%zu accepted)", cut_ok);
    b.data[b.len / 2] ^= 1;
    CHECK(lcache_decode(b.data, b.len, &back, why) != 0 && strstr(why, "SHA-256"),
          "a flipped bit of the record is caught by the SHA-256: %s", why);
    sb_free(&b);

    /* On disk: stored, found; another variant's key text refused and the
     * entry removed; a key never stored a miss. */
    char dir[] = "/tmp/test_local_entry.XXXXXX", path[4096];
    if (!CHECK(mkdtemp(dir) != NULL, "a temporary folder"))
        return;
    const char *key = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    CHECK(lcache_store(dir, key, &r, why) == 0, "an entry is stored: %s", why);
    CHECK(lcache_lookup(dir, key, r.key_text, r.key_len, &back, why) == BUILD_VARIANT_REMOTE_HIT,
          "and found: %s", why);
    rcache_record_free(&back);
    CHECK(lcache_lookup(dir, key, "other\n", 6, &back, why) == BUILD_VARIANT_REMOTE_REJECTED &&
              strstr(why, "another variant"),
          "another variant's entry is refused: %s", why);
    lcache_entry_path(dir, key, path, sizeof path);
    CHECK(access(path, F_OK) != 0, "and removed");
    CHECK(lcache_lookup(dir, key, r.key_text, r.key_len, &back, why) == BUILD_VARIANT_REMOTE_MISS,
          "a key with no entry is a miss");
    rmdir(dir);

    static const struct {
        const char *text;
        uint64_t bytes; /* 0: refused */
    } sizes[] = {{"1", 1}, {"4096", 4096}, {"512K", 512u << 10}, {"512k", 512u << 10},
                 {"1M", 1u << 20}, {"2G", 2ull << 30}, {"2GiB", 2ull << 30}, {"2GB", 2ull << 30},
                 {"1T", 1ull << 40}, {"0", 0}, {"", 0}, {"-1", 0}, {"1.5G", 0}, {"1X", 0},
                 {"G", 0}, {"1GiBs", 0}, {"99999999999T", 0}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint64_t got = 0;
        int rc = lcache_parse_size(sizes[i].text, &got);
        CHECK(sizes[i].bytes ? rc == 0 && got == sizes[i].bytes : rc != 0,
              "CLC_PACK_CACHE_SIZE=%s is %s", sizes[i].text, sizes[i].bytes ? "read" : "refused");
    }
}

int main(void)
{
    test_ptxas_identity();
    test_key();
    test_record();
    test_record_offline();
    test_action_result();
    test_shard();
    test_local_entry();
    return check_summary();
}
