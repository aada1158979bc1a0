#!/bin/sh
# A machine with more devices than clc-pack takes (DEVICE_SELECT_MAX_DEVICES,
# 64): --list-devices lists the first 64 and says how many it left out, and
# a --device past them says so in its error. PoCL makes the devices: one
# pthread device for each word of POCL_DEVICES.
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$TMP" || exit 1

MANY=$(i=0; while [ $i -lt 66 ]; do printf 'pthread '; i=$((i + 1)); done)
POCL_DEVICES=$MANY run "$CLC" --list-devices
if [ "$RC" -ne 0 ] || ! grep -q "device 63: .*PoCL" "$OUT"; then
    skip "66 PoCL devices could not be made here (POCL_DEVICES): exit $RC"
else
    expect_out "device 63: " "the first 64 devices are listed"
    if grep -q "device 64: " "$OUT"; then bad "a 65th device is listed"; else ok "no 65th device is listed"; fi
    # 2 past the bound here; more where other drivers list devices too.
    expect_out " more devices not listed: clc-pack takes the first 64 of a machine's (DEVICE_SELECT_MAX_DEVICES))" \
        "--list-devices says how many devices it left out"
    grep -q "^([0-9]* more devices not listed" "$OUT" && ok "the count comes first" || bad "the count comes first"
    POCL_DEVICES=$MANY run "$CLC" --kernels "$KERNELS" --device 65 -o x.clcpack
    expect_rc 1 "--device 65 fails, as any device number that is not there"
    expect_err " more devices not listed: clc-pack takes the first 64" \
        "its error says the list was cut"
    [ -e x.clcpack ] && bad "a pack was written" || ok "nothing was written"
    POCL_DEVICES="pthread pthread" run "$CLC" --list-devices
    if grep -q "not listed" "$OUT"; then bad "a list under the bound says it was cut"; else ok "a list under the bound says nothing of it"; fi
fi
cli_done
