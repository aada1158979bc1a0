#!/bin/sh
# A user's own program in the direct mode with its own test and timing
# commands called by relative path (docs/CLI.md "Your own test", "Your own
# timing"; docs/TUNING.md): the commands run in the folder clc-pack was
# started in, get an absolute {binary} and the user's PoCL variables (not
# the build's private cache); a failing command's message names the folder
# it ran in; a check is never skipped by reusing a variant of -o. Then tune-report and best --kernel on the timings, and the
# refusals: --tune on a program of one's own, best --family on a name that
# is no bundled family, best on a kernel the pack lacks or never timed.
. "$(dirname "$0")/../lib/cli_lib.sh"
CLC=$(cd "$(dirname "$CLC")" && pwd)/$(basename "$CLC")
mkdir -p "$TMP/proj" || exit 1
cd "$TMP/proj" || exit 1
HERE=$(pwd -P)

# Two kernels in one program.
cat >blur.cl <<'EOF'
__kernel void box_blur(__global const T *in, __global T *out, int w)
{
    int x = get_global_id(0), y = get_global_id(1);
    T s = 0;
    for (int d = -RADIUS; d <= RADIUS; d++)
        s += in[y * w + clamp(x + d, 0, w - 1)];
    out[y * w + x] = s / (2 * RADIUS + 1);
}
__kernel void sharpen(__global const T *in, __global T *out, int w)
{
    int x = get_global_id(0), y = get_global_id(1);
    out[y * w + x] = in[y * w + x] * (T)(1 + RADIUS);
}
EOF
# The check: a real file at {binary}; what it saw goes to seen.log.
cat >check.sh <<'EOF'
#!/bin/sh
test -s "$1" || { echo "no binary at $1"; exit 1; }
echo "check binary=$1 defines=$2 pwd=$(pwd -P) cache=${POCL_CACHE_DIR-unset} kcache=${POCL_KERNEL_CACHE-unset}" >>seen.log
EOF
# The timing: RADIUS=1 16x16 is the fastest of all, RADIUS=2 8x8 the
# fastest with RADIUS=2.
cat >time.sh <<'EOF'
#!/bin/sh
case "$1 $2" in
*RADIUS=1*" 16x16") ns=1000 ;;
*RADIUS=1*) ns=3000 ;;
*RADIUS=2*" 8x8") ns=1500 ;;
*) ns=4000 ;;
esac
echo "time pwd=$(pwd -P) cache=${POCL_CACHE_DIR-unset} end" >>seen.log
echo "timing $1 $2"
echo "median_ns=$ns runs=5 size=64x64"
EOF
chmod +x check.sh time.sh
USER_CACHE=$TMP/user-pocl-cache
: >seen.log

run env POCL_CACHE_DIR="$USER_CACHE" "$CLC" blur.cl -D T=float -D RADIUS=1,2 --wg 8x8,16x16 -q \
    --check-cmd './check.sh {binary} {defines}' --tune-cmd './time.sh {defines} {wg}' -o blur.clcpack
expect_rc 0 "relative --check-cmd and --tune-cmd run from the folder clc-pack started in"
[ -f blur.clcpack ] && ok "the pack is written" || bad "no pack written"
n_check=$(grep -c "^check " seen.log 2>/dev/null)
n_time=$(grep -c "^time " seen.log 2>/dev/null)
[ "${n_check:-0}" -eq 4 ] && [ "${n_time:-0}" -eq 4 ] && ok "each command ran on the 4 variants" ||
    bad "check ran ${n_check:-0} times, time ${n_time:-0} times; wanted 4 each"
[ "$(grep -c "pwd=$HERE " seen.log)" -eq 8 ] && ok "both ran in the folder clc-pack was started in" ||
    bad "a command ran elsewhere: $(grep -v "pwd=$HERE " seen.log | head -n 2)"
[ "$(grep -c '^check binary=/' seen.log)" -eq 4 ] && ok "{binary} is an absolute path" ||
    bad "a relative {binary}: $(grep '^check' seen.log | head -n 1)"
grep -q "cache=pocl-cache" seen.log && bad "a command saw the build's POCL_CACHE_DIR=pocl-cache" ||
    ok "no command saw POCL_CACHE_DIR=pocl-cache"
[ "$(grep -c "cache=$USER_CACHE " seen.log)" -eq 8 ] && ok "both saw the user's own POCL_CACHE_DIR" ||
    bad "the user's POCL_CACHE_DIR was not passed on: $(head -n 1 seen.log)"
grep -q "kcache=1" seen.log && bad "the check saw the build's POCL_KERNEL_CACHE=1" ||
    ok "POCL_KERNEL_CACHE, unset by the user, is unset for the command"

# A variable the user did not set stays unset for the command.
rm -f seen.log
run env -u POCL_CACHE_DIR "$CLC" blur.cl -D T=float -D RADIUS=1 --wg 8x8 -q \
    --check-cmd './check.sh {binary} {defines}' -o one.clcpack
expect_rc 0 "a pack with the check, POCL_CACHE_DIR unset"
grep -q "cache=unset " seen.log && ok "POCL_CACHE_DIR unset by the user is unset for the command" ||
    bad "the command saw: $(cat seen.log)"

# The same variant again with the pack in place: a check is never skipped
# by reuse (a failing one would pass unseen), and the summary counts it.
rm -f seen.log
run "$CLC" blur.cl -D T=float -D RADIUS=1 --wg 8x8 \
    --check-cmd './check.sh {binary} {defines}' -o one.clcpack
expect_rc 0 "the check again over the existing pack"
[ -s seen.log ] && ok "the check ran again (no variant reused from -o unchecked)" ||
    bad "the check did not run: the variant was reused"
expect_out "checks    1 of 1 variants passed --check-cmd" "the summary says how many the check passed"
cp one.clcpack kept.clcpack
run "$CLC" blur.cl -D T=float -D RADIUS=1 --wg 8x8 -q --check-cmd 'false' -o one.clcpack
expect_rc 1 "a failing check over the existing pack fails"
cmp -s one.clcpack kept.clcpack && ok "the existing pack is kept as it was" ||
    bad "the existing pack changed after a failed check"

# A relative command that is not there: the message says where it ran.
run "$CLC" blur.cl -D T=float -D RADIUS=1 --wg 8x8 -q --check-cmd './missing.sh {binary}' \
    -o x.clcpack
expect_rc 1 "a check command that is not found fails the variant"
expect_err "the check command exited with status 127 (ran in $HERE)" "the message names the folder it ran in"
expect_err "missing.sh" "the command's output is shown"
[ -f x.clcpack ] && bad "a pack was written" || ok "nothing written"

# --tune cannot time a program of one's own: refused, pointing to --tune-cmd.
run "$CLC" blur.cl -D T=float -D RADIUS=1 --wg 8x8 -q --tune -o x.clcpack
expect_rc 2 "--tune with source files is a usage error"
expect_err "--tune-cmd 'CMD'" "it points to --tune-cmd"
expect_err "blur.cl" "it names the program"

# tune-report: the program's timings by its own axes.
run "$CLC" tune-report blur.clcpack
expect_rc 0 "tune-report of a --tune-cmd pack"
expect_out "## blur (box_blur, sharpen) on device 0" "a table for the program, naming its kernels"
expect_out "| RADIUS=1,T=float | 16x16 | 64x64 | 1.0 | 5 | fastest |" "the fastest variant first"
expect_out "| RADIUS=2,T=float | 8x8 | 64x64 | 1.5 | 5 | +50.0% |" "the others with their margin"
expect_out "Programs timed by --tune-cmd or clc-pack tune: every timed variant" "its legend is the own programs' one"
grep -qi "filter width\|baseline" "$OUT" && bad "the report of a pack of one's own speaks of filter widths or baselines" ||
    ok "no word of the bundled kernels' filter widths or baselines"
n_rows=$(grep -c '^| RADIUS=' "$OUT")
[ "$n_rows" -eq 4 ] && ok "one row per timed variant" || bad "$n_rows rows, wanted 4"
run "$CLC" tune-report blur.clcpack --kernel sharpen
expect_rc 0 "tune-report --kernel with a kernel of the program"
expect_out "## blur (box_blur, sharpen)" "keeps the program holding it"
run "$CLC" tune-report blur.clcpack --kernel nope
expect_rc 1 "tune-report --kernel with a name the pack lacks"
expect_err "has no kernel or program 'nope' (it holds: blur (box_blur, sharpen))" "says what it holds"
run "$CLC" tune-report blur.clcpack --kernel sharpne
expect_rc 1 "tune-report --kernel with a typo"
expect_err "has no kernel or program 'sharpne'; did you mean sharpen?" "tune-report suggests the kernel"
run "$CLC" best blur.clcpack --kernel box_blr -D RADIUS=1
expect_rc 1 "best --kernel with a typo"
expect_err "has no kernel or program 'box_blr'; did you mean box_blur?" "best suggests the kernel"
run "$CLC" tune-report blur.clcpack --family blur
expect_rc 2 "tune-report --family with a name that is no bundled family"
expect_err "give --kernel blur" "points to --kernel"

# best --kernel: the fastest measured variant among those with the defines.
run "$CLC" best blur.clcpack --kernel box_blur -D RADIUS=2
expect_rc 0 "best --kernel box_blur -D RADIUS=2"
expect_out "  defines   RADIUS=2,T=float" "the defines of the fastest with RADIUS=2"
expect_out "  wg        8x8" "its work-group (the timing script made 8x8 the fastest at RADIUS=2)"
expect_out "  median    1500 ns at 64x64 (5 runs)" "its time"
expect_out "rule      measured" "measured"
expect_out "  loaded    " "and it loads"
run "$CLC" best blur.clcpack --kernel sharpen --no-load
expect_rc 0 "best --kernel without -D"
expect_out "  defines   RADIUS=1,T=float" "the fastest of all"
expect_out "  wg        16x16" "at 16x16"
expect_no_out "filter width" "nothing about a filter width"
run "$CLC" best blur.clcpack --kernel nope
expect_rc 1 "best --kernel with a name the pack lacks"
expect_err "has no kernel or program 'nope'" "says so"
run "$CLC" best blur.clcpack --kernel box_blur -D RADIUS=9 --no-load
expect_rc 1 "best --kernel with a define value no variant has"
expect_err "RADIUS=9" "names the define"
run "$CLC" best one.clcpack --kernel box_blur --no-load
expect_rc 1 "best --kernel on a pack without timings"
expect_err "was timed" "says nothing was measured"
expect_err "--tune-cmd" "and how to measure"
run "$CLC" best blur.clcpack --family box_blur
expect_rc 2 "best --family with a name that is no bundled family"
expect_err "not a family of the bundled kernels" "says so"
expect_err "--kernel box_blur" "points to --kernel"
run "$CLC" best blur.clcpack --kernel box_blur --width 3
expect_rc 2 "--width with --kernel"
run "$CLC" best blur.clcpack
expect_rc 2 "best without --family or --kernel"

cli_done
