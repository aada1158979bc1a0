#!/bin/sh
# --shard K/N (docs/CLI.md, "Sharding over several machines"): each part of
# a plan built apart, as the runners of a CI matrix build them, and the
# parts merged give the one-host pack byte for byte. On PoCL with every
# kernel of the kernels folder at a few widths (the whole default set in 4
# parts, 264 variants, is measured by hand: docs/bench/README.md); parts
# with no variant; --keep-going failures; --update; --tune.
. "$(dirname "$0")/../lib/cli_lib.sh"
CLC=$(cd "$(dirname "$CLC")" && pwd)/$(basename "$CLC")
cd "$TMP" || exit 1

# entries PACK: the pack's entry count.
entries() {
    "$CLC" list --json "$1" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["entries"]))'
}

# Usage errors: nothing is built (their messages: tests/cli/golden/usage/shard).
for bad in 0/4 5/4 1/0 4 x/y 1/4/2 1/10001; do
    run "$CLC" --kernel Convolve_Def --widths 3 --shard "$bad" -o x.clcpack
    expect_rc 2 "--shard $bad is a usage error"
done
[ -e x.clcpack ] && bad "a usage error wrote a pack" || ok "no pack written by a usage error"

# Every kernel at two widths: one host, then 4 parts.
SEL="--kernels $KERNELS --widths 3,9 -j 2"
run "$CLC" $SEL -o one.clcpack
expect_rc 0 "the one-host pack"
total=$(entries one.clcpack)
[ "$total" -ge 20 ] && ok "the one-host pack has $total entries" || bad "only $total entries"
sum=0
for k in 1 2 3 4; do
    run "$CLC" $SEL --shard $k/4 -o part$k.clcpack
    expect_rc 0 "part $k/4"
    expect_out "shard     $k/4:" "part $k/4 says which part it is"
    n=$(entries part$k.clcpack)
    [ "$n" -gt 0 ] && ok "part $k/4 holds $n entries" || bad "part $k/4 holds none"
    sum=$((sum + n))
done
[ "$sum" = "$total" ] && ok "the parts hold $sum entries together, the plan's $total" ||
    bad "the parts hold $sum entries, the plan $total"
run "$CLC" merge part1.clcpack part2.clcpack part3.clcpack part4.clcpack -o merged.clcpack
expect_rc 0 "the parts merge"
expect_err "(0 duplicates dropped)" "no variant is in two parts"
expect_true "the merged parts are the one-host pack byte for byte" cmp merged.clcpack one.clcpack
run "$CLC" merge part3.clcpack part1.clcpack part4.clcpack part2.clcpack -o merged2.clcpack
expect_true "in any order" cmp merged2.clcpack one.clcpack

# The partition is the plan's alone: another -j, another cache folder.
XDG_CACHE_HOME=$TMP/other-cache run "$CLC" $SEL -j 1 --shard 2/4 -q -o again2.clcpack
expect_rc 0 "part 2/4 again with -j 1 and a fresh cache folder"
expect_true "the same part, byte for byte" cmp again2.clcpack part2.clcpack

# --update: a part's pack is reused like any pack.
run "$CLC" $SEL --shard 2/4 -o part2.clcpack
expect_out "0 built, 0 failed, $(entries part2.clcpack) reused" "an unchanged part is reused whole"

# More parts than variants: the empty parts still write a pack (a CI merge
# job takes every part's file), and the merge is the one-host pack.
printf '__kernel void twice(__global float *a) { a[get_global_id(0)] *= F; }\n' >t.cl
run "$CLC" t.cl -D F=1-3 --wg 64 -j 2 -o t-one.clcpack
expect_rc 0 "a pack of 3 variants"
files=""
for k in 1 2 3 4 5; do
    run "$CLC" t.cl -D F=1-3 --wg 64 -j 2 --shard $k/5 -o t$k.clcpack
    expect_rc 0 "part $k/5 of 3 variants"
    files="$files t$k.clcpack"
done
run "$CLC" t.cl -D F=1-3 --wg 64 --shard 5/5 -o t5.clcpack
expect_err "no variant of the 3 falls to this part" "an empty part says so"
expect_out "0 of 3 variants" "its summary says 0 of 3"
[ "$(entries t5.clcpack)" = 0 ] && ok "an empty part's pack has no entry" || bad "an empty part has entries"
run "$CLC" merge $files -o t-merged.clcpack
expect_rc 0 "the parts, two of them empty, merge"
expect_true "into the one-host pack" cmp t-merged.clcpack t-one.clcpack

# --keep-going: a part with a failed variant writes the rest and fails; the
# merge is the one-host --keep-going pack.
printf '#if F == 2\nnot OpenCL C;\n#endif\n__kernel void twice(__global float *a) { a[get_global_id(0)] *= F; }\n' >f.cl
run "$CLC" f.cl -D F=1-4 --wg 64 -j 2 --keep-going -o f-one.clcpack
expect_rc 1 "the one-host pack with a failed variant"
rcs=""
for k in 1 2; do
    run "$CLC" f.cl -D F=1-4 --wg 64 -j 2 --keep-going --shard $k/2 -o f$k.clcpack
    rcs="$rcs$RC"
    [ -f f$k.clcpack ] && ok "part $k/2 is written with --keep-going" || bad "part $k/2 not written"
done
[ "$rcs" = "10" ] || [ "$rcs" = "01" ] && ok "only the part with the failed variant fails ($rcs)" ||
    bad "exit statuses of the parts: $rcs"
run "$CLC" merge f1.clcpack f2.clcpack -o f-merged.clcpack
expect_true "the merged parts are the one-host --keep-going pack" cmp f-merged.clcpack f-one.clcpack
run "$CLC" f.cl -D F=2 --wg 64 --keep-going --shard 1/1 -o f-none.clcpack
expect_rc 1 "a part whose only variant fails"
[ -f f-none.clcpack ] && ok "still writes its (empty) pack with --keep-going" || bad "wrote nothing"

# --tune: each part times its own variants; the merge keeps every timing.
TSEL="--kernels $KERNELS --kernel Convolve_Def --widths 3,5 --wg 16x16 --tune --tune-size 64x64 --tune-runs 10"
for k in 1 2; do
    run "$CLC" $TSEL --shard $k/2 -o tune$k.clcpack
    expect_rc 0 "tuned part $k/2"
done
run "$CLC" merge tune1.clcpack tune2.clcpack -o tuned.clcpack
expect_rc 0 "the tuned parts merge"
if "$CLC" list --json tuned.clcpack | python3 -c '
import json, sys
e = json.load(sys.stdin)["entries"]
assert len(e) == 2 and all(x["tuning"] for x in e), e' 2>/dev/null; then
    ok "both variants keep their timings in the merged pack"
else
    bad "the merged tuned pack lacks timings"
fi
cli_done
