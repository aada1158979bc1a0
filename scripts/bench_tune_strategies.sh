#!/bin/sh
# The strategies against an exhaustive run (docs/BENCH.md, "Tuning"): Random
# and GeneticAlgorithm at a budget of 5 % of the space, over seeds 1 to 5,
# in Kernel Tuner's simulation mode (clc-pack tune --simulate): each
# configuration's outcome is the one the exhaustive run measured, so the
# table says how close each search gets to the exhaustive best, on that
# device, at no device time. Prints a Markdown table.
# Usage: scripts/bench_tune_strategies.sh SPEC.json FULL.t4.json [CLC_PACK]
set -eu
spec=$1 full=$2 clc=${3:-build/clc-pack}
out=$($clc tune "$spec" --simulate "$full" --strategy FullSearch -q)
best=$(echo "$out" | sed -n 's/^ *fastest *[^ ]* *\([0-9.]*\) ms.*/\1/p')
n=$(echo "$out" | sed -n 's/.*space *\([0-9]*\) valid.*/\1/p')
budget=$(awk -v n="$n" 'BEGIN { b = n * 0.05; printf "%d", (b == int(b)) ? b : int(b) + 1 }')
echo "exhaustive best: $best ms of $n configurations; budget $budget (5 %)"
echo
echo "| strategy | seed | best found (ms) | / exhaustive best | configuration |"
echo "|---|---:|---:|---:|---|"
for s in Random GeneticAlgorithm; do
    for seed in 1 2 3 4 5; do
        line=$($clc tune "$spec" --simulate "$full" --strategy "$s" --seed "$seed" --budget "$budget" -q |
            sed -n 's/^ *fastest *\([^ ]*\) *\([0-9.]*\) ms.*/\1 \2/p')
        cfg=${line% *} ms=${line#* }
        printf '| %s | %s | %s | %.3f | %s |\n' "$s" "$seed" "$ms" "$(awk -v a="$ms" -v b="$best" 'BEGIN { print a / b }')" "$cfg"
    done
done
