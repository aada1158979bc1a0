/*
 * fuzz_pocl_canon.c — the libFuzzer program of the PoCL binary canonicalization target
 * (pocl_canon_target.h, docs/ROBUSTNESS.md). Built by `make fuzz` with clang
 * -fsanitize=fuzzer,address,undefined; tests/unit/test_fuzz_targets.c replays its
 * corpus with any compiler.
 */
#include "pocl_canon_target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_pocl_canon(data, size); }
