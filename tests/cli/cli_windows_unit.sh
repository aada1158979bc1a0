#!/bin/sh
# The library's own driver-free C tests (tests/unit/), cross-built with
# MinGW-w64 against the Windows static library (make windows,
# docs/PLATFORMS.md) and run under Wine in a fresh prefix, each test one
# check here, passed when it exits 0 with its closing line saying
# "0 failed" and something passed.
#
# TESTS are those of tests/cli/cli_arm64.sh's list whose subject is the
# library and that build for Windows through tests/common/portable.h; a
# part that needs fork or resource limits skips itself there (counted
# skipped). Not in the list: the tool's own parsers (clc/ is Linux only),
# test_file_atomic (its races fork; cli_windows.sh replaces files from two
# Wine processes instead), test_hardening and test_verify_mutants (fork
# per case, minutes). The Windows library has no zstd, so a test's zstd
# parts are skipped as in a Linux build with ZSTD=0.
#
# Paths: each test runs from the checkout's root (tests/fuzz/, kernels/),
# and its /tmp folders are Wine's Z:\tmp, this host's /tmp. Without MinGW
# or Wine every test is skipped, never passed.
. "$(dirname "$0")/../lib/cli_lib.sh"
. "$(dirname "$0")/../lib/wine_lib.sh"
cd "$ROOT" || exit 1
WB=$BUILD/win
TESTS="crc32 format lookup independent_reader read_on_demand best_variant key_subset
fast_load fuzz_replay"
# tests/common helpers these tests link (the others need fork or the tool).
COMMON="check fuzz_replay hostile_pack lookup_table pack_edit portable synth_pack test_file test_rng"

skip_all() {
    for t in $TESTS; do skip "Windows test_$t: $1"; done
    cli_done
}
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 && [ -f /usr/x86_64-w64-mingw32/include/zlib.h ] ||
    skip_all "no MinGW-w64 (gcc-mingw-w64-x86-64, libz-mingw-w64-dev)"

run make --no-print-directory -f scripts/windows.mk WB="$WB" windows
expect_rc 0 "make windows"
[ "$RC" -eq 0 ] || skip_all "the Windows library did not build"

WCC="x86_64-w64-mingw32-gcc -std=c11 -O2 -Wall -Wextra -DCL_TARGET_OPENCL_VERSION=120
 -D__USE_MINGW_ANSI_STDIO=1 -Iloader/include -Iloader/read -Iloader/load -Iloader/write -Iloader/common
 -I$WB/khronos -Itests/common -Itests"
[ "${WERROR:-}" = 1 ] && WCC="$WCC -Werror"
mkdir -p "$TMP/obj" "$TMP/exe"
for c in $COMMON; do
    $WCC -c -o "$TMP/obj/$c.o" "tests/common/$c.c" 2>>"$TMP/build.log" ||
        bad "tests/common/$c.c does not build for Windows: $(grep -m1 error "$TMP/build.log")"
done
x86_64-w64-mingw32-ar rcs "$TMP/libtestcommon.a" "$TMP"/obj/*.o
LIBS="$TMP/libtestcommon.a $WB/libclcpack.a $WB/libOpenCL.dll.a
 $(make --no-print-directory -s -f scripts/windows.mk WB="$WB" windows-print-libs) -static"
built=""
for t in $TESTS; do
    if $WCC -o "$TMP/exe/test_$t.exe" "tests/unit/test_$t.c" $LIBS 2>"$TMP/cc.log"; then
        built="$built $t"
    else
        bad "test_$t does not build for Windows: $(grep -m1 -E 'error|undefined' "$TMP/cc.log")"
    fi
done

if ! wine_start; then
    for t in $built; do skip "Windows test_$t: no Wine (wine64) to run it"; done
    cli_done
fi
# Wine's own failures (a half-made prefix, a server going away) are
# prevented in wine_start (tests/lib/wine_lib.sh), not retried here: a run
# that ends without its closing line fails, its output's end shown.
for t in $built; do
    log=$TMP/test_$t.log
    timeout 600 "$WINE" "$TMP/exe/test_$t.exe" >"$log" 2>&1
    rc=$?
    line=$(tr -d '\r' <"$log" | grep -E '^checks: ' | tail -n 1)
    if [ "$rc" = 0 ] && echo "$line" | grep -q ' 0 failed' && ! echo "$line" | grep -q '^checks: 0 passed'; then
        ok "Windows test_$t under Wine: $line"
    else
        bad "Windows test_$t under Wine (exit $rc): ${line:-no summary line}"
        tr -d '\r' <"$log" | grep -E '^FAIL' | head -n 10 | sed 's/^/    /'
        [ -n "$line" ] || tr -d '\r' <"$log" | tail -n 8 | sed 's/^/    /'
    fi
done
cli_done
