#!/bin/sh
# The Windows library that reads zstd packs (docs/PLATFORMS.md, "zstd
# packs"): Debian has no zstd for MinGW, so zstd's own sources (the
# zstandard sdist scripts/test_deps.sh downloads into BUILD/zstd-src/) are
# cross-built into a static libzstd (scripts/windows_zstd.sh, kept in
# BUILD/win-zstd-prefix so that reruns skip the compile), and the
# documented switch `make windows ZSTD_DIR=<prefix>` builds the library into
# BUILD/win-zstd:
#   - its clcpack-codecs.txt says zlib,zstd, and embed --loader-codecs
#     takes a zstd pack with that list (and refuses it with zlib alone);
#   - zstd is inside the DLL: no zstd DLL to ship, none of its functions
#     exported;
#   - tests/win/win_loader.c under Wine, in a fresh prefix, opens a pack
#     clc-pack made here with its default codec (zstd) and loads its entry
#     natively through Wine's opencl.dll (PoCL), checking the kernel's output.
# Without MinGW, the zstd sources or Wine the parts that need them are
# skipped, never passed.
. "$(dirname "$0")/../lib/cli_lib.sh"
. "$(dirname "$0")/../lib/wine_lib.sh"
cd "$ROOT" || exit 1
WB=$BUILD/win-zstd
ZP=$BUILD/win-zstd-prefix

if ! command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 ||
    [ ! -f /usr/x86_64-w64-mingw32/include/zlib.h ]; then
    skip "no MinGW-w64 (gcc-mingw-w64-x86-64, libz-mingw-w64-dev): the Windows library is not built"
    cli_done
fi
sdist=$(ls "$BUILD"/zstd-src/zstandard-*.tar.gz 2>/dev/null | tail -n 1)
if [ -z "$sdist" ]; then
    skip "no zstd sources in $BUILD/zstd-src (scripts/test_deps.sh downloads zstandard's sdist): no zstd for MinGW"
    cli_done
fi

run sh scripts/windows_zstd.sh "$sdist" "$ZP"
expect_rc 0 "scripts/windows_zstd.sh cross-builds zstd from $(basename "$sdist")"
for f in include/zstd.h include/zdict.h include/zstd_errors.h lib/libzstd.a; do
    [ -f "$ZP/$f" ] || bad "scripts/windows_zstd.sh made no $f"
done

# The switch as a user makes it: a folder built without zstd first (the
# zlib build of tests/cli/cli_windows.sh when there is one), then
# ZSTD_DIR: every object must be compiled again, not relinked as it was.
rm -rf "$WB"
if [ -f "$BUILD/win/clcpack.dll" ]; then
    cp -a "$BUILD/win" "$WB"
else
    make --no-print-directory -f scripts/windows.mk WB="$WB" windows >/dev/null 2>&1
fi
run make --no-print-directory -f scripts/windows.mk WB="$WB" ZSTD_DIR="$ZP" windows
expect_rc 0 "make windows ZSTD_DIR=$ZP (in a folder built without zstd before)"
x86_64-w64-mingw32-nm "$WB/libclcpack.a" 2>/dev/null | grep -q ' U ZSTD_decompressDCtx' &&
    ok "switched to ZSTD_DIR, the objects were compiled again with zstd" ||
    bad "switched to ZSTD_DIR, libclcpack.a's objects still have no zstd (relinked, not recompiled)"
expect_out "reads zlib and zstd packs" "make windows ZSTD_DIR says the library reads zstd packs"
codecs=$(cat "$WB/clcpack-codecs.txt" 2>/dev/null)
[ "$codecs" = "zlib,zstd" ] && ok "clcpack-codecs.txt says zlib,zstd" ||
    bad "clcpack-codecs.txt says '$codecs', wanted zlib,zstd"
x86_64-w64-mingw32-objdump -p "$WB/clcpack.dll" | sed -n 's/^[[:space:]]*DLL Name: //p' >"$TMP/imports"
grep -qi zstd "$TMP/imports" && bad "clcpack.dll needs a zstd DLL: $(grep -i zstd "$TMP/imports")" ||
    ok "zstd is inside clcpack.dll (no zstd DLL to ship)"
x86_64-w64-mingw32-objdump -p "$WB/clcpack.dll" | grep -q '\] ZSTD_\|\] ZDICT_' &&
    bad "clcpack.dll exports zstd's functions" || ok "clcpack.dll exports none of zstd's functions"

# A pack in clc-pack's default codec, which the zlib-only library cannot read.
printf '__kernel void add_k(__global const float *a, __global float *b, int n)\n{\n    int i = get_global_id(0);\n    if (i < n)\n        b[i] = a[i] * SCALE + 1.0f;\n}\n' >"$TMP/add.cl"
mkdir -p "$TMP/w"
run "$CLC" "$TMP/add.cl" -D SCALE=3 -o "$TMP/w/add.clcpack" -q
expect_rc 0 "clc-pack builds a pack here (default codec)"
run "$CLC" embed "$TMP/w/add.clcpack" -o "$TMP/add_pack.c" --format c --loader-codecs zlib -q
expect_rc 1 "the pack is zstd: embed refuses it for a zlib-only loader"
run "$CLC" embed "$TMP/w/add.clcpack" -o "$TMP/add_pack.c" --format c --loader-codecs "$codecs" -q
expect_rc 0 "embed takes it for this build (--loader-codecs \"\$(cat clcpack-codecs.txt)\")"

run x86_64-w64-mingw32-gcc -std=c11 -O2 -Wall -Wextra -Werror -DCL_TARGET_OPENCL_VERSION=120 \
    -I"$WB/include" -I"$WB/khronos" -o "$TMP/w/win_loader.exe" tests/win/win_loader.c \
    "$WB/libclcpack.dll.a" "$WB/libOpenCL.dll.a"
expect_rc 0 "a Windows program builds against this clcpack.dll"
cp "$WB/clcpack.dll" "$TMP/w/"

if ! wine_start; then
    skip "no Wine (wine64): the zstd pack is not opened under Windows"
    cli_done
fi
(cd "$TMP/w" && timeout 300 "$WINE" win_loader.exe native add.clcpack >"$OUT" 2>"$ERR"; echo $? >"$TMP/rc")
RC=$(cat "$TMP/rc")
if grep -q 'an OpenCL device through OpenCL.dll' "$OUT"; then
    skip "Wine's opencl.dll finds no OpenCL device here: no native load of the zstd pack"
else
    expect_rc 0 "under Wine: the zstd pack opens and loads through Wine's opencl.dll"
    expect_out "path native" "under Wine: the zstd pack's entry loads natively"
    expect_out "ok the kernel's output matches the CPU" "under Wine: the kernel's output matches the CPU"
fi
cli_done
