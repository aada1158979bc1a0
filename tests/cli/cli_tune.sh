#!/bin/sh
# --tune on this machine's default device with a tiny selection: the pack
# stores a timing for every variant (a width-argument kernel one per
# width), list and list --json show them, tune-report prints its tables,
# and `best` (clcpack_best_variant, as an application asks) returns at
# width 7 the variant with the smallest time in list --json, and loads it.
# Their usage errors are golden cases (tests/cli/golden/usage/).
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$TMP" || exit 1
TUNE="--kernels $KERNELS --kernel reda_local --kernel reda_naive --kernel Convolve --kernel Convolve_Def --widths 3,7 --wg 16x16 --tune --tune-size 64x64 -j 2"

run "$CLC" $TUNE -o t.clcpack
expect_rc 0 "a tuned pack"
expect_out "tuning    7 of 7 variants timed at 64x64, median of 11 runs" "the summary counts the timed variants"
expect_err "one variant at a time" "the note says --tune builds one at a time"

run "$CLC" list t.clcpack
expect_rc 0 "list"
n_timed=$(grep -c ' 64x64 [0-9.]*us/11' "$OUT")
[ "$n_timed" -eq 6 ] && ok "six FILTER_WIDTH entries show one time" || bad "entries with one time: $n_timed, wanted 6"
expect_out "64x64 v3 " "the width-argument kernel shows its time at width 3 (run-time value 3)"
expect_out ", v7 " "and at width 7"

run "$CLC" list --json t.clcpack
expect_rc 0 "list --json"
cp "$OUT" list.json
# "KERNEL WGX MEDIAN" of every conv-rgba (or conv-grey) timing at filter width 7.
times_at_7() {
    grep "\"family\": \"$1\"" list.json |
        sed -n 's/.*"kernel": "\([^"]*\)".*"wg": \[\([0-9]*\),.*"timings": \[\(.*\)\]}.*/\1 \2 \3/p' |
        while read -r k wg rest; do
            echo "$rest" | tr '}' '\n' | sed -n 's/.*"runtime_value": 7,.*"median_ns": \([0-9]*\).*/\1/p' |
                while read -r ns; do echo "$k $wg $ns"; done
        done
}
for fam in conv-rgba conv-grey; do
    times_at_7 $fam > t7.txt
    [ "$(wc -l < t7.txt)" -ge 2 ] && ok "$fam: at least two timings at width 7" || bad "$fam: timings at width 7: $(cat t7.txt)"
    want=$(sort -n -k3 t7.txt | head -n 1)
    run "$CLC" best t.clcpack --family $fam --width 7
    expect_rc 0 "best $fam at width 7"
    got_k=$(sed -n 's/^  kernel *//p' "$OUT")
    got_wg=$(sed -n 's/^  wg *\([0-9]*\)x.*/\1/p' "$OUT")
    got_ns=$(sed -n 's/^  median *\([0-9]*\) ns.*/\1/p' "$OUT")
    [ "$got_k $got_wg $got_ns" = "$want" ] && ok "best $fam at 7 is the smallest time in list --json ($want)" ||
        bad "best $fam at 7: got '$got_k $got_wg $got_ns', list --json's smallest is '$want'"
    expect_out "rule      measured: fastest of" "best says the choice was measured"
    expect_out "loaded    native" "the choice loads from its native binary"
done

run "$CLC" tune-report t.clcpack
expect_rc 0 "tune-report"
expect_out "## conv-rgba on device 0" "a conv-rgba table"
expect_out "## conv-grey on device 0" "a conv-grey table"
expect_out "| width | fastest | median us | size | second | margin | vs reda_local 16x16 |" "the conv-rgba header names the baseline"
grep -q '^| 7 | ' "$OUT" && ok "a row for width 7" || bad "no row for width 7"
# Merging a tuned pack keeps every timing (Convolve has one per width).
run "$CLC" merge t.clcpack t.clcpack -o m.clcpack
expect_rc 0 "merge of a tuned pack with itself"
cmp -s t.clcpack m.clcpack && ok "the merged pack is the same bytes, timings included" ||
    bad "merging a tuned pack with itself changed it"
run "$CLC" tune-report t.clcpack --family poly
expect_rc 1 "tune-report of a family without timings fails"
expect_err "no timings" "and says so"

# Without --tune: no timings, and best falls back to the default rule.
run "$CLC" --kernels $KERNELS --kernel reda_local --widths 7 --wg 16x16 -q -o u.clcpack
expect_rc 0 "an untuned pack"
run "$CLC" best u.clcpack --family conv-rgba --width 7 --no-load
expect_rc 0 "best on an untuned pack"
expect_out "rule      default rule" "says the default rule applied"
expect_out "kernel    reda_local" "the default for conv-rgba is reda_local"
run "$CLC" best u.clcpack --family conv-rgba --width 9 --no-load
expect_rc 1 "best for a width the pack lacks"
expect_err "no entry of 'conv-rgba' serves with FILTER_WIDTH=9" "names the family and width"

# The usage errors of --tune-size, --tune-runs and best are golden cases
# (tests/cli/golden/usage/tune_size_no_x, tune_runs_low, best_no_family).
cli_done
