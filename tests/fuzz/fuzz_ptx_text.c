/*
 * fuzz_ptx_text.c — the libFuzzer program of the PTX text target
 * (ptx_text_target.h, docs/ROBUSTNESS.md). Built by `make fuzz` with clang
 * -fsanitize=fuzzer,address,undefined; tests/unit/test_fuzz_targets.c replays its
 * corpus with any compiler.
 */
#include "ptx_text_target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_ptx_text(data, size); }
