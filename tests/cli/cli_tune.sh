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
# The same timings as T4 results: one per variant and timing (Convolve has
# two), each the time list --json gives, valid against Kernel Tuner's schema
# where it is installed.
run "$CLC" tune-report t.clcpack --t4 t.t4.json
expect_rc 0 "tune-report --t4"
expect_err "wrote 8 timings as T4 results to t.t4.json" "the note counts the results"
t4_rows() {
    python3 -c "
import json, sys
for r in json.load(open(sys.argv[1]))['results']:
    c = r['configuration']
    print(c['kernel'], c.get('FILTER_WIDTH', '-'), c.get('runtime_value', '-'), c['work_group'],
          r['invalidity'], round(r['measurements'][0]['value'] * 1e6))" "$1"
}
t4_rows t.t4.json >t4.txt
[ "$(wc -l <t4.txt)" -eq 8 ] && ok "8 results" || bad "results: $(wc -l <t4.txt), wanted 8"
grep -q '^Convolve - 3 16x16 correct ' t4.txt && grep -q '^Convolve - 7 16x16 correct ' t4.txt &&
    ok "the width-argument kernel gives a result per run-time value" ||
    bad "Convolve's results: $(grep '^Convolve ' t4.txt)"
ns7=$(python3 -c "
import json, sys
for e in json.load(open(sys.argv[1]))['entries']:
    if e['kernel'] == 'reda_naive' and e['defines'].get('FILTER_WIDTH') == '7':
        print(e['timings'][0]['median_ns'])" list.json | head -1)
t4_7=$(awk '$1 == "reda_naive" && $2 == 7 { print $6 }' t4.txt)
[ -n "$ns7" ] && [ "$ns7" = "$t4_7" ] && ok "reda_naive at 7: the T4 time is list --json's ($ns7 ns)" ||
    bad "reda_naive at 7: T4 $t4_7 ns, list --json '$ns7'"
PY=$ROOT/.pyopencl-venv/bin/python
[ -x "$PY" ] || PY=python3
KT=$("$PY" -c "import importlib.util as u, os; print(os.path.dirname(u.find_spec('kernel_tuner').origin))" 2>/dev/null)
if [ -n "$KT" ] && "$PY" -c "import jsonschema" 2>/dev/null; then
    run "$PY" -c "
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
print('valid')" "$KT/schema/T4/1.0.0/results-schema.json" t.t4.json
    expect_out valid "the T4 file is valid against Kernel Tuner's results schema"
else
    skip "kernel_tuner or jsonschema is not installed (scripts/test_deps.sh installs them): T4 not validated"
fi
run "$CLC" tune-report t.clcpack --family conv-grey --t4 grey.t4.json
expect_rc 0 "tune-report --family conv-grey --t4"
[ "$(t4_rows grey.t4.json | cut -d' ' -f1 | sort -u | tr '\n' ' ')" = "Convolve Convolve_Def " ] &&
    [ "$(t4_rows grey.t4.json | wc -l)" -eq 4 ] && ok "--family keeps its 4 results only" ||
    bad "--family conv-grey --t4: $(t4_rows grey.t4.json | tr '\n' ';')"
run "$CLC" tune-report t.clcpack --t4 no/such/dir/t.t4.json
expect_rc 1 "--t4 into a folder that does not exist fails"
expect_err "no/such/dir/t.t4.json" "and names the file"
[ ! -e no/such/dir/t.t4.json ] && ok "nothing written" || bad "a T4 file appeared"

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
