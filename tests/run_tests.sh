#!/bin/sh
# Runs tests (tests/README.md):
#   run_tests.sh [-j N] BUILD            every test
#   run_tests.sh [-j N] BUILD NAME...    only those named: a C test (test_x),
#                                        a script (cli_x), or a group:
#     unit    the C tests of tests/unit/ (never open an OpenCL platform)
#     device  the C tests of tests/device/ (a real OpenCL driver or a stub)
#     cli     the shell tests of tests/cli/
#     check   unit and the scripts of tests/cli/driver_free.list (make check)
# A test_*.c or cli_*.sh still at the top of tests/ (not yet sorted into a
# folder) runs with everything and by name. -j N runs N tests at a time
# (each one's output still printed whole, in order).
# Each test prints "checks: P passed, F failed, S skipped"; this adds them
# up. A program that exits non-zero, or dies, without reporting a failed
# check counts as one failed check; so does one that ran no check and
# skipped nothing (a test that checks nothing cannot fail). Ends with
# "N passed, N failed, N skipped", the skips named above it, and how long
# the run took.
set -u
here=$(cd "$(dirname "$0")" && pwd)

# The command that runs test NAME: its program in BUILD/tests, or its script
# (tests/cli/, or tests/ for one not yet moved) with BUILD.
run_cmd() {
    case $2 in
    cli_*)
        if [ -f "$here/cli/$2.sh" ]; then sh "$here/cli/$2.sh" "$1"; else sh "$here/$2.sh" "$1"; fi ;;
    *) "$1/tests/$2" ;;
    esac
}

# One test: its output and exit status into LOGDIR/NAME.log and .rc (the
# parallel branch below runs this script so, N at a time).
if [ "${1:-}" = --run-one ]; then
    t0=$(date +%s)
    run_cmd "$3" "$4" >"$2/$4.log" 2>&1
    echo $? >"$2/$4.rc"
    echo $(($(date +%s) - t0)) >"$2/$4.time"
    exit 0
fi

jobs=1
if [ "${1:-}" = -j ]; then
    jobs=$2
    shift 2
fi
build=${1:-build}
[ $# -gt 0 ] && shift
start=$(date +%s)
total_pass=0
total_fail=0
total_skip=0
failed_names=""
skipped_names=""
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT
# No test reads or writes the user's variant cache (docs/CACHE.md): it is
# off, as the builds many tests count expect, and its folder is this run's
# own for a test that turns it on (tests/cli/cli_local_cache.sh).
export CLC_PACK_NO_CACHE=1 CLC_PACK_CACHE_DIR="$logdir/variant-cache"
unset CLCPACK_NO_CACHE CLC_PACK_CACHE_LOAD # the tests that turn the cache on say how

unit_tests() { for f in "$here"/unit/test_*.c; do [ -f "$f" ] && basename "$f" .c; done; }
device_tests() {
    for f in "$here"/device/test_*.c "$here"/test_*.c; do [ -f "$f" ] && basename "$f" .c; done
}
cli_tests() { for f in "$here"/cli/cli_*.sh "$here"/cli_*.sh; do [ -f "$f" ] && basename "$f" .sh; done; }
driver_free_scripts() { grep -v '^#' "$here/cli/driver_free.list" | grep .; }

# The names asked for, groups expanded, each once, in order.
expand() {
    for a in "$@"; do
        case $a in
        unit) unit_tests ;;
        device) device_tests ;;
        cli) cli_tests ;;
        check) unit_tests; driver_free_scripts ;;
        *.c | *.sh) basename "$a" | sed 's/\.[ch]$//; s/\.sh$//' ;;
        *) echo "$a" ;;
        esac
    done | awk '!seen[$0]++'
}
if [ $# -eq 0 ]; then
    names=$(expand unit device cli)
else
    names=$(expand "$@")
fi
for n in $names; do
    case $n in
    cli_*) [ -f "$here/cli/$n.sh" ] || [ -f "$here/$n.sh" ] ;;
    test_*) [ -f "$here/unit/$n.c" ] || [ -f "$here/device/$n.c" ] || [ -f "$here/$n.c" ] ;;
    *) false ;;
    esac || {
        echo "run_tests.sh: no test or group named '$n' (test_x, cli_x; unit, device, cli, check)" >&2
        exit 2
    }
done

# Parallel: every test runs first, N at a time; the tally below then prints
# their logs in order.
if [ "$jobs" -gt 1 ]; then
    for n in $names; do echo "$n"; done |
        xargs -P "$jobs" -n 1 sh "$here/run_tests.sh" --run-one "$logdir" "$build"
fi

tally() {
    name=$1
    [ -f "$logdir/$name.rc" ] || sh "$here/run_tests.sh" --run-one "$logdir" "$build" "$name"
    # The time of each test, so that a slow one shows where a run's time goes.
    echo "== $name ($(cat "$logdir/$name.time") s)"
    rc=$(cat "$logdir/$name.rc")
    log=$logdir/$name.log
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

for n in $names; do
    tally "$n"
done

echo
[ -n "$skipped_names" ] && echo "skipped (each says why above):$skipped_names"
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "took $(($(date +%s) - start)) s"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
