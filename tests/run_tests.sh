#!/bin/sh
# Runs every test: each C test program in BUILD/tests and each shell test
# tests/cli_*.sh. Each prints "checks: P passed, F failed, S skipped"; this
# adds them up. A program that exits non-zero, or dies, without reporting a
# failed check counts as one failed check; so does one that ran no check and
# skipped nothing (a test that checks nothing cannot fail). Ends with
# "N passed, N failed, N skipped", the skips named above it.
set -u
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
total_pass=0
total_fail=0
total_skip=0
failed_names=""
skipped_names=""
log=$(mktemp)
trap 'rm -f "$log"' EXIT

run_one() {
    name=$1; shift
    echo "== $name"
    "$@" >"$log" 2>&1
    rc=$?
    cat "$log"
    line=$(grep -E '^checks: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    p=0; f=0; s=0
    if [ -n "$line" ]; then
        p=$(echo "$line" | sed -E 's/^checks: ([0-9]+) passed, ([0-9]+) failed.*/\1/')
        f=$(echo "$line" | sed -E 's/^checks: ([0-9]+) passed, ([0-9]+) failed.*/\2/')
        s=$(echo "$line" | sed -nE 's/^checks: [0-9]+ passed, [0-9]+ failed, ([0-9]+) skipped.*/\1/p')
        s=${s:-0}
    fi
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "$name: exited with status $rc without a failed check"
        f=1
    fi
    if [ -z "$line" ] && [ "$rc" -eq 0 ]; then
        echo "$name: printed no summary line"
        f=1
    fi
    if [ -n "$line" ] && [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ "$s" -eq 0 ]; then
        echo "$name: ran no check and skipped nothing"
        f=1
    fi
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
    total_skip=$((total_skip + s))
    [ "$f" -ne 0 ] && failed_names="$failed_names $name"
    [ "$s" -ne 0 ] && skipped_names="$skipped_names $name($s)"
}

for t in "$build"/tests/test_*; do
    [ -x "$t" ] || continue
    run_one "$(basename "$t")" "$t"
done
for s in "$here"/cli_*.sh; do
    [ -f "$s" ] || continue
    run_one "$(basename "$s")" sh "$s" "$build"
done

echo
[ -n "$skipped_names" ] && echo "skipped (each says why above):$skipped_names"
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
