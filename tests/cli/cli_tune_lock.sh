#!/bin/sh
# --tune-cmd on a GPU (the stub driver plays an Intel one) keeps -j: the
# variants build in parallel, and the timing commands take turns on the
# device (clc/engine/device_lock.h). Each command marks the device busy
# for a moment; none may find it busy, and every variant gets its timing.
# On a CPU device -j 1 stays (cli_tune.sh).
. "$(dirname "$0")/../lib/cli_lib.sh"
. "$(dirname "$0")/../lib/stub_lib.sh"
cd "$TMP" || exit 1
if ! stub_use "intel:tgllp"; then
    bad "the stub driver is not built ($STUB_LIB)"
    cli_done
fi
cat >k.cl <<'K'
__kernel void k(__global float *x) { x[get_global_id(0)] *= V; }
K
cat >t.sh <<'K'
#!/bin/sh
# busy/ exists while a timing runs: finding it means two overlap.
if ! mkdir "$1/busy" 2>/dev/null; then echo overlap >>"$1/overlaps"; fi
sleep 0.2
rmdir "$1/busy" 2>/dev/null
echo "median_ns=1000 runs=1 size=1x1"
K
chmod +x t.sh
run "$CLC" k.cl -D V=1,2,3,4,5,6 --device 0 -j 4 --tune-cmd "$TMP/t.sh $TMP" -o k.clcpack
expect_rc 0 "six variants, -j 4, each timed by --tune-cmd"
if grep -q "one variant at a time" "$ERR"; then bad "-j 4 was cut to -j 1 on a GPU"; else ok "-j 4 kept on a GPU"; fi
[ ! -e overlaps ] && ok "no two timings overlapped on the device" || bad "$(wc -l <overlaps) timings overlapped"
run "$CLC" list --json k.clcpack
n=$(grep -o '"median_ns": 1000' "$OUT" | wc -l)
e=$(grep -o '"defines": {"V": "[0-9]"}' "$OUT" | sort -u | wc -l)
[ "$n" -ge 6 ] && [ "$e" -eq 6 ] && ok "every variant has its timing ($n entries of 6 variants)" ||
    bad "$n timings over $e variants, wanted every entry of 6"
cli_done
