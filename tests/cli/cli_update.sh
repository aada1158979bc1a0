#!/bin/sh
# Incremental packs (docs/CLI.md, "Incremental packs and build order"): with
# the output pack already there, only the variants whose source, options,
# work-group or device changed are built again; the result is byte-identical
# to a full build; --rebuild builds everything.
. "$(dirname "$0")/../lib/cli_lib.sh"
CLC=$(cd "$(dirname "$CLC")" && pwd)/$(basename "$CLC")
cd "$TMP" || exit 1
cp -r "$KERNELS" k
SEL="--kernels k --kernel Convolve_Def --kernel reda_local --kernel poly_numcoeffs --widths 3,5 --wg 16x16 -D NUMCOEFFS=8"

run "$CLC" $SEL -o p.clcpack
expect_rc 0 "the first pack"
expect_no_out "reused" "the first pack reuses nothing"
cp p.clcpack first.clcpack
run "$CLC" $SEL -o p.clcpack
expect_rc 0 "the same pack again"
expect_out "0 built, 0 failed, 5 reused" "nothing is built again"
expect_out "entries   5 (native 5, ptx 0, cubin 0)" "the summary counts the reused entries by kind"
expect_true "unchanged inputs: the same bytes" cmp p.clcpack first.clcpack

# One kernel source changes: only its kernel's variants are built.
printf '\n/* changed */\n' >>k/reda_local.cl
run "$CLC" $SEL -v -o p.clcpack
expect_rc 0 "the pack after a change to reda_local.cl"
expect_out "2 built, 0 failed, 3 reused" "only reda_local's two variants are built"
expect_err "reused Convolve_Def FILTER_WIDTH=3" "the build log names what was reused"
if grep -q "built reda_local" "$ERR" && ! grep -q "built Convolve_Def" "$ERR"; then
    ok "the build log shows reda_local built, Convolve_Def not"
else
    bad "the build log does not show which were built"
fi
run "$CLC" $SEL --rebuild -o full.clcpack
expect_rc 0 "a full rebuild"
expect_true "the updated pack equals a full rebuild byte for byte" cmp p.clcpack full.clcpack

# Fewer variants asked for: the others are dropped.
run "$CLC" --kernels k --kernel Convolve_Def --widths 3 --wg 16x16 -o p.clcpack
expect_rc 0 "a narrower selection"
n=$("$CLC" list --json p.clcpack | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["entries"]))')
[ "$n" = 1 ] && ok "entries no longer asked for are dropped" || bad "1 entry wanted, got $n"

# Direct mode: another option rebuilds the variants concerned.
printf '__kernel void twice(__global float *a) { a[get_global_id(0)] *= F; }\n' >t.cl
run "$CLC" t.cl -D F=2,3 --wg 64 -o d.clcpack
expect_rc 0 "a direct pack"
run "$CLC" t.cl -D F=2,3 --wg 64 -o d.clcpack
expect_out "0 built, 0 failed, 2 reused" "the direct pack is reused whole"
run "$CLC" t.cl -D F=2,3 --wg 64 --options=-cl-fast-relaxed-math -o d.clcpack
expect_out "2 built, 0 failed, of 2" "another option builds every variant again"
run "$CLC" t.cl -D F=2,3,4 --wg 64 --options=-cl-fast-relaxed-math -o d.clcpack
expect_out "1 built, 0 failed, 2 reused" "a new value builds only its variant"
run "$CLC" t.cl -D F=2,3,4 --wg 64 --options=-cl-fast-relaxed-math --rebuild -o d2.clcpack
expect_true "the same bytes as a full build" cmp d.clcpack d2.clcpack

# A pack from another device fingerprint (another driver version): rebuilt.
python3 - d.clcpack other.clcpack <<'EOF' && ok "a pack with another driver version made" || bad "could not make the other-driver pack"
import struct, sys, zlib
b = bytearray(open(sys.argv[1], "rb").read())
idx, size = struct.unpack_from("<QQ", b, 24)
at = b.find(b"3.1+debian", idx)
if at < 0:
    at = b.find(b"+debian", idx)
if at < 0:
    sys.exit(1)
b[at] = ord("9")  # another driver version, same length
crc = zlib.crc32(bytes(b[0:44]))
crc = zlib.crc32(bytes(b[48:64]), crc)
crc = zlib.crc32(bytes(b[idx:idx + size]), crc)
struct.pack_into("<I", b, 44, crc)
open(sys.argv[2], "wb").write(b)
EOF
cp other.clcpack o.clcpack
run "$CLC" t.cl -D F=2,3,4 --wg 64 --options=-cl-fast-relaxed-math -o o.clcpack
expect_out "3 built, 0 failed, of 3" "another driver fingerprint builds every variant"
expect_true "and gives the full build's bytes" cmp o.clcpack d2.clcpack

# The reuse path checks what a fresh build checks: a --kernel no program
# holds fails with the build's "did you mean", as it does with a new -o.
printf '__kernel void fir(__global float *a) { a[0] = TAPS; }\n' >fir.cl
run "$CLC" fir.cl -D TAPS=8,16 -o fir.clcpack
expect_rc 0 "the fir pack"
run "$CLC" fir.cl -D TAPS=8,16 --kernel firr -o fresh.clcpack
expect_rc 1 "--kernel firr with a new -o"
expect_err "kernel firr is not in the built program; did you mean fir?" "--kernel firr with a new -o: did you mean"
run "$CLC" fir.cl -D TAPS=8,16 --kernel firr -o fir.clcpack
expect_rc 1 "--kernel firr with every variant in -o"
expect_err "kernel firr is not in the built program; did you mean fir?" \
    "--kernel firr with every variant in -o: the same message"
expect_true "--kernel firr leaves the old pack as it was" "$CLC" list fir.clcpack
run "$CLC" fir.cl -D TAPS=8,16 --kernel fir -o fir.clcpack
expect_out "0 built, 0 failed, 2 reused" "--kernel fir, which every program holds, reuses them"
# --default names defines as --where does: a name no -D gives is refused,
# with every variant in -o as with a new one.
for o in fir.clcpack fresh.clcpack; do
    run "$CLC" fir.cl -D TAPS=8,16 --default TAPZ=8 -o $o
    expect_rc 2 "--default TAPZ=8 into $o"
    expect_err "--default 'TAPZ=8': TAPZ is not a define" "--default TAPZ=8 into $o: names TAPZ"
done

# A plan of more than 1,000 variants says its size and an estimate before
# the first build (stopped after 4 s: the note comes first); -q keeps it
# quiet; a small plan has no such note.
timeout 4 "$CLC" fir.cl -D TAPS=1-1001 -o big.clcpack >"$OUT" 2>"$ERR"
expect_err "clc-pack: note: 1001 variants (more than 1000), 1001 to build: about " \
    "a plan of 1001 variants: its size and estimated time"
timeout 4 "$CLC" -q fir.cl -D TAPS=1-1001 -o big.clcpack >"$OUT" 2>"$ERR"
if grep -q "variants (more than" "$ERR"; then bad "-q still prints the plan's size"; else ok "-q keeps the plan's size quiet"; fi
run "$CLC" fir.cl -D TAPS=8,16 -o fir.clcpack
if grep -q "variants (more than" "$ERR"; then bad "a plan of 2 variants prints its size"; else ok "a plan of 2 variants prints no estimate"; fi
cli_done
