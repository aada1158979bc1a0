#!/bin/sh
# clc-pack's command line without building anything, where the golden
# cases (tests/cli/golden/: help/, usage/, device/) cannot say it: what
# --help claims about the pack format, and the device listing and the
# no-GPU error, which depend on this machine's devices.
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$TMP" || exit 1

# --help's claims about the pack format: zstd packs are format 5
# (docs/FORMAT.md), which libclcpack 1.0 and newer read.
"$CLC" --help | tr -s ' \n' '  ' >"$TMP/help1"
grep -qF "pack format 5," "$TMP/help1" && ok "--help: zstd packs are format 5" ||
    bad "--help does not say zstd packs are format 5"
grep -qF "read by libclcpack 1.0 or newer built with zstd" "$TMP/help1" &&
    ok "--help names the libclcpack that reads them" || bad "--help: stale reader version"

# Devices.
run "$CLC" --list-devices
expect_rc 0 "--list-devices"
expect_out "platform 0:" "--list-devices lists platforms"
expect_out "device 0:" "--list-devices lists devices"
expect_out "(default)" "--list-devices marks the default device"
if grep -q "\[GPU\]" "$OUT"; then
    echo "note: this machine has a GPU; the no-GPU error is not checked"
else
    run "$CLC" --kernels "$KERNELS" --device gpu -o "$TMP/gpu.clcpack"
    expect_rc 1 "--device gpu without a GPU"
    expect_err "no GPU device" "the error says there is no GPU"
    expect_err "found: [0]" "the error lists what was found"
    [ ! -e "$TMP/gpu.clcpack" ] && ok "nothing written for a missing device" || bad "a file was written"
fi

cli_done
