#!/bin/bash
# gpu_conv_profile.sh — Nsight Compute on the packed convolution picks.
#
# ncu profiles CUDA launches; NVIDIA's OpenCL driver launches are not seen
# by it. So this builds each variant into a pack as usual, takes its PTX
# out of the pack, makes the __constant filter argument a module constant
# (clc_filter; the kernel's loads from it stay constant-memory loads) and
# the driver's group offset registers 0 (what a launch in one piece has),
# assembles it with ptxas for this GPU as clc-pack does, and launches it
# through the CUDA driver API (tests/bench/profile/cubin_launch.c) with
# the pack launcher's grid, timed and checked; then once more under ncu.
#
#   scripts/gpu_conv_profile.sh [OUT]    (default gpu-results/profile)
#
# PROFILE_VARIANTS: ';'-separated "KERNEL FW OUT_X OUT_Y WG_X WG_Y
# CHANNEL_PASS LOOP_ORDER [NAME=VALUE]" (CHANNEL_PASS - for the grey
# kernel; NAME=VALUE one more define, e.g. FILTER_LOCAL=1).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-gpu-results/profile}
mkdir -p "$out"
. scripts/nvidia_icd.sh
register_nvidia_opencl >/dev/null || exit 1
cuda=$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")
ptxas=$cuda/bin/ptxas
ncu=$(command -v ncu || echo "$cuda/bin/ncu")
make -s all >/dev/null
mkdir -p build/bench
cc -O2 -std=c11 -I"$cuda/include" -o build/bench/cubin_launch tests/bench/profile/cubin_launch.c \
    -L"$cuda/lib64/stubs" -lcuda -lm
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '.')
VARIANTS=${PROFILE_VARIANTS:-"conv_block_rgba 15 4 4 8 8 3 1;conv_block_rgba 21 4 2 16 8 3 1;conv_block_grey 15 8 4 16 16 - 0"}
IFS=';' read -r -a list <<<"$VARIANTS"
for v in "${list[@]}"; do
    read -r k fw ox oy wx wy cp lo extra <<<"$v"
    name="${k}_fw${fw}_${ox}x${oy}_wg${wx}x${wy}_cp${cp}_lo${lo}${extra:+_$extra}"
    defs="-D OUT_X=$ox -D OUT_Y=$oy -D LOOP_ORDER=$lo${extra:+ -D $extra}"
    [ "$cp" != - ] && defs="$defs -D CHANNEL_PASS=$cp"
    chans=1
    [ "$k" = conv_block_rgba ] && chans=4
    # shellcheck disable=SC2086
    build/clc-pack --kernel "$k" --widths "$fw" $defs --wg "${wx}x${wy}" --device gpu -q \
        -o "$out/$name.clcpack"
    # shellcheck disable=SC2086
    build/clc-pack extract "$out/$name.clcpack" --kernel "$k" --kind ptx -o "$out/$name.ptx" >/dev/null
    python3 - "$out/$name.ptx" "$k" <<'PY'
import re, sys
path, kernel = sys.argv[1], sys.argv[2]
text = open(path).read().rstrip("\0")
text, n = re.subn(r"ld\.param\.u64\s+(%rd\d+),\s*\[" + kernel + r"_param_1\];",
                  r"mov.u64 \1, clc_filter;", text)
if n != 1:
    sys.exit("gpu_conv_profile: %s: %d loads of the filter argument, wanted 1" % (path, n))
# NVIDIA's OpenCL compiler adds %envreg0..2 to %ctaid for get_group_id (a
# group offset its driver passes, 0 for a launch in one piece); under the
# CUDA driver API those registers are not set, so they become 0 here.
text = re.sub(r"mov\.b32\s+(%r\d+),\s*%envreg[0-2];", r"mov.b32 \1, 0;", text)
text = re.sub(r"(\.address_size\s+64\s*\n)", r"\1.const .align 16 .b8 clc_filter[15376];\n",
              text, count=1)
open(path, "w").write(text)
PY
    "$ptxas" -arch=sm_"$arch" -v -o "$out/$name.cubin" "$out/$name.ptx" 2>"$out/$name.ptxas.txt"
    echo "== $name" | tee -a "$out/profile.txt"
    grep -E "registers|spill" "$out/$name.ptxas.txt" | tee -a "$out/profile.txt"
    build/bench/cubin_launch "$out/$name.cubin" "$k" "$fw" "$ox" "$oy" "$wx" "$wy" "$chans" \
        4096 11 | tee -a "$out/profile.txt"
    timeout 300 "$ncu" --launch-skip 1 --launch-count 1 \
        --section SpeedOfLight --section Occupancy --section LaunchStats \
        --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
        --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats \
        build/bench/cubin_launch "$out/$name.cubin" "$k" "$fw" "$ox" "$oy" "$wx" "$wy" "$chans" \
        4096 2 >"$out/$name.ncu.txt" 2>&1 || echo "ncu failed (see $out/$name.ncu.txt)"
    grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Block Limit|Shared Memory Configuration Size|Issue Slots Busy|No Eligible|Bank Conflicts|bank conflict|L1/TEX Hit|FMA|Executed Ipc" \
        "$out/$name.ncu.txt" | head -40 | tee -a "$out/profile.txt" || true
done
