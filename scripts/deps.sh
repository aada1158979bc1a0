#!/bin/sh
# Checks that what clc-pack needs to build and run is installed: a C compiler,
# make, the Khronos OpenCL headers, an OpenCL ICD loader, zlib, and at least
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

# Optional: libcurl, the remote cache's HTTP client (docs/REMOTE_CACHE.md;
# `make CURL=0` or its absence builds without it), installed where this
# script can install. nginx, the server tests/cli_remote_cache.sh runs on
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
