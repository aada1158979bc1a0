#!/bin/sh
# scripts/bench.sh BUILD — what `make bench` runs (docs/BENCH.md): on one
# OpenCL device, build the default pack at -j1 and -jN, then measure pack
# size, start-up and kernel speed, and write markdown tables, CSV files and
# PNG charts to docs/bench/<device>/ (the device's slug, as clc-pack names
# its default pack).
#
# Environment (all optional):
#   BENCH_DEVICE  device spec as for clc-pack --device (default: default)
#   BENCH_BUILD_JOBS  the -j values of the build part (default: "N 1", N the cores)
#   BENCH_PARTS   which parts, in order (default: "build warm size codecs coldstart
#                 startup speed firstlaunch report";
#                 "record" adds scripts/bench_record.sh, docs/RECORD.md;
#                 "hardening" (hostile packs and a 100k-entry write; needs no
#                 device) and "decode" (CPU time of reading each entry of the
#                 pack, cold and in order) run only when named)
#   BENCH_PACK    use this pack instead of building one (skips "build")
#   BENCH_WARM_ARGS  what the warm part builds (default: the default pack;
#                 e.g. "--widths 3,5,7,9,11" for a short run)
#   BENCH_JOBS    N of -jN (default: the number of cores)
#   BENCH_SIZES   image sizes for the speed part (default: 512,1024,2048 on
#                 a GPU; 64,128,256 on a CPU device, to keep the run short)
#   BENCH_RUNS    timed launches per measurement (default 10)
#   BENCH_OUT     output folder (default docs/bench/<slug>)
#   BENCH_COLD_PACKS  more packs for the coldstart part (space-separated
#                 paths), measured beside the ones it makes from the pack
#   BENCH_COLD_REPS   fresh-process rounds of the coldstart part (default 11)
# Driver caches are off for every part: POCL_KERNEL_CACHE=0 and
# CUDA_CACHE_DISABLE=1.
set -u
B=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cd "$root" || exit 1

export POCL_KERNEL_CACHE=0 CUDA_CACHE_DISABLE=1
DEVICE=${BENCH_DEVICE:-default}
PARTS=${BENCH_PARTS:-build warm size codecs coldstart startup speed firstlaunch report}
RUNS=${BENCH_RUNS:-10}
JOBS=${BENCH_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}

say() { echo "bench: $*" >&2; }
die() { say "$*"; exit 1; }
now() { date +%s.%N; }
# Seconds between two `now` stamps, to the millisecond.
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
# Runs a command with stdout into FILE, replacing FILE only when it succeeds.
to_file() {
    file=$1; shift
    if "$@" >"$file.tmp"; then mv "$file.tmp" "$file"; else rc=$?; rm -f "$file.tmp"; return $rc; fi
}

for prog in devinfo size startup speed coldstart pad_pack; do
    [ -x "$B/bench/$prog" ] || die "$B/bench/$prog is missing: run 'make B=$B bench'"
done
[ -x "$B/clc-pack" ] || die "$B/clc-pack is missing: run 'make B=$B'"

info=$("$B/bench/devinfo" --device "$DEVICE") || die "no device for --device $DEVICE"
field() { printf '%s\n' "$info" | sed -n "s/^$1=//p"; }
slug=$(field slug)
type=$(field type)
out=${BENCH_OUT:-docs/bench/$slug}
work=$B/bench-work/$slug
mkdir -p "$out" "$work" || die "cannot create $out and $work"
# Smaller images on a CPU device keep the speed part to minutes.
if [ "$type" = CPU ]; then
    SIZES=${BENCH_SIZES:-64,128,256}
else
    SIZES=${BENCH_SIZES:-512,1024,2048}
fi
pack=${BENCH_PACK:-$work/default-j$JOBS.clcpack}
say "device $(field name) ($type), driver $(field driver); results in $out"

# What the run was, for the device's README (scripts/bench_tables.py):
# key=value lines in OUT/env.txt. A run of some parts updates their keys and
# keeps the others', so the README says when each table was measured.
envf=$out/env.txt
set_env() {
    { grep -v "^$1=" "$envf" 2>/dev/null; printf '%s=%s\n' "$1" "$2"; } >"$envf.tmp" &&
        mv "$envf.tmp" "$envf"
}
load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?'; }
for key in slug name platform version driver type compute_units clock_mhz global_mem \
    compute_capability; do
    value=$(field "$key")
    [ -n "$value" ] && set_env "$key" "$value"
done
set_env commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
set_env host_cores "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')"
set_env caches "POCL_KERNEL_CACHE=$POCL_KERNEL_CACHE CUDA_CACHE_DISABLE=$CUDA_CACHE_DISABLE"

failed=""
run_build() {
    [ -n "${BENCH_PACK:-}" ] && { say "build: skipped (BENCH_PACK=$BENCH_PACK)"; return 0; }
    rows=""
    js=$JOBS
    [ "$JOBS" -gt 1 ] && js="$JOBS 1"
    js=${BENCH_BUILD_JOBS:-$js}
    for j in $js; do
        say "build: the default pack at -j$j (cold caches)"
        b0=$(now)
        # clc-pack keeps PoCL's kernel cache in its own cache folder: a
        # fresh one per run, so every run starts cold.
        cold=$(mktemp -d)
        XDG_CACHE_HOME=$cold "$B/clc-pack" --device "$DEVICE" -j "$j" -q --rebuild \
            -o "$work/default-j$j.clcpack"
        rc=$?
        b1=$(now)
        rm -rf "$cold"
        variants=$("$B/clc-pack" list --json "$work/default-j$j.clcpack" 2>/dev/null |
            python3 -c 'import json,sys
e=json.load(sys.stdin)["entries"]
print(len({(x["kernel"],x["options"],tuple(x["wg"])) for x in e}))' 2>/dev/null || echo 0)
        rows="$rows$j,$(elapsed "$b0" "$b1"),$rc,$variants
"
        say "build: -j$j took $(elapsed "$b0" "$b1") s, status $rc, $variants variants"
        [ "$rc" -eq 0 ] || return 1
    done
    # The -jN pack against the -j1 one: clc-pack promises the same bytes.
    same=""
    if [ "$JOBS" -gt 1 ]; then
        same=no
        cmp -s "$work/default-j1.clcpack" "$work/default-j$JOBS.clcpack" && same=yes
    fi
    {
        echo "device,jobs,wall_s,status,variants,identical_to_j1"
        printf '%s' "$rows" | while IFS=, read -r j wall rc variants; do
            [ "$j" = 1 ] && id="" || id=$same
            echo "\"$(field name)\",$j,$wall,$rc,$variants,$id"
        done
    } >"$out/build.csv.tmp" && mv "$out/build.csv.tmp" "$out/build.csv"
}
# Into a new -o from warm caches (docs/CACHE.md): a cold build with a
# fresh cache folder, then the same into new -o's with the variants warm
# and the encoder's results removed, and with both warm; the wall time and
# the encode-and-write step of each from its --timings trace.
run_warm() {
    c=$(mktemp -d)
    : >"$work/warm.rows"
    for step in cold variants both; do
        [ "$step" = variants ] && rm -rf "$c/clc-pack/variants/blobs"
        rm -f "$work/warm-$step.clcpack"
        say "warm: $step"
        # shellcheck disable=SC2086
        env -u CLC_PACK_CACHE_DIR -u CLC_PACK_NO_CACHE XDG_CACHE_HOME="$c" "$B/clc-pack" \
            --device "$DEVICE" ${BENCH_WARM_ARGS:-} -j "$JOBS" -q -o "$work/warm-$step.clcpack" \
            --timings "$work/warm-$step.json" || { rm -rf "$c"; return 1; }
        python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["otherData"]
print("%s,%.3f,%.3f,%.3f,%d,%d" % (sys.argv[2], d["wall_us"] / 1e6, d["write_us"] / 1e6,
      d["builds_us"] / 1e6, d["built"], d["local_hits"]))' "$work/warm-$step.json" "$step" \
            >>"$work/warm.rows" || { rm -rf "$c"; return 1; }
    done
    rm -rf "$c"
    same=no
    cmp -s "$work/warm-cold.clcpack" "$work/warm-variants.clcpack" &&
        cmp -s "$work/warm-cold.clcpack" "$work/warm-both.clcpack" && same=yes
    { echo "run,wall_s,encode_write_s,builds_s,built,local_hits,identical_to_cold"
      sed "s/\$/,$same/" "$work/warm.rows"; } >"$out/build-warm.csv"
    python3 -c 'import csv, sys
rows = {r["run"]: r for r in csv.DictReader(open(sys.argv[1]))}
what = {"cold": "cold (fresh cache folder)", "variants": "into a new -o, variants warm, encoder results removed",
        "both": "into a new -o, variants and encoder results warm"}
print("### Warm builds into a new -o")
print()
print("`clc-pack --device D %s -j N` three times with one fresh cache folder: cold, then into new "
      "-o files with the variants warm and the encoder results removed, and with both warm "
      "(docs/CACHE.md); wall and encode-and-write from each run\x27s --timings trace." % sys.argv[2])
print()
print("| run | wall s | encode and write s | builds s | built | from the variant cache | bytes as cold |")
print("|---|---:|---:|---:|---:|---:|---|")
for k in ("cold", "variants", "both"):
    r = rows[k]
    print("| %s | %s | %s | %s | %s | %s | %s |" % (what[k], r["wall_s"], r["encode_write_s"], r["builds_s"],
          r["built"], r["local_hits"], r["identical_to_cold"]))
w = {k: float(rows[k]["wall_s"]) for k in rows}
e = {k: float(rows[k]["encode_write_s"]) for k in rows}
print()
print("Warm into a new -o: %.1fx faster than cold; the encoder results make it %.2fx faster "
      "(encoding %.2f s against %.2f s)." % (w["cold"] / w["both"], w["variants"] / w["both"], e["both"], e["variants"]))' \
        "$out/build-warm.csv" "${BENCH_WARM_ARGS:-}" >"$out/build-warm.md"
}
run_size() {
    to_file "$out/size.md" "$B/bench/size" --pack "$pack" --csv "$out/size.csv"
}
run_startup() {
    to_file "$out/startup.md" "$B/bench/startup" --pack "$pack" --device "$DEVICE" \
        --csv "$out/startup.csv"
}
run_speed() {
    to_file "$out/speed.md" "$B/bench/speed" --pack "$pack" --device "$DEVICE" \
        --sizes "$SIZES" --runs "$RUNS" --csv "$out/speed.csv" --roofline-csv "$out/roofline.csv"
}
# The pack's binaries by every codec, xz -9e as the limit (tests/bench/codecs.c):
# the pack as built, and rewritten with the other codec family.
run_codecs() {
    [ -x "$B/bench/codecs" ] || { say "codecs: $B/bench/codecs is missing (built only with zstd)"; return 1; }
    "$B/clc-pack" merge -q --codec zlib "$pack" -o "$work/pack-zlib.clcpack" &&
        "$B/clc-pack" merge -q --codec zstd "$pack" -o "$work/pack-zstd.clcpack" || return 1
    to_file "$out/codecs.md" "$B/bench/codecs" --pack "$work/pack-zstd.clcpack=the pack, --codec zstd" \
        --pack "$work/pack-zlib.clcpack=the pack, --codec zlib" --csv "$out/codecs.csv"
}
# Start-up in fresh processes (tests/bench/coldstart.c): the pack with each
# codec family, then grown to 3 MB, 13 MB and 1 GiB by filler entries in a
# hole (tests/bench/pad_pack.c), and with the device's own cubins stored as
# they are (--store-cubins) when it has any; BENCH_COLD_PACKS beside them.
run_coldstart() {
    z=$work/cold-zstd.clcpack
    "$B/clc-pack" merge -q --codec zstd "$pack" -o "$z" &&
        "$B/clc-pack" merge -q --codec zlib "$pack" -o "$work/cold-zlib.clcpack" || return 1
    set -- --pack "$z" --label "the pack, zstd" --pack "$work/cold-zlib.clcpack" --label "the pack, zlib"
    for target in 3000000 13000000 1073741824; do
        [ "$(wc -c <"$z")" -lt "$target" ] || continue
        "$B/bench/pad_pack" "$z" "$work/cold-$target.clcpack" "$target" >/dev/null || return 1
        set -- "$@" --pack "$work/cold-$target.clcpack" --label "zstd, padded to $target bytes"
    done
    if "$B/clc-pack" list "$z" | grep -q ' cubin/'; then
        "$B/clc-pack" merge -q --codec zstd --store-cubins "$pack" -o "$work/cold-cubins.clcpack" || return 1
        set -- "$@" --pack "$work/cold-cubins.clcpack" --label "zstd, own cubins stored (--store-cubins)"
    fi
    for extra in ${BENCH_COLD_PACKS:-}; do
        set -- "$@" --pack "$extra" --label "$(basename "$extra")"
    done
    # Written even when one pack fails (its row says so; the part fails):
    # the others' rows are not lost.
    "$B/bench/coldstart" --device "$DEVICE" --reps "${BENCH_COLD_REPS:-11}" \
        --csv "$out/coldstart.csv" "$@" >"$out/coldstart.md"
    rc=$?
    rm -f "$work"/cold-*.clcpack
    return $rc
}
run_firstlaunch() {
    to_file "$out/first_launch.md" "$B/bench/first_launch_any" "$B/clc-pack" "$work" 1024
}
run_hardening() {
    to_file "$out/hardening.md" "$B/bench/hardening" --dir "$work" --csv "$out/hardening.csv"
}
run_decode() {
    to_file "$out/decode.md" "$B/bench/decode" --pack "$pack" --csv "$out/decode.csv"
}
run_report() {
    python3 scripts/bench_tables.py "$out" || return 1
    if ! python3 -c 'import matplotlib' 2>/dev/null; then
        say "report: matplotlib is missing; installing it with 'python3 -m pip install matplotlib'"
        python3 -m pip install -q matplotlib >&2 ||
            python3 -m pip install -q --break-system-packages matplotlib >&2 ||
            { say "report: no matplotlib: tables written, charts not"; return 1; }
    fi
    python3 scripts/bench_charts.py "$out" && python3 scripts/bench_tables.py "$out"
}

# Record and replay of unmodified applications (scripts/bench_record.sh).
run_record() {
    BENCH_OUT=$out sh scripts/bench_record.sh "$B"
}

start=$(now)
for part in $PARTS; do
    case $part in
    build | warm | size | codecs | coldstart | startup | speed | firstlaunch | report | record | hardening | decode) ;;
    *) die "unknown part '$part' in BENCH_PARTS (build warm size codecs coldstart startup speed firstlaunch report record hardening decode)" ;;
    esac
    t0=$(now)
    l0=$(load)
    say "== $part"
    if "run_$part"; then
        say "$part: done in $(elapsed "$t0" "$(now)") s"
        case $part in
        build) detail=", -j$JOBS and -j1" ;;
        speed) detail=", sizes $SIZES, $RUNS timed runs" ;;
        *) detail="" ;;
        esac
        took="$(elapsed "$t0" "$(now)") s$detail"
        [ "$part" = report ] || set_env "part_$part" \
            "$(date -u +%Y-%m-%dT%H:%MZ), $took, load average $l0 → $(load)"
    else
        say "$part: FAILED"
        failed="$failed $part"
    fi
    if [ "$part" = build ] && [ -n "$failed" ]; then
        die "the pack did not build; nothing to measure"
    fi
done
say "total $(elapsed "$start" "$(now)") s; results in $out"
[ -z "$failed" ] || die "failed:$failed"
