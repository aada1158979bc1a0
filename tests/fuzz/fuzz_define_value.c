/*
 * fuzz_define_value.c — the libFuzzer program of the define value and value list target
 * (define_value_target.h, docs/ROBUSTNESS.md). Built by `make fuzz` with clang
 * -fsanitize=fuzzer,address,undefined; tests/unit/test_fuzz_targets.c replays its
 * corpus with any compiler.
 */
#include "define_value_target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_define_value(data, size);
}
