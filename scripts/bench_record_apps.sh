#!/bin/sh
# Real applications recorded and replayed with clc-pack record / run, as a
# new user would run them (docs/RECORD.md, "Real applications"). Each one is
# recorded once, then timed in ROUNDS rounds of two fresh processes side by
# side, plain then served ('clc-pack run PACK -- APP'), so that both runs of
# a round see the same load; the speed-up is the median of the rounds'
# plain/served ratios, given with their min-max, because on a shared machine
# medians of separate series drift apart with the load (a single pair of
# medians once overstated speed-ups by up to 2x).
# Every run is cold: PoCL's kernel cache off (POCL_KERNEL_CACHE=0) in a
# fresh, empty POCL_CACHE_DIR, and the application's own binary cache
# ($XDG_CACHE_HOME) emptied. Every round's outputs are compared.
#   scripts/bench_record_apps.sh [BUILD] [ROUNDS]     (default: build 7)
#   BENCH_ONLY=WORD: only the applications whose name holds WORD.
#   BENCH_OUT=DIR: also write the tables into DIR/record.md (their own
#   part of it: scripts/bench_record.sh's tables there stay).
#   BENCH_SLOW_ROUNDS=N: rounds for hashcat alone (a plain run takes
#   100 s or more on 2 CPU cores; default ROUNDS).
# The applications come from Debian's packages (not the project's deps):
#   apt-get install ffmpeg clblast-tests clpeak python3-opencv hashcat
# An application that is not installed gets a row saying so; one whose run
# fails gets a row with its exit status, and the others still run.
set -u
build=${1:-build}
rounds=${2:-7}
root=$(cd "$(dirname "$0")/.." && pwd)
CLC=$(cd "$build" && pwd)/clc-pack
[ -x "$CLC" ] || { echo "no $CLC: make first" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/clcpack-apps-XXXXXX")
trap 'rm -rf "$work"' EXIT
# now, load, median, the cold caches (clean, timed), same, ratio_stats,
# device_name, publish: shared with scripts/bench_record.sh.
. "$root/scripts/bench_rounds.sh"
cold_caches "$work"
# OpenCV: its own binary cache off (it would load binaries instead of
# building), and PoCL's CPU device (OpenCV asks for a GPU by default).
export OPENCV_OPENCL_CACHE_ENABLE=0 OPENCV_OPENCL_DEVICE=:CPU:0

summary=$work/summary.md
details=$work/details.md
: >"$summary"
: >"$details"

# row NAME TEXT: a row for an application without figures.
row() { echo "| $1 | $2 | | | | | | | | |" >>"$summary"; }

# bench NAME FILTER CMD...: FILTER is a shell command turning the output
# into what must be the same (cat: all of it; "" for none: timings only).
bench() {
    name=$1
    filter=$2
    shift 2
    case $name in *"${BENCH_ONLY:-}"*) ;; *) return ;; esac
    if ! command -v "$1" >/dev/null 2>&1; then
        row "$name" "not installed ($1)"
        echo "bench_record_apps: $name: $1 is not installed, skipped" >&2
        return
    fi
    echo "bench_record_apps: $name ..." >&2
    d=$work/$(echo "$name" | tr -c 'A-Za-z0-9\n' _)
    mkdir -p "$d"
    l0=$(load)
    clean
    "$CLC" record -o "$d/app.clcpack" -- "$@" >"$d/rec.out" 2>"$d/rec.err"
    rc=$?
    captured=$(sed -n 's/^clc-pack: recorded \(.*\) (.*) into .*/\1/p' "$d/rec.err" | tail -n 1)
    if [ "$rc" -ne 0 ] || [ -z "$captured" ]; then
        why=$(grep '^clc-pack:' "$d/rec.err" | head -n 1 | cut -c11-120)
        row "$name" "not recorded (exit $rc: $why)"
        return
    fi
    # One untimed served run with the log: what was served, what passed
    # through (--log's reporting is kept out of the timed runs).
    clean
    "$CLC" run --log "$d/app.clcpack" -- "$@" >"$d/log.out" 2>"$d/log.err"
    served=$(grep -c 'served from the pack' "$d/log.err")
    passed=$(grep -c 'passed through' "$d/log.err")
    n=${app_rounds:-$rounds}
    : >"$d/rounds"
    i=1
    same_all=yes
    failed=""
    while [ "$i" -le "$n" ]; do
        p=$(timed "$d/plain.out" "$@") || failed="plain exit $? in round $i"
        s=$(timed "$d/served.out" "$CLC" run "$d/app.clcpack" -- "$@") ||
            failed="served exit $? in round $i"
        [ -z "$failed" ] || break
        sm=$(same "$filter" "$d/plain.out" "$d/served.out")
        [ "$sm" = NO ] && same_all="NO (round $i)"
        [ "$sm" = n/a ] && same_all=n/a
        echo "$i $p $s" >>"$d/rounds"
        i=$((i + 1))
    done
    l1=$(load)
    if [ -n "$failed" ]; then
        row "$name" "$captured; $failed: $(tail -q -n 1 "$d/plain.out.err" "$d/served.out.err" | tr '\n|' '  ' | cut -c1-120)"
        return
    fi
    mp=$(cut -d' ' -f2 "$d/rounds" | median)
    ms=$(cut -d' ' -f3 "$d/rounds" | median)
    read -r mr lo hi <<EOF
$(ratio_stats "$d/rounds" 2 3)
EOF
    awk -v n="$name" -v c="$captured" -v sv="$served" -v ps="$passed" -v sm="$same_all" \
        -v p="$mp" -v s="$ms" -v r="$mr" -v lo="$lo" -v hi="$hi" -v k="$n" \
        -v l0="$l0" -v l1="$l1" 'BEGIN {
        printf "| %s | %s | %s served, %s passed through | %s | %.2f s | %.2f s | %.1fx | %.1f-%.1fx | %d | %s → %s |\n",
            n, c, sv, ps, sm, p, s, r, lo, hi, k, l0, l1 }' >>"$summary"
    {
        echo "$name (load average $l0 → $l1):"
        echo
        echo "| round | plain | served | plain / served |"
        echo "| ---: | ---: | ---: | ---: |"
        awk '{ printf "| %d | %.2f s | %.2f s | %.2fx |\n", $1, $2, $3, $2 / $3 }' "$d/rounds"
        echo
    } >>"$details"
}

ff() {
    # ffmpeg: 10 frames of a test pattern through OpenCL filters; framemd5.
    echo ffmpeg -v error -init_hw_device opencl=ocl:0.0 -filter_hw_device ocl -f lavfi \
        -i testsrc=size=640x360:rate=25 -frames:v 10 \
        -vf "format=yuv420p,hwupload,$1,hwdownload,format=yuv420p" -f framemd5 -
}
strip_colours="sed 's/\x1b\[[0-9;]*m//g' | grep -E 'passed|failed'"

started=$(date -u +%Y-%m-%dT%H:%MZ)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
# shellcheck disable=SC2046
bench "ffmpeg avgblur_opencl" cat $(ff avgblur_opencl=sizeX=5)
# shellcheck disable=SC2046
bench "ffmpeg 5 OpenCL filters chained" cat \
    $(ff unsharp_opencl,sobel_opencl,erosion_opencl,boxblur_opencl,transpose_opencl)
bench "CLBlast clblast_test_xgemv" "$strip_colours" clblast_test_xgemv
bench "clpeak --kernel-latency" "" clpeak --kernel-latency
# Debian's python3-opencv is for the system's Python, which may not be the
# first python3 on PATH.
py=python3
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import cv2' 2>/dev/null && py=/usr/bin/python3
bench "OpenCV (Python, cv2.UMat)" cat "$py" "$root/scripts/record_apps/opencv_umat.py"
app_rounds=${BENCH_SLOW_ROUNDS:-$rounds}
bench "hashcat -b -m 0 -D 1" "" hashcat -b -m 0 -D 1 --quiet
app_rounds=""

{
    echo "Record and replay of real applications, $started, $(nproc) cores, load average (1, 5, 15 min)"
    echo "$load_start at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end; device: $(device_name "$CLC")."
    echo "$rounds rounds per application (hashcat ${BENCH_SLOW_ROUNDS:-$rounds}), each a cold plain run then a cold served run"
    echo "('clc-pack run PACK -- APP'), POCL_KERNEL_CACHE=0 in a fresh POCL_CACHE_DIR,"
    echo "the application's cache emptied; speed-up: median of the rounds' plain/served"
    echo "ratios, then their min-max; load: the 1-minute average before and after the app's rounds."
    echo
    echo "| application | captured | replay | same output | plain, median | served, median | speed-up | min-max | rounds | load |"
    echo "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"
    cat "$summary"
    echo
    cat "$details"
} >"$work/record.md"
cat "$work/record.md"
if [ -n "${BENCH_OUT:-}" ]; then
    publish "$BENCH_OUT" bench_record_apps.sh "$work/record.md"
fi
