/*
 * test_fuzz_replay.c — runs the fuzz target (tests/fuzz/fuzz_target.h) on
 * every pack in tests/fuzz/corpus/ and every crasher kept in
 * tests/fuzz/regressions/, with the project's own compiler, so `make test`
 * holds what fuzzing found without needing clang or libFuzzer, through the
 * harness of tests/common/fuzz_replay.h. Corpus packs must also open cleanly (they
 * are valid packs); regressions only have to be survived.
 */
#include <stdio.h>

#include "check.h"
#include "clcpack.h"
#include "fuzz/fuzz_target.h"
#include "fuzz_replay.h"

/* A corpus pack must also open as a pack with entries; a regression file only has
 * to be survived. */
static void replay_one(const char *path, const char *name, const uint8_t *data, size_t size,
                       void *ctx)
{
    int must_open = *(const int *)ctx;
    char why[64];
    const char *fail = fuzz_replay_run(LLVMFuzzerTestOneInput, data, size, why, sizeof why);
    CHECK(fail == NULL, "%s: the fuzz target %s", path, fail ? fail : "");
    if (must_open) {
        clcpack *p = NULL;
        clcpack_error err;
        CHECK(clcpack_open_memory(data, size, &p, &err) == CLCPACK_OK &&
                  clcpack_entry_count(p) > 0,
              "corpus pack %s is a valid pack with entries (%s)", name, p ? "ok" : err.message);
        clcpack_close(p);
    }
}

/* Replays every regular file of tests/fuzz/sub; returns how many ran. */
static int replay(const char *sub, int must_open)
{
    return fuzz_replay_each(sub, replay_one, &must_open);
}

int main(void)
{
    int inputs = replay("corpus", 1);
    int regressions = replay("regressions", 0);
    CHECK(inputs >= 3, "the corpus has at least 3 packs (%d)", inputs);
    printf("replayed %d corpus inputs and %d regression files\n", inputs, regressions);
    return check_summary();
}
