#!/usr/bin/env python3
"""Kernel Tuner brute force on examples/tune/conv2d.t1.json's space, for
scripts/bench_tune.sh: the same kernel, parameters, conditions, launch and
7 iterations (no output check: Kernel Tuner has no first-configuration
reference). Its cache file (argv[1]) holds each configuration as it is
done, so a run stopped by a time limit still says how far it got."""
import sys
import time

t0 = time.perf_counter()
import numpy as np
from kernel_tuner import tune_kernel

cache = sys.argv[1]
source = sys.argv[2] if len(sys.argv) > 2 else "examples/tune/conv2d.cl"
n, fw = 4096, 7
rng = np.random.default_rng(7)
image = rng.random((n + fw - 1) * (n + fw - 1), dtype=np.float32)
filt = rng.random(fw * fw, dtype=np.float32)
out = np.zeros(n * n, dtype=np.float32)
params = {"BX": [8, 16, 32, 64, 128], "BY": [1, 2, 4, 8, 16, 32], "TX": [1, 2, 4, 8],
          "TY": [1, 2, 4, 8], "LOCAL": [0, 1], "UNROLL": [0, 1, 2]}
restrictions = ["32 <= BX * BY <= 1024",
                "not LOCAL or (BX * TX + 6) * (BY * TY + 6) * 4 <= 48 * 1024"]
results, env = tune_kernel(
    "conv2d", source, (n, n), [image, filt, out], params,
    block_size_names=["BX", "BY"], grid_div_x=["BX", "TX"], grid_div_y=["BY", "TY"],
    restrictions=restrictions, lang="OpenCL",
    compiler_options=["-D W=%d" % n, "-D H=%d" % n, "-D FW=%d" % fw],
    strategy="brute_force", iterations=7, verbose=False, quiet=True, cache=cache)
ok = [r for r in results if isinstance(r.get("time"), float)]
best = min(ok, key=lambda r: r["time"])
print("kernel_tuner conv2d: %d configurations run, %d timed, best %s %.4f ms, in-process %.2f s"
      % (len(results), len(ok), ",".join("%s=%s" % (k, best[k]) for k in params), best["time"],
         time.perf_counter() - t0))
