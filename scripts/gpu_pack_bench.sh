#!/usr/bin/env bash
# Pack size and cold start on an NVIDIA GPU, in one command (docs/BENCH.md,
# "Pack size and cold start"): about 4 minutes on a 16-core H100 or H200
# host, the GPU busy for the packs' builds and the start-up runs.
#   1. registers NVIDIA's OpenCL driver with the ICD loader when needed;
#   2. installs what is missing (make deps: libzstd-dev above all), builds
#      the tool, the library and the benchmarks (or, on a host without the
#      OpenCL and zstd headers, takes those of a carried build/);
#   3. packs every kernel at the default widths and work-groups for the GPU
#      (the design-card pack: PTX and a cubin for each of the seven default
#      architectures), and at widths 3,15,31;
#   4. make bench's codecs and coldstart parts on the default pack: its
#      binaries by every codec with xz -9e as the limit (codecs.md), and
#      clcpack_open_file + clcpack_create_kernel against the bare driver
#      call in fresh processes, for the pack with zstd and with zlib, grown
#      to 13 MB and 1 GiB, with its own cubins stored (--store-cubins), and the
#      widths-3,15,31 pack (coldstart.md); both into docs/bench/<device>/.
# Usage: [CLC_PREBUILT=1] [BENCH_PARTS=...] scripts/gpu_pack_bench.sh [RESULTS_DIR]
# (default gpu-results; BENCH_PARTS default "codecs coldstart").
# Everything it prints is also written to RESULTS_DIR/gpu_pack_bench.log.
set -euo pipefail
cd "$(dirname "$0")/.."

results=${1:-gpu-results}
mkdir -p "$results"
exec > >(tee "$results/gpu_pack_bench.log") 2>&1

step() { printf '\n=== %s\n' "$*"; }

step "NVIDIA OpenCL driver"
. scripts/nvidia_icd.sh
register_nvidia_opencl || { echo "gpu_pack_bench: no NVIDIA OpenCL driver" >&2; exit 1; }
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader || true
export CUDA_CACHE_DISABLE=1 POCL_KERNEL_CACHE=0

step "build (make deps installs libzstd-dev when it is missing)"
bins="build/clc-pack build/bench/devinfo build/bench/codecs build/bench/coldstart build/bench/pad_pack
    build/bench/size build/bench/startup build/bench/speed"
if [ "${CLC_PREBUILT:-0}" != 1 ] &&
    printf '#include <CL/cl.h>\n#include <zstd.h>\nint main(void){return 0;}\n' | cc -x c -fsyntax-only - 2>/dev/null; then
    make deps
    # shellcheck disable=SC2086
    make -j"$(nproc)" all $bins
else
    # CLC_PREBUILT=1, or a GPU host without the OpenCL or zstd headers
    # (and no network for make deps): the binaries of build/, built where
    # the headers are and carried here (with CURL=0; their libraries on
    # LD_LIBRARY_PATH).
    echo "using the binaries in build/ as they are"
fi
for f in $bins; do
    [ -x "$f" ] || { echo "gpu_pack_bench: $f is missing (build it where the headers are and carry build/)" >&2; exit 1; }
done
clc=build/clc-pack
$clc --version
slug=$(build/bench/devinfo --device gpu --slug)

step "packs: the default (seven architectures) and widths 3,15,31, zstd"
pack=$results/gpu-default.clcpack
small=$results/gpu-w3-15-31.clcpack
/usr/bin/time -f "default pack wall time %e s" $clc --device gpu -q -o "$pack"
/usr/bin/time -f "3,15,31 pack wall time %e s" $clc --device gpu --widths 3,15,31 -q -o "$small"
/usr/bin/time -f "zlib rewrite (the encoding alone) %e s" $clc merge -q --codec zlib "$pack" -o "$results/gpu-default-zlib.clcpack"
/usr/bin/time -f "zstd rewrite (the encoding alone) %e s" $clc merge -q --codec zstd "$pack" -o "$results/gpu-default-zstd.clcpack"
ls -l "$pack" "$small" "$results/gpu-default-zlib.clcpack"

step "make bench: codecs and coldstart into docs/bench/$slug"
# scripts/bench.sh is what make bench runs, without make's rebuild check
# (the binaries may be carried ones).
BENCH_DEVICE=gpu BENCH_PARTS="${BENCH_PARTS:-codecs coldstart}" BENCH_PACK="$pack" \
    BENCH_COLD_PACKS="$small" BENCH_COLD_REPS="${BENCH_COLD_REPS:-7}" sh scripts/bench.sh build ||
    echo "gpu_pack_bench: a part failed (above); the tables hold what was measured"
for f in codecs.md coldstart.md; do
    if [ -f "docs/bench/$slug/$f" ]; then cat "docs/bench/$slug/$f"; cp "docs/bench/$slug/$f" "$results/"; fi
done
