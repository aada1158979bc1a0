#!/usr/bin/env bash
# Makes tests/data/nvidia/ptx_only.clcpack, the PTX-only pack the retarget
# tests use (tests/unit/test_retarget.c, tests/cli/cli_retarget.sh), on a machine
# with an NVIDIA GPU and NVIDIA's OpenCL driver: 3 kernels as the driver
# compiles them (Convolve_Def and reda_local at filter width 5, work-group
# 16x16; poly_numcoeffs with NUMCOEFFS=8 at work-group 64), with their
# sources and no cubins (--ptxas none). Each entry is loaded back from its
# PTX and checked against the CPU reference before the pack is kept.
# Usage: scripts/make_ptx_fixture.sh OUT.clcpack
set -euo pipefail
if [ $# -ne 1 ]; then
    echo "usage: scripts/make_ptx_fixture.sh OUT.clcpack" >&2
    exit 2
fi
out=$1
cd "$(dirname "$0")/.."
case $out in /*) ;; *) out=$OLDPWD/$out ;; esac

. scripts/nvidia_icd.sh
register_nvidia_opencl || { echo "make_ptx_fixture: no NVIDIA OpenCL driver" >&2; exit 1; }
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader || true
make -j"$(nproc)" all >/dev/null
clc=build/clc-pack

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
$clc --device gpu --ptxas none --kernel Convolve_Def --kernel reda_local --widths 5 \
    --wg 16x16 -q -o "$work/conv.clcpack"
$clc --device gpu --ptxas none --kernel poly_numcoeffs -D NUMCOEFFS=8 --wg 64 -q \
    -o "$work/poly.clcpack"
$clc merge "$work/conv.clcpack" "$work/poly.clcpack" -q -o "$work/fixture.clcpack"
$clc verify --load --check --device gpu "$work/fixture.clcpack"
if $clc list "$work/fixture.clcpack" | grep -q ' cubin/'; then
    echo "make_ptx_fixture: the pack holds cubins" >&2
    exit 1
fi
$clc list "$work/fixture.clcpack"
mv "$work/fixture.clcpack" "$out"
echo "wrote $out"
