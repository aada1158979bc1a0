#!/bin/sh
# scripts/bench_first_launch.sh [BUILD] — the first launch of a kernel in a
# fresh process (enqueue to finish, tests/data/record/launch_app.c: 256
# items in work-groups of 16), three ways, PoCL's kernel cache off:
#   source    built from source: the launch compiles its work-group function
#   replay    built by the application, served from a recorded pack
#             (clc-pack run): the recorded binary holds the function
#   packed    made from a clc-pack entry (--wg 16) with clCreateProgramWithBinary
# Prints a Markdown table of medians of RUNS runs (default 7), for
# docs/RECORD.md ("Numbers"). tests/cli/cli_record_link.sh checks the function
# names in both binaries; this only times.
set -u
B=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
case $B in /*) ;; *) B=$root/$B ;; esac
RUNS=${RUNS:-7}
CLC=$B/clc-pack
[ -x "$CLC" ] || { echo "bench_first_launch: no $CLC" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/clcpack-first-launch.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
export POCL_KERNEL_CACHE=0
app=$work/launch_app
cc -O1 -DCL_TARGET_OPENCL_VERSION=120 -o "$app" "$root/tests/data/record/launch_app.c" -lOpenCL || exit 1
printf 'int scale(int x) { return 3 * x + OFFSET; }\n__kernel void run(__global int *y) {\n    int i = get_global_id(0);\n    y[i] = scale(i);\n}\n' >"$work/scale.cl"
"$CLC" record -q -o "$work/rec.clcpack" -- "$app" build >/dev/null 2>&1 || exit 1
"$CLC" "$work/scale.cl" -D OFFSET=1 --wg 16 -q -o "$work/packed.clcpack" || exit 1
"$CLC" extract "$work/packed.clcpack" --entry 0 -o "$work/packed.bin" >/dev/null 2>&1 || exit 1
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
first() { sed -n 's/.*first launch: \([0-9.]*\) ms/\1/p'; }
for how in source replay packed; do
    i=0
    while [ "$i" -lt "$RUNS" ]; do
        case $how in
        source) "$app" build ;;
        replay) "$CLC" run "$work/rec.clcpack" -- "$app" build ;;
        packed) "$app" binary "$work/packed.bin" ;;
        esac 2>&1 >/dev/null | first >>"$work/$how.t"
        i=$((i + 1))
    done
done
echo "| first launch, fresh process | median of $RUNS |"
echo "| --- | ---: |"
echo "| built from source (compiles the work-group function) | $(median <"$work/source.t") ms |"
echo "| replayed from a recorded pack | $(median <"$work/replay.t") ms |"
echo "| made from a packed entry (--wg 16) | $(median <"$work/packed.t") ms |"
echo
echo "Load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores."
