#!/usr/bin/env python3
"""conv_goal_table.py — the pack's convolution picks against NPP, with goals.

Reads what scripts/conv_bench.sh wrote on a GPU (conv_best.csv: the pick per
family and width, timed; conv_best.md: the roofline line of the same run;
peer.csv: NPP's time per family and width, only for results that passed its
check) and prints, per family, a table of each width's pick, its time, NPP's,
the ratio against the goal, and the fraction of the measured FP32 peak and
copy bandwidth. The goals (docs/BENCH.md, "Against NPP"): time / NPP <= 1 at
widths 3 and 5 (memory-bound: within 1.3x of the copy floor), <= 0.25 at 7 to
21, <= 0.5 at 23 to 31; >= 50 % of the FP32 peak from width 15 on. A missed
goal says by how much.

usage: conv_goal_table.py DIR   (the folder conv_bench.sh wrote; prints markdown)
"""
import csv
import os
import re
import sys


def ratio_goal(fw):
    if fw <= 5:
        return 1.0
    if fw <= 21:
        return 0.25
    return 0.5


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    d = sys.argv[1]
    try:
        with open(os.path.join(d, "conv_best.md")) as f:
            text = f.read()
        with open(os.path.join(d, "conv_best.csv")) as f:
            picks = list(csv.DictReader(f))
    except OSError as e:
        sys.exit("conv_goal_table: %s" % e)
    m = re.search(r"copy ([\d.]+) GB/s, FP32 FMA ([\d.]+) GFLOP/s", text)
    if not m:
        sys.exit("conv_goal_table: no roofline line in %s/conv_best.md" % d)
    copy_gbps, peak = float(m.group(1)), float(m.group(2))
    peers = {}
    try:
        with open(os.path.join(d, "peer.csv")) as f:
            for r in csv.DictReader(f):
                peers[(r["family"], int(r["fw"]))] = (float(r["ms"]), r["name"])
    except OSError:
        pass
    device = picks[0]["device"] if picks else "?"
    print("Device: %s. Roofline measured in the same run: FP32 FMA %.1f TFLOP/s, "
          "copy %.0f GB/s. Goals: time / NPP <= 1 at FW 3-5 (and within 1.3x of the "
          "copy floor), <= 0.25 at FW 7-21, <= 0.5 at FW 23-31; >= 50 %% of FP32 peak "
          "from FW 15. A width without an NPP time had an NPP result that failed its "
          "check (peer.md)." % (device, peak / 1000, copy_gbps))
    for fam in ("conv-grey", "conv-rgba"):
        rows = sorted((r for r in picks if r["family"] == fam), key=lambda r: int(r["fw"]))
        if not rows:
            continue
        print()
        print("### %s, %sx%s" % (fam, rows[0]["width"], rows[0]["height"]))
        print()
        print("| FW | best variant | ms | NPP ms | time / NPP | goal | % FP32 peak | "
              "% copy bandwidth | time / copy floor |")
        print("|---:|---|---:|---:|---:|---|---:|---:|---:|")
        for r in rows:
            fw = int(r["fw"])
            ms = float(r["median_ms"])
            gflops, gbps = float(r["gflops"]), float(r["gbps"])
            pct_peak = 100 * gflops / peak
            floor = gbps / copy_gbps  # the copy floor's time / ours
            p = peers.get((fam, fw))
            goal = ratio_goal(fw)
            if p:
                ratio = ms / p[0]
                verdict = "met" if ratio <= goal else "missed (<= %.2f): %.3fx the goal" % (
                    goal, ratio / goal)
                npp, rtext = "%.4f" % p[0], "%.3f" % ratio
            else:
                npp, rtext, verdict = "-", "-", "no NPP time"
            if fw <= 5 and floor > 0:
                over = 1 / floor
                verdict += "; copy floor: %s" % (
                    "met" if over <= 1.3 else "%.2fx (goal <= 1.3)" % over)
            peak_text = "%.0f" % pct_peak
            if fw >= 15:
                peak_text += " ✓" if pct_peak >= 50 else " (< 50)"
            print("| %d | %s | %.4f | %s | %s | %s | %s | %.0f | %.2f |" % (
                fw, r["series"], ms, npp, rtext, verdict, peak_text, 100 * floor,
                1 / floor if floor > 0 else 0))


if __name__ == "__main__":
    main()
