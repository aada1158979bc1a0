#!/bin/sh
# Runs the libFuzzer target over pack parsing (tests/fuzz/fuzz_pack.c) for a
# given time, starting from the seed corpus and every regression file. New
# inputs go to BUILD/fuzz/corpus (not the repository: the seeds stay small);
# a crasher is written to BUILD/fuzz/crashes/ and the run fails. The final
# line of libFuzzer's stats (executions, cov, ft) is printed for
# docs/ROBUSTNESS.md.
# Usage: scripts/fuzz.sh BUILD SECONDS
set -eu
build=$1
seconds=$2
bin=$build/fuzz/fuzz_pack
work=$build/fuzz/corpus
crashes=$build/fuzz/crashes
mkdir -p "$work" "$crashes"
log=$build/fuzz/last_run.log
# -jobs=1 in a child process keeps the run to one core of a shared machine;
# the seeds are read-only inputs, new units land in $work.
set +e
nice -n 10 "$bin" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$crashes/" -max_len=262144 -timeout=20 -rss_limit_mb=2048 \
    "$work" tests/fuzz/corpus tests/fuzz/regressions >"$log" 2>&1
rc=$?
set -e
grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^stat::' "$log" || true
if [ "$rc" -ne 0 ]; then
    echo "fuzz: the target failed (status $rc); see $log and $crashes/" >&2
    tail -n 40 "$log" >&2
    exit 1
fi
echo "fuzz: $seconds s, no crash; corpus of $(ls "$work" | wc -l) inputs in $work"
