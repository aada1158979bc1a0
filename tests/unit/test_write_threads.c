/*
 * test_write_threads.c — the writer's encoding threads
 * (clcpack_writer_set_threads): a pack with delta groups, architecture
 * siblings, incompressible binaries and blobs stored because level 9 did
 * not make them smaller comes out byte-identical with 1, 2, 3 and 8
 * threads, spooled or not, in memory or in a file, and decodes back to
 * every binary, with zlib and with zstd (dictionaries trained, entries as
 * prefixes); a write that fails half-way returns its error with the
 * threads running.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "clcpack_write.h"
#include "synth_pack.h"

static char tmpdir[] = "/tmp/clcpack-write-threads-XXXXXX";

/* The codecs written (main runs the tests with each). */
static clcpack_compression mode = CLCPACK_COMPRESSION_ZLIB;

static clcpack_writer *new_writer(const synth_corpus *c, uint32_t flags, clcpack_error *err)
{
    clcpack_writer *w = synth_writer(c, flags, err);
    if (w && clcpack_writer_set_compression(w, mode, err) != CLCPACK_OK) {
        clcpack_writer_free(w);
        return NULL;
    }
    return w;
}

static uint8_t *write_with(const synth_corpus *c, uint32_t flags, unsigned threads, size_t *size)
{
    clcpack_error err;
    clcpack_writer *w = new_writer(c, flags, &err);
    if (!CHECK(w != NULL, "writer (flags %u): %s", flags, err.message))
        return NULL;
    CHECK(clcpack_writer_set_threads(w, threads) == CLCPACK_OK, "set_threads %u", threads);
    void *data = NULL;
    *size = 0;
    CHECK(clcpack_writer_write_memory(w, &data, size, &err) == CLCPACK_OK,
          "write_memory, %u threads: %s", threads, err.message);
    clcpack_writer_free(w);
    return data;
}

static uint8_t *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *p = NULL;
    *size = 0;
    if (!f)
        return NULL;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && (p = malloc((size_t)st.st_size + 1)) != NULL)
        *size = fread(p, 1, (size_t)st.st_size, f);
    fclose(f);
    return p;
}

/* Every entry decodes to its binary; every codec and the fallback to raw
 * bytes of a chosen delta occur, so the test covers what it claims. */
static void check_decodes(const uint8_t *pack, size_t size, const synth_corpus *c)
{
    clcpack *p = NULL;
    clcpack_error err;
    if (!CHECK(clcpack_open_memory(pack, size, &p, &err) == CLCPACK_OK, "open: %s", err.message))
        return;
    CHECK(clcpack_entry_count(p) == c->n, "%zu entries, %zu added", clcpack_entry_count(p), c->n);
    size_t codecs[6] = {0}, bad = 0, tiny_stored = 0;
    for (size_t i = 0; i < clcpack_entry_count(p); i++) {
        char why[256];
        if (synth_check_entry(p, i, c, why, sizeof why) != 0 && bad++ < 5)
            CHECK(0, "%s", why);
        clcpack_entry_info info = {.struct_size = sizeof info};
        clcpack_get_entry(p, i, &info);
        if (info.codec < 6)
            codecs[info.codec]++;
        tiny_stored += strcmp(info.kernel, "cpu_tiny") == 0 && info.codec == 0;
    }
    CHECK(bad == 0, "%zu entries decode to other bytes", bad);
    if (mode == CLCPACK_COMPRESSION_ZLIB)
        CHECK(codecs[0] > 0 && codecs[1] > 0 && codecs[2] > 0 &&
                  codecs[3] + codecs[4] + codecs[5] == 0,
              "zlib: codecs used: %zu stored, %zu zlib, %zu delta, %zu zstd", codecs[0], codecs[1],
              codecs[2], codecs[3] + codecs[4] + codecs[5]);
    else
        CHECK(codecs[0] > 0 && codecs[4] > 0 && codecs[5] > 0 && codecs[1] + codecs[2] == 0 &&
                  clcpack_dictionary_count(p) > 0,
              "zstd: codecs used: %zu stored, %zu zlib, %zu zstd, %zu dictionary, %zu prefix; "
              "%zu dictionaries",
              codecs[0], codecs[1] + codecs[2], codecs[3], codecs[4], codecs[5],
              clcpack_dictionary_count(p));
    CHECK(tiny_stored == 24, "%zu of 24 tiny entries stored raw", tiny_stored);
    clcpack_close(p);
}

static void test_same_bytes(const synth_corpus *c)
{
    static const unsigned counts[] = {1, 2, 3, 8};
    static const uint32_t flag_sets[] = {0, CLCPACK_WRITE_SPOOL,
                                         CLCPACK_WRITE_SPOOL | CLCPACK_WRITE_COMPRESS_CUBINS};
    for (size_t f = 0; f < sizeof flag_sets / sizeof flag_sets[0]; f++) {
        size_t n1 = 0;
        uint8_t *one = write_with(c, flag_sets[f], 1, &n1);
        if (!one)
            continue;
        check_decodes(one, n1, c);
        for (size_t t = 1; t < sizeof counts / sizeof counts[0]; t++) {
            size_t n = 0;
            uint8_t *other = write_with(c, flag_sets[f], counts[t], &n);
            if (other)
                CHECK(n == n1 && memcmp(one, other, n) == 0,
                      "flags %u: %u threads give the bytes of one (%zu, %zu bytes)", flag_sets[f],
                      counts[t], n, n1);
            free(other);
        }
        if (flag_sets[f] == CLCPACK_WRITE_SPOOL) {
            /* A file, straight from the encoder. */
            char path[96];
            snprintf(path, sizeof path, "%s/threads.clcpack", tmpdir);
            clcpack_error err;
            clcpack_writer *w = new_writer(c, flag_sets[f], &err);
            CHECK(w && clcpack_writer_set_threads(w, 4) == CLCPACK_OK &&
                      clcpack_writer_write_file(w, path, &err) == CLCPACK_OK,
                  "write_file, 4 threads: %s", err.message);
            clcpack_writer_free(w);
            size_t nf = 0;
            uint8_t *file = read_all(path, &nf);
            CHECK(file && nf == n1 && memcmp(file, one, n1) == 0,
                  "write_file with 4 threads gives the bytes of write_memory with one");
            free(file);
            unlink(path);
        }
        free(one);
    }
}

static void test_args(const synth_corpus *c)
{
    CHECK(clcpack_writer_set_threads(NULL, 2) == CLCPACK_E_INVALID_ARG, "NULL writer refused");
    clcpack_error err;
    clcpack_writer *w = new_writer(c, 0, &err);
    CHECK(w && clcpack_writer_set_threads(w, 100000) == CLCPACK_OK, "a huge count is capped");
    void *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    /* Twice from one writer, the second after going back to one thread. */
    CHECK(w && clcpack_writer_write_memory(w, &a, &na, &err) == CLCPACK_OK,
          "write_memory, capped threads: %s", err.message);
    CHECK(w && clcpack_writer_set_threads(w, 0) == CLCPACK_OK &&
              clcpack_writer_write_memory(w, &b, &nb, &err) == CLCPACK_OK && na == nb &&
              memcmp(a, b, na) == 0,
          "capped threads and none give the same bytes");
    clcpack_free(a);
    clcpack_free(b);
    clcpack_writer_free(w);
}

/* A file write that fails half-way (the file size limit) with threads
 * busy: the error comes back, no partial or temporary file is left. */
static void test_write_error(const synth_corpus *c)
{
    char path[96];
    snprintf(path, sizeof path, "%s/fail.clcpack", tmpdir);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        clcpack_error err;
        clcpack_writer *w = new_writer(c, CLCPACK_WRITE_SPOOL, &err);
        if (!w || clcpack_writer_set_threads(w, 4) != CLCPACK_OK)
            _exit(3);
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {64 << 10, 64 << 10};
        setrlimit(RLIMIT_FSIZE, &rl);
        clcpack_status st = clcpack_writer_write_file(w, path, &err);
        clcpack_writer_free(w);
        _exit(st == CLCPACK_E_IO && err.message[0] ? 0 : 10 + (int)st);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "a write cut by the file size limit fails with CLCPACK_E_IO (exit %d)",
          WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    size_t left = 0;
    DIR *d = opendir(tmpdir);
    for (struct dirent *de; d && (de = readdir(d)) != NULL;)
        left += de->d_name[0] != '.';
    if (d)
        closedir(d);
    CHECK(left == 0, "%zu files left after the failed write", left);
}

int main(void)
{
    synth_corpus c;
    if (!CHECK(mkdtemp(tmpdir) != NULL, "mkdtemp") ||
        !CHECK(synth_make(&c, 3, 12, 2000, 6000, 1, 0x5eed) == 0, "corpus"))
        return check_summary();
    test_same_bytes(&c);
    test_args(&c);
    test_write_error(&c);
    mode = CLCPACK_COMPRESSION_ZSTD;
    if (clcpack_compression_available(mode)) {
        test_same_bytes(&c);
        test_write_error(&c);
    } else {
        CHECK_SKIP("zstd: this libclcpack was built without zstd");
    }
    synth_free(&c);
    rmdir(tmpdir);
    return check_summary();
}
