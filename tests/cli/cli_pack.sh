#!/bin/sh
# A small pack built on this machine's default device (two variants), then
# everything that reads it: list, list --json, verify, verify --load
# (--check), extract; the same build with another -j gives the same bytes;
# the progress line appears on a terminal only; the default output name.
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$TMP" || exit 1
# Identical bytes from two builds rely on PoCL's kernel cache (docs/CLI.md,
# "Same inputs, same bytes"): make sure the environment has not turned it off.
unset POCL_KERNEL_CACHE
SMALL="--kernels $KERNELS --kernel Convolve_Def --widths 3,5 --wg 8x8"

run "$CLC" $SMALL -j 1 -o a.clcpack
expect_rc 0 "small pack with -j 1"
expect_out "wrote a.clcpack" "the summary names the file"
expect_out "variants  2 built, 0 failed, of 2" "the summary counts the variants"
expect_out "devices   1:" "the summary counts the devices"
expect_out "raw " "the summary gives the raw bytes"
expect_out "ratio " "the summary gives the ratio"
expect_out "wall" "the summary gives the wall time"
if grep -q "$(printf '\r')" "$ERR"; then bad "no progress line when stderr is not a terminal"; else ok "no progress line when stderr is not a terminal"; fi
ls a.clcpack.tmp* >/dev/null 2>&1 && bad "a temporary file is left" || ok "no temporary file left"
grep -q "^\[2/2\] Convolve_Def FILTER_WIDTH=.*elapsed" "$ERR" &&
    ok "stderr not a terminal: whole progress lines, the last one at the end" ||
    bad "no final progress line in the log"

# Dependency files: -MD (beside the pack), --depfile, -MF and -MT.
mkdir -p "dir with space"
run "$CLC" --kernels "$KERNELS" --kernel reda_float4 --widths 3 -j 1 -q -MD \
    -o "dir with space/p\$1#.clcpack"
expect_rc 0 "a pack with -MD"
D="dir with space/p\$1#.clcpack.d"
[ -f "$D" ] && head -n 1 "$D" | grep -qxF 'dir\ with\ space/p$$1\#.clcpack: \' &&
    ok "-MD: <pack>.d, the target escaped for make" || bad "-MD depfile: $(head -n 2 "$D" 2>&1)"
for f in manifest.txt reda_global.cl border.h; do
    grep -qxF " $KERNELS/$f \\" "$D" || grep -qxF " $KERNELS/$f" "$D" || bad "depfile lacks $f"
    grep -qxF "$KERNELS/$f:" "$D" && ok "depfile: $f and its empty rule" || bad "no empty rule for $f"
done
[ ! -s "$ERR" ] && ok "-q: nothing on stderr" || bad "-q printed on stderr"
run "$CLC" --kernels "$KERNELS" --kernel Convolve_Def --widths 3 -j 1 -q -o x.clcpack -MF x.d -MT out/x
expect_rc 0 "-MF FILE -MT TARGET"
head -n 1 x.d | grep -qxF 'out/x: \' && ! grep -q border.h x.d &&
    ok "-MT names the target; a kernel without includes lists none" || bad "x.d: $(cat x.d)"
# make reads it: the pack is out of date once an included file is newer.
mkdir -p k2 && cp "$KERNELS"/* k2/
run "$CLC" --kernels k2 --kernel reda_float4 --widths 3 -j 1 -q -o y.clcpack --depfile y.d
printf 'y.clcpack:\n\t@echo REBUILD\n-include y.d\n' >y.mk
run make -f y.mk y.clcpack
expect_no_out "REBUILD" "make with the depfile: the pack is up to date"
sleep 1
touch k2/border.h
run make -f y.mk y.clcpack
expect_out "REBUILD" "make: touching an included header makes the pack out of date"
rm k2/border.h
run make -f y.mk y.clcpack
expect_rc 0 "make: a deleted header does not stop make (empty rules)"
# Packing one's own kernel (no manifest): the source and its include.
mkdir -p own
printf '#define SCALE 2.0f\n' >own/h.h
printf '#include "h.h"\n__kernel void k(__global float *x) { x[get_global_id(0)] *= SCALE * X; }\n' >own/k.cl
run "$CLC" own/k.cl -D X=1,2 -j 1 -q -o own.clcpack --depfile own.d
expect_rc 0 "a pack of one's own kernel with --depfile"
[ "$(cat own.d)" = "$(printf 'own.clcpack: \\\n own/k.cl \\\n own/h.h\n\nown/k.cl:\n\nown/h.h:')" ] &&
    ok "its depfile lists the source and its include" || bad "own.d: $(cat own.d)"

run "$CLC" $SMALL -j 2 -q -o b.clcpack
expect_rc 0 "the same pack with -j 2 -q"
[ ! -s "$OUT" ] && ok "-q prints no summary" || bad "-q printed a summary"
expect_true "-j 1 and -j 2 give identical bytes" cmp -s a.clcpack b.clcpack

# On a terminal (script gives the command one), the progress line is drawn.
if command -v script >/dev/null 2>&1; then
    script -qec "'$CLC' $SMALL -j 2 -o c.clcpack" "$TMP/typescript" >/dev/null 2>&1
    if grep -q "\[[0-2]/2\] Convolve_Def FILTER_WIDTH=" "$TMP/typescript" && grep -q "elapsed, ~" "$TMP/typescript"; then
        ok "a progress line on a terminal"
    else
        bad "no progress line on a terminal"
    fi
    expect_true "the terminal run gives the same bytes" cmp -s a.clcpack c.clcpack
fi

run "$CLC" list a.clcpack
expect_rc 0 "list"
expect_out "1 device, 1 source, 2 entries" "list counts devices, sources, entries"
expect_out "Convolve_Def" "list shows the kernel"
expect_out "FILTER_WIDTH=5" "list shows the defines"
expect_out "8x8" "list shows the work-group"
expect_out "native" "list shows the kind"

run "$CLC" list --json a.clcpack
expect_rc 0 "list --json"
cp "$OUT" a.json
if python3 - a.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
e = d["entries"]
assert len(e) == 2, e
assert sorted(x["defines"]["FILTER_WIDTH"] for x in e) == ["3", "5"], e
assert all(x["kernel"] == "Convolve_Def" and x["wg"] == [8, 8, 1] for x in e)
assert all(x["kind"] == "native" and x["device"] == 0 and x["source"] == 0 for x in e)
assert all("-DFILTER_WIDTH=" in x["options"] for x in e)
assert len(d["devices"]) == 1 and d["devices"][0]["device_name"]
assert len(d["sources"]) == 1 and d["sources"][0]["raw_size"] > 0
PY
then ok "list --json is valid JSON with the entries"; else bad "list --json content"; fi
raw0=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["entries"][0]["raw_size"])' a.json)
src0=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sources"][0]["raw_size"])' a.json)

run "$CLC" verify a.clcpack
expect_rc 0 "verify"
expect_out "every checksum matches" "verify reports the checksums"

run "$CLC" verify --load a.clcpack
expect_rc 0 "verify --load"
expect_out "loaded 2 of 2: native 2, cubin 0, ptx 0, source 0, failed 0" "every entry loads from its native binary"
expect_out "entry 0 Convolve_Def" "verify --load reports each entry"

run "$CLC" verify --load --check --kernels "$KERNELS" a.clcpack
expect_rc 0 "verify --load --check"
expect_out "check ok" "the loaded programs compute the reference"
expect_out "checks failed 0" "no check failed"

run "$CLC" extract a.clcpack --entry 0 -o e0.bin
expect_rc 0 "extract --entry 0"
expect_true "the binary has the entry's raw size" [ "$(wc -c <e0.bin)" -eq "$raw0" ]
run "$CLC" extract a.clcpack --kernel Convolve_Def -D FILTER_WIDTH=5 --wg 8x8 --source -o s.cl
expect_rc 0 "extract --kernel --source"
expect_true "the source has the stored size" [ "$(wc -c <s.cl)" -eq "$src0" ]
expect_true "the source is the kernel file's text" grep -q "void Convolve_Def(" s.cl
run "$CLC" extract a.clcpack --kernel Convolve_Def -D FILTER_WIDTH=3 -o -
expect_rc 0 "extract to stdout"
expect_true "stdout holds the binary" [ "$(wc -c <"$OUT")" -gt 1000 ]
run "$CLC" extract a.clcpack --kernel Convolve_Def -o amb.bin
expect_rc 2 "an ambiguous extract"
expect_err "2 entries match" "the ambiguity is explained"
expect_err "entry 1:" "the matches are listed"
[ ! -e amb.bin ] && ok "nothing written for an ambiguous extract" || bad "amb.bin written"
run "$CLC" extract a.clcpack --kernel Convolve_Def -D FILTER_WIDTH=9 -o none.bin
expect_rc 2 "an extract matching nothing"
run "$CLC" extract a.clcpack --entry 7 -o none.bin
expect_rc 2 "an extract of a missing entry"
expect_err "2 entries" "the entry count is given"

# Every device, no sources: entries carry no source index.
run "$CLC" $SMALL --device all --no-sources -q -o all.clcpack
expect_rc 0 "--device all --no-sources"
run "$CLC" list --json all.clcpack
if python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["sources"] == [] and len(d["entries"]) == 2 * len(d["devices"]) and all(e["source"] is None for e in d["entries"])' <"$OUT"; then
    ok "a pack without sources, for every device"
else
    bad "a pack without sources, for every device"
fi

# The default output: packs/<device>.clcpack, packs/ created.
run "$CLC" --kernels "$KERNELS" --kernel Convolve_Def --widths 3 --wg 8x8 -q
expect_rc 0 "a pack with the default output name"
n=$(ls packs/*.clcpack 2>/dev/null | wc -l)
expect_true "packs/<device>.clcpack is written" [ "$n" -eq 1 ]
case $(ls packs/) in
*[!a-z0-9.-]*) bad "the name is a slug: $(ls packs/)" ;;
*) ok "the name is a slug: $(ls packs/)" ;;
esac

cli_done
