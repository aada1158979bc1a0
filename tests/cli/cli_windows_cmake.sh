#!/bin/sh
# The CMake package in a MinGW cross build (docs/PLATFORMS.md, "CMake,
# cross-compiling with MinGW"): make windows-install into a prefix, then a
# tiny project configured with the documented toolchain file that
#   - find_package(clcpack 1.0) finds the Windows installation,
#   - links clcpack::clcpack (clcpack.dll through its import library), and
#   - embeds a pack with clcpack_add_pack(... EMBED), clc-pack being this
#     host's (CLCPACK_CLC_PACK: the Windows installation has no tool);
# and the .exe, beside clcpack.dll, run under Wine, opens its embedded
# pack and reads an entry back. Without cmake, MinGW or Wine the parts
# that need them are skipped, never passed.
. "$(dirname "$0")/../lib/cli_lib.sh"
. "$(dirname "$0")/../lib/wine_lib.sh"
cd "$ROOT" || exit 1
WB=$BUILD/win

command -v cmake >/dev/null 2>&1 || { skip "no cmake: the CMake package is not cross-built"; cli_done; }
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 && [ -f /usr/x86_64-w64-mingw32/include/zlib.h ] ||
    { skip "no MinGW-w64 (gcc-mingw-w64-x86-64, libz-mingw-w64-dev): no cross build"; cli_done; }

P=$TMP/prefix
run make --no-print-directory -f scripts/windows.mk WB="$WB" PREFIX="$P" windows-install
expect_rc 0 "make windows-install PREFIX=..."
[ -f "$P/lib/cmake/clcpack/clcpackConfig.cmake" ] && [ -f "$P/bin/clcpack.dll" ] &&
    ok "the installation holds the CMake package and clcpack.dll" ||
    bad "windows-install made no lib/cmake/clcpack/clcpackConfig.cmake or bin/clcpack.dll"
[ -f "$P/include/CL/cl.h" ] && [ -f "$P/lib/libOpenCL.dll.a" ] &&
    ok "and OpenCL for the cross build: the Khronos headers in include/CL/, the import library" ||
    bad "windows-install installed no include/CL/cl.h or lib/libOpenCL.dll.a"
grep -q 'set(CLCPACK_LOADER_CODECS "zlib")' "$P/lib/cmake/clcpack/clcpackConfig.cmake" &&
    [ "$(cat "$P/lib/clcpack-codecs.txt" 2>/dev/null)" = zlib ] &&
    ok "the package says the DLL reads zlib packs (CLCPACK_LOADER_CODECS, lib/clcpack-codecs.txt)" ||
    bad "the package does not say which codecs the DLL reads"

# The toolchain file, as docs/PLATFORMS.md gives it (taken from there, so
# the test and the page cannot drift apart).
sed -n '/^# mingw-w64.cmake:/,/^```/p' docs/PLATFORMS.md | grep -v '^```' >"$TMP/mingw-w64.cmake"
grep -q CMAKE_SYSTEM_NAME "$TMP/mingw-w64.cmake" && ok "the toolchain file is in docs/PLATFORMS.md" ||
    bad "no toolchain file found in docs/PLATFORMS.md"

S=$TMP/src
mkdir -p "$S"
printf '__kernel void twice(__global float *a)\n{\n    a[get_global_id(0)] *= 2.0f;\n}\n' >"$S/twice.cl"
cat >"$S/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.13)
project(winapp C)
find_package(clcpack 1.0 REQUIRED)
add_executable(app app.c)
target_link_libraries(app PRIVATE clcpack::clcpack)
# The Windows library reads zlib packs only (no ZSTD_DIR).
clcpack_add_pack(twice SOURCES twice.cl OPTIONS --codec zlib TARGET app EMBED)
EOF
cat >"$S/app.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include "clcpack.h"
#include "twice.h"
int main(void)
{
    clcpack *p = NULL;
    clcpack_error err;
    if (clcpack_open_memory(twice, twice_size, &p, &err) != CLCPACK_OK) {
        printf("open: %s\n", err.message);
        return 1;
    }
    clcpack_entry_info e = {.struct_size = sizeof e};
    clcpack_get_entry(p, 0, &e);
    void *buf = malloc((size_t)e.raw_size);
    size_t got = 0;
    clcpack_status st = clcpack_read_binary(p, 0, buf, (size_t)e.raw_size, &got, &err);
    printf("entries %zu, kernel %s, read %s\n", clcpack_entry_count(p), e.kernel,
           st == CLCPACK_OK && got == e.raw_size ? "ok" : err.message);
    free(buf);
    clcpack_close(p);
    return st == CLCPACK_OK ? 0 : 1;
}
EOF
# OpenCL for the cross build: the Khronos headers and OpenCL.dll's import
# library windows-install put in the prefix (Debian's MinGW has neither),
# as docs/PLATFORMS.md's configure line names them.
configure() {
    run cmake -S "$1" -B "$2" -DCMAKE_TOOLCHAIN_FILE="$TMP/mingw-w64.cmake" \
        -DCMAKE_PREFIX_PATH="$P" -DCMAKE_FIND_ROOT_PATH="/usr/x86_64-w64-mingw32;$P" \
        -DOpenCL_INCLUDE_DIR="$P/include" -DOpenCL_LIBRARY="$P/lib/libOpenCL.dll.a" \
        -DCLCPACK_CLC_PACK="$CLC"
}
configure "$S" "$TMP/b"
expect_rc 0 "cmake configures the project with the MinGW toolchain file and find_package(clcpack 1.0)"
[ "$RC" = 0 ] || { cat "$OUT" "$ERR" | tail -5; cli_done; }
run cmake --build "$TMP/b"
expect_rc 0 "the project builds: clcpack::clcpack linked, the pack embedded by the host's clc-pack"
[ "$RC" = 0 ] || { tail -5 "$OUT"; cli_done; }
case "$(od -An -c -N2 "$TMP/b/app.exe" 2>/dev/null | tr -d ' ')" in
    MZ) ok "app.exe is a Windows executable" ;;
    *) bad "app.exe is not a Windows executable" ;;
esac
x86_64-w64-mingw32-objdump -p "$TMP/b/app.exe" | grep -qi 'DLL Name: clcpack.dll' &&
    ok "app.exe imports clcpack.dll (clcpack::clcpack is the DLL)" || bad "app.exe does not import clcpack.dll"

# The same project with the pack in clc-pack's default codec (zstd): the
# zlib-only DLL could not read it, so the build fails, naming the fix,
# instead of the application's first start.
cp -r "$S" "$TMP/src_zstd"
sed -i 's/ OPTIONS --codec zlib//' "$TMP/src_zstd/CMakeLists.txt"
configure "$TMP/src_zstd" "$TMP/b_zstd"
expect_rc 0 "a project embedding a zstd pack configures"
run cmake --build "$TMP/b_zstd"
[ "$RC" != 0 ] && ok "its build fails: EMBED refuses a pack the installed DLL cannot read" ||
    bad "a zstd pack was embedded for a zlib-only DLL"
grep -q -- "--codec zlib" "$OUT" "$ERR" && ok "the build's message names --codec zlib" ||
    bad "the failed build does not name --codec zlib: $(cat "$OUT" "$ERR" | grep -i clc-pack | head -3)"

wine_start || { skip "no Wine (wine64): app.exe is not run"; cli_done; }
cp "$P/bin/clcpack.dll" "$TMP/b/"
(cd "$TMP/b" && timeout 300 "$WINE" app.exe >"$OUT" 2>"$ERR"; echo $? >"$TMP/rc")
RC=$(cat "$TMP/rc")
expect_rc 0 "under Wine: the CMake-built app.exe runs"
expect_out "kernel twice, read ok" "under Wine: it opens its embedded pack and reads an entry"
cli_done
