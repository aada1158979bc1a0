#!/bin/sh
# cli_cxx_example.sh — examples/cxx, the C++17 application: its Makefile
# packs two programs (a FIR filter, a two-kernel prefix scan) from its
# manifest's program blocks, the application builds with -std=c++17 -Wall
# -Wextra -pedantic -Werror (so clcpack.h must be clean C++, its
# struct_size structs initialised the C++ way), loads every variant from
# its native binary and matches the CPU on each. CFLAGS and LDFLAGS from
# the environment (a sanitizer's, under make test-sanitize) are added.
# tests/cli/cli_windows_cxx.sh cross-builds the same application for
# Windows and runs it under Wine.
. "$(dirname "$0")/../lib/cli_lib.sh"

CXX=${CXX:-$(command -v g++ || command -v c++ || true)}
if [ -z "$CXX" ]; then
    skip "no C++ compiler (g++): the C++ example is not built"
    cli_done
fi
EX=$TMP/example
mkdir -p "$EX"
run make -C "$ROOT/examples/cxx" O="$EX" CXX="$CXX" CLC_PACK="$CLC" CLCPACK_CFLAGS="-I$ROOT/loader/include" \
    CLCPACK_LIBS="$BUILD/libclcpack.a $(make -s --no-print-directory -C "$ROOT" print-libs)" \
    CXXFLAGS="-O2 -Wall -Wextra -pedantic -Werror ${CFLAGS:-}" LDFLAGS="${LDFLAGS:-}" all
expect_rc 0 "the C++ example packs and builds with -std=c++17 -Wall -Wextra -pedantic -Werror"
grep -q -- '-std=c++17' "$OUT" && ok "the example is compiled as C++17" ||
    bad "the example's compile line has no -std=c++17: $(grep firscan_app.cpp "$OUT" | head -1)"

run "$EX/firscan_app" "$EX/firscan.clcpack"
expect_rc 0 "firscan_app: every variant matches the CPU"
for v in "fir TAPS=8" "fir TAPS=16" "scan GROUP=64" "scan GROUP=128"; do
    expect_out "$v: program from native" "$v: the program came from its native binary"
done
[ "$(grep -c "as the CPU's" "$OUT")" = 4 ] && ok "the four results are the CPU's" ||
    bad "not four results as the CPU's: $(cat "$OUT")"

run "$EX/firscan_app"
expect_rc 2 "firscan_app without a pack: a usage error"
expect_err "usage: firscan_app PACK" "the usage says what it takes"
run "$EX/firscan_app" "$EX/none.clcpack"
expect_rc 1 "firscan_app with no such pack"
expect_err "none.clcpack" "the error, thrown and caught in main, names the pack"
cli_done
