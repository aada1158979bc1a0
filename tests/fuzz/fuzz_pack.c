/*
 * fuzz_pack.c — the libFuzzer target over pack parsing (docs/ROBUSTNESS.md).
 * Built by `make fuzz` with clang -fsanitize=fuzzer,address,undefined; the
 * target itself is in fuzz_target.h, which tests/unit/test_fuzz_replay.c also
 * includes to replay the corpus with any compiler.
 */
#include "fuzz_target.h"
