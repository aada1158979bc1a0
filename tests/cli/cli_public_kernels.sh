#!/bin/sh
# cli_public_kernels.sh — packs the kernels of four public projects with one
# direct clc-pack command line each (tests/cli/public_kernels.sh; each checks its
# variants as it builds them through --check-cmd), then runs
# test_public_kernels on the packs: every variant created from its pack must
# compute the same bytes as the same program built from source. Last, the
# test must fail on a pack that is not the project's.
#
# The kernels come from scripts/public_kernels.sh (CLC_PUBLIC_KERNELS,
# default BUILD/public-kernels); without them the test says so and skips.
# While clc-pack has no direct mode, only the source half runs.
. "$(dirname "$0")/../lib/cli_lib.sh"

K=${CLC_PUBLIC_KERNELS:-$BUILD/public-kernels}
D=$ROOT/tests/data/public
TEST=$BUILD/tests/test_public_kernels
. "$ROOT/tests/cli/public_kernels.sh"

# c_test ARGS...: runs test_public_kernels; its checks count as this test's.
c_test() {
    CLC_PUBLIC_KERNELS=$K CLC_PUBLIC_DATA=$D run "$TEST" "$@"
    sed "s/^/  /" "$OUT"
    line=$(grep -E '^checks: [0-9]+ passed, [0-9]+ failed' "$OUT" | tail -n 1)
    p=$(echo "$line" | sed -E 's/^checks: ([0-9]+) passed.*/\1/')
    f=$(echo "$line" | sed -E 's/^checks: [0-9]+ passed, ([0-9]+) failed.*/\1/')
    s=$(echo "$line" | sed -nE 's/.*, ([0-9]+) skipped.*/\1/p')
    PASS=$((PASS + ${p:-0}))
    FAIL=$((FAIL + ${f:-0}))
    SKIP=$((SKIP + ${s:-0}))
    if [ -z "$line" ] || { [ "$RC" -ne 0 ] && [ "${f:-0}" -eq 0 ]; }; then
        bad "test_public_kernels $*: exit $RC without a failed check"
    fi
}

if [ ! -x "$TEST" ]; then
    bad "$TEST is not built"
    cli_done
fi
if [ ! -f "$K/VERSIONS" ]; then
    skip "the public projects' kernels are not installed in $K" \
        "(sh scripts/public_kernels.sh $K installs them)"
    cli_done
fi
K=$(cd "$K" && pwd)

# Is there a direct mode? A one-line kernel with one define.
printf '__kernel void probe(__global int *a) { a[0] = X; }\n' >"$TMP/probe.cl"
run "$CLC" "$TMP/probe.cl" -D X=1 -q -o "$TMP/probe.clcpack"
if [ "$RC" -ne 0 ] || [ ! -s "$TMP/probe.clcpack" ]; then
    echo "note: clc-pack has no direct mode yet (clc-pack FILE.cl -D X=1 -o x.clcpack:" \
        "exit $RC); the packs are not built, the source half runs alone"
    c_test
    cli_done
fi

# The packs, one command line each.
args=""
for p in $PUBLIC_PROJECTS; do
    "pack_$p" "$TMP/$p.clcpack" >"$OUT" 2>"$ERR"
    RC=$?
    expect_rc 0 "$p: packed with its command line"
    if [ "$RC" -eq 0 ]; then
        run "$CLC" verify "$TMP/$p.clcpack"
        expect_rc 0 "$p: clc-pack verify"
        args="$args $p=$TMP/$p.clcpack"
    fi
done

# Every variant from its pack against the same program from source.
# shellcheck disable=SC2086
[ -n "$args" ] && c_test $args

# The comparison can fail: silx's variants looked up in pyFAI's pack find
# no entry, and test_public_kernels must say so.
if [ -s "$TMP/pyfai.clcpack" ]; then
    CLC_PUBLIC_KERNELS=$K CLC_PUBLIC_DATA=$D run "$TEST" "silx=$TMP/pyfai.clcpack"
    if [ "$RC" -ne 0 ] && grep -q 'failed' "$OUT" && ! grep -q '^checks: [0-9]* passed, 0 failed' "$OUT"; then
        ok "test_public_kernels fails on the wrong pack"
    else
        bad "test_public_kernels passed silx's variants against pyFAI's pack"
    fi
fi

cli_done
