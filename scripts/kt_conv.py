#!/usr/bin/env python3
"""Kernel Tuner brute force on examples/tune/conv2d.t1.json's space, for
scripts/bench_tune.sh: the same kernel, parameters, conditions, launch and
7 iterations (no output check: Kernel Tuner has no first-configuration
reference). Its cache file (argv[1]) holds each configuration as it is
done, so a run stopped by a time limit still says how far it got.

--part I/N --device D: only the I-th of N interleaved slices of the valid
configurations (in the space's own order), on OpenCL device D, so that N
devices of one host run the space's rest side by side, each its own
cache file (bench_tune.sh --kt-gpus merges them)."""
import argparse
import itertools
import time

t0 = time.perf_counter()
import numpy as np
from kernel_tuner import tune_kernel

ap = argparse.ArgumentParser()
ap.add_argument("cache")
ap.add_argument("source", nargs="?", default="examples/tune/conv2d.cl")
ap.add_argument("--part", default="0/1")
ap.add_argument("--device", type=int, default=0)
args = ap.parse_args()
part, parts = (int(x) for x in args.part.split("/"))

n, fw = 4096, 7
rng = np.random.default_rng(7)
image = rng.random((n + fw - 1) * (n + fw - 1), dtype=np.float32)
filt = rng.random(fw * fw, dtype=np.float32)
out = np.zeros(n * n, dtype=np.float32)
params = {"BX": [8, 16, 32, 64, 128], "BY": [1, 2, 4, 8, 16, 32], "TX": [1, 2, 4, 8],
          "TY": [1, 2, 4, 8], "LOCAL": [0, 1], "UNROLL": [0, 1, 2]}


def valid(p):
    return (32 <= p["BX"] * p["BY"] <= 1024 and
            (not p["LOCAL"] or (p["BX"] * p["TX"] + 6) * (p["BY"] * p["TY"] + 6) * 4 <= 48 * 1024))


keys = list(params)
space = [c for c in itertools.product(*params.values()) if valid(dict(zip(keys, c)))]
mine = set(space[part::parts])
if parts == 1:
    restrictions = ["32 <= BX * BY <= 1024",
                    "not LOCAL or (BX * TX + 6) * (BY * TY + 6) * 4 <= 48 * 1024"]
else:
    restrictions = lambda p: tuple(p[k] for k in keys) in mine
results, env = tune_kernel(
    "conv2d", args.source, (n, n), [image, filt, out], params,
    block_size_names=["BX", "BY"], grid_div_x=["BX", "TX"], grid_div_y=["BY", "TY"],
    restrictions=restrictions, lang="OpenCL", device=args.device,
    compiler_options=["-D W=%d" % n, "-D H=%d" % n, "-D FW=%d" % fw],
    strategy="brute_force", iterations=7, verbose=False, quiet=True, cache=args.cache)
ok = [r for r in results if isinstance(r.get("time"), float)]
best = min(ok, key=lambda r: r["time"])
print("kernel_tuner conv2d part %d/%d: %d configurations run, %d timed, best %s %.4f ms, in-process %.2f s"
      % (part, parts, len(results), len(ok), ",".join("%s=%s" % (k, best[k]) for k in params), best["time"],
         time.perf_counter() - t0))
