#!/bin/sh
# clc-pack record / run (docs/RECORD.md) beyond clBuildProgram, on PoCL, with
# tests/data/record/launch_app.c:
# - separate compilation: two sources compiled (one with a header program)
#   and linked, recorded as one link and served (compiles deferred, link
#   from the pack); another header passes through with the right output;
# - PoCL's work-group functions: the recorded binary holds the function of
#   the application's launch (16-1-1), as a packed entry does, so the first
#   launch of a replayed kernel compiles none (the times are printed, not
#   checked);
# - canonical records: two records with PoCL's cache off are the same bytes
#   and merge into one entry, by clc-pack record and by the LD_PRELOAD form;
#   records of one program launched at other local sizes merge into one
#   entry holding the work-group functions of both, and serve both.
. "$(dirname "$0")/../lib/cli_lib.sh"

PRELOAD=$BUILD/libclcpack-preload.so
APP=$TMP/launch_app
cc -O1 -DCL_TARGET_OPENCL_VERSION=120 -o "$APP" "$ROOT/tests/data/record/launch_app.c" -lOpenCL &&
    ok "launch_app builds" || bad "building launch_app"
export POCL_KERNEL_CACHE=0

# Separate compilation.
run "$APP" link
expect_rc 0 "link: plain run"
cp "$OUT" "$TMP/link.out"
expect_out "1 4 7 ... 766, sum 98176" "link: the plain result"
run "$CLC" record --log -o "$TMP/link.clcpack" -- "$APP" link
expect_rc 0 "link: record"
cmp -s "$OUT" "$TMP/link.out" && ok "link: record keeps the output" || bad "link: record changed the output"
expect_err "recorded 1 link (1 distinct program)" "link: one link recorded"
expect_err "link 0x" "link: logged"
run "$CLC" list "$TMP/link.clcpack"
expect_out "rec-link:" "link: the entry has a link key"
run "$CLC" verify --load "$TMP/link.clcpack"
expect_rc 0 "link: verify --load loads the linked binary"
run "$CLC" run --log "$TMP/link.clcpack" -- "$APP" link
expect_rc 0 "link: run"
cmp -s "$OUT" "$TMP/link.out" && ok "link: run, the same output" || bad "link: run changed the output"
[ "$(grep -c 'compile deferred' "$ERR")" -eq 2 ] && ok "link: both compiles deferred" ||
    bad "link: compiles deferred: $(cat "$ERR")"
expect_err "link 0x" "link: a link line"
expect_err "served from the pack (key rec-link:" "link: the link served"
if grep -q "passed through\|compile run now" "$ERR"; then bad "link: something ran"; else ok "link: no compile or link ran"; fi
# Another header program: that input is compiled, the other's deferred
# compile runs, the link passes through, the output is the driver's.
"$APP" link 5 >"$TMP/link5.out" 2>/dev/null
run "$CLC" run --log "$TMP/link.clcpack" -- "$APP" link 5
expect_rc 0 "link, another header: run"
cmp -s "$OUT" "$TMP/link5.out" && ok "link, another header: the driver's output" ||
    bad "link, another header: output differs"
expect_out "sum 163456" "link, another header: the new header's result"
expect_err "deferred compile run now: done" "link, another header: the deferred compile ran"
expect_err "passed through ($TMP/link.clcpack has no entry for this link; the nearest is entry 0 (kernels run): input 2 of 2 differs from the recorded link's (another source, compile options or header programs)" "link, another header: passed through, the input that differs (a, with the other header program) named"

# Work-group functions: the recorded binary holds the launch's function.
run "$APP" build
cp "$OUT" "$TMP/build.out"
run "$CLC" record -o "$TMP/build.clcpack" -- "$APP" build
expect_rc 0 "build: record"
"$CLC" extract "$TMP/build.clcpack" --entry 0 -o "$TMP/rec.bin" >/dev/null 2>&1
expect_true "the recorded binary holds the launch's work-group function (16-1-1)" \
    grep -aq "run/16-1-1-goffs0-smallgrid" "$TMP/rec.bin"
printf 'int scale(int x) { return 3 * x + OFFSET; }\n__kernel void run(__global int *y) {\n    int i = get_global_id(0);\n    y[i] = scale(i);\n}\n' >"$TMP/scale.cl"
run "$CLC" "$TMP/scale.cl" -D OFFSET=1 --wg 16 -q -o "$TMP/packed.clcpack"
expect_rc 0 "the same kernel packed by clc-pack with --wg 16"
"$CLC" extract "$TMP/packed.clcpack" --entry 0 -o "$TMP/packed.bin" >/dev/null 2>&1
expect_true "the packed binary holds the same function" \
    grep -aq "run/16-1-1-goffs0-smallgrid" "$TMP/packed.bin"
run "$CLC" run --log "$TMP/build.clcpack" -- "$APP" build
expect_err "served from the pack" "build: served"
cmp -s "$OUT" "$TMP/build.out" && ok "build: same output" || bad "build: output differs"
# The times, for the reader (docs/RECORD.md has the table): plain, replayed,
# packed; each a fresh process with PoCL's cache off.
for how in plain replay packed; do
    case $how in
    plain) "$APP" build 2>"$TMP/t.err" >/dev/null ;;
    replay) CLCPACK_PACK="$TMP/build.clcpack" LD_PRELOAD="$PRELOAD" "$APP" build 2>"$TMP/t.err" >/dev/null ;;
    packed) "$APP" binary "$TMP/packed.bin" 2>"$TMP/t.err" >/dev/null ;;
    esac
    echo "first launch, $how: $(sed -n 's/.*first launch: //p' "$TMP/t.err")"
done

# Canonical records: PoCL's cache off, twice; the same bytes, one entry.
run "$CLC" record -q -o "$TMP/c1.clcpack" -- "$APP" build
run "$CLC" record -q -o "$TMP/c2.clcpack" -- "$APP" build
expect_true "two records, PoCL's cache off: the same bytes" cmp "$TMP/c1.clcpack" "$TMP/c2.clcpack"
POCL_KERNEL_CACHE=1 run "$CLC" record -q -o "$TMP/c3.clcpack" -- "$APP" build
expect_true "a record with PoCL's cache on: the same bytes" cmp "$TMP/c1.clcpack" "$TMP/c3.clcpack"
run "$CLC" merge "$TMP/c1.clcpack" "$TMP/c2.clcpack" -o "$TMP/cm.clcpack"
expect_rc 0 "merge the two records"
expect_err "1 entry (1 duplicate dropped)" "merge: one entry"
# One program, launched at other local sizes in two records: merge joins
# them, the entry holds both functions and serves both applications.
run "$CLC" record -q -o "$TMP/l32.clcpack" -- "$APP" build 32
expect_rc 0 "record the same program launched at 32"
run "$CLC" merge "$TMP/c1.clcpack" "$TMP/l32.clcpack" -o "$TMP/joined.clcpack"
expect_rc 0 "merge records of one program with other launches"
expect_err "1 record of one program joined" "merge: the records are joined"
"$CLC" extract "$TMP/joined.clcpack" --entry 0 -o "$TMP/joined.bin" >/dev/null 2>&1
grep -aq "run/16-1-1-goffs0-smallgrid" "$TMP/joined.bin" && grep -aq "run/32-1-1-goffs0-smallgrid" "$TMP/joined.bin" &&
    ok "the joined entry holds both work-group functions" || bad "joined entry: functions missing"
"$APP" build 32 >"$TMP/b32.out" 2>/dev/null
for l in 16 32; do
    run "$CLC" run --log "$TMP/joined.clcpack" -- "$APP" build $l
    expect_err "served from the pack" "joined entry: launch at $l served"
done
cmp -s "$OUT" "$TMP/b32.out" && ok "joined entry: same output" || bad "joined entry: output differs"
# The LD_PRELOAD form: PoCL's own random folder names, scrubbed.
for i in 1 2; do
    mkdir -p "$TMP/keep$i"
    CLCPACK_RECORD="$TMP/keep$i" LD_PRELOAD="$PRELOAD" "$APP" build >/dev/null 2>&1
    run "$CLC" record -q -o "$TMP/k$i.clcpack" --keep-captures "$TMP/keep$i" -- true
done
expect_true "two LD_PRELOAD records, PoCL's cache off: the same bytes" cmp "$TMP/k1.clcpack" "$TMP/k2.clcpack"
"$CLC" extract "$TMP/k1.clcpack" --entry 0 -o "$TMP/k1.bin" >/dev/null 2>&1
if grep -aq "_UNCACHED_" "$TMP/k1.bin"; then bad "PoCL's random folder name is still there"; else ok "PoCL's random folder name is gone"; fi
CLCPACK_LOG=1 CLCPACK_PACK="$TMP/k1.clcpack" LD_PRELOAD="$PRELOAD" run "$APP" build
expect_err "served from the pack" "the canonical record is served"
cmp -s "$OUT" "$TMP/build.out" && ok "canonical record: same output" || bad "canonical record: output differs"
cli_done
