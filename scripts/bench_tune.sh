#!/usr/bin/env bash
# clc-pack tune against Kernel Tuner, side by side in one run, on a GPU
# (docs/BENCH.md, "Tuning"): examples/gemm's space (TS 8,16,32 x WPT
# 1,2,4,8, RTS = TS / WPT: 12 configurations) at N=1024 and N=4096,
# `clc-pack tune examples/gemm/sgemm.t1.json` (FullSearch) against
# scripts/kt_gemm.py (Kernel Tuner's tune_kernel, brute force, the same
# space, launch and 7 iterations, its output checked against NumPy), each
# as a whole process timed by the wall clock, runs alternating, the
# driver's cache off (CUDA_CACHE_DISABLE=1, POCL_KERNEL_CACHE=0) so that
# every build compiles. Prints a table of the wall times and their ratio,
# the configurations each ran and the best each found.
# Usage: scripts/bench_tune.sh [--device SPEC] [--rounds N] [--sizes "1024 4096"] [OUT_DIR]
# Kernel Tuner and PyOpenCL must be importable by python3.
set -uo pipefail
cd "$(dirname "$0")/.."
device=gpu rounds=3 sizes="1024 4096"
while [ $# -gt 0 ]; do
    case $1 in
    --device) device=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    *) break ;;
    esac
done
out=${1:-tune-bench}
mkdir -p "$out"
clc=${CLC:-build/clc-pack}
export CUDA_CACHE_DISABLE=1 POCL_KERNEL_CACHE=0
now() { date +%s.%N; }
table=$out/tune_vs_kt.md
printf '| N | round | clc-pack tune (s) | Kernel Tuner (s) | ratio | clc-pack ran | KT ran | clc-pack best | KT best |\n|---:|---:|---:|---:|---:|---:|---:|---|---|\n' >"$table"
for n in $sizes; do
    spec=$out/sgemm-$n.t1.json
    sed -e "s/\"ProblemSize\": \[1024, 1024\]/\"ProblemSize\": [$n, $n]/" \
        -e "s/\"FillValue\": 1024/\"FillValue\": $n/g" \
        -e "s|\"KernelFile\": \"sgemm.cl\"|\"KernelFile\": \"$PWD/examples/gemm/sgemm.cl\"|" \
        examples/gemm/sgemm.t1.json >"$spec"
    for r in $(seq 1 "$rounds"); do
        t0=$(now)
        "$clc" tune "$spec" --device "$device" --fresh -o "$out/sgemm-$n.clcpack" >"$out/clc-$n-$r.txt" 2>&1
        t1=$(now)
        python3 scripts/kt_gemm.py "$n" examples/gemm/sgemm.cl >"$out/kt-$n-$r.txt" 2>&1
        t2=$(now)
        c=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
        k=$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')
        cran=$(sed -n 's/.*tried *\([0-9]*\) .*correct \([0-9]*\).*/\2 of \1/p' "$out/clc-$n-$r.txt")
        kran=$(sed -n 's/.*: \([0-9]*\) configurations run, \([0-9]*\) timed.*/\2 of \1/p' "$out/kt-$n-$r.txt")
        cbest=$(sed -n 's/^ *fastest *\([^ ]*\) .*/\1/p' "$out/clc-$n-$r.txt")
        kbest=$(sed -n 's/.*best \(TS=[0-9]* WPT=[0-9]*\).*/\1/p' "$out/kt-$n-$r.txt")
        printf '| %s | %s | %.2f | %.2f | %.2f | %s | %s | %s | %s |\n' "$n" "$r" "$c" "$k" \
            "$(awk -v a="$c" -v b="$k" 'BEGIN { print a / b }')" "$cran" "$kran" "$cbest" "$kbest" >>"$table"
    done
done
cat "$table"
