#!/bin/sh
# scripts/bench_record.sh (docs/RECORD.md, "Numbers") measures as
# scripts/bench_record_apps.sh does, with the helpers both source from
# scripts/bench_rounds.sh: rounds of a cold plain run and a cold served run
# side by side, the speed-up the median of the rounds' ratios with their
# min-max, the rounds and the load stated, outputs compared; BENCH_OUT
# writes its part of DIR/record.md and keeps the applications' part there.
# The run needs an OpenCL device and a C compiler (PoCL here).
. "$(dirname "$0")/../lib/cli_lib.sh"
S=$ROOT/scripts

# The helpers, without a device.
if [ ! -f "$S/bench_rounds.sh" ]; then
    bad "no scripts/bench_rounds.sh"
else
    . "$S/bench_rounds.sh"
    printf '1 2 1\n2 30 3\n3 10 2\n' >"$TMP/rounds"
    [ "$(ratio_stats "$TMP/rounds" 2 3)" = "5 2 10" ] && ok "ratio_stats: median, min, max of the rounds' ratios" ||
        bad "ratio_stats gave '$(ratio_stats "$TMP/rounds" 2 3)', wanted '5 2 10'"
    printf '# Title\n<!-- a -->\nold a\n<!-- /a -->\nkept\n' >"$TMP/record.md"
    echo "new b" >"$TMP/b"
    echo "new a" >"$TMP/a"
    publish "$TMP" b "$TMP/b" && publish "$TMP" a "$TMP/a" && publish "$TMP" b "$TMP/b"
    printf '# Title\n<!-- a -->\nnew a\n<!-- /a -->\nkept\n\n<!-- b -->\nnew b\n<!-- /b -->\n' >"$TMP/want"
    cmp -s "$TMP/record.md" "$TMP/want" && ok "publish replaces its own part only, appends it once" ||
        { bad "publish: record.md is"; cat "$TMP/record.md"; }
fi
for f in bench_record.sh bench_record_apps.sh; do
    grep -q '^\. .*bench_rounds\.sh"$' "$S/$f" && ok "$f sources bench_rounds.sh" ||
        bad "$f does not source scripts/bench_rounds.sh"
    grep -Eq '^(timed|median|same|clean|now)\(\)' "$S/$f" && bad "$f defines a helper of bench_rounds.sh again" ||
        ok "$f has no copy of the shared helpers"
done

# The benchmark itself, 2 rounds, into a record.md that holds the
# applications' part.
if ! command -v cc >/dev/null 2>&1; then
    skip "no C compiler to build the sample program"
elif ! "$CLC" --list-devices 2>/dev/null | grep -q '(default)'; then
    skip "no OpenCL device for scripts/bench_record.sh"
else
    mkdir -p "$TMP/out"
    printf '# Apps\n<!-- bench_record_apps.sh -->\napps table\n<!-- /bench_record_apps.sh -->\n' >"$TMP/out/record.md"
    BENCH_OUT=$TMP/out run sh "$S/bench_record.sh" "$BUILD" 2
    expect_rc 0 "bench_record.sh $BUILD 2"
    expect_out "2 rounds per application, each a cold plain run, a cold served run" "the method stated"
    expect_out "$(nproc) cores, load average (1, 5, 15 min)" "cores and load stated"
    expect_out "| application | same output | process, plain | process, served | speed-up | min-max |" "the summary's columns"
    grep -Eq '^\| vadd_abc \| yes \| [0-9.]+ ms \| [0-9.]+ ms \| [0-9.]+x \| [0-9.]+-[0-9.]+x \|.* \| 2 \| [0-9.]+ → [0-9.]+ \|$' "$OUT" &&
        ok "vadd_abc: same output, ratio median with min-max, rounds and load" ||
        { bad "no full vadd_abc row"; grep vadd_abc "$OUT"; }
    [ "$(grep -c '^| [12] | [0-9.]* ms | [0-9.]* ms | [0-9.]*x |' "$OUT")" -ge 2 ] &&
        ok "the rounds' own ratios listed" || bad "no per-round rows"
    grep -q 'apps table' "$TMP/out/record.md" && ok "the applications' part of record.md kept" ||
        bad "BENCH_OUT lost the applications' part of record.md"
    grep -q '^| vadd_abc | yes |' "$TMP/out/record.md" && ok "its own part written to BENCH_OUT/record.md" ||
        bad "BENCH_OUT/record.md lacks the vadd_abc row"
fi
cli_done
