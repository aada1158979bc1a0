#!/bin/sh
# An application built against clcpack.h alone picks and runs the fastest
# variant of a tuned pack of any program's axes. examples/gemm's tiled
# SGEMM is packed in the direct mode with -D TS=8,16 -D WPT=1,2,4 (RTS
# derived, --where, --wg 'TS,RTS') on this machine's CPU device, each
# variant timed by the example's own timing command (--tune-cmd). The
# example app, compiled with only clcpack.h on its include path and linked
# with libclcpack.so.1, asks clcpack_best_variant for the fastest sgemm
# under TS=16, under TS=8 WPT=4 and over every axis: each answer must be
# the smallest median `list --json` shows for those entries, and the chosen
# kernel must compute the product right. Then --tune-cmd's refusals of bad
# output, on a tiny kernel: no timing line, a bad field, a failing command,
# and a timing line after 2 MB of other output (taken, with its value).
. "$(dirname "$0")/../lib/cli_lib.sh"

EX=$ROOT/examples/gemm
CC=${CC:-cc}
if ! "$CLC" --list-devices >/dev/null 2>&1; then
    skip "no OpenCL device: install pocl-opencl-icd (make deps)"
    cli_done
fi

# The timing command needs OpenCL only; the app sees clcpack.h alone.
# CFLAGS and LDFLAGS reach the app (a sanitized build's library needs its
# runtime linked in, scripts/sanitize.sh), not the timing command, which
# clc-pack runs under the driver alone.
mkdir -p "$TMP/inc"
cp "$ROOT/loader/include/clcpack.h" "$TMP/inc/"
run "$CC" -std=c11 -O2 -Wall -Wextra -Werror -o "$TMP/time_sgemm" "$EX/time_sgemm.c" \
    "$EX/gemm_common.c" -lOpenCL -lm
expect_rc 0 "the timing command builds"
# shellcheck disable=SC2086
run "$CC" -std=c11 -O2 -Wall -Wextra -Werror -Werror=implicit-function-declaration \
    ${CFLAGS:-} -I"$TMP/inc" -o "$TMP/gemm_app" "$EX/gemm_app.c" "$EX/gemm_common.c" \
    ${LDFLAGS:-} -L"$BUILD" -lclcpack -lOpenCL -lm -Wl,-rpath,"$BUILD"
expect_rc 0 "the app builds with clcpack.h alone, linked with -lclcpack"
ldd "$TMP/gemm_app" | grep -q "libclcpack.so.1 => $BUILD/libclcpack.so.1" &&
    ok "the app runs with $BUILD/libclcpack.so.1" || bad "ldd: $(ldd "$TMP/gemm_app" | grep clcpack)"

PACK=$TMP/gemm.clcpack
run "$CLC" "$EX/sgemm.cl" -D TS=8,16 -D WPT=1,2,4 --derive 'RTS=TS/WPT' --where 'TS % WPT == 0' \
    --wg 'TS,RTS' --kernel sgemm --device cpu -q \
    --tune-cmd "$TMP/time_sgemm {binary} {defines} {device} 64" -o "$PACK"
expect_rc 0 "a direct-mode GEMM pack, every variant timed by --tune-cmd"

# TS WPT MEDIAN for each entry, from list --json.
run "$CLC" list --json "$PACK"
expect_rc 0 "list --json"
sed -n 's/.*"defines": {"RTS": "[0-9]*", "TS": "\([0-9]*\)", "WPT": "\([0-9]*\)"}.*"timings": \[{"runtime_value": 0, "width": 64, "height": 64, "runs": 11, "median_ns": \([0-9]*\)}\]}.*/\1 \2 \3/p' \
    "$OUT" >"$TMP/timings"
[ "$(wc -l <"$TMP/timings")" -eq 6 ] && ok "list --json: 6 variants, each with one 64x64 timing" ||
    bad "list --json timings: $(cat "$TMP/timings")"

# smallest TS WPT: the smallest median among the entries matching (any for -).
smallest() {
    awk -v ts="$1" -v wpt="$2" '($1 == ts || ts == "-") && ($2 == wpt || wpt == "-") &&
        (best == "" || $3 < best) { best = $3 } END { print best }' "$TMP/timings"
}
count() {
    awk -v ts="$1" -v wpt="$2" '($1 == ts || ts == "-") && ($2 == wpt || wpt == "-")' \
        "$TMP/timings" | wc -l
}

# ask WHAT TS WPT [CONSTRAINT...]: the app's choice is the fastest such entry.
ask() {
    what=$1 ts=$2 wpt=$3
    shift 3
    run "$TMP/gemm_app" "$PACK" "$@"
    expect_rc 0 "$what: the app picks, loads and runs a variant"
    want=$(smallest "$ts" "$wpt")
    n=$(count "$ts" "$wpt")
    got=$(sed -n 's/^choice: .*, measured, median_ns \([0-9]*\), candidates \([0-9]*\)$/\1 \2/p' "$OUT")
    [ -n "$want" ] && [ "$got" = "$want $n" ] &&
        ok "$what: the fastest of $n in list --json ($want ns)" ||
        bad "$what: chose '$got', list --json says '$want $n': $(cat "$OUT")"
    [ "$ts" = - ] || grep -q "^choice: .*TS=$ts[,]" "$OUT" && ok "$what: its defines serve the constraint" ||
        bad "$what: $(head -1 "$OUT")"
    expect_out "loaded: native" "$what: loaded from its binary"
    expect_out "product ok" "$what: the kernel computes the product"
}
ask "TS=16" 16 - TS=16
ask "TS=8 WPT=4" 8 4 TS=8 WPT=4
ask "every axis" - -

run "$TMP/gemm_app" "$PACK" TS=32
expect_rc 1 "a constraint no variant serves"
expect_err "no entry of 'sgemm' serves with TS=32" "says which constraint"

# --tune-cmd's output is untrusted: a tiny kernel, one variant per case.
cat >"$TMP/tiny.cl" <<'EOF'
__kernel void tiny(__global float *x) { x[get_global_id(0)] *= (float)A; }
EOF
cat >"$TMP/timer.sh" <<'EOF'
case $1 in
A=1) echo "nothing to say" ;;
A=2) echo "median_ns=5 runs=0 size=2x2" ;;
A=3) echo "crashed"; exit 3 ;;
A=4) head -c 2000000 /dev/zero | tr '\0' 'y' | fold -w 100; echo; echo "median_ns=777 runs=3 size=5x1 value=9" ;;
esac
EOF
run "$CLC" "$TMP/tiny.cl" -D A=1-4 --device cpu -q -k --tune-cmd "sh $TMP/timer.sh {defines}" \
    -o "$TMP/tiny.clcpack"
expect_rc 1 "three variants fail their timing command (--keep-going writes the fourth)"
expect_err "A=1" "the failures name the variant"
expect_err "the tune command printed no timing line" "no timing line"
expect_err "bad field 'runs=0' in the timing line 'median_ns=5 runs=0 size=2x2'" \
    "a bad field, the line quoted"
expect_err "the tune command exited with status 3" "a failing command"
run "$CLC" list --json "$TMP/tiny.clcpack"
grep -q '"defines": {"A": "4"}.*"timings": \[{"runtime_value": 9, "width": 5, "height": 1, "runs": 3, "median_ns": 777}\]' \
    "$OUT" && ok "a timing line after 2 MB of output is taken, value and all" ||
    bad "the A=4 timing: $(grep '"A"' "$OUT")"
run "$CLC" "$TMP/tiny.cl" -D A=1 --device cpu -q --tune-cmd 'x {nosuch}' -o "$TMP/t2.clcpack"
expect_rc 2 "an unknown placeholder in --tune-cmd is a usage error"
expect_err "--tune-cmd: unknown placeholder '{nosuch}'" "named with the option"
run "$CLC" --widths 5 --kernel Convolve_Def --tune-cmd 'true' -o "$TMP/t3.clcpack"
expect_rc 2 "--tune-cmd without source files"
expect_err "--tune-cmd applies to source files" "says it is for the direct mode"
cli_done
