#!/bin/sh
# clc-pack record / run (docs/RECORD.md) on an unmodified OpenCL program that
# nobody on this project wrote (tests/data/record/handsonopencl, see its
# ORIGIN), built here from its own sources: recorded, then replayed with
# clc-pack run and with CLCPACK_PACK + LD_PRELOAD, also after its folder
# moved; its output stays byte-identical to a run without the interposer,
# and CLCPACK_LOG shows the program served. Then what must pass through
# untouched, each with its reason logged (naming the pack once, and what
# differs from the nearest recorded entry: the source's line, the options'
# words) and the same output: a changed source byte, other build options,
# a device not in the pack, a damaged pack (clc-pack run still starts the
# application, --strict refuses). A
# header from an -I folder counts by content: the folder may move, a
# changed header passes through. Recording twice and merging gives one
# pack. What would fail after the application ran fails before it starts
# (-o, --keep-captures, a missing program: 127/126 for run), and a program
# without OpenCL is said to make no OpenCL call. PoCL.
. "$(dirname "$0")/../lib/cli_lib.sh"

PRELOAD=$BUILD/libclcpack-preload.so
SRC=$ROOT/tests/data/record/handsonopencl
[ -f "$PRELOAD" ] && ok "interposer built" || bad "missing $PRELOAD"

# build DIR [SED-EXPR]: the sample into DIR/vadd_abc, its source edited by
# SED-EXPR when given (for the pass-through cases).
build() {
    mkdir -p "$1"
    cp "$SRC"/*.c "$1"/
    [ -n "${2:-}" ] && sed -i "$2" "$1/vadd_abc.c"
    cc -w -O1 -DCL_TARGET_OPENCL_VERSION=120 -o "$1/vadd_abc" "$1/vadd_abc.c" "$1/device_info.c" "$1/err_code.c" -lOpenCL
}
build "$TMP/app" && ok "the sample builds from its sources" || bad "building the sample"

# Without the interposer: the reference output.
run "$TMP/app/vadd_abc"
expect_rc 0 "the sample runs"
cp "$OUT" "$TMP/plain.out"
expect_out "1024 out of 1024 results were correct" "the sample's own check passes"

run "$CLC" record --log -o "$TMP/app.clcpack" -- "$TMP/app/vadd_abc"
expect_rc 0 "record"
cmp -s "$OUT" "$TMP/plain.out" && ok "record: output unchanged" || bad "record changed the output"
expect_err "recorded 1 program build (1 distinct program)" "record: summary"
expect_err "clcpack: program" "record: CLCPACK_LOG line"
run "$CLC" list "$TMP/app.clcpack"
expect_out "1 device, 1 source, 1 entry" "the pack holds one entry"
expect_out "rec:" "the entry has a content key"
run "$CLC" verify --load "$TMP/app.clcpack"
expect_rc 0 "verify --load: the recorded program loads, its kernels in it"
expect_out "loaded 1 of 1" "verify --load: one entry loaded"

# Replay after moving the application's folder.
mv "$TMP/app" "$TMP/moved"
run "$CLC" run --log "$TMP/app.clcpack" -- "$TMP/moved/vadd_abc"
expect_rc 0 "run"
cmp -s "$OUT" "$TMP/plain.out" && ok "run: byte-identical output" || bad "run changed the output"
expect_err "served from the pack" "run: the program was served"
if grep -q "passed through" "$ERR"; then bad "run: a program passed through"; else ok "run: nothing passed through"; fi
[ "$(grep -c '^clcpack: ' "$ERR")" -eq 1 ] && ok "one log line per program" || bad "log lines"

POCL_KERNEL_CACHE=0 CLCPACK_LOG=1 CLCPACK_PACK="$TMP/app.clcpack" LD_PRELOAD="$PRELOAD" \
    run "$TMP/moved/vadd_abc"
expect_rc 0 "CLCPACK_PACK + LD_PRELOAD"
cmp -s "$OUT" "$TMP/plain.out" && ok "LD_PRELOAD: byte-identical output" ||
    bad "LD_PRELOAD changed the output"
expect_err "served from the pack" "LD_PRELOAD: served, with a cold driver cache"

# Without CLCPACK_LOG the interposer prints nothing.
CLCPACK_PACK="$TMP/app.clcpack" LD_PRELOAD="$PRELOAD" run "$TMP/moved/vadd_abc"
[ ! -s "$ERR" ] && ok "silent without CLCPACK_LOG" || bad "printed without CLCPACK_LOG"

# passes NAME TEXT REF [PACK]: the last run passed through, with the reason
# TEXT, and its output equals REF, that of the same program run without the
# interposer. The reason names the pack (PACK, default app.clcpack) once.
passes() {
    expect_rc 0 "$1: runs"
    expect_err "passed through ($2" "$1: passed through, reason logged"
    cmp -s "$OUT" "$3" && ok "$1: output unchanged" || bad "$1: output changed"
    named=$(grep "passed through" "$ERR" | head -n 1 | grep -oF "${4:-$TMP/app.clcpack}" | wc -l)
    [ "$named" -eq 1 ] && ok "$1: the reason names the pack once" ||
        bad "$1: the reason names the pack $named times"
}

# A changed source byte (the same sum, another order).
build "$TMP/edited" 's/a\[i\] + b\[i\] + c\[i\];  /c[i] + b[i] + a[i];  /'
grep -q 'c\[i\] + b\[i\] + a\[i\]' "$TMP/edited/vadd_abc.c" && ok "source edited" || bad "sed"
"$TMP/edited/vadd_abc" >"$TMP/edited.out" 2>/dev/null
run "$CLC" run --log "$TMP/app.clcpack" -- "$TMP/edited/vadd_abc"
passes "changed source" "$TMP/app.clcpack has no entry for this build; the nearest is entry 0 (kernels vadd): the source differs from the recorded one in line 11)" "$TMP/edited.out"

# Other build options.
build "$TMP/opts" 's/clBuildProgram(program, 0, NULL, NULL,/clBuildProgram(program, 0, NULL, "-cl-mad-enable",/'
grep -q 'cl-mad-enable' "$TMP/opts/vadd_abc.c" && ok "options edited" || bad "sed"
"$TMP/opts/vadd_abc" >"$TMP/opts.out" 2>/dev/null
run "$CLC" run --log "$TMP/app.clcpack" -- "$TMP/opts/vadd_abc"
passes "other options" "$TMP/app.clcpack has no entry for this build; the nearest is entry 0 (kernels vadd): the options differ: (none) recorded, -cl-mad-enable here)" "$TMP/opts.out"

# A device not in the pack: PoCL's "basic" device instead of "pthread".
POCL_DEVICES=basic "$TMP/moved/vadd_abc" >"$TMP/basic.out" 2>/dev/null
POCL_DEVICES=basic run "$CLC" run --log "$TMP/app.clcpack" -- "$TMP/moved/vadd_abc"
passes "another device" "$TMP/app.clcpack has no binary for device" "$TMP/basic.out"
expect_err "device name differs" "another device: the difference is named"

# A damaged pack: one byte of the stored binary flipped (the index still
# checks out, the entry's CRC-32 does not), then a truncated one.
python3 - "$TMP/app.clcpack" "$TMP/damaged.clcpack" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
index_offset = int.from_bytes(d[24:32], 'little')
d[index_offset - 200] ^= 0x55
open(sys.argv[2], 'wb').write(d)
PY
CLCPACK_LOG=1 CLCPACK_PACK="$TMP/damaged.clcpack" LD_PRELOAD="$PRELOAD" run "$TMP/moved/vadd_abc"
passes "damaged entry" "$TMP/damaged.clcpack: entry 0 (" "$TMP/plain.out" "$TMP/damaged.clcpack"
if grep -q "entry 0: entry 0" "$ERR"; then bad "damaged entry: the reason repeats itself"
else ok "damaged entry: the reason said once"; fi
# A damaged lookup table (format 5): the first item of the key list flipped.
# The replay names the damage, not "no entry"; plain verify refuses the pack.
python3 - "$TMP/app.clcpack" "$TMP/badlist.clcpack" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
lookup = int.from_bytes(d[64:72], 'little')
if d[8] >= 5 and lookup:
    d[int.from_bytes(d[lookup + 64:lookup + 72], 'little')] ^= 1
open(sys.argv[2], 'wb').write(d)
PY
if [ "$(od -An -tu1 -j8 -N1 "$TMP/app.clcpack" | tr -d ' ')" -ge 5 ]; then
    CLCPACK_LOG=1 CLCPACK_PACK="$TMP/badlist.clcpack" LD_PRELOAD="$PRELOAD" run "$TMP/moved/vadd_abc"
    passes "damaged lookup table" "$TMP/badlist.clcpack: lookup key bucket" "$TMP/plain.out" "$TMP/badlist.clcpack"
    run "$CLC" verify "$TMP/badlist.clcpack"
    expect_rc 1 "verify refuses a pack whose key list is damaged"
    expect_out "the index is damaged" "verify: the damage is said"
else
    skip "damaged lookup table: the pack has no lookup table (a zlib build)"
fi
head -c 1000 "$TMP/app.clcpack" >"$TMP/short.clcpack"
CLCPACK_LOG=1 CLCPACK_PACK="$TMP/short.clcpack" LD_PRELOAD="$PRELOAD" run "$TMP/moved/vadd_abc"
passes "truncated pack" "cannot open the pack: $TMP/short.clcpack: pack is truncated" "$TMP/plain.out" "$TMP/short.clcpack"
# clc-pack run with a pack that does not open still starts the application,
# every build passed to the driver, the reason said; --strict refuses.
run "$CLC" run --log "$TMP/short.clcpack" -- "$TMP/moved/vadd_abc"
passes "clc-pack run, truncated pack" "cannot open the pack: $TMP/short.clcpack" "$TMP/plain.out" "$TMP/short.clcpack"
expect_err "pack is truncated" "clc-pack run: the reason is said"
expect_err "every program build passed to the driver" "clc-pack run: says what happens"
run "$CLC" run "$TMP/nowhere.clcpack" -- "$TMP/moved/vadd_abc"
expect_rc 0 "clc-pack run, a missing pack: the application runs"
cmp -s "$OUT" "$TMP/plain.out" && ok "a missing pack: output unchanged" || bad "a missing pack: output changed"
run "$CLC" run --strict "$TMP/short.clcpack" -- "$TMP/moved/vadd_abc"
expect_rc 1 "clc-pack run --strict refuses a pack that does not open"
[ ! -s "$OUT" ] && ok "--strict: the application did not run" || bad "--strict ran the application"

# Headers from -I folders: part of the key by content, not by path.
mkdir -p "$TMP/inc1/app/inc"
cc -O1 -DCL_TARGET_OPENCL_VERSION=120 -o "$TMP/include_app" \
    "$ROOT/tests/data/record/include_app.c" -lOpenCL
printf '#include "value.h"\n__kernel void fill(__global int *y) { y[get_global_id(0)] = VALUE * (int)get_global_id(0) + BIAS; }\n' \
    >"$TMP/inc1/app/fill.cl"
printf '#define VALUE 3\n' >"$TMP/inc1/app/inc/value.h"
run "$CLC" record -o "$TMP/inc.clcpack" -- "$TMP/include_app" "$TMP/inc1/app/fill.cl" \
    "-I $TMP/inc1/app/inc -DBIAS=1"
expect_rc 0 "record a program with a header from -I"
expect_out "1 4 7 10 13 16 19 22" "its output"
mv "$TMP/inc1" "$TMP/inc2"
run "$CLC" run --log "$TMP/inc.clcpack" -- "$TMP/include_app" "$TMP/inc2/app/fill.cl" \
    "-I$TMP/inc2/app/inc -DBIAS=1"
expect_err "served from the pack" "-I folder moved (and spelled -IDIR): served"
expect_out "1 4 7 10 13 16 19 22" "-I folder moved: same output"
printf '#define VALUE 5\n' >"$TMP/inc2/app/inc/value.h"
run "$CLC" run --log "$TMP/inc.clcpack" -- "$TMP/include_app" "$TMP/inc2/app/fill.cl" \
    "-I $TMP/inc2/app/inc -DBIAS=1"
expect_err "passed through ($TMP/inc.clcpack has no entry for this build; the nearest is entry 0 (kernels fill): its source and options are this build's, so a header from its -I folders differs" "a changed header: passed through, the header named as the difference"
expect_out "1 6 11 16 21 26 31 36" "a changed header: the new header's result"

# Recording twice gives the same entry: merge keeps one.
run "$CLC" record -q -o "$TMP/again.clcpack" -- "$TMP/moved/vadd_abc"
expect_rc 0 "record again (moved folder)"
run "$CLC" merge "$TMP/app.clcpack" "$TMP/again.clcpack" -o "$TMP/merged.clcpack"
expect_rc 0 "merge two recordings"
expect_err "1 entry (1 duplicate dropped)" "merge: one entry"

# --keep-captures: the capture files stay; a damaged one is skipped with a
# note, the others are packed.
mkdir -p "$TMP/caps"
printf 'CLCPREC2 but not really a capture' >"$TMP/caps/1-1.rec"
run "$CLC" record -o "$TMP/kept.clcpack" --keep-captures "$TMP/caps" -- "$TMP/moved/vadd_abc"
expect_rc 0 "record --keep-captures"
expect_err "skipped: $TMP/caps/1-1.rec" "a damaged capture is skipped, named"
expect_err "recorded 1 program build" "the real capture is packed"
[ "$(ls "$TMP/caps" | grep -c '\.rec$')" -eq 2 ] && ok "capture files kept" || bad "capture files"
head -c 100 "$(ls "$TMP"/caps/*.rec | grep -v '/1-1.rec$' | head -n 1)" >"$TMP/caps/1-1.rec"
run "$CLC" record -o "$TMP/kept.clcpack" --keep-captures "$TMP/caps" -- true
expect_rc 0 "record from kept captures"
expect_err "CRC-32 mismatch" "a truncated capture is refused by its CRC"

# An application that makes no OpenCL call: record says so, and why.
run "$CLC" record -o "$TMP/none.clcpack" -- true
expect_rc 1 "record of a program without OpenCL fails"
expect_err "true made no OpenCL call: none of its 1 process loaded an OpenCL loader" \
    "record: says no OpenCL call was seen, and why"
[ ! -e "$TMP/none.clcpack" ] && ok "no pack written" || bad "a pack was written"
run "$CLC" run --log "$TMP/app.clcpack" -- true
expect_rc 0 "run --log of a program without OpenCL"
expect_err "true made no OpenCL call" "run --log: says no OpenCL call was seen"

# Fail early: what would fail after the application ran is checked before
# it starts (the application here would leave a file behind).
run "$CLC" record -o "$TMP/missing/dir/x.clcpack" -- sh -c "touch '$TMP/ran'"
expect_rc 1 "record -o into a missing folder"
expect_err "missing/dir" "record -o: the path is named"
[ ! -e "$TMP/ran" ] && ok "record -o: the application did not run" || bad "the application ran"
run "$CLC" record -o "$TMP/k.clcpack" --keep-captures "$TMP/missing" -- sh -c "touch '$TMP/ran'"
expect_rc 1 "record --keep-captures of a missing folder"
expect_err "--keep-captures $TMP/missing" "--keep-captures: the folder is named"
[ ! -e "$TMP/ran" ] && ok "--keep-captures: the application did not run" || bad "the application ran"
run "$CLC" record -o "$TMP/k.clcpack" -- "$TMP/no-such-app"
expect_rc 1 "record of a missing program"
expect_err "cannot run $TMP/no-such-app" "record: the program is named"
run "$CLC" run "$TMP/app.clcpack" -- no-such-app-anywhere
expect_rc 127 "run of a program not in PATH: 127"
expect_err "not found in PATH" "run: says it is not found"
printf 'x' >"$TMP/not-exec"
run "$CLC" run "$TMP/app.clcpack" -- "$TMP/not-exec"
expect_rc 126 "run of a file that cannot be executed: 126"

# Usage errors.
run "$CLC" record -- "$TMP/moved/vadd_abc"
expect_rc 2 "record without -o"
run "$CLC" run "$TMP/app.clcpack"
expect_rc 2 "run without an application"
cli_done
