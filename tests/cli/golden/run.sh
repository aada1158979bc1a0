#!/bin/sh
# The golden-output tests of clc-pack's command line (tests/README.md,
# "Golden output"): what the tool prints, compared whole with files kept
# beside each case, so that a changed message shows as a diff.
#
#   sh tests/cli/golden/run.sh BUILD [--driver-free | --device] [--refresh] [CASE...]
#
# A case is GROUP/NAME.sh under this folder: a few commands of `sh`, run in
# an empty scratch folder made anew for it, with `clc-pack` (BUILD's) first on PATH and
# $ROOT (the source tree), $KERNELS (the bundled kernels) and $DATA
# (tests/data) set, and LC_ALL=C (the system's messages, strerror's, in
# one language). Beside it, what it must print once normalised (below):
#   NAME.out   its stdout (no file: nothing)
#   NAME.err   its stderr (no file: nothing)
#   NAME.exit  its exit status (the last command's, unless it says otherwise)
# The cases of the group device/ open an OpenCL device (PoCL); every other
# group needs none. --driver-free runs only those (cli_golden.sh, make
# check), --device only device/ (cli_golden_device.sh); CASE runs the cases
# or groups named (help, usage/widths_empty). Each case is one check.
#
# --refresh writes what each case prints now into its files (make golden)
# and then shows `git diff` of this folder and the files it added: a change
# is reviewed and committed, or undone with git checkout, never taken
# silently.
#
# Normalised, before comparing, and only these (what differs from one run,
# machine or release to the next while the message stays the same):
#   - the case's scratch folder           -> <scratch>
#   - the build folder, the source tree   -> <build>, <root>
#   - "clc-pack 1.2.0", "libclcpack 1.2.0" -> clc-pack <version>, libclcpack <version>
#   - times: "39.3 s", "0:39 wall" -> <s> s, <m:ss> wall
#   - the progress lines of a build ("[3/60] NAME ... 0:12 elapsed"): one
#     every few seconds and one at the end, so how many depends on the
#     machine's speed; they are dropped
#   - a driver's temporary file names (PoCL's build log names its
#     "tempfile_e4TIPu.cl") -> tempfile_<random>
#   - device/ only: each device's name as --list-devices gives it -> <device N>
# Anything else a case prints that depends on the machine or the release
# (core counts, the user's cache folder, the sha256 of a pack it wrote,
# whose header holds the writer's version) is kept out of it instead.
. "$(dirname "$0")/../../lib/cli_lib.sh"
[ $# -gt 0 ] && shift
GOLDEN=$ROOT/tests/cli/golden

which=all
refresh=
while [ $# -gt 0 ]; do
    case $1 in
    --driver-free) which=driver-free ;;
    --device) which=device ;;
    --refresh) refresh=1 ;;
    -*) echo "run.sh: unknown option $1 (--driver-free, --device, --refresh)" >&2; exit 2 ;;
    *) break ;;
    esac
    shift
done

# The cases to run, GROUP/NAME one a line: those named (a group names all
# of its own), else all of the kind asked for.
list_cases() {
    (cd "$GOLDEN" && for f in */*.sh; do [ -f "$f" ] && echo "${f%.sh}"; done)
}
if [ $# -gt 0 ]; then
    for a in "$@"; do
        a=${a%.sh}
        a=${a#tests/cli/golden/}
        if [ -d "$GOLDEN/$a" ]; then list_cases | grep "^$a/"
        elif [ -f "$GOLDEN/$a.sh" ]; then echo "$a"
        else echo "run.sh: no case or group '$a' under tests/cli/golden/" >&2; exit 2
        fi
    done >"$TMP/cases"
else
    case $which in
    driver-free) list_cases | grep -v '^device/' ;;
    device) list_cases | grep '^device/' ;;
    *) list_cases ;;
    esac >"$TMP/cases"
fi

# literal TEXT: TEXT as an extended sed pattern that matches only itself.
literal() {
    printf '%s\n' "$1" | sed 's/[][\/.^$*+?(){}|]/\\&/g'
}

# `clc-pack` on PATH is the build's, whatever the caller's PATH holds.
mkdir "$TMP/bin" && ln -s "$CLC" "$TMP/bin/clc-pack"
# Every case runs in the same scratch folder, made anew for each, so that
# the filters are one sed script written once.
SCRATCH=$TMP/case
mkdir "$SCRATCH"

# The filters of the header, in that order (the scratch folder and the
# build folder lie inside the others).
{
    printf 's/%s/<scratch>/g\n' "$(literal "$SCRATCH")" "$(literal "$(cd "$SCRATCH" && pwd -P)")"
    printf 's/%s/<build>/g\n' "$(literal "$BUILD")"
    printf 's/%s/<root>/g\n' "$(literal "$ROOT")"
    cat <<'EOF'
s/(clc-pack|libclcpack) [0-9]+\.[0-9]+\.[0-9]+/\1 <version>/g
/^\[[0-9]+\/[0-9]+\] .* [0-9]+:[0-9][0-9] elapsed/d
s/[0-9]+\.[0-9]+ s([^A-Za-z]|$)/<s> s\1/g
s/[0-9]+:[0-9][0-9] wall/<m:ss> wall/g
s/tempfile_[A-Za-z0-9]+/tempfile_<random>/g
EOF
} >"$TMP/filters.sed"

# The device names of this machine, for device/ only (so that a pack's
# device, tests/data's NVIDIA H100, reads the same on every machine), and
# first; looked up only when a device case runs: the others never open a
# platform.
HAVE_DEVICE=
if grep -q '^device/' "$TMP/cases"; then
    if "$CLC" --list-devices >"$TMP/devices" 2>/dev/null && grep -q 'device 0:' "$TMP/devices"; then
        HAVE_DEVICE=1
        # "  device 0: NAME [CPU] OpenCL ..." -> s/NAME/<device 0>/g
        sed -n 's/^ *device \([0-9]*\): \(.*\) \[[A-Z]*\] .*/\1 \2/p' "$TMP/devices" |
            while read -r n name; do
                printf 's/%s/<device %s>/g\n' "$(literal "$name")" "$n"
            done >"$TMP/device_filters.sed"
        cat "$TMP/filters.sed" >>"$TMP/device_filters.sed"
    fi
fi

# run_case CASE: runs it in the scratch folder; its normalised stdout,
# stderr and exit status in $TMP/got.out, got.err, got.exit.
run_case() {
    rm -rf "$SCRATCH" && mkdir "$SCRATCH"
    (cd "$SCRATCH" && LC_ALL=C PATH=$TMP/bin:$PATH ROOT=$ROOT KERNELS=$KERNELS DATA=$ROOT/tests/data \
        timeout 300 sh "$GOLDEN/$1.sh" >"$TMP/raw.out" 2>"$TMP/raw.err")
    echo $? >"$TMP/got.exit"
    case $1 in device/*) filters=$TMP/device_filters.sed ;; *) filters=$TMP/filters.sed ;; esac
    sed -E -f "$filters" "$TMP/raw.out" >"$TMP/got.out"
    sed -E -f "$filters" "$TMP/raw.err" >"$TMP/got.err"
}

# expected CASE EXT: the file holding what the case must print, or
# /dev/null where it has none (it must print nothing).
expected() {
    if [ -f "$GOLDEN/$1.$2" ]; then echo "$GOLDEN/$1.$2"; else echo /dev/null; fi
}

# compare CASE: one check; on a difference, the diff of each part that
# differs (expected first: '+' lines are what it prints now).
compare() {
    same=1
    for ext in out err exit; do
        if ! cmp -s "$(expected "$1" $ext)" "$TMP/got.$ext"; then
            [ "$same" = 1 ] && echo "FAIL: golden $1: prints other than tests/cli/golden/$1.{out,err,exit}"
            same=
            diff -u --label "tests/cli/golden/$1.$ext (expected)" --label "$1.$ext (now)" \
                "$(expected "$1" $ext)" "$TMP/got.$ext" | sed 's/^/    /'
        fi
    done
    if [ "$same" = 1 ]; then ok "golden $1"; else FAIL=$((FAIL + 1)); fi
}

# store CASE: the case's files made what it printed; an empty stdout or
# stderr has no file.
store() {
    for ext in out err; do
        if [ -s "$TMP/got.$ext" ]; then cp "$TMP/got.$ext" "$GOLDEN/$1.$ext"; else rm -f "$GOLDEN/$1.$ext"; fi
    done
    cp "$TMP/got.exit" "$GOLDEN/$1.exit"
}

n=0
changed=0
while read -r c; do
    case $c in
    device/*)
        if [ -z "$HAVE_DEVICE" ]; then
            skip "golden $c: no OpenCL device (install pocl-opencl-icd: make deps)"
            continue
        fi ;;
    esac
    n=$((n + 1))
    run_case "$c"
    if [ -z "$refresh" ]; then
        compare "$c"
        continue
    fi
    for ext in out err exit; do
        cmp -s "$(expected "$c" $ext)" "$TMP/got.$ext" || { echo "changed: $c"; changed=$((changed + 1)); break; }
    done
    store "$c" && ok "refreshed $c"
done <"$TMP/cases"

if [ -n "$refresh" ]; then
    echo "refreshed $n cases, $changed of them changed; what changed (review, then commit or git checkout):"
    if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
        git -C "$ROOT" status --short --untracked-files=all -- tests/cli/golden
        git -C "$ROOT" --no-pager diff -- tests/cli/golden
    else
        echo "  (not a git work tree: nothing to compare with)"
    fi
fi
cli_done
