#!/usr/bin/env bash
# A pack holding every vendor's entries, loaded and checked on an NVIDIA GPU
# (docs/vendors/README.md, "What was checked"), in one command:
#   1. registers NVIDIA's OpenCL driver with the ICD loader when needed;
#   2. builds the bundled kernels at widths 3,15,31 for the GPU (a cubin per
#      architecture of the default --nv-arch, and the PTX) and takes every
#      entry of ALL_PACK into it (--merge): a pack made on a host with no
#      GPU holding PoCL, Intel, AMD and SPIR-V entries of the same variants;
#   3. prints the size table: entries, raw and stored bytes per kind and
#      target (sizes.md);
#   4. verify --load --check on the GPU: every key from its cubin, each
#      loaded program run against the CPU reference, the other vendors'
#      entries passed over with their reasons.
# The pack it writes (RESULTS/all.clcpack) goes back to the host that made
# ALL_PACK, where verify --load --check on PoCL checks the same pack there.
# Usage: scripts/gpu_vendors.sh ALL_PACK [RESULTS_DIR]   (default gpu-results)
# Uses build/clc-pack as it is (built here, or carried from a host with the
# OpenCL headers).
set -euo pipefail
cd "$(dirname "$0")/.."

[ $# -ge 1 ] || { echo "usage: scripts/gpu_vendors.sh ALL_PACK [RESULTS_DIR]" >&2; exit 2; }
all=$1
results=${2:-gpu-results}
[ -f "$all" ] || { echo "gpu_vendors: $all: no such pack" >&2; exit 2; }
mkdir -p "$results"
exec > >(tee "$results/gpu_vendors.log") 2>&1

step() { printf '\n=== %s\n' "$*"; }

step "NVIDIA OpenCL driver"
. scripts/nvidia_icd.sh
register_nvidia_opencl || { echo "gpu_vendors: no NVIDIA OpenCL driver" >&2; exit 1; }
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader || true
export CUDA_CACHE_DISABLE=1 POCL_KERNEL_CACHE=0
clc=build/clc-pack
[ -x "$clc" ] || { echo "gpu_vendors: $clc is missing (make, or carry build/)" >&2; exit 1; }
$clc --version

step "the GPU's entries, with every entry of $all merged in"
out=$results/all.clcpack
/usr/bin/time -f "build and merge wall time %e s" \
    $clc --device gpu --widths 3,15,31 --merge "$all" -q -o "$out"
ls -l "$all" "$out"

step "size per kind and target"
$clc list "$out" > "$results/all_list.txt"
{
    echo "| kind/target | entries | raw bytes | stored bytes |"
    echo "|---|---:|---:|---:|"
    awk '$1 ~ /^[0-9]+$/ && $5 ~ /^[0-9]+$/ && $7 ~ /^[0-9]+$/ {n[$6]++; raw[$6]+=$7; st[$6]+=$8; N++; R+=$7; S+=$8}
        END {for (k in n) printf "| %s | %d | %d | %d |\n", k, n[k], raw[k], st[k];
             printf "| all entries | %d | %d | %d |\n", N, R, S}' "$results/all_list.txt" | sort
    printf '\npack file: %s bytes\n' "$(stat -c %s "$out")"
} | tee "$results/sizes.md"

step "verify --load --check on the GPU"
$clc verify --load --check --device gpu "$out" | tee "$results/gpu_verify.txt" | tail -n 12
