#!/bin/sh
# An application that loads OpenCL itself (tests/data/record/dlopen_app.c:
# dlopen("libOpenCL.so") and dlsym, as hashcat and OpenCV do), recorded and
# served by clc-pack record / run, and by each way the interposer reaches
# such an application on its own (docs/RECORD.md, "Every way an application
# reaches OpenCL"): as an OpenCL layer (OPENCL_LAYERS), and through the
# forwarding libOpenCL.so first on LD_LIBRARY_PATH. When no call reaches the
# interposer (LD_PRELOAD alone), record says so and names the loader the
# application loaded. PoCL.
. "$(dirname "$0")/../lib/cli_lib.sh"

PRELOAD=$BUILD/libclcpack-preload.so
SHIM=$BUILD/clcpack-opencl/libOpenCL.so.1
APP=$TMP/dlopen_app
cc -O1 -o "$APP" "$ROOT/tests/data/record/dlopen_app.c" -ldl && ok "dlopen_app builds" ||
    bad "building dlopen_app"
if nm -D "$APP" | grep -q ' U clBuildProgram'; then bad "dlopen_app links OpenCL"; else ok "dlopen_app links no OpenCL"; fi
[ -f "$SHIM" ] && ok "the forwarding loader is built" || bad "missing $SHIM"
# The system's loader, as the application would find it by name.
REAL=$(cc -print-file-name=libOpenCL.so.1)
REAL=$(readlink -f "$REAL")
export POCL_KERNEL_CACHE=0

run "$APP"
expect_rc 0 "plain run"
expect_out "1 4 7 10 13 16 19 22 25 28 31 34 37 40 43 46" "plain output"
cp "$OUT" "$TMP/plain.out"

run "$CLC" record --log -o "$TMP/app.clcpack" -- "$APP"
expect_rc 0 "record"
expect_err "recorded 1 program build (1 distinct program)" "record: the program is captured"
cmp -s "$OUT" "$TMP/plain.out" && ok "record: output unchanged" || bad "record changed the output"
run "$CLC" run --log "$TMP/app.clcpack" -- "$APP"
expect_rc 0 "run"
expect_err "served from the pack" "run: served"
[ "$(grep -c '^clcpack: program' "$ERR")" -eq 1 ] && ok "run: one log line (seen once, not twice)" ||
    bad "run: log lines: $(cat "$ERR")"
cmp -s "$OUT" "$TMP/plain.out" && ok "run: same output" || bad "run changed the output"
run "$CLC" run --log "$TMP/app.clcpack" -- "$APP" "$REAL"
expect_err "served from the pack" "run, the loader opened by its absolute path: served (the layer)"

# clc-pack run inside clc-pack run: the inner one starts with the outer's
# forwarding loader first on LD_LIBRARY_PATH and must still link its own
# to the real loader, not to the forwarding one (which would find itself).
run "$CLC" run "$TMP/app.clcpack" -- "$CLC" run --log "$TMP/app.clcpack" -- "$APP"
expect_rc 0 "nested clc-pack run"
expect_err "served from the pack" "nested clc-pack run: served"
cmp -s "$OUT" "$TMP/plain.out" && ok "nested: same output" || bad "nested: output changed"

# Each way on its own.
CLCPACK_LOG=1 CLCPACK_PACK="$TMP/app.clcpack" OPENCL_LAYERS="$PRELOAD" run "$APP"
expect_err "served from the pack" "OPENCL_LAYERS alone: served"
cmp -s "$OUT" "$TMP/plain.out" && ok "OPENCL_LAYERS alone: same output" || bad "OPENCL_LAYERS alone: output"
mkdir -p "$TMP/lib"
ln -s "$SHIM" "$TMP/lib/libOpenCL.so"
ln -s "$SHIM" "$TMP/lib/libOpenCL.so.1"
ln -s "$PRELOAD" "$TMP/lib/libclcpack-preload.so"
ln -s "$REAL" "$TMP/lib/libclcpack-real-opencl.so.1"
# (Built with a sanitizer, the interposer needs its runtime loaded first:
# LD_PRELOAD holds that runtime alone, never the interposer; the linker
# PoCL runs inherits it, and its own leaks are not this test's.)
SANRT=$(ldd "$PRELOAD" 2>/dev/null | awk '/lib[at]san/ { print $3; exit }')
[ -n "$SANRT" ] && export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
LD_PRELOAD="$SANRT" CLCPACK_LOG=1 CLCPACK_PACK="$TMP/app.clcpack" LD_LIBRARY_PATH="$TMP/lib" run "$APP"
expect_err "served from the pack" "the forwarding loader alone: served"
cmp -s "$OUT" "$TMP/plain.out" && ok "the forwarding loader alone: same output" || bad "forwarding loader: output"
# An application linked with -lOpenCL (versioned symbols) runs through it too.
cc -O1 -DCL_TARGET_OPENCL_VERSION=120 -o "$TMP/linked" "$ROOT/tests/data/record/launch_app.c" -lOpenCL
LD_PRELOAD="$SANRT" LD_LIBRARY_PATH="$TMP/lib" run "$TMP/linked" build
expect_rc 0 "a linked application with the forwarding loader first"
expect_out "sum 98176" "a linked application: its result"

# LD_PRELOAD alone never sees it: record names the loader it loaded.
mkdir -p "$TMP/seen"
CLCPACK_STATUS="$TMP/seen" CLCPACK_RECORD="$TMP/seen" LD_PRELOAD="$PRELOAD" run "$APP"
expect_out "1 4 7" "LD_PRELOAD alone: the application runs"
run "$CLC" record -o "$TMP/none.clcpack" --keep-captures "$TMP/seen" -- true
expect_rc 1 "record, nothing seen"
expect_err "loaded the OpenCL loader" "record: says OpenCL was loaded but no call was seen"
expect_err "libOpenCL.so" "record: names the loader"
expect_err "OPENCV_OPENCL_RUNTIME" "record: names the way out"
cli_done
