#!/bin/sh
# Runs every test: each C test program in BUILD/tests and each shell test
# tests/cli_*.sh. Each prints "checks: P passed, F failed"; this adds them up.
# A program that exits non-zero, or dies, without reporting a failed check
# counts as one failed check. Ends with "N passed, N failed".
set -u
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
total_pass=0
total_fail=0
failed_names=""
log=$(mktemp)
trap 'rm -f "$log"' EXIT

run_one() {
    name=$1; shift
    echo "== $name"
    "$@" >"$log" 2>&1
    rc=$?
    cat "$log"
    line=$(grep -E '^checks: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    p=0; f=0
    if [ -n "$line" ]; then
        p=$(echo "$line" | sed -E 's/^checks: ([0-9]+) passed, ([0-9]+) failed.*/\1/')
        f=$(echo "$line" | sed -E 's/^checks: ([0-9]+) passed, ([0-9]+) failed.*/\2/')
    fi
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "$name: exited with status $rc without a failed check"
        f=1
    fi
    if [ -z "$line" ] && [ "$rc" -eq 0 ]; then
        echo "$name: printed no summary line"
        f=1
    fi
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
    [ "$f" -ne 0 ] && failed_names="$failed_names $name"
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
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
