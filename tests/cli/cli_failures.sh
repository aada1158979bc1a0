#!/bin/sh
# What clc-pack does when things go wrong: a variant that fails to build
# (nothing is written, an existing output stays as it was; --keep-going
# writes the rest and lists the failure), and damaged packs (verify and
# list refuse them). What the failed build prints (its defines, options
# and build log) and the messages for damaged packs are golden cases
# (tests/cli/golden/device/build_failure, errors/verify_damaged, ...).
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$TMP" || exit 1

# A kernels folder whose Convolve_Def does not compile for FILTER_WIDTH=5.
cp -r "$KERNELS" kb
{
    printf '#if FILTER_WIDTH == 5\nthis is not OpenCL C at all;\n#endif\n'
    cat "$KERNELS/amd_convolve.cl"
} >kb/amd_convolve.cl
SEL="--kernels kb --kernel Convolve_Def --widths 3,5 --wg 8x8"

echo "an older pack" >out.clcpack
cp out.clcpack before.clcpack
run "$CLC" $SEL -j 2 -o out.clcpack
expect_rc 1 "a failed variant fails the run"
expect_true "the existing output is untouched" cmp -s out.clcpack before.clcpack
ls out.clcpack.tmp* >/dev/null 2>&1 && bad "a temporary file is left" || ok "no temporary file left"

run "$CLC" $SEL -j 2 --keep-going -o out.clcpack
expect_rc 1 "--keep-going still reports the failure"
expect_out "wrote out.clcpack" "--keep-going writes the pack"
expect_out "variants  1 built, 1 failed, of 2" "the summary counts the failure"
expect_out "Convolve_Def FILTER_WIDTH=5 wg=8x8 (failed to build)" "the summary lists the failed variant"
run "$CLC" list --json out.clcpack
expect_rc 0 "the kept pack reads"
if python3 -c 'import json,sys; e=json.load(sys.stdin)["entries"]; assert [x["defines"]["FILTER_WIDTH"] for x in e] == ["3"]' <"$OUT"; then
    ok "the pack holds the variant that built"
else
    bad "the pack holds the variant that built"
fi
run "$CLC" verify --load out.clcpack
expect_rc 0 "the kept pack loads"
expect_out "native 1" "its entry loads natively"

# A damaged pack: one byte of the entry's stored bytes flipped.
cp out.clcpack bad.clcpack
python3 - bad.clcpack <<'PY'
import struct, sys
path = sys.argv[1]
b = bytearray(open(path, "rb").read())
index_offset = struct.unpack_from("<Q", b, 24)[0]
# The payload is the source blob, then the entry blob; flip a byte in the
# last quarter, inside the entry.
at = index_offset - (index_offset - 64) // 8
b[at] ^= 0x40
open(path, "wb").write(bytes(b))
PY
run "$CLC" verify bad.clcpack
expect_rc 1 "verify of a damaged pack"
run "$CLC" verify --load bad.clcpack
expect_rc 1 "verify --load of a damaged pack"
run "$CLC" extract bad.clcpack --entry 0 -o x.bin
expect_rc 1 "extract of a damaged entry"
[ ! -e x.bin ] && ok "nothing extracted from a damaged entry" || bad "x.bin written"

# A truncated pack and a file that is not a pack.
head -c 100 out.clcpack >short.clcpack
run "$CLC" verify short.clcpack
expect_rc 1 "verify of a truncated pack"
run "$CLC" list short.clcpack
expect_rc 1 "list of a truncated pack"
echo "not a pack" >text.clcpack
run "$CLC" list text.clcpack
expect_rc 1 "list of a text file"
run "$CLC" verify missing.clcpack
expect_rc 1 "verify of a missing file"

cli_done
