#!/bin/sh
# scripts/bench_record.sh [BUILD] — what record and replay (docs/RECORD.md)
# save an unmodified application at start-up, with a cold driver cache
# (POCL_KERNEL_CACHE=0, CUDA_CACHE_DISABLE=1). For each application:
#   - the sample program of tests/data/record/handsonopencl, built here;
#   - the PyOpenCL script tests/data/record/pyopencl_app.py, when a Python
#     with pyopencl is found ($PYOPENCL_VENV, .pyopencl-venv, /usr/bin/python3);
# it records a pack once, then times RUNS runs (default 5) of each mode:
#   plain         the application alone
#   pass-through  with the interposer and no usable pack (CLCPACK_LOG gives
#                 the time spent in clBuildProgram: the driver's own build)
#   replay        clc-pack run with the recorded pack (clBuildProgram served)
# and prints a Markdown table of medians: process wall time and the time in
# clBuildProgram as the interposer measured it. Works on any OpenCL device
# (on an NVIDIA host run scripts/gpu_run.sh first, or register the driver
# the same way); BENCH_OUT=DIR also writes DIR/record.md. Used by
# scripts/bench.sh (BENCH_PARTS=record).
set -u
B=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cd "$root" || exit 1
case $B in /*) ;; *) B=$root/$B ;; esac
RUNS=${RUNS:-5}
export POCL_KERNEL_CACHE=0 CUDA_CACHE_DISABLE=1 PYOPENCL_NO_CACHE=1 PYOPENCL_CTX=0
CLC=$B/clc-pack
PRELOAD=$B/libclcpack-preload.so
die() { echo "bench_record: $*" >&2; exit 1; }
[ -x "$CLC" ] && [ -f "$PRELOAD" ] || die "$CLC or $PRELOAD is missing: run 'make B=$B'"
work=$(mktemp -d "${TMPDIR:-/tmp}/clcpack-bench-record.XXXXXX") || die "no temporary folder"
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# the total of the "in X ms" of the log's lines (all programs of one run)
build_ms() { sed -n 's/.* in \([0-9.]*\) ms$/\1/p' "$1" | awk '{ s += $1 } END { printf "%.3f\n", s }'; }

# timed MODE NAME CMD...: RUNS runs; appends "wall build" lines to $work/NAME.MODE
timed() {
    mode=$1 name=$2
    shift 2
    i=0
    while [ "$i" -lt "$RUNS" ]; do
        t0=$(now)
        case $mode in
        plain) "$@" >/dev/null 2>"$work/log" ;;
        pass-through) CLCPACK_LOG=1 CLCPACK_PACK="$work/none.clcpack" LD_PRELOAD="$PRELOAD" \
            "$@" >/dev/null 2>"$work/log" ;;
        replay) "$CLC" run --log "$work/$name.clcpack" -- "$@" >/dev/null 2>"$work/log" ;;
        esac
        rc=$?
        t1=$(now)
        [ "$rc" -eq 0 ] || die "$name ($mode) failed: $(tail -3 "$work/log")"
        if [ "$mode" = replay ] && grep -q "passed through" "$work/log"; then
            die "$name: a program was not served: $(grep 'passed through' "$work/log" | head -1)"
        fi
        b=-
        [ "$mode" = plain ] || b=$(build_ms "$work/log")
        awk -v a="$t0" -v b="$t1" -v m="$b" 'BEGIN { printf "%.3f %s\n", (b - a) * 1000, m }' \
            >>"$work/$name.$mode"
        i=$((i + 1))
    done
}

rows=""
bench_app() {
    name=$1
    shift
    "$CLC" record -q -o "$work/$name.clcpack" -- "$@" >/dev/null 2>"$work/log" ||
        die "recording $name failed: $(tail -3 "$work/log")"
    for mode in plain pass-through replay; do
        timed "$mode" "$name" "$@"
    done
    rows="$rows $name"
}

mkdir -p "$work/sample"
cp tests/data/record/handsonopencl/*.c "$work/sample/"
cc -w -O1 -DCL_TARGET_OPENCL_VERSION=120 -o "$work/sample/vadd_abc" "$work/sample/vadd_abc.c" \
    "$work/sample/device_info.c" "$work/sample/err_code.c" -lOpenCL ||
    die "cannot build the sample program"
bench_app vadd_abc "$work/sample/vadd_abc"

for py in "${PYOPENCL_VENV:-$root/.pyopencl-venv}/bin/python" /usr/bin/python3; do
    if [ -x "$py" ] && "$py" -c "import pyopencl, numpy" 2>/dev/null; then
        bench_app pyopencl "$py" tests/data/record/pyopencl_app.py
        break
    fi
done

device=$("$CLC" list "$work/vadd_abc.clcpack" | sed -n 's/^  0  //p' | head -1 | cut -c1-80)
{
    echo "Record and replay, cold driver cache (POCL_KERNEL_CACHE=0, CUDA_CACHE_DISABLE=1),"
    echo "median of $RUNS runs; device: $device"
    echo
    echo "| application | process, plain | process, replay | speed-up | clBuildProgram, driver | clBuildProgram, replay | speed-up |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    for name in $rows; do
        wp=$(cut -d' ' -f1 "$work/$name.plain" | median)
        wr=$(cut -d' ' -f1 "$work/$name.replay" | median)
        bp=$(cut -d' ' -f2 "$work/$name.pass-through" | median)
        br=$(cut -d' ' -f2 "$work/$name.replay" | median)
        awk -v n="$name" -v wp="$wp" -v wr="$wr" -v bp="$bp" -v br="$br" 'BEGIN {
            printf "| %s | %.1f ms | %.1f ms | %.1fx | %.1f ms | %.2f ms | %.0fx |\n",
                n, wp, wr, wp / wr, bp, br, (br > 0 ? bp / br : 0) }'
    done
} >"$work/record.md"
cat "$work/record.md"
if [ -n "${BENCH_OUT:-}" ]; then
    mkdir -p "$BENCH_OUT" && cp "$work/record.md" "$BENCH_OUT/record.md"
fi
