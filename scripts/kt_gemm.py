#!/usr/bin/env python3
"""Kernel Tuner on examples/gemm's space, for scripts/bench_tune.sh: the
same kernel, space (TS 8,16,32 x WPT 1,2,4,8, RTS = TS / WPT) and launch as
examples/gemm/sgemm.t1.json, brute force, 7 iterations (Kernel Tuner's
default), the output checked against NumPy. Prints the best configuration
and the number of configurations run."""
import sys
import time

t0 = time.perf_counter()
import numpy as np
from kernel_tuner import tune_kernel

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
source = sys.argv[2] if len(sys.argv) > 2 else "examples/gemm/sgemm.cl"
rng = np.random.default_rng(1)
a = rng.random((n, n), dtype=np.float32)
b = rng.random((n, n), dtype=np.float32)
c = np.zeros((n, n), dtype=np.float32)
args = [np.int32(n), np.int32(n), np.int32(n), a, b, c]
answer = [None, None, None, None, None, a @ b]
params = {"TS": [8, 16, 32], "WPT": [1, 2, 4, 8], "RTS": [1, 2, 4, 8, 16, 32]}
results, env = tune_kernel(
    "sgemm", source, (n, n), args, params,
    block_size_names=["TS", "RTS"], grid_div_x=["TS"], grid_div_y=["TS"],
    restrictions=["TS % WPT == 0", "RTS == TS // WPT"], lang="OpenCL",
    answer=answer, atol=1e-2 * n / 1024, strategy="brute_force", iterations=7,
    verbose=False, quiet=True, cache=None)
ok = [r for r in results if isinstance(r.get("time"), float)]
best = min(ok, key=lambda r: r["time"])
print("kernel_tuner n=%d: %d configurations run, %d timed, best TS=%d WPT=%d %.4f ms, "
      "in-process %.2f s" % (n, len(results), len(ok), best["TS"], best["WPT"], best["time"],
                             time.perf_counter() - t0))
