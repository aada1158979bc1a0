/* The writer's dictionary trainer (loader/write/codec_zstd_write.c,
 * clcpk_zdict_train), which runs zstd's trials on threads of its own:
 * its dictionary is the one ZDICT_trainFromBuffer makes, byte for byte, at
 * 1, 2 and 5 threads, on NVIDIA-like samples (tests/common/synth_pack.h)
 * of three shapes: cubins, PTX-like text, and samples too few to train on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codec.h"
#include "synth_pack.h"

#if defined(CLCPK_HAVE_ZSTD)
#include <zdict.h>

/* ZDICT_trainFromBuffer's dictionary as clcpk_zdict_train keeps it: its
 * content without zstd's header unless that content would read as one. */
static size_t zstd_own(uint8_t *dict, size_t cap, const uint8_t *samples, const size_t *sizes,
                       unsigned n)
{
    size_t rc = ZDICT_trainFromBuffer(dict, cap, samples, sizes, n);
    if (ZDICT_isError(rc))
        return 0;
    size_t head = ZDICT_getDictHeaderSize(dict, rc);
    if (ZDICT_isError(head) || head >= rc || clcpk_zdict_zstd_format(dict + head, rc - head))
        return rc;
    memmove(dict, dict + head, rc - head);
    return rc - head;
}

/* The samples of c's entries of kind (every one when all), concatenated. */
static unsigned gather(const synth_corpus *c, int all, clcpack_binary_kind kind, uint8_t **buf,
                       size_t **sizes)
{
    size_t total = 0;
    unsigned n = 0;
    for (size_t i = 0; i < c->n; i++)
        if (all || c->entries[i].kind == kind) {
            total += c->entries[i].size;
            n++;
        }
    *buf = malloc(total ? total : 1);
    *sizes = malloc((n ? n : 1) * sizeof **sizes);
    size_t at = 0;
    n = 0;
    for (size_t i = 0; *buf && *sizes && i < c->n; i++)
        if (all || c->entries[i].kind == kind) {
            memcpy(*buf + at, c->entries[i].bin, c->entries[i].size);
            at += c->entries[i].size;
            (*sizes)[n++] = c->entries[i].size;
        }
    return n;
}

static void compare(const char *what, const uint8_t *samples, const size_t *sizes, unsigned n)
{
    const size_t cap = 16 << 10;
    uint8_t *want = malloc(cap), *got = malloc(cap);
    if (!CHECK(want && got, "memory"))
        return;
    size_t want_n = zstd_own(want, cap, samples, sizes, n);
    CHECK(want_n > 0, "%s: zstd trains a dictionary (%zu bytes)", what, want_n);
    static const unsigned threads[] = {1, 2, 5};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
        memset(got, 0, cap);
        size_t got_n = clcpk_zdict_train(got, cap, samples, sizes, n, threads[t]);
        CHECK(got_n == want_n && memcmp(got, want, got_n) == 0,
              "%s, %u threads: zstd's own dictionary (%zu bytes; zstd's %zu)", what, threads[t],
              got_n, want_n);
    }
    free(want);
    free(got);
}

int main(void)
{
    synth_corpus c;
    if (!CHECK(synth_make(&c, 6, 6, 2000, 9000, 0, 7) == 0, "a synthetic corpus"))
        return check_summary();
    uint8_t *buf;
    size_t *sizes;
    unsigned n = gather(&c, 0, CLCPACK_KIND_CUBIN, &buf, &sizes);
    CHECK(n > 100, "%u cubin samples", n);
    compare("cubins", buf, sizes, n);
    free(buf);
    free(sizes);
    n = gather(&c, 0, CLCPACK_KIND_PTX, &buf, &sizes);
    compare("PTX", buf, sizes, n);
    CHECK(clcpk_zdict_train((uint8_t[64]){0}, 64, buf, sizes, 3, 4) == 0,
          "three samples into 64 bytes: no dictionary, as zstd gives none");
    free(buf);
    free(sizes);
    synth_free(&c);
    return check_summary();
}
#else
int main(void)
{
    CHECK_SKIP("built without zstd: no dictionary to train");
    return check_summary();
}
#endif
