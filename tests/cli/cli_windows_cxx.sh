#!/bin/sh
# cli_windows_cxx.sh — examples/cxx, the C++17 application, cross-built for
# Windows with MinGW-w64's g++ (`make -C examples/cxx windows`, -std=c++17
# -Wall -Wextra -pedantic -Werror) and run under Wine against this host's
# OpenCL (PoCL, through Wine's opencl.dll), in a fresh prefix:
#   - linked -static-libstdc++ -static-libgcc (the example's default), the
#     .exe needs no MinGW DLL and prints what the Linux build prints;
#   - linked without them, it needs libstdc++-6.dll and libgcc_s_seh-1.dll:
#     missing, it exits 53 printing nothing under WINEDEBUG=-all, and
#     WINEDEBUG=-all,err+module names them (docs/PLATFORMS.md); shipped
#     beside it, it runs;
#   - the posix-threads g++ (x86_64-w64-mingw32-g++-posix), where there, also
#     needs libwinpthread-1.dll, which -static takes in.
# Without MinGW's g++ or Wine (scripts/test_deps.sh installs them) the
# parts that need them are skipped, never passed.
. "$(dirname "$0")/../lib/cli_lib.sh"
. "$(dirname "$0")/../lib/wine_lib.sh"
cd "$ROOT" || exit 1
WB=$BUILD/win
WCXX=x86_64-w64-mingw32-g++
WFLAGS="-O2 -Wall -Wextra -pedantic -Werror"

if ! command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || ! command -v $WCXX >/dev/null 2>&1 ||
    [ ! -f /usr/x86_64-w64-mingw32/include/zlib.h ]; then
    skip "no MinGW-w64 C and C++ compilers (gcc-mingw-w64-x86-64, g++-mingw-w64-x86-64, libz-mingw-w64-dev): the C++ example is not built for Windows"
    cli_done
fi
run make --no-print-directory -f scripts/windows.mk WB="$WB" windows
expect_rc 0 "make windows"

# imports EXE: the DLLs it imports, lowercased, one a line.
imports() { x86_64-w64-mingw32-objdump -p "$1" | sed -n 's/^[[:space:]]*DLL Name: //p' | tr 'A-Z' 'a-z' | sort; }
MINGW_DLLS='libstdc\+\+-6\.dll|libgcc_s_seh-1\.dll|libwinpthread-1\.dll'

E=$TMP/ex
mkdir -p "$E/linux" "$E/w" "$E/dyn"
run make -C examples/cxx O="$E/linux" CLC_PACK="$CLC" CLCPACK_CFLAGS="-I$ROOT/loader/include" \
    CLCPACK_LIBS="$BUILD/libclcpack.a $(make -s --no-print-directory print-libs)" CXXFLAGS="$WFLAGS" all
expect_rc 0 "the example's pack (zlib) and its Linux build"
run make -C examples/cxx O="$E/w" WB="$WB" CXXFLAGS="$WFLAGS" windows
expect_rc 0 "make -C examples/cxx windows: $WCXX -std=c++17 -Wall -Wextra -pedantic -Werror"
grep -q -- '-static-libstdc++ -static-libgcc' "$OUT" && ok "the .exe is linked -static-libstdc++ -static-libgcc" ||
    bad "the example's Windows link line lacks -static-libstdc++ -static-libgcc"
found=$(imports "$E/w/firscan_app.exe" | grep -E -x "$MINGW_DLLS" | tr '\n' ' ')
[ -f "$E/w/firscan_app.exe" ] && [ -z "$found" ] && ok "firscan_app.exe imports no MinGW DLL ($(imports "$E/w/firscan_app.exe" | tr '\n' ' '))" ||
    bad "firscan_app.exe would need MinGW's DLLs shipped: $found"
[ -f "$E/w/clcpack.dll" ] && ok "clcpack.dll is copied beside the .exe" || bad "no clcpack.dll beside the .exe"
cp "$E/linux/firscan.clcpack" "$E/w/"

# The same without the static flags: what the example's build avoids.
run make -C examples/cxx O="$E/dyn" WB="$WB" CXXFLAGS="$WFLAGS" WIN_STATIC= windows
expect_rc 0 "the example links for Windows without -static-libstdc++ -static-libgcc"
found=$(imports "$E/dyn/firscan_app.exe" | grep -E -x 'libstdc\+\+-6\.dll|libgcc_s_seh-1\.dll' | tr '\n' ' ')
[ "$found" = "libgcc_s_seh-1.dll libstdc++-6.dll " ] && ok "without them the .exe imports $found" ||
    bad "without the static flags the .exe imports '$found', not libgcc_s_seh-1.dll and libstdc++-6.dll"
cp "$E/linux/firscan.clcpack" "$E/dyn/"

# The posix-threads flavour of MinGW's g++ needs winpthread too; -static
# takes it in (docs/PLATFORMS.md).
if command -v $WCXX-posix >/dev/null 2>&1; then
    mkdir -p "$E/posix" "$E/posix-static"
    make -s -C examples/cxx O="$E/posix" WB="$WB" WIN_CXX=$WCXX-posix CXXFLAGS="$WFLAGS" "$E/posix/firscan_app.exe" >/dev/null 2>&1
    make -s -C examples/cxx O="$E/posix-static" WB="$WB" WIN_CXX=$WCXX-posix WIN_STATIC=-static CXXFLAGS="$WFLAGS" \
        "$E/posix-static/firscan_app.exe" >/dev/null 2>&1
    imports "$E/posix/firscan_app.exe" 2>/dev/null | grep -q -x 'libwinpthread-1.dll' &&
        ok "g++-posix with -static-libstdc++ -static-libgcc: the .exe still imports libwinpthread-1.dll" ||
        bad "g++-posix with -static-libstdc++ -static-libgcc: no libwinpthread-1.dll import (docs/PLATFORMS.md says there is)"
    [ -f "$E/posix-static/firscan_app.exe" ] && ! imports "$E/posix-static/firscan_app.exe" | grep -q -E -x "$MINGW_DLLS" &&
        ok "g++-posix with -static: the .exe imports no MinGW DLL" ||
        bad "g++-posix with -static: the .exe imports MinGW DLLs or was not built"
else
    skip "no $WCXX-posix: the posix-threads flavour is not checked"
fi

if ! wine_start; then
    skip "no Wine (wine64): the C++ example is not run for Windows"
    cli_done
fi
# wine_run DIR [VAR=VALUE...] EXE ARGS...: in DIR, stdout (CRs dropped) and
# stderr in $OUT and $ERR, the exit status in $RC.
wine_run() {
    d=$1
    shift
    (cd "$d" && env "$@" >"$TMP/wout" 2>"$ERR"; echo $? >"$TMP/rc")
    RC=$(cat "$TMP/rc")
    tr -d '\r' <"$TMP/wout" >"$OUT"
}
"$E/linux/firscan_app" "$E/linux/firscan.clcpack" >"$E/linux.out" 2>&1
grep -q "as the CPU's" "$E/linux.out" && ok "the Linux build runs" || bad "the Linux build: $(head -2 "$E/linux.out")"

wine_run "$E/w" timeout 300 "$WINE" firscan_app.exe firscan.clcpack
if grep -q 'no OpenCL device' "$ERR"; then
    skip "Wine's opencl.dll finds no OpenCL device here: the example is not run"
    cli_done
fi
[ "$RC" = 0 ] && cmp -s "$E/linux.out" "$OUT" &&
    ok "under Wine: the C++ example prints what the Linux build prints (every variant native, as the CPU's)" ||
    bad "under Wine: the C++ example (rc $RC): $(diff "$E/linux.out" "$OUT" | head -3 | tr '\n' ' ') $(head -2 "$ERR")"

wine_run "$E/dyn" timeout 300 "$WINE" firscan_app.exe firscan.clcpack
[ "$RC" = 53 ] && [ ! -s "$OUT" ] && [ ! -s "$ERR" ] &&
    ok "under Wine, WINEDEBUG=-all: without the MinGW DLLs the .exe exits 53, printing nothing" ||
    bad "under Wine, WINEDEBUG=-all, without the MinGW DLLs: exit $RC, $(wc -c <"$OUT") bytes out, $(wc -c <"$ERR") bytes of errors"
wine_run "$E/dyn" WINEDEBUG=-all,err+module timeout 300 "$WINE" firscan_app.exe firscan.clcpack
grep -q 'Library libstdc++-6.dll (which is needed by' "$ERR" && grep -q 'Library libgcc_s_seh-1.dll' "$ERR" &&
    ok "under Wine, WINEDEBUG=-all,err+module names the missing DLLs" ||
    bad "under Wine, WINEDEBUG=-all,err+module does not name libstdc++-6.dll and libgcc_s_seh-1.dll: $(head -3 "$ERR")"
cp "$($WCXX -print-file-name=libstdc++-6.dll)" "$($WCXX -print-file-name=libgcc_s_seh-1.dll)" "$E/dyn/"
wine_run "$E/dyn" timeout 300 "$WINE" firscan_app.exe firscan.clcpack
[ "$RC" = 0 ] && cmp -s "$E/linux.out" "$OUT" &&
    ok "under Wine: with libstdc++-6.dll and libgcc_s_seh-1.dll beside it, the .exe runs as the Linux build" ||
    bad "under Wine, the DLLs shipped beside it (rc $RC): $(diff "$E/linux.out" "$OUT" | head -3 | tr '\n' ' ') $(head -2 "$ERR")"
cli_done
