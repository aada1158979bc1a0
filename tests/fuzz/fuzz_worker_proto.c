/*
 * fuzz_worker_proto.c — the libFuzzer program of the worker protocol target
 * (worker_proto_target.h, docs/ROBUSTNESS.md). Built by `make fuzz` with clang
 * -fsanitize=fuzzer,address,undefined; tests/unit/test_fuzz_targets.c replays its
 * corpus with any compiler.
 */
#include "worker_proto_target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_worker_proto(data, size);
}
