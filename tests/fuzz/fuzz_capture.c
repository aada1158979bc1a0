/*
 * fuzz_capture.c — the libFuzzer program of the capture reader's target
 * (capture_target.h, docs/ROBUSTNESS.md). Built by `make fuzz` with clang
 * -fsanitize=fuzzer,address,undefined; tests/unit/test_fuzz_targets.c replays
 * its corpus with any compiler.
 */
#include "capture_target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_capture(data, size);
}
