#!/bin/sh
# scripts/conv_bench.sh BUILD — the register-blocked convolutions against a
# peer library on one OpenCL device (docs/BENCH.md, "Against NPP and
# OpenCV"):
#   1. tuned packs of conv_block_grey and conv_block_rgba at every width
#      (clc-pack --tune at CONV_SIZE x CONV_SIZE; each selection of
#      CONV_SHAPES is its own pack, merged into one);
#   2. the peer on the same problem: NPP's nppiFilter_32f_C1R/C4R_Ctx on an
#      NVIDIA GPU (tests/bench/npp/npp_filter.cu, built with nvcc when it
#      and NPP are there), OpenCV's cv::filter2D on a CPU device
#      (BUILD/bench/cv_filter, built by make when OpenCV is installed); a
#      note when there is none;
#   3. speed --best --peer-csv: at each width the variant
#      clcpack_best_variant picks from the tuned pack, checked, timed, and
#      compared with the peer, the FP32 peak and the copy bandwidth.
# Rebuilds clc-pack, bench/speed and bench/devinfo first where they are
# older than their sources and this tree can build them.
# Writes conv_best.md (the table), conv_best.csv, peer.md, peer.csv,
# conv_tuned_list.txt, conv_tune_report.md and the merged pack to CONV_OUT.
#
# Environment (all optional):
#   CONV_DEVICE  device spec as for clc-pack --device (default: default)
#   CONV_SIZE    image size (default 4096 on a GPU, 512 on a CPU device)
#   CONV_WIDTHS  filter widths (default 3-31:2)
#   CONV_RUNS    timed launches per measurement (default 21 on a GPU, 11 on a CPU)
#   CONV_SHAPES  ';'-separated clc-pack selections, one tuned pack each; a
#                selection without --widths gets CONV_WIDTHS (default: the
#                kernels' default shapes, with LOOP_ORDER 0 and 1)
#   CONV_THREADS OpenCV threads (default: the device's compute units)
#   CONV_OUT     output folder (default docs/bench/<device slug>)
set -u
B=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
cd "$(dirname "$here")" || exit 1
export POCL_KERNEL_CACHE=0 CUDA_CACHE_DISABLE=1

say() { echo "conv_bench: $*" >&2; }
die() { say "$*"; exit 1; }
# Binaries older than their sources (after a change to the manifest's
# limits, say) would run the old code: bring them up to date where this
# tree can build them (on a GPU host without OpenCL headers it cannot, and
# the binaries carried along are used as they are).
targets="$B/clc-pack $B/bench/speed $B/bench/devinfo"
# shellcheck disable=SC2086 # a list of targets
if command -v make >/dev/null 2>&1 && ! make -q B="$B" $targets >/dev/null 2>&1; then
    make -s B="$B" $targets >&2 || say "could not rebuild $targets: using those in $B"
fi
for prog in clc-pack bench/devinfo bench/speed; do
    [ -x "$B/$prog" ] || die "$B/$prog is missing: run 'make B=$B all $B/bench/speed $B/bench/devinfo'"
done
DEVICE=${CONV_DEVICE:-default}
info=$("$B/bench/devinfo" --device "$DEVICE") || die "no device for --device $DEVICE"
field() { printf '%s\n' "$info" | sed -n "s/^$1=//p"; }
type=$(field type)
out=${CONV_OUT:-docs/bench/$(field slug)}
mkdir -p "$out" || die "cannot create $out"
if [ "$type" = GPU ]; then
    SIZE=${CONV_SIZE:-4096}
    RUNS=${CONV_RUNS:-21}
else
    SIZE=${CONV_SIZE:-512}
    RUNS=${CONV_RUNS:-11}
fi
WIDTHS=${CONV_WIDTHS:-3-31:2}
SHAPES=${CONV_SHAPES:-"--kernel conv_block_grey --kernel conv_block_rgba -D LOOP_ORDER=0,1"}
say "device $(field name) ($type); ${SIZE}x$SIZE, widths $WIDTHS; results in $out"

# 1. The tuned packs, merged.
packs=""
i=0
failed=0
old_ifs=$IFS
IFS=';'
for sel in $SHAPES; do
    IFS=$old_ifs
    i=$((i + 1))
    pk=$out/conv_tuned_$i.clcpack
    say "tuned pack $i: $sel"
    # A selection may name its own widths (e.g. full unrolling at small ones).
    case " $sel " in *" --widths "*) w="" ;; *) w="--widths $WIDTHS" ;; esac
    # shellcheck disable=SC2086 # the selection is a list of options
    if "$B/clc-pack" $sel $w --device "$DEVICE" --tune \
        --tune-size "${SIZE}x$SIZE" -k -q -o "$pk"; then
        packs="$packs $pk"
    else
        # -k: a shape whose tile does not fit the device's local memory at
        # the larger widths fails to build there; the others are kept.
        if [ -s "$pk" ]; then
            say "tuned pack $i: some variants did not build (kept the others)"
            packs="$packs $pk"
        else
            say "tuned pack $i failed"
            failed=1
        fi
    fi
    IFS=';'
done
IFS=$old_ifs
[ -n "$packs" ] || die "no tuned pack was built"
tuned=$out/conv_tuned.clcpack
# shellcheck disable=SC2086
if [ "$i" -gt 1 ]; then "$B/clc-pack" merge $packs -o "$tuned" >/dev/null || die "merge failed"
else mv $packs "$tuned"; fi
rm -f "$out"/conv_tuned_[0-9]*.clcpack
"$B/clc-pack" list "$tuned" >"$out/conv_tuned_list.txt"
"$B/clc-pack" tune-report "$tuned" >"$out/conv_tune_report.md" 2>/dev/null || true

# 2. The peer.
peer_csv=""
threads=${CONV_THREADS:-$(field compute_units)}
if [ "$type" = GPU ]; then
    nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
    cuda=$(dirname "$(dirname "$nvcc")")
    mkdir -p "$B/bench"
    if [ -x "$nvcc" ] && "$nvcc" -O2 -std=c++17 -o "$B/bench/npp_filter" \
        tests/bench/npp/npp_filter.cu -L"$cuda/lib64" -lnppif -lnppc 2>"$out/npp_build.log"; then
        if LD_LIBRARY_PATH="$cuda/lib64:${LD_LIBRARY_PATH:-}" "$B/bench/npp_filter" \
            --size "$SIZE" --widths "$WIDTHS" --runs "$RUNS" --csv "$out/peer.csv" \
            >"$out/peer.md"; then
            peer_csv=$out/peer.csv
        else
            # A width whose NPP result failed its check has no row in
            # peer.csv; the others are still the peer.
            say "npp_filter failed at some width (see $out/peer.md)"
            failed=1
            [ -s "$out/peer.csv" ] && peer_csv=$out/peer.csv
        fi
    else
        say "no nvcc or no NPP here: no NPP column (see $out/npp_build.log)"
    fi
elif [ -x "$B/bench/cv_filter" ]; then
    if "$B/bench/cv_filter" --size "$SIZE" --widths "$WIDTHS" --runs "$RUNS" \
        --threads "$threads" --csv "$out/peer.csv" >"$out/peer.md"; then
        peer_csv=$out/peer.csv
    else
        say "cv_filter failed (see $out/peer.md)"
        failed=1
    fi
else
    say "$B/bench/cv_filter is not built (OpenCV missing: apt-get install libopencv-dev, then make bench): no OpenCV column"
fi

# 3. The picks, timed against the peer.
set -- --pack "$tuned" --device "$DEVICE" --sizes "$SIZE" --widths "$WIDTHS" --runs "$RUNS" \
    --best --csv "$out/conv_best.csv"
[ -n "$peer_csv" ] && set -- "$@" --peer-csv "$peer_csv"
if "$B/bench/speed" "$@" >"$out/conv_best.md.tmp"; then
    mv "$out/conv_best.md.tmp" "$out/conv_best.md"
else
    mv "$out/conv_best.md.tmp" "$out/conv_best.md"
    say "speed --best reported a failure (see $out/conv_best.md)"
    failed=1
fi
cat "$out/conv_best.md"
exit $failed
