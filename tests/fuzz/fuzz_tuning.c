/*
 * fuzz_tuning.c — the libFuzzer program of the tuning target (tests/fuzz/targets.h,
 * docs/ROBUSTNESS.md). Built by `make fuzz` with clang
 * -fsanitize=fuzzer,address,undefined; tests/unit/test_fuzz_targets.c replays
 * its corpus with any compiler.
 */

#include "targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_tuning(data, size); }
