# cli_lib.sh — shared functions of the clc-pack command-line tests (tests/cli/cli_*.sh).
# A test runs as `sh tests/cli/cli_X.sh BUILD_DIR` and sources it first:
#   . "$(dirname "$0")/../lib/cli_lib.sh"
# which takes the build folder holding clc-pack from $1 (default build).
# Each check counts; `skip WHY` counts a part that cannot run here (a tool or
# data missing) and prints "skipped: WHY"; cli_done prints
# "checks: P passed, F failed, S skipped" and exits non-zero when a check
# failed.

# The source tree: the folder above the one holding tests/lib/, found from
# the test's own folder (tests/cli/, or tests/ for a test not yet moved).
ROOT=$(cd "$(dirname "$0")" && while [ ! -f tests/lib/cli_lib.sh ] && [ "$PWD" != / ]; do cd ..; done && pwd)
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
CLC=$BUILD/clc-pack
KERNELS=$ROOT/kernels
PASS=0
FAIL=0
SKIP=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/clc-cli.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# The variant cache (docs/CACHE.md) is off in every test, as the builds
# the tests count expect, and its folder is the test's own: a test run by
# hand touches no user's cache either. cli_local_cache.sh turns it on.
export CLC_PACK_NO_CACHE=1 CLC_PACK_CACHE_DIR="$TMP/variant-cache"
unset CLCPACK_NO_CACHE CLC_PACK_CACHE_LOAD # the tests that turn the cache on say how
OUT=$TMP/stdout
ERR=$TMP/stderr

ok() {
    PASS=$((PASS + 1))
    [ -n "${CHECK_VERBOSE:-}" ] && echo "ok: $1"
    return 0
}

bad() {
    FAIL=$((FAIL + 1))
    echo "FAIL: $1"
    if [ -s "$ERR" ]; then
        echo "  stderr:"
        sed 's/^/    /' "$ERR" | head -n 30
    fi
    return 1
}

# run CMD...: runs it with stdout and stderr captured in $OUT and $ERR, the
# exit status in $RC. A run that takes over 5 minutes is killed.
run() {
    timeout 300 "$@" >"$OUT" 2>"$ERR"
    RC=$?
}

# expect_rc N WHAT: the last run exited with N.
expect_rc() {
    if [ "$RC" -eq "$1" ]; then ok "$2 (exit $1)"; else bad "$2: exit $RC, wanted $1"; fi
}

# expect_err TEXT WHAT: stderr of the last run contains TEXT (fixed string).
expect_err() {
    if grep -qF -- "$1" "$ERR"; then ok "$2"; else bad "$2: stderr lacks '$1'"; fi
}

# expect_out TEXT WHAT: stdout of the last run contains TEXT.
expect_out() {
    if grep -qF -- "$1" "$OUT"; then ok "$2"; else bad "$2: stdout lacks '$1'"; sed 's/^/    /' "$OUT" | head -n 20; fi
}

# expect_no_out TEXT WHAT: stdout of the last run does not contain TEXT.
expect_no_out() {
    if grep -qF -- "$1" "$OUT"; then bad "$2: stdout has '$1'"; else ok "$2"; fi
}

# expect_true WHAT CMD...: CMD succeeds.
expect_true() {
    what=$1
    shift
    if "$@"; then ok "$what"; else bad "$what"; fi
}

# skip WHY: one part of the test could not run here; counted apart, never
# as a pass.
skip() {
    SKIP=$((SKIP + 1))
    echo "skipped: $*"
}

# cmake_stage: for a test of the CMake package, cmake and an installation
# staged under $TMP/stage (make install PREFIX=/opt/clcpack DESTDIR=...),
# its prefix in $P; without cmake the test ends here, skipped.
cmake_stage() {
    if ! command -v cmake >/dev/null 2>&1; then
        skip "cmake is not installed (.ci/run installs it)"
        cli_done
    fi
    STAGE=$TMP/stage
    run make -C "$ROOT" B="$BUILD" install PREFIX=/opt/clcpack DESTDIR="$STAGE"
    expect_rc 0 "make install PREFIX=/opt/clcpack DESTDIR=..."
    P=$STAGE/opt/clcpack
}

cli_done() {
    echo "checks: $PASS passed, $FAIL failed, $SKIP skipped"
    [ "$FAIL" -eq 0 ]
    exit $?
}

if [ ! -x "$CLC" ]; then
    echo "FAIL: $CLC is not built"
    echo "checks: 0 passed, 1 failed"
    exit 1
fi
