/*
 * fuzz_remote_record.c — the libFuzzer program of the remote cache's
 * record and action result target (remote_record_target.h,
 * docs/ROBUSTNESS.md). Built by `make fuzz` with clang
 * -fsanitize=fuzzer,address,undefined; tests/unit/test_fuzz_targets.c replays
 * its corpus with any compiler.
 */
#include "remote_record_target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_remote_record(data, size);
}
