#!/bin/sh
# clc-pack merge of two records of one program made by two command lines of
# one application (tests/data/record/pyopencl_two_programs.py): "ab" builds
# program A then B, "b" builds B alone. PoCL compiles a process's programs
# in one LLVM context, so B's program.bc recorded from "ab" also lists the
# metadata kinds A's build registered: other bytes, the same module
# (clc/vendors/llvm_bitcode_same.h). The merge joins them, in either order
# to the same bytes, keeps the shorter bitcode (B's from "b"), and the
# merged pack serves both command lines. PoCL, PyOpenCL (Debian's, or the
# virtual environment of tests/cli/cli_record_python.sh).
. "$(dirname "$0")/../lib/cli_lib.sh"

APP=$ROOT/tests/data/record/pyopencl_two_programs.py
VENV=${PYOPENCL_VENV:-$ROOT/.pyopencl-venv}
PRELOAD=$BUILD/libclcpack-preload.so
export PYOPENCL_NO_CACHE=1 PYOPENCL_CTX=0

# Python is not built with the sanitizers (tests/cli/cli_record_python.sh).
if ldd "$PRELOAD" 2>/dev/null | grep -q 'lib[at]san'; then
    skip "$PRELOAD is built with a sanitizer, Python is not"
    cli_done
fi
py=""
for p in /usr/bin/python3 "$VENV/bin/python"; do
    if [ -x "$p" ] && "$p" -c "import pyopencl, numpy" 2>/dev/null; then
        py=$p
        break
    fi
done
if [ -z "$py" ]; then
    skip "no PyOpenCL (apt-get install python3-pyopencl, or $VENV; .ci/run does it)"
    cli_done
fi

run "$py" "$APP" b
expect_rc 0 "the script runs"
cp "$OUT" "$TMP/plain.out"

run "$CLC" record -o "$TMP/ab.clcpack" -- "$py" "$APP" ab
expect_rc 0 "record of the command line building A then B"
expect_err "recorded 2 program builds" "both programs captured"
run "$CLC" record -o "$TMP/b.clcpack" -- "$py" "$APP" b
expect_rc 0 "record of the command line building B alone"
expect_err "recorded 1 program build" "B captured"

# B's key, and its binary in each record: other bytes, or this test tests
# nothing (a PoCL that writes only the kinds a module uses).
"$CLC" list "$TMP/b.clcpack" >"$TMP/list" 2>&1
key=$(grep -o 'rec:[0-9a-f]\{64\}' "$TMP/list" | head -n 1)
[ -n "$key" ] && ok "B's key: $key" || bad "no record key in b.clcpack"
run "$CLC" extract "$TMP/ab.clcpack" --kernel "$key" -q -o "$TMP/b_from_ab.bin"
expect_rc 0 "B's binary from the record of ab"
run "$CLC" extract "$TMP/b.clcpack" --kernel "$key" -q -o "$TMP/b_from_b.bin"
expect_rc 0 "B's binary from the record of b"
if cmp -s "$TMP/b_from_ab.bin" "$TMP/b_from_b.bin"; then
    skip "this PoCL writes B's binary the same after another program: nothing to join"
    cli_done
fi
ok "B's two records differ in bytes"

run "$CLC" merge "$TMP/ab.clcpack" "$TMP/b.clcpack" -o "$TMP/merged.clcpack"
expect_rc 0 "the two records merge"
expect_err "1 record of one program joined" "B's two records are joined"
run "$CLC" merge "$TMP/b.clcpack" "$TMP/ab.clcpack" -o "$TMP/merged2.clcpack"
expect_rc 0 "the two records merge in the other order"
cmp -s "$TMP/merged.clcpack" "$TMP/merged2.clcpack" && ok "either order gives the same bytes" ||
    bad "the merged pack depends on the order of its inputs"
run "$CLC" extract "$TMP/merged.clcpack" --kernel "$key" -q -o "$TMP/b_merged.bin"
expect_rc 0 "B's binary from the merged pack"
[ -s "$TMP/b_merged.bin" ] && [ -s "$TMP/b_from_ab.bin" ] &&
    [ "$(wc -c <"$TMP/b_merged.bin")" -le "$(wc -c <"$TMP/b_from_ab.bin")" ] &&
    ok "the shorter binary is kept" || bad "the shorter binary is not kept"
run "$CLC" verify "$TMP/merged.clcpack"
expect_rc 0 "the merged pack verifies"

POCL_KERNEL_CACHE=0 run "$CLC" run --log "$TMP/merged.clcpack" -- "$py" "$APP" b
expect_rc 0 "run of b on the merged pack"
cmp -s "$OUT" "$TMP/plain.out" && ok "b: same output" || bad "b: output changed"
expect_err "served from the pack (key ${key%"${key#????????????????}"})" "b: B served from the pack"
if grep -q "passed through" "$ERR"; then bad "b: passed through"; else ok "b: nothing passed through"; fi

POCL_KERNEL_CACHE=0 run "$CLC" run --log "$TMP/merged.clcpack" -- "$py" "$APP" ab
expect_rc 0 "run of ab on the merged pack"
cmp -s "$OUT" "$TMP/plain.out" && ok "ab: same output" || bad "ab: output changed"
[ "$(grep -c 'served from the pack' "$ERR")" -eq 2 ] && ok "ab: A and B served from the pack" ||
    bad "ab: not both programs served"
cli_done
