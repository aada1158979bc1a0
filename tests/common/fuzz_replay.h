/*
 * fuzz_replay.h — the one harness that replays the fuzz targets' files
 * (tests/fuzz/) with the project's own compiler, so `make test` and
 * `make check` hold what fuzzing found without clang or libFuzzer
 * (tests/unit/test_fuzz_replay.c: the pack parsing target;
 * tests/unit/test_fuzz_targets.c: those of tests/fuzz/targets.h and the
 * command-line side's). Each file runs in a child process: a file that
 * crashes a target is named and counted, and the others still run.
 */
#ifndef CLC_TEST_FUZZ_REPLAY_H
#define CLC_TEST_FUZZ_REPLAY_H

#include <stddef.h>
#include <stdint.h>

/* A fuzz target: 0 when it returned normally. */
typedef int (*fuzz_replay_target)(const uint8_t *data, size_t size);

/* tests/fuzz/, found from this harness's own source path, so the tests run
 * from any directory. */
const char *fuzz_replay_dir(void);

/* The whole file at path, malloc'd with one spare byte past *size; NULL when
 * it cannot be read. */
uint8_t *fuzz_replay_read(const char *path, size_t *size);

/* Runs fn on data in a child process: NULL when it returned normally, else
 * a description written into why ("killed by signal 11"). */
const char *fuzz_replay_run(fuzz_replay_target fn, const uint8_t *data, size_t size, char *why,
                            size_t cap);

/* Calls on_file for every regular file of tests/fuzz/sub, by name order,
 * with its bytes (a folder or file that cannot be read is a failed check).
 * Returns how many files were read. */
typedef void (*fuzz_replay_visit)(const char *path, const char *name, const uint8_t *data,
                                  size_t size, void *ctx);
int fuzz_replay_each(const char *sub, fuzz_replay_visit on_file, void *ctx);

#endif
