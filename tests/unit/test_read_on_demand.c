/*
 * test_read_on_demand.c — clcpack_open_file reads the header and the index
 * and nothing else; a load reads its entry's blobs (docs/FORMAT.md,
 * "Reading a pack file"), so what a load costs does not grow with the pack:
 *  - a 1 GiB pack (a real zstd pack grown by 10 000 filler entries whose
 *    blobs are a hole in the file, with a lookup table written from
 *    docs/FORMAT.md by tests/common/lookup_table.c) opens after reading
 *    under 64 KiB (a few MB for a zlib pack, whose whole index is read)
 *    and gives one entry, counted twice: by the kernel (/proc/self/io
 *    rchar, every read and pread of the process) and by the handle's own
 *    counter;
 *  - a pack file cut short under an open handle: the entries past the cut
 *    fail with CLCPACK_E_IO ("shrank"), no signal, the others still load;
 *  - bytes rewritten in place fail their CRC-32; a pack replaced by rename
 *    is not seen by a handle already open;
 *  - the dictionary is loaded once per open pack, however many entries use
 *    it, also when four threads read the entries of one handle at once
 *    (the first to need it loads it; make test-tsan runs this), and the
 *    pinned open still hashes the whole file.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "clcpack_write.h"
#include "dict_cache.h"
#include "hostile_pack.h"
#include "pack_io.h"
#include "pack_reader.h"
#include "portable.h"
#include "synth_pack.h"

#define MIB ((uint64_t)1 << 20)

static char dir[] = "/tmp/clcpack-on-demand-XXXXXX";

/* rchar of /proc/self/io: bytes this process has read with read(2),
 * pread(2) and the like, page cache or not. UINT64_MAX when unknown. */
static uint64_t rchar(void)
{
    FILE *f = fopen("/proc/self/io", "r");
    char line[128];
    uint64_t v = UINT64_MAX;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "rchar: %llu", (unsigned long long *)&v) == 1)
            break;
    if (f)
        fclose(f);
    return v;
}

static const char *in_dir(const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%s", dir, name);
    return buf;
}

/* A zstd pack (or zlib where the library has no zstd) of the synthetic
 * corpus, written to path; its bytes in *data. */
static int write_pack(const char *path, uint8_t **data, size_t *size)
{
    synth_corpus c;
    clcpack_error err;
    if (synth_make(&c, 2, 6, 20000, 40000, 1, 0xd1c7) != 0)
        return -1;
    clcpack_writer *w = synth_writer(&c, 0, &err);
    int ok = w && clcpack_writer_write_file(w, path, &err) == CLCPACK_OK &&
             clcpack_writer_write_memory(w, (void **)data, size, &err) == CLCPACK_OK;
    clcpack_writer_free(w);
    synth_free(&c);
    return ok ? 0 : -1;
}

/* The first entry that is not a filler and needs no other entry. */
static size_t real_entry(const clcpack *p, int want_dict)
{
    for (size_t i = 0; i < clcpack_entry_count(p); i++) {
        clcpack_entry_info e = {.struct_size = sizeof e};
        clcpack_get_entry(p, i, &e);
        if (strncmp(e.kernel, "filler_", 7) != 0 && (!want_dict || e.codec == 4))
            return i;
    }
    return 0;
}

static void test_big_pack(const uint8_t *pack, size_t size)
{
    char path[128];
    in_dir("big.clcpack", path, sizeof path);
    size_t fillers = 0;
    if (!CHECK(hostile_padded_pack(pack, size, path, (uint64_t)1 << 30, 98304, &fillers) == 0,
               "1 GiB pack written"))
        return;
    struct stat sb;
    stat(path, &sb);
    CHECK(sb.st_size >= (off_t)(1 << 30) - (off_t)(1 << 20) && fillers > 10000,
          "the pack is %lld bytes with %zu filler entries", (long long)sb.st_size, fillers);
    uint64_t before = rchar();
    clcpack *p = NULL;
    clcpack_error err;
    if (!CHECK(clcpack_open_file(path, &p, &err) == CLCPACK_OK, "open: %s", err.message))
        return;
    uint64_t opened = rchar();
    size_t i = real_entry(p, 0), f = clcpack_entry_count(p) - 1;
    clcpack_entry_info e = {.struct_size = sizeof e}, fe = {.struct_size = sizeof fe};
    clcpack_get_entry(p, i, &e);
    clcpack_get_entry(p, f, &fe);
    /* Both found by their keys (through the lookup table written from the
     * document), a filler also by its name and wg alone. */
    clcpack_key ke = {e.kernel, e.defines, e.define_count, {e.wg[0], e.wg[1], e.wg[2]}};
    clcpack_key kf = {fe.kernel, NULL, 0, {fe.wg[0], fe.wg[1], fe.wg[2]}};
    size_t got_i = SIZE_MAX, got_f = SIZE_MAX, n_i = 0, n_f = 0;
    int found = clcpack_find(p, &ke, &got_i, 1, &n_i, &err) == CLCPACK_OK && n_i >= 1 &&
                got_i <= i && clcpack_find(p, &kf, &got_f, 1, &n_f, &err) == CLCPACK_OK &&
                n_f == 1 && got_f == f;
    CHECK(found, "the real entry's key and the last filler's name find them (%zu, %zu)", got_i,
          got_f);
    uint8_t *buf = malloc((size_t)(e.raw_size > fe.raw_size ? e.raw_size : fe.raw_size));
    size_t got;
    CHECK(clcpack_read_binary(p, i, buf, (size_t)e.raw_size, &got, &err) == CLCPACK_OK,
          "a real entry loads: %s", err.message);
    CHECK(clcpack_read_binary(p, f, buf, (size_t)fe.raw_size, &got, &err) == CLCPACK_OK,
          "a filler entry loads: %s", err.message);
    uint64_t loaded = rchar();
    uint64_t counted = clcpk_file_bytes_read(p);
    if (before == UINT64_MAX || loaded == UINT64_MAX)
        CHECK_SKIP("/proc/self/io is not readable here; the handle's counter only");
    else if (pack[8] >= 5) /* a lookup table: the open reads no index */
        CHECK(opened - before < 64 * 1024 && loaded - before < 1 * MIB,
              "opening the 1 GiB pack through its lookup table read %llu bytes, and with two "
              "loads %llu (under 64 KiB and 1 MiB)",
              (unsigned long long)(opened - before), (unsigned long long)(loaded - before));
    else
        CHECK(opened - before < 4 * MIB && loaded - before < 5 * MIB,
              "opening the 1 GiB pack read %llu bytes, and with two loads %llu (under 4 and 5 "
              "MiB)",
              (unsigned long long)(opened - before), (unsigned long long)(loaded - before));
    CHECK(counted < 5 * MIB && counted >= e.stored_size + fe.stored_size,
          "the handle counted %llu bytes read", (unsigned long long)counted);
    printf("1 GiB pack, %zu entries: open read %llu bytes, two loads %llu more (rchar); the "
           "handle counted %llu\n",
           clcpack_entry_count(p), (unsigned long long)(opened - before),
           (unsigned long long)(loaded - opened), (unsigned long long)counted);
    free(buf);
    clcpack_close(p);
    unlink(path);
}

/* Cut under an open handle: a short read is an error, not a signal. */
static void test_truncated_while_open(const uint8_t *pack, size_t size)
{
    char path[128];
    in_dir("cut.clcpack", path, sizeof path);
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(pack, 1, size, f) == size && fclose(f) == 0, "pack copied");
    clcpack *p = NULL;
    clcpack_error err;
    if (!CHECK(clcpack_open_file(path, &p, &err) == CLCPACK_OK, "open: %s", err.message))
        return;
    /* Cut the file just after the first entry blob's end. */
    clcpack_entry_info first = {.struct_size = sizeof first}, last = {.struct_size = sizeof last};
    clcpack_get_entry(p, 0, &first);
    size_t n = clcpack_entry_count(p);
    clcpack_get_entry(p, n - 1, &last);
    size_t cut = 64 + 1; /* at least the header's worth stays */
    CHECK(truncate(path, (off_t)cut) == 0, "file cut to %zu bytes under the open handle", cut);
    uint8_t *buf = malloc((size_t)last.raw_size);
    size_t got;
    clcpack_status st = clcpack_read_binary(p, n - 1, buf, (size_t)last.raw_size, &got, &err);
    CHECK(st == CLCPACK_E_IO && strstr(err.message, "shrank") && strstr(err.message, path),
          "an entry past the cut fails with CLCPACK_E_IO naming the file: %d %s", st,
          err.message);
    /* The file's end is its size now, not the offset the read began at. */
    char ends[64];
    snprintf(ends, sizeof ends, "it ends at %zu,", cut);
    CHECK(strstr(err.message, ends) != NULL, "the message gives the file's real end (%zu): %s",
          cut, err.message);
    free(buf);
    clcpack_close(p);

    /* Rewritten in place: the CRC-32 catches the new bytes. */
    f = fopen(path, "wb");
    CHECK(f && fwrite(pack, 1, size, f) == size && fclose(f) == 0, "pack written again");
    CHECK(clcpack_open_file(path, &p, &err) == CLCPACK_OK, "open again: %s", err.message);
    if (!p)
        return;
    size_t k = real_entry(p, 0);
    clcpack_entry_info e = {.struct_size = sizeof e};
    clcpack_get_entry(p, k, &e);
    /* The blob's last byte flipped, in the same file (the entry's offset
     * from the library's own view). */
    uint64_t at = p->entries[k].offset + e.stored_size - 1;
    uint8_t byte = pack[at] ^ 0x55;
    int fd = open(path, O_WRONLY | O_BINARY);
    CHECK(fd >= 0 && pwrite(fd, &byte, 1, (off_t)at) == 1 && close(fd) == 0,
          "a byte of entry %zu rewritten in place", k);
    buf = malloc((size_t)e.raw_size);
    st = clcpack_read_binary(p, k, buf, (size_t)e.raw_size, &got, &err);
    CHECK(st == CLCPACK_E_CHECKSUM || st == CLCPACK_E_FORMAT,
          "the rewritten entry is refused: %d %s", st, err.message);
    free(buf);
    fd = open(path, O_WRONLY | O_BINARY);
    CHECK(fd >= 0 && pwrite(fd, &pack[at], 1, (off_t)at) == 1 && close(fd) == 0,
          "the byte put back");

    /* Replaced by rename: the open handle keeps the file it opened. */
    char other[128];
    in_dir("other.clcpack", other, sizeof other);
    f = fopen(other, "wb");
    CHECK(f && fwrite("not a pack", 1, 10, f) == 10 && fclose(f) == 0, "another file");
    int renamed = test_rename_over(other, path) == 0;
#ifdef _WIN32
    /* Windows (and Wine) refuse to rename over a file another handle has
     * open, FILE_SHARE_DELETE or not: nothing to read back then. */
    if (!renamed) {
        CHECK_SKIP("Windows refuses a rename over the open pack: the handle is not replaced");
        clcpack_close(p);
        unlink(other);
        unlink(path);
        return;
    }
#endif
    CHECK(renamed, "renamed over the open pack");
    size_t j = k == 0 ? 1 : 0;
    clcpack_get_entry(p, j, &e);
    buf = malloc((size_t)e.raw_size);
    st = clcpack_read_binary(p, j, buf, (size_t)e.raw_size, &got, &err);
    CHECK(st == CLCPACK_OK, "after a rename the handle still reads the pack it opened: %s",
          st ? err.message : "");
    free(buf);
    clcpack_close(p);
    unlink(path);
}

typedef struct reader {
    const clcpack *p;
    size_t first, bad;
} reader;

/* Reads every entry of the pack, starting at r->first. */
static void *read_all_entries(void *arg)
{
    reader *r = arg;
    size_t n = clcpack_entry_count(r->p);
    for (size_t k = 0; k < n; k++) {
        size_t i = (r->first + k) % n;
        clcpack_entry_info e = {.struct_size = sizeof e};
        clcpack_get_entry(r->p, i, &e);
        uint8_t *buf = malloc((size_t)e.raw_size);
        size_t got;
        clcpack_error err;
        r->bad += !buf || clcpack_read_binary(r->p, i, buf, (size_t)e.raw_size, &got, &err) !=
                              CLCPACK_OK;
        free(buf);
    }
    return NULL;
}

/* Four threads on one fresh handle: every read succeeds and each
 * dictionary is loaded once. */
static void test_threads(const char *path)
{
    clcpack *p = NULL;
    clcpack_error err;
    if (!CHECK(clcpack_open_file(path, &p, &err) == CLCPACK_OK, "open: %s", err.message))
        return;
    pthread_t t[4];
    reader r[4];
    for (int k = 0; k < 4; k++) {
        r[k] = (reader){p, (size_t)k * 7, 0};
        CHECK(pthread_create(&t[k], NULL, read_all_entries, &r[k]) == 0, "thread %d", k);
    }
    size_t bad = 0;
    for (int k = 0; k < 4; k++) {
        pthread_join(t[k], NULL);
        bad += r[k].bad;
    }
    CHECK(bad == 0, "four threads read every entry of one handle: %zu failures", bad);
    CHECK(clcpk_dict_loads(p) <= clcpack_dictionary_count(p),
          "%u dictionary loads for %zu dictionaries with four threads", clcpk_dict_loads(p),
          clcpack_dictionary_count(p));
    clcpack_close(p);
}

/* A dictionary is loaded once per open pack; the pinned open hashes the
 * whole file; the SHA-256 of a file pack is that of its bytes. */
static void test_dictionary_once(const char *path, const uint8_t *pack, size_t size)
{
    clcpack *p = NULL;
    clcpack_error err;
    if (!CHECK(clcpack_open_file(path, &p, &err) == CLCPACK_OK, "open: %s", err.message))
        return;
    if (clcpack_dictionary_count(p) == 0) {
        CHECK_SKIP("no dictionary in the pack (no zstd in this build)");
    } else {
        size_t users = 0;
        for (size_t i = 0; i < clcpack_entry_count(p); i++) {
            clcpack_entry_info e = {.struct_size = sizeof e};
            clcpack_get_entry(p, i, &e);
            uint8_t *buf = malloc((size_t)e.raw_size);
            size_t got;
            CHECK(clcpack_read_binary(p, i, buf, (size_t)e.raw_size, &got, &err) == CLCPACK_OK,
                  "entry %zu: %s", i, err.message);
            users += e.codec == 4;
            free(buf);
        }
        CHECK(users >= 2 && clcpk_dict_loads(p) <= clcpack_dictionary_count(p),
              "%zu entries use a dictionary; %u dictionary loads for %zu dictionaries", users,
              clcpk_dict_loads(p), clcpack_dictionary_count(p));
    }
    uint8_t a[32], b[32];
    clcpack_digest_sha256(pack, size, a);
    CHECK(clcpack_pack_sha256(p, b) == CLCPACK_OK && memcmp(a, b, 32) == 0,
          "the SHA-256 of a pack read on demand is that of its file");
    clcpack_close(p);
    CHECK(clcpack_open_file_pinned(path, a, &p, &err) == CLCPACK_OK, "pinned open: %s",
          err.message);
    clcpack_close(p);
}

int main(void)
{
    if (!CHECK(test_mkdtemp(dir) != NULL, "mkdtemp"))
        return check_summary();
    char path[128];
    in_dir("pack.clcpack", path, sizeof path);
    uint8_t *pack = NULL;
    size_t size = 0;
    if (CHECK(write_pack(path, &pack, &size) == 0, "pack written")) {
        test_big_pack(pack, size);
        test_truncated_while_open(pack, size);
        test_dictionary_once(path, pack, size);
        test_threads(path);
    }
    clcpack_free(pack);
    unlink(path);
    rmdir(dir);
    return check_summary();
}
