#!/bin/sh
# cli_multi_kernel_example.sh — examples/multi_kernel: its Makefile packs a
# two-kernel program with an #include'd header in one direct command line,
# and stats_app loads it by either kernel name and computes the right sum
# from a binary. CFLAGS and LDFLAGS from the environment (a sanitizer's,
# under make test-sanitize) are added to the example's.
. "$(dirname "$0")/../lib/cli_lib.sh"

EX=$TMP/example
mkdir -p "$EX"
run make -C "$ROOT/examples/multi_kernel" O="$EX" CLC_PACK="$CLC" CLCPACK_CFLAGS="-I$ROOT/loader/include" \
    CLCPACK_LIBS="$BUILD/libclcpack.a $(make -s --no-print-directory -C "$ROOT" print-libs)" CFLAGS="-O2 -Wall -Wextra -Werror ${CFLAGS:-}" \
    LDFLAGS="${LDFLAGS:-}" all
expect_rc 0 "the example packs and builds"
for g in 64 128; do
    run "$EX/stats_app" "$EX/stats.clcpack" "$g"
    expect_rc 0 "stats_app GROUP=$g"
    expect_out "program GROUP=$g: from a binary (native)" "GROUP=$g: the program came from its native binary"
    expect_out ": ok" "GROUP=$g: the sum matches the CPU's"
done
run "$EX/stats_app" "$EX/stats.clcpack" 32
expect_rc 1 "stats_app GROUP=32: no such variant in the pack"
expect_err "GROUP=32" "GROUP=32: the error names the define set"
cli_done
