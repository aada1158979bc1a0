#!/bin/sh
# scripts/bench_record.sh [BUILD] [ROUNDS] — what record and replay
# (docs/RECORD.md, "Numbers") save an unmodified application at start-up,
# every run cold. The applications:
#   - the sample program of tests/data/record/handsonopencl, built here;
#   - the PyOpenCL script tests/data/record/pyopencl_app.py, when a Python
#     with pyopencl is found ($PYOPENCL_VENV, .pyopencl-venv, /usr/bin/python3).
# Each is recorded once, then run in ROUNDS rounds (default 7) of four
# fresh processes, so that the runs compared see the same load (the method
# of scripts/bench_record_apps.sh, shared in scripts/bench_rounds.sh):
#   plain         the application alone                           (timed)
#   served        clc-pack run PACK -- APP                        (timed)
#   pass-through  the interposer and no usable pack: CLCPACK_LOG gives the
#                 time spent in clBuildProgram, the driver's own build
#   served, --log clc-pack run --log: the time in clBuildProgram served
#                 (and that nothing passed through)
# --log's reporting is kept out of the timed runs. Every run is cold
# (POCL_KERNEL_CACHE=0, CUDA_CACHE_DISABLE=1, a fresh empty POCL_CACHE_DIR
# and $XDG_CACHE_HOME) and every round's outputs are compared with the
# plain run's. The speed-ups are the medians of the rounds' ratios, with
# their min-max; the load average is stated. Works on any OpenCL device (on
# an NVIDIA host run scripts/gpu_run.sh first, or register the driver the
# same way). BENCH_OUT=DIR also writes the tables into DIR/record.md (its
# own part of the file: the applications' tables stay). Used by
# scripts/bench.sh (BENCH_PARTS=record).
set -u
B=${1:-build}
rounds=${2:-7}
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cd "$root" || exit 1
case $B in /*) ;; *) B=$root/$B ;; esac
CLC=$B/clc-pack
PRELOAD=$B/libclcpack-preload.so
die() { echo "bench_record: $*" >&2; exit 1; }
[ -x "$CLC" ] && [ -f "$PRELOAD" ] || die "$CLC or $PRELOAD is missing: run 'make B=$B'"
case $rounds in '' | *[!0-9]* | 0) die "ROUNDS must be a positive number, not '$rounds'" ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/clcpack-bench-record.XXXXXX") || die "no temporary folder"
trap 'rm -rf "$work"' EXIT
. "$here/bench_rounds.sh"
cold_caches "$work"
export PYOPENCL_NO_CACHE=1 PYOPENCL_CTX=0

# build_ms LOG: the total of the log's "in X ms" (all programs of one run).
build_ms() { sed -n 's/.* in \([0-9.]*\) ms$/\1/p' "$1" | awk '{ s += $1 } END { printf "%.3f\n", s }'; }

# check NAME MODE ROUND STATUS: a failed run ends the benchmark.
check() {
    [ "$4" -eq 0 ] || die "$1 ($2, round $3) failed: $(tail -n 3 "$work/$1/$2.out.err")"
}

# round NAME I CMD...: one round; appends "I plain served driver_ms
# served_ms" to $work/NAME/rounds.
round() {
    name=$1 i=$2
    d=$work/$name
    shift 2
    p=$(timed "$d/plain.out" "$@")
    check "$name" plain "$i" $?
    s=$(timed "$d/served.out" "$CLC" run "$d/app.clcpack" -- "$@")
    check "$name" served "$i" $?
    timed "$d/through.out" env CLCPACK_LOG=1 CLCPACK_PACK="$work/none.clcpack" \
        LD_PRELOAD="$PRELOAD" "$@" >/dev/null
    check "$name" through "$i" $?
    timed "$d/logged.out" "$CLC" run --log "$d/app.clcpack" -- "$@" >/dev/null
    check "$name" logged "$i" $?
    if grep -q "passed through" "$d/logged.out.err"; then
        die "$name: a program was not served: $(grep 'passed through' "$d/logged.out.err" | head -n 1)"
    fi
    for m in served through logged; do
        [ "$(same cat "$d/plain.out" "$d/$m.out")" = yes ] || same_all="NO ($m, round $i)"
    done
    echo "$i $p $s $(build_ms "$d/through.out.err") $(build_ms "$d/logged.out.err")" >>"$d/rounds"
}

summary=$work/summary.md
details=$work/details.md
: >"$summary"
: >"$details"

# bench_app NAME CMD...: record, then the rounds; a row of the summary and
# the rounds' table.
bench_app() {
    name=$1
    shift
    echo "bench_record: $name ..." >&2
    mkdir -p "$work/$name"
    clean
    "$CLC" record -q -o "$work/$name/app.clcpack" -- "$@" >/dev/null 2>"$work/log" ||
        die "recording $name failed: $(tail -n 3 "$work/log")"
    : >"$work/$name/rounds"
    same_all=yes
    l0=$(load)
    i=1
    while [ "$i" -le "$rounds" ]; do
        round "$name" "$i" "$@"
        i=$((i + 1))
    done
    l1=$(load)
    r=$work/$name/rounds
    awk -v n="$name" -v sm="$same_all" -v p="$(cut -d' ' -f2 "$r" | median)" \
        -v s="$(cut -d' ' -f3 "$r" | median)" -v w="$(ratio_stats "$r" 2 3)" \
        -v bd="$(cut -d' ' -f4 "$r" | median)" -v bs="$(cut -d' ' -f5 "$r" | median)" \
        -v b="$(ratio_stats "$r" 4 5)" -v k="$rounds" -v l0="$l0" -v l1="$l1" 'BEGIN {
        split(w, W, " "); split(b, X, " ")
        printf "| %s | %s | %.1f ms | %.1f ms | %.1fx | %.1f-%.1fx | %.1f ms | %.2f ms | %.0fx | %.0f-%.0fx | %d | %s → %s |\n",
            n, sm, p * 1000, s * 1000, W[1], W[2], W[3], bd, bs, X[1], X[2], X[3], k, l0, l1 }' >>"$summary"
    {
        echo "$name (load average $l0 → $l1):"
        echo
        echo "| round | plain | served | plain / served | clBuildProgram, driver | clBuildProgram, served | driver / served |"
        echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        awk '{ printf "| %d | %.1f ms | %.1f ms | %.2fx | %.1f ms | %.2f ms | %.0fx |\n",
            $1, $2 * 1000, $3 * 1000, $2 / $3, $4, $5, $4 / $5 }' "$r"
        echo
    } >>"$details"
}

started=$(date -u +%Y-%m-%dT%H:%MZ)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
mkdir -p "$work/sample"
cp tests/data/record/handsonopencl/*.c "$work/sample/"
cc -w -O1 -DCL_TARGET_OPENCL_VERSION=120 -o "$work/sample/vadd_abc" "$work/sample/vadd_abc.c" \
    "$work/sample/device_info.c" "$work/sample/err_code.c" -lOpenCL ||
    die "cannot build the sample program"
bench_app vadd_abc "$work/sample/vadd_abc"
pyver="; no Python with pyopencl and numpy found"

for py in "${PYOPENCL_VENV:-$root/.pyopencl-venv}/bin/python" /usr/bin/python3; do
    if [ -x "$py" ] && "$py" -c "import pyopencl, numpy" 2>/dev/null; then
        pyver="; pyopencl: $("$py" -c 'import pyopencl; print(pyopencl.VERSION_TEXT)') ($py)"
        bench_app pyopencl "$py" tests/data/record/pyopencl_app.py
        break
    fi
done

{
    echo "## The sample program and the PyOpenCL script: interleaved rounds"
    echo
    echo "Made by \`scripts/bench_record.sh build $rounds\` at commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown) (docs/RECORD.md, \"Numbers\"), $started,"
    echo "$(nproc) cores, load average (1, 5, 15 min) $load_start at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end;"
    echo "device: $(device_name "$CLC")$pyver."
    echo "$rounds rounds per application, each a cold plain run, a cold served run ('clc-pack run PACK -- APP'),"
    echo "then, untimed, a pass-through run (CLCPACK_LOG: the driver's clBuildProgram) and a served run"
    echo "with --log (the served clBuildProgram); POCL_KERNEL_CACHE=0, CUDA_CACHE_DISABLE=1, a fresh"
    echo "POCL_CACHE_DIR and XDG_CACHE_HOME per run; every run's output compared with the plain one's."
    echo "Speed-ups: median of the rounds' ratios, then their min-max; load: the 1-minute average"
    echo "before and after the application's rounds."
    echo
    echo "| application | same output | process, plain | process, served | speed-up | min-max | clBuildProgram, driver | clBuildProgram, served | speed-up | min-max | rounds | load |"
    echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    cat "$summary"
    echo
    cat "$details"
} >"$work/record.md"
cat "$work/record.md"
if [ -n "${BENCH_OUT:-}" ]; then
    publish "$BENCH_OUT" bench_record.sh "$work/record.md"
fi
