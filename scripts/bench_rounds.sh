# scripts/bench_rounds.sh — sourced, not run: the method shared by the
# record benchmarks (scripts/bench_record.sh, scripts/bench_record_apps.sh).
# A plain run and a served run side by side in each round, every run cold,
# the speed-up the median of the rounds' ratios with their min-max: on a
# shared machine medians of separate series drift apart with the load, the
# two runs of one round see the same load.

now() { date +%s.%N; }
load() { cut -d' ' -f1 /proc/loadavg; }
median() { sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

# cold_caches DIR: every driver cache off, and the caches an application
# keeps (PoCL's folder, hashcat's kernels and the like under
# $XDG_CACHE_HOME) in DIR/cache, which clean empties before each run.
cold_caches() {
    export POCL_KERNEL_CACHE=0 CUDA_CACHE_DISABLE=1
    export XDG_CACHE_HOME="$1/cache" POCL_CACHE_DIR="$1/cache/pocl"
}
# Empty every cache a run could reuse: nothing is carried from one run to
# the next, whichever mode ran before.
clean() { rm -rf "$XDG_CACHE_HOME" && mkdir -p "$POCL_CACHE_DIR"; }

# timed OUT CMD...: one cold run; its output in OUT (stderr in OUT.err),
# its wall seconds on stdout; returns the command's status.
timed() {
    out=$1
    shift
    clean
    t0=$(now)
    "$@" >"$out" 2>"$out.err"
    rc=$?
    awk -v a="$(now)" -v b="$t0" 'BEGIN { printf "%.3f\n", a - b }'
    return "$rc"
}

# same FILTER A B: whether A and B hold the same thing once filtered (an
# empty filter: nothing comparable, "n/a").
same() {
    [ -n "$1" ] || { echo n/a; return; }
    sh -c "$1" <"$2" >"$2.cmp"
    sh -c "$1" <"$3" >"$3.cmp"
    if [ -s "$2.cmp" ] && cmp -s "$2.cmp" "$3.cmp"; then echo yes; else echo NO; fi
}

# ratio_stats FILE A B: the median, min and max of column A / column B of
# FILE's lines (one line per round), as "median min max".
ratio_stats() {
    awk -v a="$2" -v b="$3" '$b > 0 { print $a / $b }' "$1" | sort -n >"$1.ratios"
    echo "$(median <"$1.ratios") $(head -n 1 "$1.ratios") $(tail -n 1 "$1.ratios")"
}

# device_name CLC: the default device as clc-pack lists it.
device_name() {
    "$1" --list-devices 2>/dev/null | sed -n 's/^  device 0: \(.*\)  (default)$/\1/p'
}

# publish DIR TAG FILE: FILE's tables into DIR/record.md, between the lines
# "<!-- TAG -->" and "<!-- /TAG -->", replacing only that part, so that
# each benchmark writing there keeps the others' tables (appended when the
# file has no such part yet).
publish() {
    mkdir -p "$1" || return 1
    f=$1/record.md
    [ -f "$f" ] || : >"$f"
    awk -v tag="$2" -v new="$3" '
        function put() { print "<!-- " tag " -->"; while ((getline l < new) > 0) print l; print "<!-- /" tag " -->"; done = 1 }
        $0 == "<!-- " tag " -->" { put(); skip = 1; next }
        skip && $0 == "<!-- /" tag " -->" { skip = 0; next }
        skip { next }
        { print }
        END { if (!done) { if (NR) print ""; put() } }' "$f" >"$f.new" && mv "$f.new" "$f"
}
