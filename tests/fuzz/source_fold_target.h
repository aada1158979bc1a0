/*
 * source_fold_target.h — the fuzz target over include folding
 * (source_fold.h). The input's first byte holds flags, the rest split at
 * its first two NUL bytes is three files of a private temporary folder:
 * a.cl, b.h and inc/c.h (further NUL bytes stay in inc/c.h, which must
 * then be refused if read). The folder also holds inc/in.h, a link to
 * ../b.h, and out.h, a link to /etc/hostname (outside the root). Flags:
 * bit 0 line_at_start, bit 1 b.h is a second source, bit 2 the include
 * folders are inc and a missing one (else none). source_fold folds a.cl with
 * the folder as its only root; a result must be whole (text as long as
 * said, each file and missing include named), a refusal must carry a
 * message, and a second fold must give the same bytes. Shared by
 * fuzz_source_fold.c and tests/unit/test_fuzz_targets.c.
 */
#ifndef CLC_SOURCE_FOLD_TARGET_H
#define CLC_SOURCE_FOLD_TARGET_H

#include <stdint.h>
#include <string.h>

#include "cli_fuzz.h"
#include "source_fold.h"

static inline void sft_fold(const source_fold_options *o)
{
    source_fold_result r, again;
    memset(&r, 0x5a, sizeof r);
    char err[SOURCE_FOLD_ERR_MAX];
    err[0] = '\0';
    if (source_fold(o, &r, err, sizeof err) != 0) {
        cf_require_message(err, sizeof err);
        cf_require(r.text == NULL && r.files == NULL && r.missing == NULL);
        return;
    }
    cf_require(r.text != NULL && strlen(r.text) == r.len);
    cf_require(r.n_files >= 1);
    for (size_t i = 0; i < r.n_files; i++) {
        /* out.h leads outside the root: it is never read. */
        cf_require(r.files[i] != NULL && strstr(r.files[i], "out.h") == NULL);
        for (size_t k = 0; k < i; k++)
            cf_require(strcmp(r.files[k], r.files[i]) != 0);
    }
    for (size_t i = 0; i < r.n_missing; i++)
        cf_require(r.missing[i].file && r.missing[i].name && r.missing[i].line >= 1);
    if (source_fold(o, &again, err, sizeof err) == 0) {
        cf_require(again.len == r.len && memcmp(again.text, r.text, r.len) == 0);
        source_fold_result_free(&again);
    }
    source_fold_result_free(&r);
}

static inline int fuzz_source_fold(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned flags = data[0];
    char *parts[3] = {"", "", ""};
    char *arena = NULL;
    size_t n = cf_split(data + 1, size - 1, parts, 3, &arena);
    size_t lens[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++)
        lens[i] = strlen(parts[i]);
    /* The last part keeps its NUL bytes: the folder must refuse them. */
    if (n == 3)
        lens[2] = size - 1 - (size_t)(parts[2] - arena);
    char dir[256];
    if (!arena || cf_tmpdir(dir) != 0) {
        free(arena);
        return 0;
    }
    char inc[300], link[320];
    snprintf(inc, sizeof inc, "%s/inc", dir);
    int ok = cf_write(dir, "a.cl", parts[0], lens[0]) == 0 &&
             cf_write(dir, "b.h", parts[1], lens[1]) == 0 && mkdir(inc, 0700) == 0 &&
             cf_write(inc, "c.h", parts[2], lens[2]) == 0;
    snprintf(link, sizeof link, "%s/in.h", inc);
    ok = ok && symlink("../b.h", link) == 0;
    snprintf(link, sizeof link, "%s/out.h", dir);
    ok = ok && symlink("/etc/hostname", link) == 0;
    if (ok) {
        const char *sources[2] = {"a.cl", "b.h"};
        const char *incs[2] = {"inc", "nowhere"};
        const char *roots[1] = {dir};
        source_fold_options o;
        memset(&o, 0, sizeof o);
        o.base_dir = dir;
        o.sources = sources;
        o.n_sources = flags & 2 ? 2 : 1;
        o.include_dirs = incs;
        o.n_include_dirs = flags & 4 ? 2 : 0;
        o.roots = roots;
        o.n_roots = 1;
        o.roots_what = "the fuzz folder";
        o.line_at_start = flags & 1;
        sft_fold(&o);
    }
    cf_rmtree(dir);
    free(arena);
    return 0;
}

#endif /* CLC_SOURCE_FOLD_TARGET_H */
