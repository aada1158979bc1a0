#!/usr/bin/env bash
# The whole NVIDIA GPU run in one command, on a machine with an NVIDIA GPU and
# NVIDIA's OpenCL driver:
#   1. registers NVIDIA's OpenCL driver with the ICD loader when it is
#      installed but not registered;
#   2. builds the tool and the library;
#   3. packs every kernel at widths 3,5,...,31 for the GPU (portable PTX and
#      a cubin per architecture of the default --nv-arch); lists the forms per
#      architecture, loads every key from its PTX too (verify --no-cubin), and
#      measures the pack's size against PTX only, sm_90 only and own cubins stored;
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
. scripts/nvidia_icd.sh
register_nvidia_opencl || { echo "gpu_run: no NVIDIA OpenCL driver" >&2; exit 1; }
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

step "every NVIDIA architecture (--nv-arch, default 75,80,86,89,90,100,120): forms, PTX path, size"
# The forms per architecture, then every key loaded again with the cubins
# skipped (CLCPACK_LOAD_NO_CUBIN): the portable PTX, JIT-compiled here.
forms() { $clc list "$1" | awk '$6 ~ /^(cubin|ptx)\// {n[$6]++; raw[$6]+=$7; st[$6]+=$8}
    END {for (k in n) printf "%-12s %4d entries %10d bytes raw %10d stored\n", k, n[k], raw[k], st[k]}' |
    sort -t_ -k2 -n; }
forms "$pack" | tee "$results/gpu_arch_forms.txt"
$clc verify --load --check --no-cubin --device gpu "$pack" | tee "$results/gpu_verify_ptx.txt" | tail -n 5
# Sizes (docs/bench/nvidia-multiarch-size.md): PTX only as the driver gives
# it, that retargeted here with no GPU involved, the sm_90 cubins alone, and
# the device's own cubins stored as they are (--store-cubins).
ptxonly=$results/gpu-ptx-only.clcpack
$clc --widths 3,5,7,...,31 --device gpu --ptxas none -q -o "$ptxonly"
/usr/bin/time -f "retarget wall time %e s" $clc retarget "$ptxonly" -o "$results/gpu-retargeted.clcpack"
$clc --widths 3,5,7,...,31 --device gpu --nv-arch 90 -q -o "$results/gpu-sm90.clcpack"
$clc merge "$pack" --store-cubins -q -o "$results/gpu-stored.clcpack"
for f in "$ptxonly" "$results/gpu-sm90.clcpack" "$pack" "$results/gpu-stored.clcpack" \
         "$results/gpu-retargeted.clcpack"; do
    printf '%-40s %10d bytes\n' "$(basename "$f")" "$(stat -c %s "$f")"
done | tee "$results/gpu_multiarch_size.txt"
forms "$results/gpu-stored.clcpack" >> "$results/gpu_multiarch_size.txt"
cmp -s <($clc list "$pack" | awk '$6 ~ /\//{print $2,$3,$4,$6,$7}') \
       <($clc list "$results/gpu-retargeted.clcpack" | awk '$6 ~ /\//{print $2,$3,$4,$6,$7}') &&
    echo "the retargeted PTX-only pack holds the same forms and sizes as the built one" ||
    echo "the retargeted PTX-only pack differs from the built one (see the lists)"
rm -f "$results/gpu-sm90.clcpack" "$results/gpu-stored.clcpack"

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
