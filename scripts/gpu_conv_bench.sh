#!/usr/bin/env bash
# The register-blocked convolutions against NVIDIA NPP on an NVIDIA GPU, in
# one command (docs/BENCH.md, "Against NPP and OpenCV"):
#   1. registers NVIDIA's OpenCL driver with the ICD loader when it is
#      installed but not registered (as scripts/gpu_run.sh does);
#   2. builds clc-pack and the speed benchmark when the OpenCL headers are
#      here, else uses the binaries already in build/ (built elsewhere and
#      carried along);
#   3. runs scripts/conv_bench.sh on the GPU: tuned packs of conv_block_grey
#      and conv_block_rgba at 4096x4096, widths 3..31 odd, in the shapes
#      below; NPP's nppiFilter_32f_C1R_Ctx / C4R_Ctx on the same problem
#      (tests/bench/npp/npp_filter.cu, built with nvcc); then, per width,
#      the variant clcpack_best_variant picks, timed against NPP;
#   4. copies the tables to docs/bench/<device slug>/.
# Usage: scripts/gpu_conv_bench.sh [RESULTS_DIR]   (default: $OUT, else gpu-results)
# Everything it prints is also in RESULTS_DIR/gpu_conv_bench.log.
set -euo pipefail
cd "$(dirname "$0")/.."
results=${1:-${OUT:-gpu-results}}
mkdir -p "$results"
exec > >(tee "$results/gpu_conv_bench.log") 2>&1
step() { printf '\n=== %s\n' "$*"; }

step "NVIDIA OpenCL driver"
. scripts/nvidia_icd.sh
register_nvidia_opencl || exit 1
nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.max.sm --format=csv,noheader || true

step "build"
if printf '#include <CL/cl.h>\nint main(void){return 0;}\n' | cc -x c -fsyntax-only - 2>/dev/null; then
    make -j"$(nproc)" all build/bench/speed build/bench/devinfo
else
    echo "no OpenCL headers here: using the binaries in build/"
fi
for f in build/clc-pack build/bench/speed build/bench/devinfo; do
    [ -x "$f" ] || { echo "gpu_conv_bench: $f is missing (build it where the headers are and carry build/)" >&2; exit 1; }
done
build/clc-pack --list-devices

step "tuned packs, NPP, the picks against NPP (4096x4096, widths 3..31 odd)"
# The shapes timed: grey blocks 8 wide and 2 or 4 tall in both loop orders
# (4 wide only up to width 11, where it can lead), the row loop fully
# unrolled at widths 3-9, and the flat fill (FILL_FLAT=1, all of a tile's
# reads in flight at once) up to width 21, where it can lead. RGBA: the
# planar tiles into float4 outputs (CHANNEL_PASS=3; docs/KERNELS.md):
# input rows outer with the filter in local memory (FILTER_LOCAL=1; 4x2 at
# 8x8 and 16x8, 8x1 at 8x8), filter rows outer (4x2 at 8x8 and 16x8, 8x1 at
# 8x8), the flat fill for the shapes that lead up to width 23; one channel
# at a time from a single-channel tile with the grey kernel's blocks
# (CHANNEL_PASS=1, 4x4 and 8x4 at 16x8, 8x2 at 16x16) from width 17, ahead
# from 25, where the planar tiles no longer fit beside large blocks.
# Shapes whose local memory exceeds 48 KB at the larger widths do not
# build there (-k keeps the rest).
export CONV_DEVICE=gpu CONV_SIZE=${CONV_SIZE:-4096} CONV_OUT=$results
export CONV_SHAPES=${CONV_SHAPES:-"--kernel conv_block_grey -D OUT_X=8 -D OUT_Y=2,4 -D LOOP_ORDER=0,1 --wg 16x16;\
--kernel conv_block_grey --widths 3,5,7,9,11 -D OUT_X=4 -D OUT_Y=2,4 --wg 16x16;\
--kernel conv_block_grey --widths 3,5,7,9 -D OUT_X=4,8 -D OUT_Y=2,4 -D ROW_UNROLL=0 -D FILL_FLAT=0,1 --wg 16x16;\
--kernel conv_block_grey --widths 9,11,13,15,17,19,21 -D OUT_X=8 -D OUT_Y=2,4 -D LOOP_ORDER=0,1 -D FILL_FLAT=1 --wg 16x16;\
--kernel conv_block_rgba -D CHANNEL_PASS=3 -D FILTER_LOCAL=1 -D OUT_X=4 -D OUT_Y=2 --wg 8x8,16x8;\
--kernel conv_block_rgba -D CHANNEL_PASS=3 -D FILTER_LOCAL=1 -D OUT_X=8 -D OUT_Y=1 --wg 8x8;\
--kernel conv_block_rgba -D CHANNEL_PASS=3 -D LOOP_ORDER=1 -D OUT_X=4 -D OUT_Y=2 --wg 8x8,16x8;\
--kernel conv_block_rgba -D CHANNEL_PASS=3 -D LOOP_ORDER=1 -D OUT_X=8 -D OUT_Y=1 --wg 8x8;\
--kernel conv_block_rgba --widths 3,5,7,9,11,13,15 -D CHANNEL_PASS=3 -D FILTER_LOCAL=1 -D FILL_FLAT=1 -D OUT_X=4 -D OUT_Y=2 --wg 16x8;\
--kernel conv_block_rgba --widths 3,5,7,9 -D CHANNEL_PASS=3 -D LOOP_ORDER=1 -D FILL_FLAT=1 -D OUT_X=4 -D OUT_Y=2 --wg 8x8;\
--kernel conv_block_rgba --widths 13,15,17,19,21,23 -D CHANNEL_PASS=3 -D FILTER_LOCAL=1 -D FILL_FLAT=1 -D OUT_X=8 -D OUT_Y=1 --wg 8x8;\
--kernel conv_block_rgba --widths 17,19,21,23,25,27,29,31 -D CHANNEL_PASS=1 -D LOOP_ORDER=1 -D OUT_X=4,8 -D OUT_Y=4 --wg 16x8;\
--kernel conv_block_rgba --widths 17,19,21,23,25,27,29,31 -D CHANNEL_PASS=1 -D LOOP_ORDER=1 -D OUT_X=8 -D OUT_Y=2 --wg 16x16"}
rc=0
t0=$(date +%s)
sh scripts/conv_bench.sh build || rc=$?
echo "conv_bench wall time $(( $(date +%s) - t0 )) s"

step "the picks against NPP, with the goals (docs/BENCH.md)"
python3 scripts/conv_goal_table.py "$results" > "$results/conv_vs_npp.md" && cat "$results/conv_vs_npp.md"

step "copy the tables to docs/bench"
slug=$(build/bench/devinfo --device gpu | sed -n 's/^slug=//p')
docs=docs/bench/${slug:-gpu}
mkdir -p "$docs"
for f in conv_best.md conv_best.csv peer.md peer.csv conv_vs_npp.md conv_tune_report.md conv_tuned_list.txt; do
    [ -f "$results/$f" ] && cp "$results/$f" "$docs/$f"
done
echo "tables in $results and $docs (status $rc)"
exit $rc
