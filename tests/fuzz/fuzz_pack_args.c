/*
 * fuzz_pack_args.c — the libFuzzer program of the pack options and direct planner target
 * (pack_args_target.h, docs/ROBUSTNESS.md). Built by `make fuzz` with clang
 * -fsanitize=fuzzer,address,undefined; tests/unit/test_fuzz_targets.c replays its
 * corpus with any compiler.
 */
#include "pack_args_target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_pack_args(data, size); }
