#!/bin/sh
# A static zstd for the Windows library, so that `make windows
# ZSTD_DIR=PREFIX` reads zstd packs (docs/PLATFORMS.md, "zstd packs"):
# Debian ships no zstd for MinGW. Built with MinGW-w64 from the single-file
# zstd (zstd/zstd.c with zstd.h, zdict.h, zstd_errors.h: common, compress,
# decompress and the dictionary builder in one file) that PyPI's zstandard
# source package bundles, fetched with the ordinary client:
#   pip download --no-binary :all: --no-deps zstandard==0.25.0   (zstd 1.5.7)
# Usage: windows_zstd.sh SDIST PREFIX
# Writes PREFIX/include/{zstd,zdict,zstd_errors}.h and PREFIX/lib/libzstd.a,
# and PREFIX/SOURCE naming the sdist; a PREFIX already built from the same
# sdist is left as it is (the compile takes about 20 s).
set -eu
sdist=${1:?usage: windows_zstd.sh SDIST PREFIX}
prefix=${2:?usage: windows_zstd.sh SDIST PREFIX}
cc=${WIN_CC:-x86_64-w64-mingw32-gcc}
ar=${WIN_AR:-x86_64-w64-mingw32-ar}
[ -f "$sdist" ] || { echo "windows_zstd.sh: no $sdist" >&2; exit 1; }
stamp=$(basename "$sdist")
if [ -f "$prefix/lib/libzstd.a" ] && [ "$(cat "$prefix/SOURCE" 2>/dev/null)" = "$stamp" ]; then
    exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/windows-zstd.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$sdist" -C "$tmp" --wildcards '*/zstd/zstd.c' '*/zstd/*.h' '*/zstd/LICENSE' ||
    { echo "windows_zstd.sh: $sdist holds no zstd/zstd.c and its headers" >&2; exit 1; }
src=$(dirname "$(find "$tmp" -path '*/zstd/zstd.c' | head -n 1)")
# The single file turns multithreading on for every platform; the library
# compresses and decodes on the calling thread (no ZSTD_c_nbWorkers), so
# the thread pool would be dead code: ZSTD_MULTITHREAD off.
sed '/^#define ZSTD_MULTITHREAD$/d' "$src/zstd.c" >"$tmp/zstd.c"
if grep -q '^#define ZSTD_MULTITHREAD' "$tmp/zstd.c"; then
    echo "windows_zstd.sh: $sdist's zstd.c still turns on ZSTD_MULTITHREAD" >&2
    exit 1
fi
"$cc" -O2 -I"$src" -c -o "$tmp/zstd.o" "$tmp/zstd.c"
mkdir -p "$prefix/include" "$prefix/lib"
rm -f "$prefix/lib/libzstd.a" "$prefix/SOURCE"
"$ar" rcs "$prefix/lib/libzstd.a" "$tmp/zstd.o"
cp "$src/zstd.h" "$src/zdict.h" "$src/zstd_errors.h" "$prefix/include/"
cp "$src/LICENSE" "$prefix/LICENSE.zstd"
echo "$stamp" >"$prefix/SOURCE"
