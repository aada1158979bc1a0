#!/bin/sh
# Runs the libFuzzer targets (tests/fuzz/fuzz_*.c; docs/ROBUSTNESS.md) one
# after another, splitting the given time between them (FUZZ_TARGETS:
# which, in order): the pack parser and open_file, tuning, best and load
# over the pack corpus, writer and the command-line side's targets over
# their own. A target's inputs are tests/fuzz/corpus_NAME/ and
# tests/fuzz/regressions_NAME/ when it has them, else the pack corpus
# tests/fuzz/corpus/ and tests/fuzz/regressions/. New inputs go to
# BUILD/fuzz/corpus_NAME (BUILD/fuzz/corpus for the pack target; not the
# repository: the corpus stays small); a crasher is written to
# BUILD/fuzz/crashes/NAME-* and the run fails. The final line of each
# target's libFuzzer stats (executions, cov, ft) is printed for
# docs/ROBUSTNESS.md. The targets' folders and files go to $TMPDIR, else
# /dev/shm, else /tmp (tests/fuzz/cli_fuzz.h).
# Usage: scripts/fuzz.sh BUILD SECONDS
set -eu
# Regression files that seed no fuzzing (make test still replays them),
# each big by design: a run of product_50000_twice_dedup plans 50,000
# jobs (about 0.5 s under the sanitizers) and one of
# program_blocks_6500_memory plans 6,500 program blocks (0.25 s); as seeds
# they and their mutants took most of their target's time (pack_args: 250
# executions a second instead of 5,000; manifest: 120 instead of 5,000),
# for less coverage.
no_seed="pack_args/product_50000_twice_dedup manifest/program_blocks_6500_memory"
build=$1
seconds=$2
targets=${FUZZ_TARGETS:-pack open_file tuning best load writer}
n=$(echo $targets | wc -w)
each=$((seconds / n))
[ "$each" -ge 1 ] || each=1
crashes=$build/fuzz/crashes
mkdir -p "$crashes"
failed=0
for t in $targets; do
    bin=$build/fuzz/fuzz_$t
    if [ "$t" = pack ]; then work=$build/fuzz/corpus; else work=$build/fuzz/corpus_$t; fi
    if [ -d "tests/fuzz/corpus_$t" ]; then
        inputs="tests/fuzz/corpus_$t"
        regs="tests/fuzz/regressions_$t"
        if [ -d "$regs" ]; then
            # The regressions less those of no_seed, as a folder of their own.
            seeds=$build/fuzz/seeds_$t
            rm -rf "$seeds"
            mkdir -p "$seeds"
            for f in "$regs"/*; do
                case " $no_seed " in *" $t/${f##*/} "*) continue ;; esac
                cp "$f" "$seeds/"
            done
            inputs="$inputs $seeds"
        fi
    else
        inputs="tests/fuzz/corpus tests/fuzz/regressions"
    fi
    mkdir -p "$work"
    log=$build/fuzz/last_run_$t.log
    # -jobs=1 in a child process keeps the run to one core of a shared
    # machine; the corpus is read-only input, new units land in $work.
    set +e
    nice -n 10 "$bin" -max_total_time="$each" -print_final_stats=1 \
        -artifact_prefix="$crashes/$t-" -max_len=262144 -timeout=20 -rss_limit_mb=2048 \
        "$work" $inputs >"$log" 2>&1
    rc=$?
    set -e
    echo "fuzz $t:"
    grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^stat::number_of_executed_units' "$log" || true
    if [ "$rc" -ne 0 ]; then
        echo "fuzz: target $t failed (status $rc); see $log and $crashes/" >&2
        tail -n 40 "$log" >&2
        failed=1
    fi
done
[ "$failed" -eq 0 ] || exit 1
echo "fuzz: $seconds s over $n targets ($each s each), no crash"
