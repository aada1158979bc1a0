#!/bin/sh
# clc-pack tune SPEC.json on this machine's CPU device (PoCL): tuning any
# program from a T1 spec (docs/TUNING.md, "Tuning any program from a T1
# spec").
#  - a spec whose fastest configuration is wrong (it writes nothing): every
#    such configuration is refused by correctness and never chosen; the
#    pack holds the fastest correct one and `best --kernel` loads it;
#  - a configuration that crashes PoCL (a write far out of bounds): it is
#    recorded as runtime, and the tuning goes on to the end; one that never
#    ends is stopped after --timeout and recorded as timeout;
#  - a 2-D spec (examples/gemm's space) with a budget of 5: at most 5
#    configurations run; the T4 results are valid against Kernel Tuner's
#    T4 schema (where kernel_tuner and jsonschema are installed); the
#    example application picks the best with clcpack_best_variant and
#    checks its product; a second run resumes and runs nothing again;
#  - the malformed specs of tests/data/tune/bad/ are golden cases
#    (tests/cli/golden/tune_spec/: one line naming the field, nothing
#    written), as are tune --help and a bad --budget.
. "$(dirname "$0")/../lib/cli_lib.sh"

D=$ROOT/tests/data/tune
if ! "$CLC" --list-devices >/dev/null 2>&1; then
    skip "no OpenCL device: install pocl-opencl-icd (make deps)"
    cli_done
fi
export POCL_KERNEL_CACHE=0

# result FILE CONFIG-REGEX: the invalidity of each result whose
# configuration matches, one a line.
verdicts() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
want = dict(kv.split("=") for kv in sys.argv[2].split(",")) if sys.argv[2] else {}
for r in doc["results"]:
    c = r["configuration"]
    if all(str(c[k]) == v for k, v in want.items()):
        print(r["invalidity"])
EOF
}

# --- the fastest configuration is wrong
run "$CLC" tune "$D/wrong_fastest.json" --device cpu -j 2 -o "$TMP/scale.clcpack"
expect_rc 0 "tune wrong_fastest.json"
expect_out "space      6 valid configurations of 6" "the space: 6 of 6"
expect_out "correct 3, compile 0, constraints 0, runtime 0, correctness 3" "3 correct, 3 refused by correctness"
[ "$(verdicts "$TMP/scale.clcpack.t4.json" SKIP=1 | sort -u)" = correctness ] &&
    ok "every SKIP=1 configuration is invalid by correctness" ||
    bad "SKIP=1 verdicts: $(verdicts "$TMP/scale.clcpack.t4.json" SKIP=1)"
grep "fastest" "$OUT" | grep -q "SKIP=0" && ok "the fastest correct configuration has SKIP=0" ||
    bad "fastest: $(grep fastest "$OUT")"
run "$CLC" best "$TMP/scale.clcpack" --kernel scale --device cpu
expect_rc 0 "best --kernel scale loads the choice"
expect_out "SKIP=0" "the pack's best has SKIP=0"
expect_out "rule      measured" "the choice is measured"
run "$CLC" tune-report "$TMP/scale.clcpack"
expect_rc 0 "tune-report reads the tuned pack"
expect_out "| SKIP=0,WG=" "its table has the kept configuration"

# --- a configuration that crashes the driver
run "$CLC" tune "$D/crash.json" --device cpu -j 2 --no-pack --t4 "$TMP/crash.t4.json"
expect_rc 0 "tune crash.json goes on after the crashes"
expect_out "correct 2, compile 0, constraints 0, runtime 2" "2 correct, 2 recorded as runtime"
[ "$(verdicts "$TMP/crash.t4.json" CRASH=1 | sort -u)" = runtime ] &&
    ok "both CRASH=1 configurations are runtime" ||
    bad "CRASH=1 verdicts: $(verdicts "$TMP/crash.t4.json" CRASH=1)"
# A sanitizer's handler turns the signal into an exit status.
grep -Eq '"clc_pack_message": "the worker (died of signal|exited with status)' "$TMP/crash.t4.json" &&
    ok "the result says how the worker died" || bad "no worker death in the results"

# --- a configuration that never ends
run "$CLC" tune "$D/hang.json" --device cpu -j 2 --timeout 2 --no-pack --t4 "$TMP/hang.t4.json"
expect_rc 0 "tune hang.json goes on after the hang"
expect_out "correct 1, compile 0, constraints 0, runtime 0, correctness 0, timeout 1" "the hang is recorded as timeout"
grep -q '"clc_pack_message": "no answer in 2 s: the worker was stopped"' "$TMP/hang.t4.json" &&
    ok "the result says the worker was stopped" || bad "no timeout message in the results"

# --- a 2-D spec with a budget
run "$CLC" tune "$D/gemm_budget.json" --device cpu -j 2 -o "$TMP/gemm.clcpack" --keep all
expect_rc 0 "tune gemm_budget.json (Random, ConfigurationCount 5)"
n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['results']))" "$TMP/gemm.clcpack.t4.json")
[ "$n" -le 5 ] && [ "$n" -ge 1 ] && ok "the budget held: $n configurations run (at most 5)" ||
    bad "$n configurations in the results, budget 5"
PY=$ROOT/.pyopencl-venv/bin/python
[ -x "$PY" ] || PY=python3
KT=$("$PY" -c "import importlib.util as u, os; print(os.path.dirname(u.find_spec('kernel_tuner').origin))" 2>/dev/null)
if [ -n "$KT" ] && [ -f "$KT/schema/T4/1.0.0/results-schema.json" ] &&
    "$PY" -c "import jsonschema" 2>/dev/null; then
    run "$PY" -c "
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
for f in sys.argv[2:]:
    jsonschema.validate(json.load(open(f)), schema)
print('valid')" "$KT/schema/T4/1.0.0/results-schema.json" "$TMP/gemm.clcpack.t4.json" \
        "$TMP/scale.clcpack.t4.json" "$TMP/crash.t4.json"
    expect_out valid "the T4 results are valid against Kernel Tuner's results schema"
else
    skip "kernel_tuner or jsonschema is not installed (scripts/test_deps.sh installs them): T4 not validated"
fi
run "$CLC" tune "$D/gemm_budget.json" --device cpu -j 2 -o "$TMP/gemm.clcpack" --keep all \
    --timings "$TMP/gemm.timings.json"
expect_rc 0 "tune again into the same pack"
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['traceEvents'], 'no events'
print('trace events', len(d['traceEvents']))" "$TMP/gemm.timings.json" >"$TMP/tr.txt" 2>&1 &&
    ok "--timings wrote the packing's trace ($(cat "$TMP/tr.txt"))" || bad "--timings: $(cat "$TMP/tr.txt")"
expect_err "resuming from" "the second run resumes"
expect_out "from earlier results" "it names the results it took"
n2=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['results']))" "$TMP/gemm.clcpack.t4.json")
[ "$n2" -le 10 ] && [ "$n2" -ge "$n" ] && ok "resumed: $n2 results, the earlier $n kept" ||
    bad "after resuming: $n2 results (before: $n)"

run "$CLC" tune "$D/gemm_budget.json" --no-pack --timings "$TMP/x.json"
expect_rc 2 "--timings with --no-pack is a usage error"
expect_err "it takes no --no-pack" "which says why"

EX=$ROOT/examples/gemm
mkdir -p "$TMP/inc"
cp "$ROOT/loader/include/clcpack.h" "$TMP/inc/"
# shellcheck disable=SC2086
run "${CC:-cc}" -std=c11 -O2 ${CFLAGS:-} -I"$TMP/inc" -o "$TMP/gemm_app" "$EX/gemm_app.c" \
    "$EX/gemm_common.c" ${LDFLAGS:-} -L"$BUILD" -lclcpack -lOpenCL -lm -Wl,-rpath,"$BUILD"
expect_rc 0 "the gemm app builds"
best=$(grep "fastest" "$OUT" | head -n 1)
run "$TMP/gemm_app" "$TMP/gemm.clcpack"
expect_rc 0 "the app picks the tuned best with clcpack_best_variant and runs it"
expect_out "product ok" "its product is right"
expect_out "measured" "its choice is measured"

cli_done
