#!/bin/sh
# clc-pack warm (docs/CACHE.md, "Warm-up") on the stub driver's Intel and
# AMD devices (tests/stubs/gpu_driver/README.md), which a pack built on PoCL has no
# binary for: usage errors; every key built into the cache, each device
# handed the stored source and options; a second run builds nothing; a
# driver update (another driver version) builds again; an interrupt
# (SIGINT, SIGTERM) stops after the build under way with complete files
# only, and the next run finishes; a driver crash costs one key; the exit
# statuses a post-install script meets (no device: 0; an unreadable pack,
# an unwritable folder, a --device that matches nothing: 1); the folder
# --cache-dir makes is readable by every user. The PoCL side (the
# application's first start from the cache) is tests/device/test_warm_pocl.c.
. "$(dirname "$0")/../lib/cli_lib.sh"
. "$(dirname "$0")/../lib/stub_lib.sh"
cd "$TMP" || exit 1

# Its --help and usage errors are golden cases (tests/cli/golden/help/warm,
# usage/warm_*).
run "$CLC" warm missing.clcpack
expect_rc 1 "a pack that cannot be read"
expect_err "missing.clcpack" "names it"
printf 'not a pack at all, just some text long enough for a header check\n' >junk.clcpack
run "$CLC" warm junk.clcpack
expect_rc 1 "a file that is not a pack"

# A pack built on PoCL: 3 programs' keys (W=1,2,3) of two kernels.
cat >k.cl <<'EOF'
__kernel void twice(__global float *x) { x[get_global_id(0)] *= 2.0f * W; }
__kernel void plus(__global float *x) { x[get_global_id(0)] += W; }
EOF
run "$CLC" k.cl -D W=1,2,3 -q -o k.clcpack
expect_rc 0 "a pack built on PoCL"
run "$CLC" extract k.clcpack --entry 0 --source -o src.cl
expect_rc 0 "its source extracted"

if ! stub_use "intel:tgllp,amd:gfx1030"; then
    bad "the stub driver is not built ($STUB_LIB)"
    cli_done
fi
run "$CLC" warm k.clcpack --cache-dir "$TMP/cache"
expect_rc 0 "warm on the stub's two devices"
expect_out "warm: cache folder $TMP/cache" "names the folder"
expect_out "device 0: Intel(R) Iris(R) Xe Graphics: 3 keys: 3 built" "every key built on Intel"
expect_out "device 1: gfx1030: 3 keys: 3 built" "and on AMD"
expect_out "warm: 6 keys on 2 devices: 6 built, 0 already warm, 0 native, 0 ptx, 0 failed" "the total"
n=$(ls cache/*.clcbin 2>/dev/null | wc -l)
[ "$n" -eq 6 ] && ok "six cache files" || bad "$n cache files, wanted 6"
for dev in intel:tgllp amd:gfx1030; do
    n=$(stub_count source "$dev" "$(stub_sha src.cl)" CL_SUCCESS)
    [ "$n" -eq 3 ] && ok "$dev: handed the stored source for each key" || bad "$dev: the source $n times"
    n=$(stub_count binary "$dev")
    [ "$n" -eq 0 ] && ok "$dev: no binary handed while building" || bad "$dev: $n binaries handed"
done
grep -F ' call=build ' "$STUB_LOG" | grep -qF 'options="-DW=2"' && ok "built with the stored options" ||
    bad "no build with -DW=2"
mode=$(stat -c %a cache)
[ "$mode" = 755 ] && ok "the folder --cache-dir made is readable by every user (755)" ||
    bad "the folder's mode is $mode"
mode=$(stat -c %a "$(ls cache/*.clcbin | head -n 1)")
[ "$mode" = 644 ] || [ "$mode" = 664 ] && ok "its files are readable by every user ($mode)" ||
    bad "a file's mode is $mode"

: >"$STUB_LOG"
run "$CLC" warm k.clcpack --cache-dir "$TMP/cache"
expect_rc 0 "a second run"
expect_out "warm: 6 keys on 2 devices: 0 built, 6 already warm" "builds nothing"
n=$(stub_count source -)
[ "$n" -eq 0 ] && ok "hands no source" || bad "handed the source $n times"
n=$(stub_count binary - - CL_SUCCESS)
[ "$n" -eq 6 ] && ok "loads each key's cached binary" || bad "$n binaries loaded, wanted 6"
run "$CLC" warm k.clcpack --cache-dir "$TMP/cache" -q
expect_rc 0 "-q"
[ -s "$OUT" ] && bad "-q printed: $(head -c 200 "$OUT")" || ok "-q prints nothing"
run "$CLC" warm k.clcpack --cache-dir "$TMP/cache" -v --device gpu
expect_out "entry 0 k W=1 wg=-: already warm" "-v: a line per key"

# CLCPACK_CACHE_DIR alone names the folder (the application's setting).
CLCPACK_CACHE_DIR=$TMP/cache run "$CLC" warm k.clcpack --device 1
expect_rc 0 "CLCPACK_CACHE_DIR"
expect_out "warm: cache folder $TMP/cache" "is the folder"
expect_out "3 already warm" "and already warm"

# A driver update: the cache key holds the driver version.
CLCSTUB_INTEL_DRIVER_VERSION=23.17.26241.21 run "$CLC" warm k.clcpack --cache-dir "$TMP/cache"
expect_rc 0 "after an Intel driver update"
expect_out "device 0: Intel(R) Iris(R) Xe Graphics: 3 keys: 3 built" "Intel's keys built again"
expect_out "device 1: gfx1030: 3 keys: 3 already warm" "AMD's still warm"
CLCSTUB_INTEL_DRIVER_VERSION=23.17.26241.21 run "$CLC" warm k.clcpack --cache-dir "$TMP/cache"
expect_out "warm: 6 keys on 2 devices: 0 built, 6 already warm" "then warm for the new driver too"

# A driver that crashes building: that key fails, the others go on.
CLCSTUB_CRASH_BUILD=amd run "$CLC" warm k.clcpack --cache-dir "$TMP/crash"
expect_rc 1 "a crashing driver fails the run"
expect_err "the driver crashed (signal 6" "names the crash"
expect_out "device 0: Intel(R) Iris(R) Xe Graphics: 3 keys: 3 built" "the other device's keys built"
expect_out "device 1: gfx1030: 3 keys: 3 failed" "each crashed key failed"
# A build that fails: named with its device and key.
CLCSTUB_FAIL_BUILD=-DW=2 run "$CLC" warm k.clcpack --cache-dir "$TMP/fail" --device 0
expect_rc 1 "a key whose source does not build"
expect_err "device 0 (Intel(R) Iris(R) Xe Graphics): entry 1 k W=2 wg=-" "names the device and key"
expect_out "2 built, 1 failed" "the others built"

# Interrupted: the build under way completes, no further key starts.
stub_use "intel:tgllp"
for sig in INT TERM; do
    rm -rf "int-$sig"
    CLCSTUB_BUILD_DELAY_MS=700 "$CLC" warm k.clcpack --cache-dir "$TMP/int-$sig" >"int.out" 2>"int.err" &
    pid=$!
    sleep 1
    kill -"$sig" "$pid"
    wait "$pid"
    rc=$?
    want=130
    [ "$sig" = TERM ] && want=143
    [ "$rc" -eq "$want" ] && ok "SIG$sig: exit $want" || { bad "SIG$sig: exit $rc, wanted $want"; cat int.out int.err; }
    grep -qF "interrupted (SIG$sig)" int.err && ok "SIG$sig: says it was interrupted" || bad "SIG$sig: $(cat int.err)"
    grep -qF "run clc-pack warm again" int.err && ok "SIG$sig: says how to finish" || bad "SIG$sig: no hint"
    built=$(sed -n 's/.* \([0-9]*\) built.*/\1/p' int.out | head -n 1)
    n=$(ls "int-$sig"/*.clcbin 2>/dev/null | wc -l)
    tmp=$(ls "int-$sig" | grep -c '\.tmp\.')
    if [ -n "$built" ] && [ "$built" -ge 1 ] && [ "$built" -lt 3 ] && [ "$n" -eq "$built" ] && [ "$tmp" -eq 0 ]; then
        ok "SIG$sig: $built of 3 built, each a whole file, no temporary file left"
    else
        bad "SIG$sig: built '$built', $n files, $tmp temporary files: $(cat int.out)"
    fi
    run "$CLC" warm k.clcpack --cache-dir "$TMP/int-$sig"
    expect_rc 0 "SIG$sig: the next run"
    expect_out "$built already warm" "SIG$sig: resumes: what was built is warm"
    expect_out "$((3 - built)) built" "SIG$sig: and the rest is built"
done

# Exit statuses a post-install script meets.
mkdir -p empty-vendors
OCL_ICD_VENDORS=$TMP/empty-vendors run "$CLC" warm k.clcpack --cache-dir "$TMP/none"
expect_rc 0 "no OpenCL device at all: not a failure"
expect_err "nothing to warm: this machine has no OpenCL device" "says so"
OCL_ICD_VENDORS=$TMP/empty-vendors run "$CLC" warm missing.clcpack
expect_rc 1 "no device, but an unreadable pack: a failure"
run "$CLC" warm k.clcpack --device 7
expect_rc 1 "a --device that matches nothing"
expect_err "--device 7" "names it"
run "$CLC" warm k.clcpack --platform Nowhere
expect_rc 1 "a --platform that matches nothing"
# A cache folder that cannot be written: as root every folder is writable,
# so that is tried as nobody where setpriv can switch to it.
mkdir -p ro && chmod 555 ro
as_user=""
if [ "$(id -u)" -eq 0 ]; then
    mkdir -p nobody-home && chmod 777 nobody-home && chmod 755 "$TMP" && chmod 644 k.clcpack
    if command -v setpriv >/dev/null 2>&1 &&
        setpriv --reuid=65534 --regid=65534 --clear-groups "$CLC" --version >/dev/null 2>&1; then
        as_user="setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=$TMP/nobody-home XDG_CACHE_HOME=$TMP/nobody-home"
    fi
fi
if [ "$(id -u)" -ne 0 ] || [ -n "$as_user" ]; then
    # shellcheck disable=SC2086
    run $as_user "$CLC" warm "$TMP/k.clcpack" --cache-dir "$TMP/ro"
    expect_rc 1 "a folder that cannot be written${as_user:+ (as nobody)}"
    expect_err "cannot write the cache folder" "says so"
else
    skip "running as root without setpriv (or nobody cannot run $CLC): a read-only folder cannot be tried"
fi
chmod 755 ro
: >file
run "$CLC" warm k.clcpack --cache-dir "$TMP/file"
expect_rc 1 "a --cache-dir that is a file"
expect_err "$TMP/file" "names it"
run "$CLC" warm k.clcpack --cache-dir "$TMP/file/sub"
expect_rc 1 "a --cache-dir that cannot be made"
expect_err "cannot create the cache folder '$TMP/file/sub'" "says which"
(unset CLCPACK_CACHE_DIR XDG_CACHE_HOME HOME; "$CLC" warm k.clcpack >"$OUT" 2>"$ERR")
RC=$?
expect_rc 1 "no folder at all (no CLCPACK_CACHE_DIR, XDG_CACHE_HOME, HOME)"
expect_err "--cache-dir DIR names one" "says how to name one"
cli_done
