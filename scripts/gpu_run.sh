#!/usr/bin/env bash
# The whole NVIDIA GPU run in one command, on a machine with an NVIDIA GPU and
# NVIDIA's OpenCL driver:
#   1. registers NVIDIA's OpenCL driver with the ICD loader when it is
#      installed but not registered;
#   2. builds the tool and the library;
#   3. packs every kernel at widths 3,5,...,31 for the GPU (PTX + cubin);
#   4. verifies the pack and loads every entry through the loader (expecting
#      the cubin path), running each loaded program against the CPU reference;
#   5. packs and checks every width 1..32 and every work-group the kernels
#      allow, again from pack-loaded programs;
#   6. runs the cold start-up benchmark (and, with --bench, all of make bench);
#   7. packs every kernel again with --tune (docs/TUNING.md), prints the
#      tuning report and the variant an application gets at width 7.
# Usage: [CPU_PACK=cpu.clcpack] scripts/gpu_run.sh [--bench] [RESULTS_DIR]
# (default RESULTS_DIR: gpu-results)
# Everything it prints is also written to RESULTS_DIR/gpu_run.log.
set -euo pipefail
cd "$(dirname "$0")/.."

bench_all=0
if [ "${1:-}" = "--bench" ]; then bench_all=1; shift; fi
results=${1:-gpu-results}
mkdir -p "$results"
exec > >(tee "$results/gpu_run.log") 2>&1

step() { printf '\n=== %s\n' "$*"; }

step "NVIDIA OpenCL driver"
if ! grep -qs nvidia /etc/OpenCL/vendors/*.icd; then
    lib=$(ldconfig -p | awk '/libnvidia-opencl\.so\.1/{print $NF; exit}')
    if [ -z "$lib" ]; then
        echo "gpu_run: NVIDIA's OpenCL driver (libnvidia-opencl.so.1) is not installed" >&2
        exit 1
    fi
    if [ -w /etc/OpenCL/vendors ] || { [ "$(id -u)" = 0 ] && mkdir -p /etc/OpenCL/vendors; }; then
        echo "$lib" > /etc/OpenCL/vendors/nvidia.icd
        echo "registered $lib in /etc/OpenCL/vendors/nvidia.icd"
    else
        # Not root: a private vendors folder for the ICD loader (ocl-icd).
        vendors=$(mktemp -d)
        cp /etc/OpenCL/vendors/*.icd "$vendors"/ 2>/dev/null || true
        echo "$lib" > "$vendors/nvidia.icd"
        export OCL_ICD_VENDORS=$vendors
        echo "registered $lib through OCL_ICD_VENDORS=$vendors"
    fi
else
    echo "already registered: $(grep -ls nvidia /etc/OpenCL/vendors/*.icd)"
fi
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader || true

# Cold numbers: the driver's own cache would hide the JIT we measure.
export CUDA_CACHE_DISABLE=1 POCL_KERNEL_CACHE=0

step "build"
make -j"$(nproc)" all
clc=build/clc-pack
$clc --version
$clc --list-devices

step "pack: every kernel, widths 3,5,7,...,31, on the GPU"
pack=$results/gpu.clcpack
/usr/bin/time -f "pack wall time %e s" $clc --widths 3,5,7,...,31 --device gpu -o "$pack"
$clc list "$pack" > "$results/gpu_pack_list.txt"
tail -n 5 "$results/gpu_pack_list.txt"

step "verify --load --check: every entry from its cubin, checked on the GPU"
$clc verify --load --check --device gpu "$pack" | tee "$results/gpu_verify.txt" | tail -n 15

step "every width 1..32 and every work-group, checked from pack-loaded programs"
full=$results/gpu-all-widths.clcpack
$clc --widths 1-32 --wg 8x8,16x16 -D UNROLL_FACTOR=1,2,4,8 --device gpu -q -o "$full"
$clc verify --load --check --device gpu "$full" | tee "$results/gpu_verify_all_widths.txt" | tail -n 15
rm -f "$full"

step "cold start-up benchmark (source, PTX, cubin; loader overhead)"
make bench BENCH_DEVICE=gpu BENCH_PARTS="startup" BENCH_PACK="$pack" BENCH_OUT="$results/bench"
cat "$results/bench/startup.md"

if [ "$bench_all" = 1 ]; then
    step "make bench"
    make bench BENCH_DEVICE=gpu
fi
step "tuned pack: every kernel at widths 3,5,...,31 timed on the GPU (--tune, 2048x2048)"
tuned=$results/gpu-tuned.clcpack
/usr/bin/time -f "tuned pack wall time %e s" $clc --widths 3,5,7,...,31 --device gpu --tune -o "$tuned"
$clc list "$tuned" > "$results/gpu_tuned_list.txt"
grep -E ' (reda_local|reda_float4|Convolve_Def) .*FILTER_WIDTH=7[ ,]' "$results/gpu_tuned_list.txt" || true
$clc tune-report "$tuned" | tee "$results/gpu_tune_report.md"
for fam in conv-rgba conv-grey; do
    $clc best "$tuned" --family $fam --width 7 --device gpu | tee -a "$results/gpu_best_width7.txt"
done

step "merge: a CPU pack (PoCL, built here) + the GPU pack, verified with --load on both"
# CPU_PACK: a pack built on another machine's CPU, to merge with this one's
# GPU pack (otherwise one is built here, with PoCL).
cpu=${CPU_PACK:-$results/cpu.clcpack}
[ -n "${CPU_PACK:-}" ] || $clc --device cpu --kernel Convolve_Def --kernel reda_float4 --widths 3,5 -q -o "$cpu"
$clc merge "$pack" "$cpu" -o "$results/merged.clcpack"
$clc verify "$results/merged.clcpack" --load --device all | tail -n 3 | tee "$results/merged_verify.txt"

step "record and replay an unmodified application on the GPU (docs/RECORD.md)"
# Only NVIDIA's driver, so that the sample and the PyOpenCL script (when a
# Python with pyopencl is there) take the GPU; record + replay (PTX and cubin
# entries) checked, then timed with a cold driver cache.
nv_only=$(mktemp -d)
cp "$(grep -ls nvidia /etc/OpenCL/vendors/*.icd "${OCL_ICD_VENDORS:-/nonexistent}"/*.icd 2>/dev/null | head -n 1)" "$nv_only"/
mkdir -p "$results/record"
if OCL_ICD_VENDORS=$nv_only BENCH_OUT="$results/record" sh scripts/bench_record.sh build; then
    OCL_ICD_VENDORS=$nv_only $clc record -o "$results/record/vadd.clcpack" --log -- \
        sh -c 'd=$(mktemp -d) && cp tests/data/record/handsonopencl/*.c "$d" &&
            cc -w -DCL_TARGET_OPENCL_VERSION=120 -o "$d/app" "$d"/*.c -lOpenCL && "$d/app"' || true
    $clc list "$results/record/vadd.clcpack" | tee "$results/record/vadd_list.txt" || true
else
    echo "gpu_run: scripts/bench_record.sh failed (see above)"
fi

step "done: results in $results"
