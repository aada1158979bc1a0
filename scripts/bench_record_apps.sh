#!/bin/sh
# Real applications recorded and replayed with clc-pack record / run, as a
# new user would run them (docs/RECORD.md, "Real applications"): each one
# recorded once, then timed plainly and replayed, fresh processes, PoCL's
# kernel cache off (POCL_KERNEL_CACHE=0) and the application's own binary
# cache emptied before every run; prints a Markdown table with the programs
# captured and served, whether the output is the same, and the median wall
# times.
#   scripts/bench_record_apps.sh [BUILD] [RUNS]     (default: build 3)
#   BENCH_ONLY=WORD: only the applications whose name holds WORD.
# The applications come from Debian's packages (not the project's deps):
#   apt-get install ffmpeg clblast-tests clpeak python3-opencv hashcat
# An application that is not installed gets a row saying so.
set -u
build=${1:-build}
runs=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
CLC=$(cd "$build" && pwd)/clc-pack
[ -x "$CLC" ] || { echo "no $CLC: make first" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/clcpack-apps-XXXXXX")
trap 'rm -rf "$work"' EXIT
export POCL_KERNEL_CACHE=0
# Caches: PoCL's uncached folder, hashcat's kernels and the like go here.
export XDG_CACHE_HOME="$work/cache"
# OpenCV: its own binary cache off (it would load binaries instead of
# building), and PoCL's CPU device (OpenCV asks for a GPU by default).
export OPENCV_OPENCL_CACHE_ENABLE=0 OPENCV_OPENCL_DEVICE=:CPU:0

now() { date +%s.%N; }
median() { sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

# bench NAME FILTER CMD...: FILTER is a shell command turning the output
# into what must be the same (cat: all of it; "" for none: timings only).
bench() {
    name=$1
    filter=$2
    shift 2
    case $name in *"${BENCH_ONLY:-}"*) ;; *) return ;; esac
    if ! command -v "$1" >/dev/null 2>&1; then
        echo "| $name | not installed | | | | | |"
        return
    fi
    d=$work/$name
    mkdir -p "$d"
    clean() { rm -rf "$XDG_CACHE_HOME"; mkdir -p "$XDG_CACHE_HOME"; }
    clean
    "$@" >"$d/plain.out" 2>"$d/plain.err"
    clean
    "$CLC" record -o "$d/app.clcpack" -- "$@" >"$d/rec.out" 2>"$d/rec.err"
    captured=$(sed -n 's/^clc-pack: recorded \(.*\) (.*) into .*/\1/p' "$d/rec.err" | tail -n 1)
    [ -n "$captured" ] || captured="none: $(grep '^clc-pack:' "$d/rec.err" | head -n 1 | cut -c11-120)"
    clean
    "$CLC" run --log "$d/app.clcpack" -- "$@" >"$d/run.out" 2>"$d/run.err"
    served=$(grep -c 'served from the pack' "$d/run.err")
    passed=$(grep -c 'passed through' "$d/run.err")
    same="n/a"
    if [ -n "$filter" ]; then
        sh -c "$filter" <"$d/plain.out" >"$d/plain.cmp"
        sh -c "$filter" <"$d/run.out" >"$d/run.cmp"
        if [ -s "$d/plain.cmp" ] && cmp -s "$d/plain.cmp" "$d/run.cmp"; then same=yes; else same=NO; fi
    fi
    : >"$d/plain.t"
    : >"$d/replay.t"
    i=0
    while [ "$i" -lt "$runs" ]; do
        clean
        t0=$(now)
        "$@" >/dev/null 2>&1
        awk -v a="$(now)" -v b="$t0" 'BEGIN { print a - b }' >>"$d/plain.t"
        clean
        t0=$(now)
        "$CLC" run "$d/app.clcpack" -- "$@" >/dev/null 2>&1
        awk -v a="$(now)" -v b="$t0" 'BEGIN { print a - b }' >>"$d/replay.t"
        i=$((i + 1))
    done
    p=$(median <"$d/plain.t")
    r=$(median <"$d/replay.t")
    printf '| %s | %s | %s served, %s passed through | %s | %.2f s | %.2f s | %.1fx |\n' \
        "$name" "$captured" "$served" "$passed" "$same" "$p" "$r" "$(awk -v p="$p" -v r="$r" 'BEGIN { print p / r }')"
}

ff() {
    # ffmpeg: 10 frames of a test pattern through OpenCL filters; framemd5.
    echo ffmpeg -v error -init_hw_device opencl=ocl:0.0 -filter_hw_device ocl -f lavfi \
        -i testsrc=size=640x360:rate=25 -frames:v 10 \
        -vf "format=yuv420p,hwupload,$1,hwdownload,format=yuv420p" -f framemd5 -
}
strip_colours="sed 's/\x1b\[[0-9;]*m//g' | grep -E 'passed|failed'"

echo "| application | captured | replay | same output | plain | replay | speed-up |"
echo "| --- | --- | --- | --- | ---: | ---: | ---: |"
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
bench "OpenCV 4.6 (Python, cv2.UMat)" cat "$py" "$root/scripts/record_apps/opencv_umat.py"
bench "hashcat -b -m 0 -D 1" "" hashcat -b -m 0 -D 1 --quiet
echo
echo "POCL_KERNEL_CACHE=0, median of $runs fresh processes each; replay is 'clc-pack run PACK -- APP'."
echo "Load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores."
