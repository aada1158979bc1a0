#!/bin/sh
# What the tests need beyond what clc-pack needs (scripts/deps.sh), set up
# by `make test` before it runs them, so that the README's second command
# runs every test on a fresh Debian machine:
#   cmake, ninja-build   tests/cli/cli_buildsys.sh builds consumer projects
#   meson                docs/MESON.md's project, configured, built and run by
#                        tests/cli/cli_doctest.sh (with ninja-build)
#   g++                  tests/cli/cli_cxx_example.sh (examples/cxx, C++17)
#   nginx                tests/cli/cli_remote_cache.sh serves a cache on 127.0.0.1
#                        (installed without starting Debian's own service)
#   chromium             tests/cli/cli_timings.sh renders --timings' page headless
#   python3-pyopencl     tests/cli/cli_record_python.sh, Debian's flavour
#   .pyopencl-venv       the same with PyPI's wheel (its own ICD loader); also
#                        jsonschema and Kernel Tuner 1.5 (its T4 results schema:
#                        tests/cli/cli_tune_t1.sh validates clc-pack tune's results)
#   BUILD/public-kernels tests/cli/cli_public_kernels.sh (scripts/public_kernels.sh)
#   gcc-mingw-w64-x86-64, binutils-mingw-w64-x86-64, libz-mingw-w64-dev, wine64
#                        tests/cli/cli_windows.sh (the Windows library under Wine)
#   g++-mingw-w64-x86-64 tests/cli/cli_windows_cxx.sh (examples/cxx for Windows)
#   BUILD/zstd-src       zstandard's sdist from PyPI (zstd's sources, for
#                        scripts/windows_zstd.sh): tests/cli/cli_windows_zstd.sh
#   arm64 cross tools    tests/cli/cli_arm64.sh (below)
# As root on a Debian-like system it installs what is missing; otherwise,
# and where something cannot be had (no network), it says what and goes on:
# the tests that need it then say "skipped: why", counted apart.
# Usage: test_deps.sh [BUILD]
set -u
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
missing=""

command -v cmake >/dev/null 2>&1 || missing="$missing cmake"
command -v ninja >/dev/null 2>&1 || missing="$missing ninja-build"
command -v meson >/dev/null 2>&1 || missing="$missing meson"
command -v g++ >/dev/null 2>&1 || missing="$missing g++"
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing="$missing nginx"
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
/usr/bin/python3 -c 'import pyopencl, numpy' >/dev/null 2>&1 || missing="$missing python3-pyopencl"
/usr/bin/python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing="$missing python3-venv"
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || missing="$missing gcc-mingw-w64-x86-64"
command -v x86_64-w64-mingw32-g++ >/dev/null 2>&1 || missing="$missing g++-mingw-w64-x86-64"
command -v x86_64-w64-mingw32-dlltool >/dev/null 2>&1 || missing="$missing binutils-mingw-w64-x86-64"
[ -f /usr/x86_64-w64-mingw32/include/zlib.h ] || missing="$missing libz-mingw-w64-dev"
command -v wine64 >/dev/null 2>&1 || command -v wine >/dev/null 2>&1 || missing="$missing wine64"

if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "test deps: installing$missing" >&2
        # Debian's nginx starts its own service on port 80 when installed:
        # a policy-rc.d that says no, only while installing.
        guard=""
        if [ ! -e /usr/sbin/policy-rc.d ]; then
            printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
            chmod 755 /usr/sbin/policy-rc.d
            guard=1
        fi
        # shellcheck disable=SC2086
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing; } \
            >/dev/null 2>&1 || echo "test deps: 'apt-get install$missing' failed; the tests that need them skip" >&2
        [ -n "$guard" ] && rm -f /usr/sbin/policy-rc.d
    else
        echo "test deps: not installed:$missing (as root: apt-get install$missing);" \
            "the tests that need them skip" >&2
    fi
fi

# tests/cli/cli_arm64.sh: the cross compiler, qemu-user, and the arm64
# libraries the library links, installed beside the host's (Debian
# multiarch: arm64 is added to dpkg's architectures; a shared library of
# both architectures must be of one version, so apt may update a few of
# the host's to the version the arm64 one has).
arm64="gcc-aarch64-linux-gnu qemu-user ocl-icd-opencl-dev:arm64 zlib1g-dev:arm64 libzstd-dev:arm64 libjansson-dev:arm64"
# shellcheck disable=SC2086
if ! dpkg -s $arm64 >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "test deps: installing $arm64" >&2
        { dpkg --add-architecture arm64 && apt-get update -qq &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $arm64; } \
            >/dev/null 2>&1 || echo "test deps: the arm64 packages could not be installed; tests/cli/cli_arm64.sh skips" >&2
    else
        echo "test deps: not installed: $arm64 (as root: dpkg --add-architecture arm64;" \
            "apt-get update; apt-get install $arm64); tests/cli/cli_arm64.sh skips" >&2
    fi
fi

# PyPI's pyopencl wheel, in a virtual environment of the checkout.
venv=${PYOPENCL_VENV:-$root/.pyopencl-venv}
if ! "$venv/bin/python" -c 'import pyopencl, numpy' >/dev/null 2>&1; then
    { python3 -m venv "$venv" && "$venv/bin/pip" install -q pyopencl numpy; } >/dev/null 2>&1 ||
        echo "test deps: PyOpenCL from PyPI could not be installed in $venv; tests/cli/cli_record_python.sh skips it" >&2
fi

# Kernel Tuner's T4 schema and a validator (the package itself is not run).
if [ -x "$venv/bin/python" ] && ! "$venv/bin/python" -c 'import jsonschema, importlib.util as u; assert u.find_spec("kernel_tuner")' >/dev/null 2>&1; then
    "$venv/bin/pip" install -q jsonschema >/dev/null 2>&1 &&
        "$venv/bin/pip" install -q --no-deps kernel_tuner==1.5.0 >/dev/null 2>&1 ||
        echo "test deps: jsonschema and kernel_tuner could not be installed in $venv; tests/cli/cli_tune_t1.sh does not validate T4" >&2
fi

# zstd's sources for a MinGW zstd (Debian has none): PyPI's zstandard sdist
# bundles them (scripts/windows_zstd.sh builds them).
zsdist=zstandard-0.25.0.tar.gz
if [ ! -f "$build/zstd-src/$zsdist" ]; then
    pip=$venv/bin/pip
    [ -x "$pip" ] || pip="python3 -m pip"
    # shellcheck disable=SC2086
    $pip download -q --no-binary :all: --no-deps -d "$build/zstd-src" zstandard==0.25.0 >/dev/null 2>&1 ||
        echo "test deps: zstandard's sdist (zstd's sources) could not be downloaded into $build/zstd-src; tests/cli/cli_windows_zstd.sh skips" >&2
fi

sh "$root/scripts/public_kernels.sh" "$build/public-kernels" ||
    echo "test deps: the public kernels could not be installed; their tests skip" >&2
exit 0
