#!/bin/sh
# Messages of the direct mode that used to point at the wrong thing (issue
# 41): a value list split at a blank, a range given to --wg, an option
# spelt out in full. Each is a usage error (exit 2) found while the options
# are read, before any device is opened.
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$TMP" || exit 1
printf '__kernel void fir(__global float *a) { a[0] = TAPS; }\n' >fir.cl

# refused WHAT TEXT ARGS...: exit 2, stderr holding TEXT, prefixed.
refused() {
    what=$1
    text=$2
    shift 2
    run "$CLC" "$@"
    expect_rc 2 "$what"
    expect_err "$text" "$what: says '$text'"
    expect_err "clc-pack: " "$what: the message is prefixed"
}

# "-D TAPS=8 16": 16 is a value of the -D, not a source file to open.
refused "-D TAPS=8 16" "'16' is no file and looks like a value of the -D before it" \
    fir.cl -D TAPS=8 16
expect_err "comma-separated: -D TAPS=8,16" "-D TAPS=8 16: shows the list as it is written"
refused "-DTAPS=8 float" "-D TAPS=8,float" fir.cl -DTAPS=8 float
# A word naming a file, or one that looks like a file name, stays a source.
printf '__kernel void g(__global float *a) { a[0] = 1; }\n' >16
run "$CLC" fir.cl -D TAPS=8 16 --no-such-option-here
expect_err "unknown option --no-such-option-here" "-D TAPS=8 FILE: an existing file 16 is a source"
rm -f 16
run "$CLC" fir.cl -D TAPS=8 other.cl
expect_err "other.cl: cannot open" "-D TAPS=8 other.cl: a missing .cl file is still a source"

# --wg 1-64: a range, which --wg does not take, would read as 1 minus 64.
refused "--wg 1-64" "--wg takes sizes (64, 16x16) or lists of them (64,128,256)" \
    fir.cl -D TAPS=8 --wg 1-64
expect_err "'1-64' reads as the expression 1 minus 64" "--wg 1-64: names the mistake"
refused "--wg 16,32-64" "'32-64' reads as the expression 32 minus 64" fir.cl -D TAPS=8 --wg 16,32-64

# An option spelt out in full gets its short name.
refused "--check-command" "unknown option --check-command; did you mean --check-cmd?" \
    fir.cl --check-command true
refused "--tune-sz" "did you mean --tune-size?" fir.cl --tune-sz 8x8
run "$CLC" fir.cl --totally-unknown
if grep -q "did you mean" "$ERR"; then bad "--totally-unknown gets a suggestion"; else ok "--totally-unknown gets none"; fi

# The limits docs/CLI.md states ("Value lists"), each refused at one more.
refused "-D TAPS=1-65537" "'1-65537' gives 65537 values; a list holds at most 65536" \
    fir.cl -D TAPS=1-65537
refused "--widths 1-65" "'1-65' gives 65 values; a list holds at most 64" \
    --kernels "$KERNELS" --widths 1-65
# The number the docs state is the one the tool holds to.
grep -q 'holds at most 65,536 (`DEFINE_VALUE_VALUES_MAX`)' "$ROOT/docs/CLI.md" &&
    grep -q 'define DEFINE_VALUE_VALUES_MAX 65536 ' "$ROOT/clc/program/define_value.h" &&
    ok "docs/CLI.md states the -D limit of define_value.h, 65,536" ||
    bad "docs/CLI.md and define_value.h disagree on the -D limit"

cli_done
