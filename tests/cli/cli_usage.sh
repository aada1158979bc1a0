#!/bin/sh
# clc-pack's command line without building anything: help, version, the
# exit status and message of every kind of usage error, device listing and
# device selection errors.
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$TMP" || exit 1

run "$CLC" --help
expect_rc 0 "--help"
expect_out "Usage: clc-pack [AXES] FILE.cl [AXES]..." "--help prints the usage on stdout"
expect_out "Exit status" "--help documents the exit statuses"
[ ! -s "$ERR" ] && ok "--help writes nothing on stderr" || bad "--help writes on stderr"
# -h/--help stops the parse in the direct mode too: what follows is not read.
run "$CLC" --help --no-such-option
expect_rc 0 "--help before a bad option"
expect_out "Usage: clc-pack [AXES] FILE.cl [AXES]..." "--help before a bad option prints the usage"
# A missing operand names its subcommand, as every subcommand does.
run "$CLC" run
expect_rc 2 "run with no pack"
expect_err "clc-pack: run: expected one pack file" "run with no pack names the subcommand"
run "$CLC" record -- true
expect_rc 2 "record with no -o"
expect_err "clc-pack: record: expected the output pack" "record with no -o names the subcommand"
for sub in pack list verify extract embed merge; do
    run "$CLC" $sub --help
    expect_rc 0 "$sub --help"
    expect_out "Usage: clc-pack" "$sub --help prints a usage"
done
run "$CLC" --version
expect_rc 0 "--version"
expect_out "clc-pack 1." "--version names the tool and version"
expect_out "libclcpack" "--version names the library version"

# Usage errors: exit 2, the bad item named, nothing built.
usage_error() {
    what=$1
    token=$2
    shift 2
    run "$CLC" "$@"
    expect_rc 2 "$what"
    expect_err "$token" "$what names $token"
    expect_err "clc-pack: " "$what: diagnostics are prefixed"
}
usage_error "--widths 3,,5" "after '3'" --widths 3,,5
usage_error "--widths 3,5,...,30" "'30'" --widths 3,5,...,30
usage_error "--widths x" "'x'" --widths x
usage_error "--widths ''" "empty" --widths ''
usage_error "--widths 31-3" "'31-3'" --widths 31-3
usage_error "--widths 3,3" "twice" --widths 3,3
usage_error "--wg 8y8" "'8y8'" --wg 8y8
usage_error "--widths 33" "FILTER_WIDTH=33" --kernels "$KERNELS" --widths 33
usage_error "--kernel reda_naive --widths 4" "reda_naive" --kernels "$KERNELS" --kernel reda_naive --widths 4
usage_error "--kernel nosuch" "nosuch" --kernels "$KERNELS" --kernel nosuch
usage_error "-D FOO=1" "-D FOO" --kernels "$KERNELS" -D FOO=1
usage_error "-D NUMCOEFFS" "NAME=LIST" -D NUMCOEFFS
usage_error "-j 0" "-j 0" -j 0
usage_error "--bogus" "--bogus" --bogus
usage_error "--widths without a value" "--widths needs a value" --widths
# A likely typo of an option or a kernel gets the nearest name; a word far
# from every name gets none.
usage_error "--widht" "unknown option --widht; did you mean --widths?" --widht 5
usage_error "--widht=5" "unknown option --widht; did you mean --widths?" --widht=5
usage_error "list --jsn" "unknown option --jsn; did you mean --json?" list --jsn x.clcpack
run "$CLC" --bogus
grep -q "did you mean" "$ERR" && bad "--bogus: a suggestion for a word far from every option" ||
    ok "--bogus gets no suggestion"
usage_error "--kernel Convolve_Deff" "; did you mean Convolve_Def?" --kernels "$KERNELS" \
    --kernel Convolve_Deff
run "$CLC" -q stray
expect_rc 1 "a file argument is a source to pack: a missing one fails"
expect_err "stray: cannot open" "the missing source is named"
usage_error "unknown command" "'frobnicate'" frobnicate
usage_error "--ptxas missing" "/nonexistent/ptxas" --ptxas /nonexistent/ptxas
usage_error "list without a pack" "one pack file" list
usage_error "verify --check without --load" "--check needs --load" verify x.clcpack --check
usage_error "extract without -o" "-o FILE" extract x.clcpack --entry 0
usage_error "extract --kind elf" "--kind elf" extract x.clcpack --entry 0 --kind elf -o y
usage_error "extract --entry and --kernel" "either --entry" extract x.clcpack --entry 0 --kernel k -o y
usage_error "embed --symbol int" "C keyword" embed x.clcpack -o y.c --symbol int
usage_error "embed --symbol 9a" "'9a'" embed x.clcpack -o y.c --symbol 9a
usage_error "embed without -o" "-o FILE is required" embed x.clcpack
usage_error "embed --format" "--format x: expected asm, c or rc" embed x.clcpack -o y.S --format x
usage_error "-MF without a file" "-MF needs a file name" -MF
usage_error "-MX" "unknown option -MX" -MX
usage_error "merge without -o" "-o FILE" merge a.clcpack b.clcpack

# A bare clc-pack where there is no kernels folder: the short usage, how to
# pack one's own FILE.cl, exit 2 (a usage error).
mkdir bare
(cd bare && "$CLC") >"$OUT" 2>"$ERR"
RC=$?
expect_rc 2 "a bare clc-pack with no kernels folder"
expect_err "Usage: clc-pack FILE.cl..." "it shows how to pack one's own file"
expect_err "clc-pack --help" "it points to --help"
grep -q "cannot open" "$ERR" && bad "a bare clc-pack complains about the manifest" ||
    ok "a bare clc-pack does not complain about a missing manifest"

# --help's claims about the pack format: zstd packs are format 5
# (docs/FORMAT.md), which libclcpack 1.0 and newer read.
"$CLC" --help | tr -s ' \n' '  ' >"$TMP/help1"
grep -qF "pack format 5," "$TMP/help1" && ok "--help: zstd packs are format 5" ||
    bad "--help does not say zstd packs are format 5"
grep -qF "read by libclcpack 1.0 or newer built with zstd" "$TMP/help1" &&
    ok "--help names the libclcpack that reads them" || bad "--help: stale reader version"

# A missing kernels folder is a failure to read it, named.
run "$CLC" --kernels "$TMP/none" -q
expect_rc 1 "missing --kernels folder"
expect_err "$TMP/none" "the missing folder is named"

# Devices.
run "$CLC" --list-devices
expect_rc 0 "--list-devices"
expect_out "platform 0:" "--list-devices lists platforms"
expect_out "device 0:" "--list-devices lists devices"
expect_out "(default)" "--list-devices marks the default device"
if grep -q "\[GPU\]" "$OUT"; then
    echo "note: this machine has a GPU; the no-GPU error is not checked"
else
    run "$CLC" --kernels "$KERNELS" --device gpu -o "$TMP/gpu.clcpack"
    expect_rc 1 "--device gpu without a GPU"
    expect_err "no GPU device" "the error says there is no GPU"
    expect_err "found: [0]" "the error lists what was found"
    [ ! -e "$TMP/gpu.clcpack" ] && ok "nothing written for a missing device" || bad "a file was written"
fi
run "$CLC" --kernels "$KERNELS" --device 99 -o "$TMP/x.clcpack"
expect_rc 1 "--device 99"
expect_err "no device 99" "an unknown device number is named"
run "$CLC" --kernels "$KERNELS" --platform no-such-platform -o "$TMP/x.clcpack"
expect_rc 1 "--platform no-such-platform"
expect_err "'no-such-platform'" "an unmatched platform is named"
run "$CLC" --kernels "$KERNELS" -o "$TMP/no/such/dir/x.clcpack" -q
expect_rc 1 "-o into a missing folder"
expect_err "does not exist" "the missing folder is reported before building"

cli_done
