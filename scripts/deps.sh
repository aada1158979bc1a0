#!/bin/sh
# Checks that what clc-pack needs to build and run is installed: a C compiler,
# make, the Khronos OpenCL headers, an OpenCL ICD loader, zlib, zstd, and at least
# one OpenCL driver (PoCL when there is no GPU). When something is missing:
# as root on a Debian-like system it installs the packages; otherwise it
# prints the exact command to run and fails.
set -u

missing=""
need() { missing="$missing $1"; }

have_header() {
    printf '#include <%s>\nint main(void){return 0;}\n' "$1" |
        ${CC:-cc} -x c -fsyntax-only - >/dev/null 2>&1
}
have_lib() {
    printf 'int main(void){return 0;}\n' |
        ${CC:-cc} -x c - -o /dev/null "-l$1" >/dev/null 2>&1
}

command -v ${CC:-cc} >/dev/null 2>&1 || need gcc
command -v make >/dev/null 2>&1 || need make
command -v pkg-config >/dev/null 2>&1 || need pkg-config
have_header CL/cl.h || need opencl-c-headers
have_lib OpenCL || need ocl-icd-opencl-dev
have_header zlib.h || need zlib1g-dev
# jansson: the tuner reads T1 specs and writes T4 results with it.
have_header jansson.h || need libjansson-dev
# zstd writes and reads packs of format 4 (make ZSTD=0 builds without it,
# writing zlib packs only).
{ have_header zstd.h && have_header zdict.h; } || need libzstd-dev
# An OpenCL driver: PoCL is the default device when no GPU driver is there.
if ! ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1; then
    need pocl-opencl-icd
fi

# Optional: OpenCV, the CPU peer of scripts/conv_bench.sh (DEPS_BENCH=1 make deps).
if [ "${DEPS_BENCH:-0}" = 1 ] && ! pkg-config --exists opencv4 2>/dev/null; then
    need libopencv-dev
fi
# Optional: libdeflate inflates pack blobs faster (the build falls back to
# zlib without it), so it is installed only where this script can install.
if ! have_header libdeflate.h && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    need libdeflate-dev
fi

# Optional: the offline compilers of clc-pack --intel-gpu, --amd-gpu and
# --spirv (docs/vendors/): Intel's ocloc (with the SPIR-V library it loads),
# clang 15 with lld 15 and the ROCm device libraries for AMD code objects,
# and llvm-spirv 15. `make` needs none of them (a pack build without one
# says which package is missing); they are installed where this script can
# install, so that their tests run (they skip without them).
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    command -v ocloc >/dev/null 2>&1 || need "intel-opencl-icd libllvmspirvlib14"
    command -v clang-15 >/dev/null 2>&1 || need clang-15
    [ -x /usr/lib/llvm-15/bin/ld.lld ] || need lld-15
    command -v llvm-spirv-15 >/dev/null 2>&1 || need llvm-spirv-15
    [ -f /usr/lib/x86_64-linux-gnu/amdgcn/bitcode/ockl.bc ] || need rocm-device-libs
    # spirv-val checks the SPIR-V modules in tests/cli/cli_vendors.sh.
    command -v spirv-val >/dev/null 2>&1 || need spirv-tools
fi

# Optional: libcurl, the remote cache's HTTP client (docs/REMOTE_CACHE.md;
# `make CURL=0` or its absence builds without it), installed where this
# script can install. nginx, the server tests/cli/cli_remote_cache.sh runs on
# the loopback address, is for the tests only: .ci/run installs it.
if ! have_header curl/curl.h && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    need libcurl4-openssl-dev
fi

[ -z "$missing" ] && exit 0

cmd="apt-get install -y$missing"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing$missing" >&2
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive $cmd -qq; } >/dev/null; then
        echo "deps: '$cmd' failed" >&2
        exit 1
    fi
    exit 0
fi
echo "deps: missing packages:$missing" >&2
if command -v apt-get >/dev/null 2>&1; then
    echo "deps: run: sudo apt-get update && sudo $cmd" >&2
else
    echo "deps: install the equivalents of:$missing" >&2
fi
exit 1
