#!/bin/sh
# clc-pack in other projects' builds, against a staged installation
# (make install DESTDIR=...): a CMake project (examples/cmake:
# find_package(clcpack), clcpack_add_pack ... EMBED), with the Makefile and
# (when installed) the Ninja generator, and a plain make project
# (examples/Makefile INSTALLED=1, clc-pack -MD). In each: the app runs from
# its embedded pack; a second build does nothing; touching a header a kernel
# includes rebuilds the pack and nothing else (its bytes do not change);
# changing the header's text rebuilds the pack and relinks the app.
# PoCL builds of 2 kernels x 2 widths.
. "$(dirname "$0")/../lib/cli_lib.sh"

STAGE=$TMP/stage
run make -C "$ROOT" B="$BUILD" install PREFIX=/opt/clcpack DESTDIR="$STAGE"
expect_rc 0 "make install PREFIX=/opt/clcpack DESTDIR=..."
P=$STAGE/opt/clcpack
for f in lib/cmake/clcpack/clcpackConfig.cmake lib/cmake/clcpack/clcpackConfigVersion.cmake \
    lib/cmake/clcpack/clcpackPack.cmake; do
    [ -f "$P/$f" ] && ok "installed $f" || bad "missing $P/$f"
done

# The kernels are copied: the test touches and edits a header.
cp -r "$KERNELS" "$TMP/kernels"
IMG=$TMP/in.pgm
LC_ALL=C awk 'BEGIN { printf "P5\n21 17\n255\n"; srand(3);
    for (i = 0; i < 21 * 17; i++) printf "%c", int(rand() * 250) }' >"$IMG"

# newer FILE MARK: FILE was written after MARK was.
newer() { [ -n "$(find "$1" -newer "$2")" ]; }

# check_rebuilds NAME PACK APP EMBEDDED BUILD-CMD...: the no-op, touch and
# edit rounds over a project already built once.
check_rebuilds() {
    name=$1 pack=$2 app=$3 embedded=$4
    shift 4
    run "$app" --width 5 "$IMG" "$TMP/out.pgm"
    expect_rc 0 "$name: the app filters an image"
    expect_out "program: binary" "$name: its program came from the embedded pack"
    for f in "$pack" "$pack.d" "$embedded" "$app"; do
        [ -f "$f" ] && ok "$name: $(basename "$f") built" || bad "$name: $f missing"
    done
    grep -q "kernels/border.h" "$pack.d" && grep -q "kernels/reda_global.cl" "$pack.d" &&
        grep -q "kernels/manifest.txt" "$pack.d" && ok "$name: the depfile lists the included header" ||
        bad "$name: depfile: $(cat "$pack.d")"

    sleep 1
    touch "$TMP/mark"
    sleep 1
    run "$@"
    expect_rc 0 "$name: second build"
    ! newer "$pack" "$TMP/mark" && ! newer "$app" "$TMP/mark" && ! newer "$embedded" "$TMP/mark" &&
        ok "$name: a second build rebuilds nothing" || bad "$name: the no-op build rebuilt: $(cat "$OUT")"

    touch "$TMP/kernels/border.h"
    run "$@"
    expect_rc 0 "$name: build after touching border.h"
    newer "$pack" "$TMP/mark" && ok "$name: touching an included header rebuilds the pack" ||
        bad "$name: the pack was not rebuilt: $(cat "$OUT")"
    ! newer "$app" "$TMP/mark" && ! newer "$embedded" "$TMP/mark" &&
        ok "$name: ... and nothing else (same bytes, nothing relinked)" ||
        bad "$name: more than the pack was rebuilt: $(cat "$OUT")"

    sleep 1
    touch "$TMP/mark"
    sleep 1
    echo "/* edited */" >>"$TMP/kernels/border.h"
    run "$@"
    expect_rc 0 "$name: build after editing border.h"
    newer "$pack" "$TMP/mark" && newer "$embedded" "$TMP/mark" && newer "$app" "$TMP/mark" &&
        ok "$name: editing it rebuilds the pack and relinks the app" ||
        bad "$name: after an edit: $(cat "$OUT")"
    run "$app" --width 5 "$IMG" "$TMP/out2.pgm"
    cmp -s "$TMP/out.pgm" "$TMP/out2.pgm" && ok "$name: same pixels after the rebuild" ||
        bad "$name: the pixels changed"
    cp "$KERNELS/border.h" "$TMP/kernels/border.h"
}

if command -v cmake >/dev/null 2>&1; then
    gens="Unix Makefiles"
    command -v ninja >/dev/null 2>&1 && gens="$gens
Ninja"
    echo "$gens" | while IFS= read -r gen; do
        B=$TMP/cmake-$(echo "$gen" | tr -dc 'A-Za-z')
        run cmake -S "$ROOT/examples/cmake" -B "$B" -G "$gen" -DCMAKE_PREFIX_PATH="$P" \
            -DCLCPACK_KERNELS_DIR="$TMP/kernels" -DCLCPACK_DEVICE=cpu
        expect_rc 0 "cmake ($gen): find_package(clcpack) in the staged install"
        run cmake --build "$B"
        expect_rc 0 "cmake ($gen): the project builds"
        check_rebuilds "cmake ($gen)" "$B/filter_pack.clcpack" "$B/filter_app" \
            "$B/filter_pack_embed/filter_pack.S" cmake --build "$B"
        echo "$PASS $FAIL" >"$TMP/counts"
    done
    # The loop ran in a subshell (a pipe): carry its counts over.
    read -r PASS FAIL <"$TMP/counts"
    # find_package(clcpack 9.0) must refuse this 1.x installation.
    mkdir -p "$TMP/v9"
    printf 'cmake_minimum_required(VERSION 3.13)\nproject(v C)\nfind_package(clcpack 9.0 REQUIRED)\n' \
        >"$TMP/v9/CMakeLists.txt"
    run cmake -S "$TMP/v9" -B "$TMP/v9/b" -DCMAKE_PREFIX_PATH="$P"
    [ "$RC" -ne 0 ] && grep -q "1.3.0" "$ERR" && ok "find_package(clcpack 9.0) refuses version 1.3.0" ||
        bad "find_package(clcpack 9.0): exit $RC"
    sed -i 's/clcpack 9.0/clcpack 0.1/' "$TMP/v9/CMakeLists.txt"
    run cmake -S "$TMP/v9" -B "$TMP/v01/b" -DCMAKE_PREFIX_PATH="$P"
    [ "$RC" -ne 0 ] && grep -q "1.3.0" "$ERR" && ok "find_package(clcpack 0.1) refuses version 1.3.0 (major 0 is a version)" ||
        bad "find_package(clcpack 0.1) accepted 1.3.0"

    # The load-only library through the package: clcpack::clcpack_load,
    # shared, and static with CLCPACK_USE_STATIC.
    mkdir -p "$TMP/lo"
    printf '#include <stdio.h>\n#include <clcpack.h>\nint main(void) { printf("%%u\\n", clcpack_version()); return 0; }\n' \
        >"$TMP/lo/lo.c"
    printf 'cmake_minimum_required(VERSION 3.13)\nproject(lo C)\nfind_package(clcpack 1.3 REQUIRED)\nadd_executable(lo lo.c)\ntarget_link_libraries(lo clcpack::clcpack_load)\n' \
        >"$TMP/lo/CMakeLists.txt"
    for mode in OFF ON; do
        run cmake -S "$TMP/lo" -B "$TMP/lo/b$mode" -DCMAKE_PREFIX_PATH="$P" -DCLCPACK_USE_STATIC=$mode
        expect_rc 0 "a project linking clcpack::clcpack_load configures (CLCPACK_USE_STATIC=$mode)"
        run cmake --build "$TMP/lo/b$mode"
        expect_rc 0 "and builds"
        run env LD_LIBRARY_PATH="$P/lib" "$TMP/lo/b$mode/lo"
        expect_out "10300" "and runs"
        if [ $mode = OFF ]; then
            readelf -d "$TMP/lo/b$mode/lo" | grep -q 'NEEDED.*libclcpack_load.so.1' &&
                ok "clcpack::clcpack_load is libclcpack_load.so.1" || bad "NEEDED: $(readelf -d "$TMP/lo/b$mode/lo" | grep NEEDED)"
        else
            readelf -d "$TMP/lo/b$mode/lo" | grep -q 'NEEDED.*libclcpack' &&
                bad "the static clcpack::clcpack_load needs a libclcpack" || ok "the static clcpack::clcpack_load needs no libclcpack*.so"
        fi
    done

    # Your own .cl files, no manifest: the project of docs/CMAKE.md, "Your
    # own kernels", its files taken from the page's doctest blocks.
    D=$TMP/doc
    mkdir -p "$D/scale"
    awk -v D="$D" '
        /^<!-- doctest: file / { f = $4; want = 1; next }
        want && /^```/ { want = 0; body = 1; out = D "/" f; printf "" >out; next }
        body && /^```/ { body = 0; close(out); next }
        body { print >out }' "$ROOT/docs/CMAKE.md"
    for f in CMakeLists.txt scale.cl op.h app.c; do
        [ -s "$D/scale/$f" ] && ok "docs/CMAKE.md gives scale/$f" || bad "docs/CMAKE.md lacks scale/$f"
    done
    [ ! -e "$D/scale/manifest.txt" ] && ok "the project has no manifest" || bad "a manifest is there"
    B=$D/scale/build
    run cmake -S "$D/scale" -B "$B" -DCMAKE_PREFIX_PATH="$P"
    expect_rc 0 "cmake: clcpack_add_pack(SOURCES scale.cl DEFINES ... WORK_GROUPS ...) configures"
    run cmake --build "$B"
    expect_rc 0 "cmake: the .cl project builds"
    run "$B/scale_app"
    expect_rc 0 "scale_app runs its kernel from the embedded pack"
    expect_out "64 values times 3, program from native" "scale_app's program came from a binary"
    run env LD_LIBRARY_PATH="$P/lib" "$CLC" list "$B/scale_pack.clcpack"
    expect_out "8 entries" "the pack holds 2 T x 2 FACTOR x 2 work-groups"
    grep -q "scale/op.h" "$B/scale_pack.clcpack.d" && grep -q "scale/scale.cl" "$B/scale_pack.clcpack.d" &&
        ok "the depfile lists the source and the header it includes" ||
        bad "depfile: $(cat "$B/scale_pack.clcpack.d")"
    sleep 1
    touch "$TMP/mark"
    sleep 1
    run cmake --build "$B"
    ! newer "$B/scale_pack.clcpack" "$TMP/mark" && ok "cmake (.cl): a second build rebuilds nothing" ||
        bad "cmake (.cl): the no-op build rebuilt the pack"
    echo "/* edited */" >>"$D/scale/op.h"
    run cmake --build "$B"
    newer "$B/scale_pack.clcpack" "$TMP/mark" && ok "cmake (.cl): editing the included header rebuilds the pack" ||
        bad "cmake (.cl): the pack was not rebuilt after op.h changed: $(cat "$OUT")"
    # A direct-form keyword with a kernels folder is a configure error.
    mkdir -p "$D/mixed"
    printf 'cmake_minimum_required(VERSION 3.13)\nproject(m C)\nfind_package(clcpack 1.0 REQUIRED)\nclcpack_add_pack(p KERNELS_DIR %s WHERE "K>1")\n' \
        "$TMP/kernels" >"$D/mixed/CMakeLists.txt"
    run cmake -S "$D/mixed" -B "$D/mixed/b" -DCMAKE_PREFIX_PATH="$P"
    [ "$RC" -ne 0 ] && grep -q "WHERE applies to .cl files" "$ERR" &&
        ok "WHERE with KERNELS_DIR is refused, naming the keyword" || bad "WHERE with KERNELS_DIR: exit $RC"
else
    skip "cmake is not installed: the CMake project (.ci/run installs it)"
fi

# A plain make project: examples/Makefile against the installed tool.
EX=$TMP/mk
mkdir -p "$EX"
export PKG_CONFIG_PATH="$P/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$STAGE"
export LD_LIBRARY_PATH="$P/lib"
MK="make -C $ROOT/examples INSTALLED=1 O=$EX CLC_PACK=$P/bin/clc-pack KERNELS=$TMP/kernels"
run $MK PACK_ARGS="--kernels $TMP/kernels --device cpu --kernel Convolve_Def --kernel reda_float4 --widths 3,5"
expect_rc 0 "make: the example builds against the installed clc-pack"
check_rebuilds "make" "$EX/filter.clcpack" "$EX/filter_app" "$EX/filter_pack.S" \
    $MK PACK_ARGS="--kernels $TMP/kernels --device cpu --kernel Convolve_Def --kernel reda_float4 --widths 3,5"

# In-tree: examples/Makefile against this checkout's build folder.
EX2=$TMP/intree
mkdir -p "$EX2"
run make -C "$ROOT/examples" O="$EX2" TOP_B="$BUILD" \
    PACK_ARGS="--kernels $KERNELS --device cpu --kernel Convolve_Def --widths 5"
expect_rc 0 "make: the example builds in-tree against $BUILD"
run "$EX2/filter_app" --width 5 "$IMG" "$TMP/out3.pgm"
expect_out "program: binary" "in-tree app runs from its embedded pack"
cli_done
