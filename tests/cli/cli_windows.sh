#!/bin/sh
# The Windows library (docs/PLATFORMS.md): `make windows` cross-builds it
# with MinGW-w64; its DLL exports exactly the clcpack_* functions of the
# public headers; the public header compiles for an MSVC target as C11 and
# C++; and a Windows program (tests/win/win_loader.c) run under Wine, in a
# fresh prefix, whose opencl.dll forwards to this host's OpenCL (PoCL):
#   - opens a pack by a UTF-8 path under a non-ASCII folder, decodes an
#     entry, writes atomically to a non-ASCII name, refuses a short copy
#     naming it (no driver needed);
#   - loads an entry natively ("native") from a pack clc-pack built here,
#     and checks the kernel's output;
#   - the rebuild cache under two processes at once, then a load from it;
#   - two processes replacing one file at once: nothing torn, nothing lost;
#   - examples/embedded_windows built for Windows with its pack as an RCDATA
#     resource (clc-pack embed --format rc, windres), as a C array, and
#     opening it under a non-ASCII folder: output identical to the Linux
#     build's.
# Without MinGW or Wine (scripts/test_deps.sh installs them) the parts that
# need them are skipped, never passed.
. "$(dirname "$0")/../lib/cli_lib.sh"
. "$(dirname "$0")/../lib/wine_lib.sh"
cd "$ROOT" || exit 1
WB=$BUILD/win

if ! command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 ||
    [ ! -f /usr/x86_64-w64-mingw32/include/zlib.h ]; then
    skip "no MinGW-w64 (gcc-mingw-w64-x86-64, libz-mingw-w64-dev): the Windows library is not built"
    cli_done
fi

run make --no-print-directory -f scripts/windows.mk WB="$WB" windows
expect_rc 0 "make windows"
for f in clcpack.dll libclcpack.dll.a libclcpack.a clcpack.def include/clcpack.h include/clcpack_inspect.h include/clcpack_write.h; do
    [ -f "$WB/$f" ] && ok "make windows makes $f" || bad "make windows made no $f"
done

# The DLL's exports: exactly the functions the public headers declare.
x86_64-w64-mingw32-objdump -p "$WB/clcpack.dll" |
    sed -n '/Ordinal\/Name Pointer/,/^$/s/^.*\] \(clcpack_[a-z0-9_]*\)$/\1/p' | sort >"$TMP/exports"
sed -n 's/^CLCPACK_API[^(]*[ *]\(clcpack_[a-z0-9_]*\)(.*/\1/p' loader/include/clcpack.h loader/include/clcpack_inspect.h loader/include/clcpack_write.h |
    sort >"$TMP/declared"
if [ -s "$TMP/exports" ] && cmp -s "$TMP/exports" "$TMP/declared"; then
    ok "clcpack.dll exports exactly the $(wc -l <"$TMP/declared") functions of the headers"
else
    bad "clcpack.dll's exports differ from the headers' functions: $(diff "$TMP/declared" "$TMP/exports" | grep '^[<>]' | head -5 | tr '\n' ' ')"
fi
x86_64-w64-mingw32-objdump -p "$WB/clcpack.dll" | sed -n 's/^[[:space:]]*DLL Name: //p' | sort -f >"$TMP/imports"
extra=$(grep -v -i -x -E 'kernel32.dll|msvcrt.dll|bcrypt.dll|opencl.dll' "$TMP/imports" | tr '\n' ' ')
[ -z "$extra" ] && ok "clcpack.dll needs OpenCL.dll and system DLLs only" ||
    bad "clcpack.dll needs DLLs a user would have to ship: $extra"

# The public header for an MSVC target, as C11 and C++. No MSVC C runtime
# is here, so freestanding (clang's own stddef.h and stdint.h), with a
# stub CL/cl.h of the handle types the header names: what is checked is
# clcpack.h itself (no GCC-only syntax, extern "C", the DLL's calling
# convention defaults).
if command -v clang >/dev/null 2>&1; then
    mkdir -p "$TMP/msvc/CL"
    printf '%s\n' 'typedef struct _cl_context *cl_context;' 'typedef struct _cl_device_id *cl_device_id;' \
        'typedef struct _cl_program *cl_program;' 'typedef struct _cl_kernel *cl_kernel;' \
        'typedef int cl_int;' 'typedef unsigned int cl_uint;' >"$TMP/msvc/CL/cl.h"
    printf '#include "clcpack.h"\n#include "clcpack_write.h"\nint main(void) { return clcpack_version() == 0; }\n' >"$TMP/msvc.c"
    for lang in "-x c -std=c11" "-x c++ -std=c++17"; do
        run clang --target=x86_64-pc-windows-msvc -ffreestanding -fsyntax-only -Werror $lang \
            -I"$WB/include" -I"$TMP/msvc" "$TMP/msvc.c"
        expect_rc 0 "clcpack.h compiles for x86_64-pc-windows-msvc ($lang)"
    done
else
    skip "no clang: the header is not compiled for an MSVC target"
fi

# The test program, linked with the import library; beside it the DLL.
mkdir -p "$TMP/w/données" "$TMP/w/cache" "$TMP/w/race"
run x86_64-w64-mingw32-gcc -std=c11 -O2 -Wall -Wextra -Werror -DCL_TARGET_OPENCL_VERSION=120 \
    -I"$WB/include" -I"$WB/khronos" -o "$TMP/w/win_loader.exe" tests/win/win_loader.c \
    "$WB/libclcpack.dll.a" "$WB/libOpenCL.dll.a"
expect_rc 0 "a Windows program builds against clcpack.dll's import library"
cp "$WB/clcpack.dll" "$TMP/w/"
# The static library links too, needing only what windows-print-libs says.
run x86_64-w64-mingw32-gcc -std=c11 -O2 -DCL_TARGET_OPENCL_VERSION=120 -I"$WB/include" -I"$WB/khronos" \
    -o "$TMP/w/win_loader_static.exe" tests/win/win_loader.c "$WB/libclcpack.a" "$WB/libOpenCL.dll.a" \
    $(make --no-print-directory -s -f scripts/windows.mk WB="$WB" windows-print-libs) -static
expect_rc 0 "a Windows program links the static libclcpack.a"

if ! wine_start; then
    skip "no Wine (wine64): the Windows program is not run"
    cli_done
fi
wdir="Z:$(echo "$TMP/w" | tr / '\\')"
wine_run() { (cd "$TMP/w" && timeout 300 "$WINE" "$@" >"$OUT" 2>"$ERR"; echo $? >"$TMP/rc"); RC=$(cat "$TMP/rc"); }

# A pack of this host's device, zlib (the Windows build has no zstd).
printf '__kernel void add_k(__global const float *a, __global float *b, int n)\n{\n    int i = get_global_id(0);\n    if (i < n)\n        b[i] = a[i] * SCALE + 1.0f;\n}\n' >"$TMP/add.cl"
run "$CLC" "$TMP/add.cl" -D SCALE=3 --codec zlib -o "$TMP/w/add.clcpack"
expect_rc 0 "clc-pack builds a zlib pack here"
cp "$TMP/w/add.clcpack" "$TMP/w/données/パック.clcpack"

wine_run win_loader.exe files "$wdir"
expect_rc 0 "under Wine: the driver-free checks pass"
expect_out "ok opens the pack by its UTF-8 path" "under Wine: données/パック.clcpack opens by its UTF-8 path"
expect_out "ok a pack cut short is refused, the message naming it" "under Wine: a short pack is refused by name"
grep -q '^FAIL' "$OUT" && bad "under Wine: $(grep '^FAIL' "$OUT" | head -3)"

wine_run win_loader.exe native add.clcpack
device=0
if grep -q 'an OpenCL device through OpenCL.dll' "$OUT"; then
    skip "Wine's opencl.dll finds no OpenCL device here: no native load"
else
    device=1
    expect_rc 0 "under Wine: a native load through Wine's opencl.dll"
    expect_out "path native" "under Wine: the entry clc-pack built here loads natively"
    expect_out "ok the kernel's output matches the CPU" "under Wine: the kernel's output matches the CPU"

    # The rebuild cache (CLCPACK_CACHE_DIR), two processes at once.
    export CLCPACK_CACHE_DIR="$wdir\\cache"
    (cd "$TMP/w" && timeout 300 "$WINE" win_loader.exe cache add.clcpack >"$TMP/c1" 2>&1; echo $? >"$TMP/rc1") &
    wine_run win_loader.exe cache add.clcpack
    wait
    [ "$RC" = 0 ] && [ "$(cat "$TMP/rc1")" = 0 ] && ok "under Wine: two processes rebuild into one cache at once" ||
        bad "under Wine: two processes rebuilding into the cache: $(cat "$TMP/c1" "$OUT" | grep FAIL | head -2)"
    n=$(ls "$TMP/w/cache" | grep -c '\.clcbin$')
    left=$(ls "$TMP/w/cache" | grep -c '\.tmp\.')
    [ "$n" = 1 ] && [ "$left" = 0 ] && ok "under Wine: the cache holds one whole file, no temporary left" ||
        bad "under Wine: the cache holds $n files and $left temporaries"
    wine_run win_loader.exe cache add.clcpack
    expect_out "path cache" "under Wine: the next load comes from the rebuild cache"
    unset CLCPACK_CACHE_DIR
fi

# The example, built for Linux (C array) and for Windows (resource, C
# array, a file under a non-ASCII folder): the same lines from each.
if [ "$device" = 1 ]; then
    E=$TMP/ex
    mkdir -p "$E/linux" "$E/rc" "$E/c" "$TMP/w/ex/données"
    cp examples/embedded_windows/scale.cl "$E/"
    run "$CLC" "$E/scale.cl" -D SCALE=3 --codec zlib -o "$E/scale.clcpack" -q
    expect_rc 0 "the example's pack builds (zlib)"
    "$CLC" embed "$E/scale.clcpack" -o "$E/linux/scale_pack.c" --symbol scale_pack --header "$E/linux/scale_pack.h" -q
    cp "$E/linux/scale_pack.c" "$E/linux/scale_pack.h" "$E/c/"
    run "$CLC" embed "$E/scale.clcpack" -o "$E/rc/scale_pack.rc" --symbol scale_pack --header "$E/rc/scale_pack.h" -q
    expect_rc 0 "clc-pack embed --format rc (zlib pack, for the library without zstd)"
    run cc -std=c11 -O2 -I"$ROOT/loader/include" -I"$E/linux" -o "$E/linux/scale_app" examples/embedded_windows/scale_app.c \
        "$E/linux/scale_pack.c" "$BUILD/libclcpack.a" $(make -s --no-print-directory print-libs)
    expect_rc 0 "the example builds for Linux"
    "$E/linux/scale_app" >"$E/linux.out" 2>&1
    grep -q "program from: native" "$E/linux.out" && ok "the Linux example loads natively" ||
        bad "the Linux example: $(head -2 "$E/linux.out")"
    # (run takes a command, not a function: the flags as words; $WB has no spaces.)
    WCC="x86_64-w64-mingw32-gcc -std=c11 -O2 -Wall -Wextra -Werror -DCL_TARGET_OPENCL_VERSION=120 -I$WB/include -I$WB/khronos"
    WLIBS="$WB/libclcpack.dll.a $WB/libOpenCL.dll.a -lshell32"
    run x86_64-w64-mingw32-windres "$E/rc/scale_pack.rc" -O coff -o "$E/rc/scale_pack_rc.o"
    expect_rc 0 "windres compiles the resource script"
    run $WCC -DSCALE_PACK_RC -I"$E/rc" -o "$TMP/w/scale_rc.exe" examples/embedded_windows/scale_app.c "$E/rc/scale_pack_rc.o" $WLIBS
    expect_rc 0 "the example builds for Windows with the pack as a resource"
    run $WCC -I"$E/c" -o "$TMP/w/scale_c.exe" examples/embedded_windows/scale_app.c "$E/c/scale_pack.c" $WLIBS
    expect_rc 0 "the example builds for Windows with the pack as a C array"
    cp "$E/scale.clcpack" "$TMP/w/ex/données/échelle.clcpack"
    for how in "scale_rc.exe:the resource" "scale_c.exe:the C array" \
        "scale_c.exe ex/données/échelle.clcpack:a pack file under données/"; do
        wine_run ${how%%:*}
        tr -d '\r' <"$OUT" >"$E/wine.out"
        [ "$RC" = 0 ] && cmp -s "$E/linux.out" "$E/wine.out" &&
            ok "under Wine: the example opening ${how#*:} prints what the Linux build prints" ||
            bad "under Wine: the example opening ${how#*:} (rc $RC): $(diff "$E/linux.out" "$E/wine.out" | head -3 | tr '\n' ' ') $(head -2 "$ERR")"
    done
fi

# Two processes replacing one file 150 times each, reading it back whole.
(cd "$TMP/w" && timeout 300 "$WINE" win_loader.exe race "$wdir\\race" 1 150 >"$TMP/r1" 2>&1; echo $? >"$TMP/rc1") &
wine_run win_loader.exe race "$wdir\\race" 2 150
wait
[ "$RC" = 0 ] && [ "$(cat "$TMP/rc1")" = 0 ] && ok "under Wine: atomic replaces by two processes at once, none torn" ||
    bad "under Wine: concurrent atomic replaces: $(cat "$TMP/r1" "$OUT" | grep -v '^ok' | head -3)"
n=$(ls "$TMP/w/race" | grep -c '^own-')
[ "$n" = 300 ] && ok "under Wine: none of the 300 files written meanwhile is lost" ||
    bad "under Wine: $n of 300 files written meanwhile are there"
[ -z "$(ls "$TMP/w/race" | grep '\.tmp\.')" ] && ok "under Wine: no temporary file is left" ||
    bad "under Wine: temporary files left: $(ls "$TMP/w/race" | grep '\.tmp\.' | head -3)"
cli_done
