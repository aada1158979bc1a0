#!/bin/sh
# Writing a pack is crash-safe: clc-pack SIGKILLed at random moments while it
# writes over an existing pack, 100 times, leaves at the target either the
# previous pack or the new complete one (byte for byte), which verifies; a
# killed writer's temporary file is removed by the next write, so they never
# pile up. Then 4 clc-pack processes writing the same path at once all
# succeed and leave one of their packs, complete, and no temporary file.
# PoCL's kernel cache (on by default) keeps each run to a fraction of a
# second; CRASH_RUNS=N changes the 100.
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$TMP" || exit 1
runs=${CRASH_RUNS:-100}
SEL="--kernels $KERNELS --kernel Convolve_Def --wg 8x8 --no-check -q -j 1"

# The previous pack and the new one, each written once in full.
run "$CLC" $SEL --widths 3 -o old.clcpack
expect_rc 0 "the previous pack is written"
run "$CLC" $SEL --widths 3,5 -o new.clcpack
expect_rc 0 "the new pack is written"
run "$CLC" $SEL --widths 3,5 -o new2.clcpack
expect_true "clc-pack writes the same bytes for the same inputs" cmp -s new.clcpack new2.clcpack
if cmp -s old.clcpack new.clcpack; then bad "the two packs differ"; else ok "the two packs differ"; fi
[ -f old.clcpack ] && [ -f new.clcpack ] || cli_done

# The kill loop runs in Python for its timing: half the runs are killed
# after a random delay over a whole run's length (before, during or after
# the write), half the moment their temporary file appears plus 0-2 ms
# (in the middle of writing it, which a random delay alone almost never
# hits: the write takes a millisecond of a 0.2-0.5 s run).
python3 - "$runs" "$CLC" $SEL --widths 3,5 -o target.clcpack >kills.txt 2>&1 <<'PY'
import filecmp, os, random, shutil, signal, subprocess, sys, time
runs, clc, args = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
random.seed(20240611)
def temps():
    return [n for n in os.listdir(".") if n.startswith("target.clcpack.tmp")]
t0 = time.monotonic()
subprocess.run([clc] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
full = time.monotonic() - t0
st = dict(killed=0, killed_in_write=0, finished=0, old=0, new=0, other=0, bad_verify=0,
          left_temp=0, max_temps=0)
for i in range(runs):
    shutil.copyfile("old.clcpack", "target.clcpack")
    proc = subprocess.Popen([clc] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    in_write = False
    if i % 2 == 0:
        time.sleep(random.uniform(0, full * 1.25))
    else:
        before = set(temps())
        while proc.poll() is None and not (set(temps()) - before):
            pass
        in_write = proc.poll() is None
        time.sleep(random.uniform(0, 0.002))
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
        st["killed"] += 1
        st["killed_in_write"] += in_write
    else:
        st["finished"] += 1
    proc.wait()
    if filecmp.cmp("target.clcpack", "old.clcpack", shallow=False):
        st["old"] += 1
    elif filecmp.cmp("target.clcpack", "new.clcpack", shallow=False):
        st["new"] += 1
    else:
        st["other"] += 1
        shutil.copyfile("target.clcpack", "bad_target_%d.clcpack" % i)
    if subprocess.run([clc, "verify", "target.clcpack"], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        st["bad_verify"] += 1
    n = len(temps())
    st["left_temp"] += n > 0
    st["max_temps"] = max(st["max_temps"], n)
print("full run %.0f ms" % (full * 1000))
print(" ".join("%s=%d" % kv for kv in st.items()))
PY
cat kills.txt
stat_of() { sed -n "s/.*\b$1=\([0-9]*\).*/\1/p" kills.txt; }
killed=$(stat_of killed); in_write=$(stat_of killed_in_write); was_old=$(stat_of old)
was_new=$(stat_of new); other=$(stat_of other); bad_verify=$(stat_of bad_verify)
left_temp=$(stat_of left_temp); max_temps=$(stat_of max_temps)
if [ -z "$killed" ]; then bad "the kill loop ran"; cli_done; fi
echo "kills: $runs runs, $killed killed ($in_write of them while their temporary file existed);" \
     "the target held the previous pack $was_old times, the new one $was_new times, anything" \
     "else $other times; $left_temp kills left a temporary file, at most $max_temps at once"
if [ "$other" -eq 0 ]; then ok "the target is always the previous or the new pack"; else bad "the target was neither pack $other times"; fi
if [ "$bad_verify" -eq 0 ]; then ok "the target always verifies"; else bad "the target failed verify $bad_verify times"; fi
if [ "$max_temps" -le 1 ]; then ok "killed writers' temporary files do not pile up (at most $max_temps)"; else bad "$max_temps temporary files piled up"; fi
if [ "$in_write" -gt 0 ] && [ "$was_old" -gt 0 ]; then ok "runs were killed in the middle of writing"; else bad "no run was killed while writing ($killed killed)"; fi
# One complete write removes what the last killed writer left.
run "$CLC" $SEL --widths 3,5 -o target.clcpack
expect_rc 0 "a complete write after the kills succeeds"
expect_true "it wrote the new pack" cmp -s target.clcpack new.clcpack
left=$(ls | grep -c '^target\.clcpack\.tmp')
if [ "$left" -eq 0 ]; then ok "no temporary file is left after a complete write"; else bad "$left temporary files left after a complete write"; fi

# Four writers of the same path at once, each with another selection.
for w in 3 5 7 9; do
    run "$CLC" $SEL --widths "$w" -o "ref_$w.clcpack"
done
pids=""
for w in 3 5 7 9; do
    "$CLC" $SEL --widths "$w" -o shared.clcpack >"w_$w.log" 2>&1 &
    pids="$pids $!"
done
failed_writers=0
for pid in $pids; do
    wait "$pid" || failed_writers=$((failed_writers + 1))
done
if [ "$failed_writers" -eq 0 ]; then ok "4 concurrent writers of one path all succeed"; else bad "$failed_writers of 4 concurrent writers failed"; cat w_*.log; fi
run "$CLC" verify shared.clcpack
expect_rc 0 "the shared path holds a valid pack"
match=""
for w in 3 5 7 9; do cmp -s shared.clcpack "ref_$w.clcpack" && match=$w; done
if [ -n "$match" ]; then ok "it is one writer's complete pack (widths $match)"; else bad "it is none of the 4 writers' packs"; fi
left=$(ls | grep -c '^shared\.clcpack\.tmp')
if [ "$left" -eq 0 ]; then ok "no temporary file is left by concurrent writers"; else bad "$left temporary files left by concurrent writers"; fi
cli_done
