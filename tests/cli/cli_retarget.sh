#!/bin/sh
# `clc-pack retarget` (docs/vendors/NVIDIA.md): usage errors, a missing or damaged
# pack, cubins for every architecture from the PTX-only fixture, an
# architecture ptxas refuses (a note, not an error), writing in place and
# atomically. Checks that need ptxas are skipped with a note without one.
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$TMP" || exit 1
FIXTURE=$ROOT/tests/data/nvidia/ptx_only.clcpack

# Its --help and usage errors are golden cases (tests/cli/golden/help/retarget,
# usage/retarget_*, usage/cubins_both, usage/codec_unknown).
run "$CLC" retarget missing.clcpack -o x.clcpack
expect_rc 1 "a missing pack"
expect_err "missing.clcpack" "names the missing pack"
head -c 300 "$FIXTURE" >cut.clcpack
run "$CLC" retarget cut.clcpack -o x.clcpack
expect_rc 1 "a damaged pack"
expect_err "cut.clcpack" "names the damaged pack"
if [ -e x.clcpack ]; then bad "no output after an error"; else ok "no output after an error"; fi

# A pack without PTX (PoCL's native binaries) is copied as it is.
run "$CLC" --kernels "$KERNELS" --device cpu --kernel Convolve_Def --widths 3 --wg 8x8 --tune \
    --tune-size 64x64 --tune-runs 10 -q -o cpu.clcpack
expect_rc 0 "a tuned CPU pack"
run "$CLC" retarget cpu.clcpack --ptxas /bin/true -o cpu-copy.clcpack
expect_rc 0 "retarget a pack without PTX"
expect_err "0 PTX; cubins added: none" "the summary says there was nothing to do"
expect_true "its devices, sources, entries and timings are copied byte for byte" \
    cmp -s cpu.clcpack cpu-copy.clcpack

if ! PTXAS=$(command -v ptxas || ls /usr/local/cuda/bin/ptxas 2>/dev/null); then
    skip "no ptxas on PATH nor in /usr/local/cuda/bin: the retarget runs"
    cli_done
fi

n=$("$CLC" list "$FIXTURE" | grep -c ' ptx/sm_')
run "$CLC" retarget "$FIXTURE" --nv-arch 75,80,86,89,90,100,120 -o all.clcpack
expect_rc 0 "retarget the PTX-only fixture"
expect_err "cubins added: sm_75 $n, sm_80 $n, sm_86 $n, sm_89 $n, sm_90 $n, sm_100 $n, sm_120 $n" \
    "the summary counts the cubins per architecture ($n PTX entries)"
run "$CLC" list all.clcpack
for a in 75 80 86 89 90 100 120; do
    expect_out "cubin/sm_$a " "list shows sm_$a cubins"
done
expect_out "ptx/sm_75 " "the PTX is stored in its portable form"
expect_no_out "ptx/sm_90 " "no sm_90 PTX left"
run "$CLC" verify all.clcpack
expect_rc 0 "verify reads every entry"

# The device's own cubins (sm_90, an H100's): compressed like the others in
# a zstd pack, stored as they are with --store-cubins or in a zlib pack.
own_stored() {
    "$CLC" list --json "$1" | python3 -c "
import json, sys
es = [e for e in json.load(sys.stdin)['entries'] if e['kind'] == 'cubin' and e['arch'] == 90]
print(sum(e['codec'] == 'stored' for e in es), len(es))"
}
if "$CLC" list --json all.clcpack | grep -q '"zstd'; then
    expect_true "zstd: the sm_90 cubins are compressed by default" test "$(own_stored all.clcpack)" = "0 $n"
    run "$CLC" retarget "$FIXTURE" --store-cubins -o stored.clcpack
    expect_rc 0 "retarget --store-cubins"
    expect_true "zstd, --store-cubins: the sm_90 cubins are stored" test "$(own_stored stored.clcpack)" = "$n $n"
    run "$CLC" merge -q all.clcpack --store-cubins -o stored2.clcpack
    expect_true "merge --store-cubins stores them too" test "$(own_stored stored2.clcpack)" = "$n $n"
    expect_true "and the pack is larger" test "$(wc -c <stored2.clcpack)" -gt "$(wc -c <all.clcpack)"
else
    skip "a clc-pack without zstd: the zstd cubin defaults"
fi
run "$CLC" merge -q all.clcpack --codec zlib -o zlib.clcpack
expect_true "zlib: the sm_90 cubins are stored by default" test "$(own_stored zlib.clcpack)" = "$n $n"

# The cubin files themselves: an ELF for EM_CUDA (190) with the SM in
# e_flags (bits 8-15 from ELF ABI version 8), and cuobjdump's word when
# it is installed.
for a in 75 90 120; do
    idx=$("$CLC" list --json all.clcpack | python3 -c "
import json, sys
for i, e in enumerate(json.load(sys.stdin)['entries']):
    if e['kind'] == 'cubin' and e['arch'] == $a:
        print(i)" | tail -n 1)
    run "$CLC" extract all.clcpack --entry "$idx" -o sm$a.cubin
    expect_rc 0 "extract an sm_$a cubin (entry $idx)"
    if python3 -c "
import struct, sys
b = open('sm$a.cubin', 'rb').read()
machine = struct.unpack_from('<H', b, 18)[0]
flags = struct.unpack_from('<I', b, 48)[0]
sm = (flags >> 8) & 0xff if b[8] >= 8 else flags & 0xff
sys.exit(0 if b[:4] == b'\x7fELF' and machine == 190 and sm == $a else 1)"; then
        ok "sm$a.cubin: EM_CUDA for sm_$a"
    else
        bad "sm$a.cubin: EM_CUDA for sm_$a"
    fi
    # cuobjdump -sass says "code for sm_75", nvdisasm ".target sm_75": those
    # of ptxas's own CUDA, when it has them.
    for tool in "cuobjdump -sass" nvdisasm; do
        [ -x "$(dirname "$PTXAS")/${tool%% *}" ] || continue
        if "$(dirname "$PTXAS")"/$tool sm$a.cubin 2>/dev/null | grep -qiE "sm_?$a([^0-9]|\$)"; then
            ok "${tool%% *}: sm_$a"
        else
            bad "${tool%% *} does not say sm_$a"
        fi
    done
done

# A ptxas that refuses sm_80: that cubin is skipped with ptxas's reason.
cat >ptxas <<SH
#!/bin/sh
case "\$*" in *-arch=sm_80*) echo "ptxas program.ptx, line 9; error : sm_80 refused here" >&2; exit 255;; esac
exec "$PTXAS" "\$@"
SH
chmod +x ptxas
run "$CLC" retarget "$FIXTURE" --nv-arch 75,80,90 --ptxas ./ptxas -o some.clcpack
expect_rc 0 "an architecture refused is not an error"
expect_err "no cubin for sm_80: program.ptx, line 9; error : sm_80 refused here" \
    "the note gives ptxas's reason"
expect_err "$n refused by ptxas" "the summary counts the refusals"
run "$CLC" list some.clcpack
expect_no_out "cubin/sm_80 " "no sm_80 cubin"
expect_out "cubin/sm_75 " "the other architectures have theirs"

run "$CLC" retarget "$FIXTURE" -j 1 -q -o one-job.clcpack
expect_true "one job or several: the same bytes" cmp -s all.clcpack one-job.clcpack

# In place, and again: the cubins held are kept, nothing changes.
cp all.clcpack inplace.clcpack
run "$CLC" retarget inplace.clcpack -o inplace.clcpack -q
expect_rc 0 "retarget in place"
expect_true "a retargeted pack retargets to the same bytes" cmp -s all.clcpack inplace.clcpack
run "$CLC" retarget "$FIXTURE" -o no/such/dir/x.clcpack -q
expect_rc 1 "an output that cannot be written"
expect_err "no/such/dir/x.clcpack" "names the output"
cli_done
