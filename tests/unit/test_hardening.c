/*
 * test_hardening.c — what a pack made or placed by someone else can cost a
 * reader, and pinning (docs/FORMAT.md, "Threat model"):
 *
 *  - clcpack_open_file reads a file's header before anything else: an
 *    8 GiB sparse file that is not a pack is refused without being read, a
 *    FIFO without blocking, a folder as not a regular file;
 *  - a valid pack with a 4 GiB hole is not read: opening it reads its
 *    header and index, and costs memory in proportion to its index;
 *  - a delta chain decodes within its budget (CLCPACK_CHAIN_BUDGET times
 *    the entry's raw size) holding at most two links besides the output,
 *    and a chain whose bases grow past the budget is refused at open;
 *  - reading every entry in turn inflates each blob about once (the base
 *    cache), also from several threads at once;
 *  - SHA-256 against the FIPS 180-4 examples; clcpack_open_file_pinned
 *    takes the pinned pack and refuses any other; clcpack_pack_sha256
 *    agrees for packs read whole and read on demand;
 *  - the writer's file output is byte for byte its memory output, and
 *    20 000 entries add and write (with hashing, not pairwise compares);
 *    a writer that spools binaries to a file writes the same bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "clcpack_write.h"
#include "hostile_pack.h"
#include "pack_decode.h"
#include "pack_reader.h"
#include "sha256.h"

#define MIB (1024 * 1024)

/* ASan keeps freed memory in quarantine (and TSan's allocator holds on to
 * it), so peak memory says nothing of how many buffers the decoder held at
 * once: that check is left out under either. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

/* Under valgrind (scripts/sanitize.sh) its allocator decides what stays
 * resident, and everything runs 20 to 50 times slower: the peak-memory
 * check is left out and the large cases are made smaller. */
static int under_valgrind(void)
{
    const char *pre = getenv("LD_PRELOAD");
    return pre && (strstr(pre, "vgpreload") || strstr(pre, "valgrind"));
}

static char dir[] = "/tmp/clcpack-hardening-XXXXXX";

static void path_in_dir(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", dir, name);
}

static void test_open_refusals(void)
{
    char path[256];
    clcpack *p = NULL;
    clcpack_error err;

    /* 8 GiB of hole with no magic: one 64-byte read, not 8 GB. */
    path_in_dir(path, sizeof path, "big-not-a-pack");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0 && ftruncate(fd, (off_t)8 << 30) == 0, "sparse file: %s", strerror(errno));
    if (fd >= 0)
        close(fd);
    size_t before = hostile_rss_kib();
    clcpack_status st = clcpack_open_file(path, &p, &err);
    size_t after = hostile_rss_kib();
    CHECK(st == CLCPACK_E_FORMAT && strstr(err.message, "bad magic") &&
              strstr(err.message, "big-not-a-pack"),
          "8 GiB non-pack: status %d, '%s'", (int)st, err.message);
    CHECK(after < before + 16 * 1024, "8 GiB non-pack: resident memory grew %zu KiB",
          after - before);
    unlink(path);

    /* The same with the magic but a header that says another size. */
    path_in_dir(path, sizeof path, "lying-size");
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0 && write(fd, "\x89" "CLCPK\r\n\1\0\1\0", 12) == 12 &&
              ftruncate(fd, (off_t)1 << 30) == 0,
          "lying file: %s", strerror(errno));
    if (fd >= 0)
        close(fd);
    before = hostile_rss_kib();
    st = clcpack_open_file(path, &p, &err);
    after = hostile_rss_kib();
    CHECK(st == CLCPACK_E_FORMAT, "1 GiB file with a header of zeros: status %d, '%s'", (int)st,
          err.message);
    CHECK(after < before + 16 * 1024, "1 GiB bad header: resident memory grew %zu KiB",
          after - before);
    unlink(path);

    /* A FIFO with no writer: open(2) would block without O_NONBLOCK. */
    path_in_dir(path, sizeof path, "fifo");
    CHECK(mkfifo(path, 0644) == 0, "mkfifo: %s", strerror(errno));
    alarm(30); /* a hang fails the test instead of stalling the run */
    st = clcpack_open_file(path, &p, &err);
    alarm(0);
    CHECK(st == CLCPACK_E_IO && strstr(err.message, "not a regular file"),
          "FIFO: status %d, '%s'", (int)st, err.message);
    unlink(path);

    st = clcpack_open_file(dir, &p, &err);
    CHECK(st == CLCPACK_E_IO && strstr(err.message, "not a regular file"),
          "folder: status %d, '%s'", (int)st, err.message);
    CHECK(p == NULL, "no handle after a refusal");
}

static void test_holed_pack(void)
{
    char path[256];
    path_in_dir(path, sizeof path, "hole.clcpack");
    if (!CHECK(hostile_sparse_pack(path, (uint64_t)4 << 30) == 0, "sparse pack written"))
        return;
    clcpack *p = NULL;
    clcpack_error err;
    size_t before = hostile_rss_kib();
    clcpack_status st = clcpack_open_file(path, &p, &err);
    size_t after = hostile_rss_kib();
    if (!CHECK(st == CLCPACK_OK, "4 GiB pack opens: %s", err.message)) {
        unlink(path);
        return;
    }
    CHECK(after < before + 16 * 1024, "4 GiB pack: resident memory grew %zu KiB on open",
          after - before);
    char buf[64];
    size_t n = 0;
    st = clcpack_read_binary(p, 0, buf, sizeof buf, &n, &err);
    CHECK(st == CLCPACK_OK && n == 15 && memcmp(buf, "a small binary", 15) == 0,
          "entry of the 4 GiB pack reads: %s", err.message);
    clcpack_close(p);
    unlink(path);

    /* A 20 MiB pack read on demand, and its digest, pinned or not. */
    if (!CHECK(hostile_sparse_pack(path, (uint64_t)20 * MIB) == 0, "20 MiB sparse pack"))
        return;
    struct stat sb;
    stat(path, &sb);
    uint8_t *all = malloc((size_t)sb.st_size);
    FILE *f = fopen(path, "rb");
    CHECK(all && f && fread(all, 1, (size_t)sb.st_size, f) == (size_t)sb.st_size, "read back");
    if (f)
        fclose(f);
    uint8_t want[32], got[32];
    clcpack_digest_sha256(all, (size_t)sb.st_size, want);
    free(all);
    st = clcpack_open_file(path, &p, &err);
    CHECK(st == CLCPACK_OK && clcpack_pack_sha256(p, got) == CLCPACK_OK &&
              memcmp(got, want, 32) == 0,
          "digest of a pack read on demand is the file's");
    /* The entries still read after hashing. */
    st = clcpack_read_binary(p, 0, buf, sizeof buf, &n, &err);
    CHECK(st == CLCPACK_OK && memcmp(buf, "a small binary", 15) == 0, "reads after hashing");
    clcpack_close(p);
    p = NULL;
    st = clcpack_open_file_pinned(path, want, &p, &err);
    CHECK(st == CLCPACK_OK, "pinned open of a large pack: %s", err.message);
    clcpack_close(p);
    unlink(path);
}

/* Peak memory of reading the last entry of a chain of 8 entries of raw
 * bytes each, measured in a child so the parent's history does not count. */
static long chain_peak_kib(uint64_t raw)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        size_t size;
        uint8_t *pack = hostile_chain_pack(8, 0, raw, 1, &size);
        clcpack *p = NULL;
        clcpack_error err;
        long delta = -1;
        uint8_t *out = malloc((size_t)raw);
        if (pack && out && clcpack_open_memory(pack, size, &p, &err) == CLCPACK_OK) {
            memset(out, 1, (size_t)raw); /* the caller's buffer is resident before */
            size_t start = hostile_peak_rss_kib();
            size_t n;
            if (clcpack_read_binary(p, 7, out, (size_t)raw, &n, &err) == CLCPACK_OK)
                delta = (long)(hostile_peak_rss_kib() - start);
        }
        clcpack_close(p);
        free(out);
        free(pack);
        if (write(fds[1], &delta, sizeof delta) != (ssize_t)sizeof delta)
            _exit(1);
        _exit(0);
    }
    close(fds[1]);
    long delta = -1;
    if (read(fds[0], &delta, sizeof delta) != (ssize_t)sizeof delta)
        delta = -1;
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return delta;
}

static void test_chain_budget(void)
{
    const uint64_t raw = under_valgrind() ? 2 * MIB : 32 * MIB;
    long peak = chain_peak_kib(raw);
    CHECK(peak >= 0 && (UNDER_ASAN || under_valgrind() || (uint64_t)peak * 1024 <= 2 * raw + 8 * MIB),
          "chain of 8 x %llu MiB: peak memory grew %ld KiB besides the output (at most two links)",
          (unsigned long long)(raw / MIB), peak);

    size_t size;
    clcpack *p = NULL;
    clcpack_error err;
    uint8_t *pack = hostile_chain_pack(8, 0, 256 * 1024, 1, &size);
    CHECK(pack && clcpack_open_memory(pack, size, &p, &err) == CLCPACK_OK, "chain of 8 opens");
    uint64_t before = clcpk_inflated_bytes(p);
    uint8_t *out = malloc(256 * 1024);
    size_t n;
    CHECK(p && clcpack_read_binary(p, 7, out, 256 * 1024, &n, &err) == CLCPACK_OK,
          "chain of 8 decodes: %s", err.message);
    uint64_t used = clcpk_inflated_bytes(p) - before;
    CHECK(used <= (uint64_t)CLCPACK_CHAIN_BUDGET * 256 * 1024,
          "chain of 8: %llu bytes inflated, budget %d x raw", (unsigned long long)used,
          CLCPACK_CHAIN_BUDGET);
    free(out);
    clcpack_close(p);
    free(pack);

    /* Bases 3x their delta: refused at open (more than twice). */
    pack = hostile_chain_pack(2, 0, 4096, 3, &size);
    clcpack_status st = clcpack_open_memory(pack, size, &p, &err);
    CHECK(st == CLCPACK_E_LIMIT && strstr(err.message, "more than 2 times"),
          "base 3x its delta: status %d, '%s'", (int)st, err.message);
    free(pack);
    /* Bases 2x each: each is allowed, the chain's sum is not. */
    pack = hostile_chain_pack(8, 0, 4096, 2, &size);
    st = clcpack_open_memory(pack, size, &p, &err);
    CHECK(st == CLCPACK_E_LIMIT && strstr(err.message, "delta chain decodes"),
          "doubling chain: status %d, '%s'", (int)st, err.message);
    free(pack);
    /* Doubling three deep stays within the budget (1 + 2 + 4 = 7). */
    pack = hostile_chain_pack(3, 0, 4096, 2, &size);
    st = clcpack_open_memory(pack, size, &p, &err);
    CHECK(st == CLCPACK_OK, "bases 2x and 4x: %s", err.message);
    clcpack_close(p);
    free(pack);
}

typedef struct reader_arg {
    const clcpack *p;
    size_t first, n, raw;
    int bad;
} reader_arg;

static void *read_all(void *v)
{
    reader_arg *a = v;
    uint8_t *buf = malloc(a->raw);
    for (size_t k = 0; k < a->n; k++) {
        size_t i = (a->first + k) % clcpack_entry_count(a->p), n;
        clcpack_error err;
        if (clcpack_read_binary(a->p, i, buf, a->raw, &n, &err) != CLCPACK_OK || n != a->raw)
            a->bad++;
        else
            for (size_t j = 0; j < n; j++)
                a->bad += buf[j] != 0;
    }
    free(buf);
    return NULL;
}

static void test_linear_pass(void)
{
    const size_t raw = 64 * 1024, extra = under_valgrind() ? 40 : 200;
    size_t size;
    uint8_t *pack = hostile_chain_pack(8, extra, raw, 1, &size);
    clcpack *p = NULL;
    clcpack_error err;
    if (!CHECK(pack && clcpack_open_memory(pack, size, &p, &err) == CLCPACK_OK,
               "shared-chain pack opens"))
        return;
    uint64_t before = clcpk_inflated_bytes(p);
    reader_arg one = {p, 0, 8 + extra, raw, 0};
    read_all(&one);
    uint64_t used = clcpk_inflated_bytes(p) - before;
    CHECK(one.bad == 0, "every entry decodes to its bytes");
    CHECK(used <= 2 * (8 + extra) * (uint64_t)raw,
          "a pass over %zu entries inflated %llu bytes for %llu raw (each blob about once)",
          8 + extra, (unsigned long long)used, (unsigned long long)((8 + extra) * raw));

    pthread_t th[4];
    reader_arg args[4];
    for (int t = 0; t < 4; t++) {
        args[t] = (reader_arg){p, (size_t)t * 37, (under_valgrind() ? 1 : 3) * (8 + extra), raw, 0};
        pthread_create(&th[t], NULL, read_all, &args[t]);
    }
    int bad = 0;
    for (int t = 0; t < 4; t++) {
        pthread_join(th[t], NULL);
        bad += args[t].bad;
    }
    CHECK(bad == 0, "4 threads reading through the shared cache: %d bad reads", bad);
    clcpack_close(p);
    free(pack);
}

static void hex_of(const uint8_t d[32], char out[65]) { clcpk_hex(d, 32, out); }

static void test_sha256(void)
{
    static const struct {
        const char *msg;
        const char *digest;
    } v[] = {
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    };
    char hex[65];
    uint8_t d[32];
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        clcpack_digest_sha256(v[i].msg, strlen(v[i].msg), d);
        hex_of(d, hex);
        CHECK(strcmp(hex, v[i].digest) == 0, "SHA-256 of '%s': %s", v[i].msg, hex);
        /* The same in pieces of every length 1..13. */
        for (size_t piece = 1; piece <= 13; piece++) {
            clcpk_sha256 s;
            clcpk_sha256_init(&s);
            size_t len = strlen(v[i].msg);
            for (size_t at = 0; at < len; at += piece)
                clcpk_sha256_update(&s, v[i].msg + at, len - at < piece ? len - at : piece);
            clcpk_sha256_final(&s, d);
            hex_of(d, hex);
            if (!CHECK(strcmp(hex, v[i].digest) == 0, "SHA-256 of '%s' in pieces of %zu",
                       v[i].msg, piece))
                break;
        }
    }
    /* One million 'a' (FIPS 180-4 examples). */
    char *a = malloc(1000000);
    memset(a, 'a', 1000000);
    clcpack_digest_sha256(a, 1000000, d);
    hex_of(d, hex);
    CHECK(strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0,
          "SHA-256 of a million 'a': %s", hex);
    free(a);
    /* Lengths around the padding boundary (55, 56, 63, 64 bytes) agree
     * between one call and byte-at-a-time. */
    uint8_t buf[130];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 7 + 1);
    for (size_t len = 50; len <= 130; len++) {
        uint8_t one[32], bytes[32];
        clcpack_digest_sha256(buf, len, one);
        clcpk_sha256 s;
        clcpk_sha256_init(&s);
        for (size_t k = 0; k < len; k++)
            clcpk_sha256_update(&s, buf + k, 1);
        clcpk_sha256_final(&s, bytes);
        if (!CHECK(memcmp(one, bytes, 32) == 0, "length %zu: one call and byte by byte agree", len))
            break;
    }
}

static clcpack_writer *small_writer_flags(size_t n_entries, size_t bin_size, uint32_t flags)
{
    clcpack_writer *w = NULL;
    clcpack_error err;
    clcpack_writer_new(flags, &w, &err);
    clcpack_device_info d = {.struct_size = sizeof d};
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    snprintf(d.platform_name, sizeof d.platform_name, "Test");
    snprintf(d.device_name, sizeof d.device_name, "test device");
    d.device_type = CL_DEVICE_TYPE_CPU;
    d.address_bits = 64;
    uint32_t dev, src;
    clcpack_writer_add_device(w, &d, &dev, &err);
    static const char text[] = "__kernel void k(void) {}\n";
    clcpack_writer_add_source(w, "k.cl", text, sizeof text - 1, &src, &err);
    uint8_t *bin = malloc(bin_size);
    for (size_t i = 0; i < n_entries; i++) {
        char value[32];
        snprintf(value, sizeof value, "%zu", i);
        clcpack_define def = {"N", value};
        for (size_t k = 0; k < bin_size; k++)
            bin[k] = (uint8_t)(k % 13 == 0 ? i >> (k % 3 * 8) : k);
        clcpack_entry_spec s;
        memset(&s, 0, sizeof s);
        s.struct_size = sizeof s;
        s.kernel = i % 2 ? "odd" : "even";
        s.defines = &def;
        s.define_count = 1;
        s.device = dev;
        s.source = src;
        s.kind = CLCPACK_KIND_NATIVE;
        s.binary = bin;
        s.binary_size = bin_size;
        if (clcpack_writer_add_entry(w, &s, &err) != CLCPACK_OK) {
            CHECK(0, "add entry %zu: %s", i, err.message);
            break;
        }
    }
    free(bin);
    return w;
}

static clcpack_writer *small_writer(size_t n_entries, size_t bin_size)
{
    return small_writer_flags(n_entries, bin_size, 0);
}

/* A spooled writer writes the same bytes as one that keeps binaries in
 * memory, and still tells a conflicting duplicate from a repeated one. */
static void test_spool(void)
{
    clcpack_writer *mem_w = small_writer(500, 3000), *spool_w = small_writer_flags(500, 3000, CLCPACK_WRITE_SPOOL);
    clcpack_error err;
    void *a = NULL, *b = NULL;
    size_t an = 0, bn = 0;
    CHECK(mem_w && spool_w, "writers made");
    CHECK(clcpack_writer_write_memory(mem_w, &a, &an, &err) == CLCPACK_OK &&
              clcpack_writer_write_memory(spool_w, &b, &bn, &err) == CLCPACK_OK,
          "both write: %s", err.message);
    CHECK(an == bn && a && b && memcmp(a, b, an) == 0,
          "spooled writer: %zu bytes, the same as in memory (%zu)", bn, an);
    char path[256];
    path_in_dir(path, sizeof path, "spool.clcpack");
    CHECK(clcpack_writer_write_file(spool_w, path, &err) == CLCPACK_OK, "spooled write_file");
    FILE *f = fopen(path, "rb");
    uint8_t *file = malloc(an + 1);
    size_t fn = f ? fread(file, 1, an + 1, f) : 0;
    if (f)
        fclose(f);
    CHECK(fn == an && memcmp(file, a, an) == 0, "spooled file is the same pack");
    free(file);
    unlink(path);
    /* Re-adding entry 7 (kernel "odd", N=7) with its bytes is a no-op; with
     * other bytes, a conflict. */
    uint8_t bin[3000];
    for (size_t k = 0; k < sizeof bin; k++)
        bin[k] = (uint8_t)(k % 13 == 0 ? (size_t)7 >> (k % 3 * 8) : k);
    clcpack_define def = {"N", "7"};
    clcpack_entry_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.struct_size = sizeof sp;
    sp.kernel = "odd";
    sp.defines = &def;
    sp.define_count = 1;
    sp.source = 0;
    sp.binary = bin;
    sp.binary_size = sizeof bin;
    CHECK(clcpack_writer_add_entry(spool_w, &sp, &err) == CLCPACK_OK,
          "spooled: the same entry again is a no-op: %s", err.message);
    bin[100] ^= 1;
    CHECK(clcpack_writer_add_entry(spool_w, &sp, &err) == CLCPACK_E_CONFLICT &&
              strstr(err.message, "other bytes"),
          "spooled: other bytes are a conflict: %s", err.message);
    clcpack_free(a);
    clcpack_free(b);
    clcpack_writer_free(mem_w);
    clcpack_writer_free(spool_w);
}

static void test_writer(void)
{
    clcpack_writer *w = small_writer(300, 2000);
    clcpack_error err;
    void *mem = NULL;
    size_t mem_n = 0;
    char path[256];
    path_in_dir(path, sizeof path, "w.clcpack");
    CHECK(clcpack_writer_write_memory(w, &mem, &mem_n, &err) == CLCPACK_OK, "write_memory");
    CHECK(clcpack_writer_write_file(w, path, &err) == CLCPACK_OK, "write_file: %s", err.message);
    FILE *f = fopen(path, "rb");
    uint8_t *file = malloc(mem_n + 1);
    size_t file_n = f ? fread(file, 1, mem_n + 1, f) : 0;
    if (f)
        fclose(f);
    CHECK(file_n == mem_n && memcmp(file, mem, mem_n) == 0,
          "streamed file (%zu bytes) is the memory pack (%zu bytes)", file_n, mem_n);

    /* Pinning: the right digest opens, a changed byte does not. */
    uint8_t digest[32];
    clcpack_digest_sha256(mem, mem_n, digest);
    clcpack *p = NULL;
    clcpack_status st = clcpack_open_file_pinned(path, digest, &p, &err);
    uint8_t got[32];
    CHECK(st == CLCPACK_OK && clcpack_pack_sha256(p, got) == CLCPACK_OK &&
              memcmp(got, digest, 32) == 0,
          "pinned open with the right digest: %s", err.message);
    clcpack_close(p);
    p = NULL;
    digest[31] ^= 1;
    st = clcpack_open_file_pinned(path, digest, &p, &err);
    CHECK(st == CLCPACK_E_CHECKSUM && strstr(err.message, "not the pinned pack") && p == NULL,
          "pinned open with another digest: status %d, '%s'", (int)st, err.message);
    CHECK(clcpack_open_file_pinned(path, NULL, &p, &err) == CLCPACK_E_INVALID_ARG,
          "NULL digest refused");
    free(file);
    clcpack_free(mem);
    clcpack_writer_free(w);
    unlink(path);

    /* Many entries: hashed adds, a duplicate with the same bytes is a
     * no-op and one with other bytes a conflict. */
    const size_t many = under_valgrind() ? 2000 : 20000;
    w = small_writer(many, 64);
    clcpack_entry_spec s;
        memset(&s, 0, sizeof s);
        s.struct_size = sizeof s;
    clcpack_define def = {"N", "1235"}; /* an odd entry that exists */
    uint8_t other[64] = {1};
    s.kernel = "odd";
    s.defines = &def;
    s.define_count = 1;
    s.binary = other;
    s.binary_size = sizeof other;
    st = clcpack_writer_add_entry(w, &s, &err);
    CHECK(st == CLCPACK_E_CONFLICT, "duplicate key with other bytes: status %d", (int)st);
    mem = NULL;
    CHECK(clcpack_writer_write_memory(w, &mem, &mem_n, &err) == CLCPACK_OK, "write %zu entries",
          many);
    CHECK(mem && clcpack_open_memory(mem, mem_n, &p, &err) == CLCPACK_OK &&
              clcpack_entry_count(p) == many && clcpack_source_count(p) == 1,
          "%zu entries read back", many);
    clcpack_close(p);
    clcpack_free(mem);
    clcpack_writer_free(w);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    if (!CHECK(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno)))
        return check_summary();
    test_sha256();
    test_open_refusals();
    test_holed_pack();
    test_chain_budget();
    test_linear_pass();
    test_writer();
    test_spool();
    rmdir(dir);
    return check_summary();
}
