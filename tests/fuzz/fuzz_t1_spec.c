/*
 * fuzz_t1_spec.c — the libFuzzer program of the T1 spec target
 * (t1_spec_target.h, docs/ROBUSTNESS.md). Built by `make fuzz` with clang
 * -fsanitize=fuzzer,address,undefined; tests/unit/test_fuzz_targets.c replays
 * its corpus with any compiler.
 */
#include "t1_spec_target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_t1_spec(data, size); }
