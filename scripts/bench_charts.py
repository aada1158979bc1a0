#!/usr/bin/env python3
"""bench_charts.py OUT_DIR — PNG charts from the CSV files of a `make bench`
run (docs/BENCH.md), written beside them:

  speed_rel_<family>_<size>.png   each kernel's time relative to its
                                  family's baseline (100% line) against the
                                  filter width, as the seeds drew them;
                                  conv-rgba twice: without and (log scale)
                                  with the naive and __constant kernels
  speed_ms_<family>_<size>.png    median ms against the filter width
  roofline.png                    achieved GFLOP/s against arithmetic
                                  intensity, under the measured roofline
  startup.png                     ms to the end of the first launch, from
                                  source and from the pack
  size.png                        raw, zlib-alone and pack bytes per family

Needs matplotlib (scripts/bench.sh installs it when it is missing).
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.dont_write_bytecode = True  # no scripts/__pycache__ from the import below
from bench_tables import read_csv, read_env  # noqa: E402

BASELINE = {"conv-grey": "Convolve", "conv-rgba": "reda_float4"}
CHANNELS = {"conv-grey": "grey float", "conv-rgba": "RGBA float"}
SLOW_RGBA = ("reda_naive", "reda_constant")
DPI = 110


def save(fig, out, name):
    path = os.path.join(out, name)
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    os.replace(tmp, path)


def series_order(rows):
    """Series labels in CSV (manifest) order."""
    seen = []
    for r in rows:
        if r["series"] not in seen:
            seen.append(r["series"])
    return seen


STYLES = ["o-", "s-", "^-", "D-", "v-", "P-", "X-", "*-", "<-", ">-"]


def speed_charts(out, rows, device):
    sizes = sorted({int(r["width"]) for r in rows})
    for family in ("conv-grey", "conv-rgba"):
        fam = [r for r in rows if r["family"] == family]
        if not fam:
            continue
        labels = series_order(fam)
        base_label = next((s for s in labels if s.split(" ")[0] == BASELINE[family]), None)
        for size in sizes:
            at = [r for r in fam if int(r["width"]) == size]
            ms = {(r["series"], int(r["fw"])): float(r["median_ms"]) for r in at}
            title = f"{family}, {size}×{size} {CHANNELS[family]} — {device}"

            fig, ax = plt.subplots(figsize=(9, 5.5))
            for i, s in enumerate(labels):
                pts = sorted((fw, v) for (lab, fw), v in ms.items() if lab == s)
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], STYLES[i % len(STYLES)],
                            label=s, markersize=4, linewidth=1.2)
            ax.set_yscale("log")
            ax.set_xlabel("filter width")
            ax.set_ylabel("median kernel time, ms (log)")
            ax.set_title(title, fontsize=10)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
            save(fig, out, f"speed_ms_{family}_{size}.png")

            if not base_label:
                continue
            variants = [("", [s for s in labels if family != "conv-rgba"
                              or s.split(" ")[0] not in SLOW_RGBA], False)]
            if family == "conv-rgba":
                variants.append(("-all", labels, True))
            for suffix, chosen, log in variants:
                fig, ax = plt.subplots(figsize=(9, 5.5))
                for i, s in enumerate(chosen):
                    pts = []
                    for (lab, fw), v in ms.items():
                        b = ms.get((base_label, fw))
                        if lab == s and b:
                            pts.append((fw, 100.0 * v / b))
                    pts.sort()
                    if not pts or s == base_label:
                        continue
                    ax.plot([p[0] for p in pts], [p[1] for p in pts],
                            STYLES[labels.index(s) % len(STYLES)], label=s, markersize=4,
                            linewidth=1.2)
                ax.axhline(100, color="black", linewidth=2, label=f"{base_label} (100%)")
                if log:
                    ax.set_yscale("log")
                ax.set_xlabel("filter width")
                ax.set_ylabel(f"time relative to {base_label}, %" + (" (log)" if log else ""))
                ax.set_title(title, fontsize=10)
                ax.grid(True, which="both", alpha=0.3)
                ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
                save(fig, out, f"speed_rel_{family}{suffix}_{size}.png")


def roofline_chart(out, rows, roof, device):
    if not rows or not roof:
        return
    bw, peak = float(roof[0]["copy_gbps"]), float(roof[0]["fma_gflops"])
    size = max(int(r["width"]) for r in rows)
    at = [r for r in rows if int(r["width"]) == size]
    fig, ax = plt.subplots(figsize=(9, 5.5))
    colours = plt.get_cmap("tab20")
    lo, hi = 1e9, 0.0
    for i, s in enumerate(series_order(at)):
        pts = [(float(r["gflops"]) / float(r["gbps"]), float(r["gflops"]))
               for r in at if r["series"] == s and float(r["gbps"]) > 0]
        family = next(r["family"] for r in at if r["series"] == s)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o" if family == "conv-grey"
                    else "^", color=colours(i % 20), label=s, markersize=5, linestyle="none")
            lo, hi = min([lo] + [p[0] for p in pts]), max([hi] + [p[0] for p in pts])
    ridge = peak / bw if bw > 0 else 1
    xs = [min(lo, ridge) / 3, max(hi, ridge) * 3]
    ax.plot([xs[0], ridge, xs[1]], [xs[0] * bw, peak, peak], color="black", linewidth=2,
            label=f"roofline: {bw:.0f} GB/s copy, {peak:.0f} GFLOP/s FMA")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity, flop per byte of minimum traffic (log)")
    ax.set_ylabel("GFLOP/s (log)")
    ax.set_title(f"Roofline at {size}×{size}, every width (o grey, ^ RGBA) — {device}",
                 fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    save(fig, out, "roofline.png")


def startup_chart(out, rows, device):
    med = {}
    for r in rows:
        if r["metric"] in ("ready_loader", "first_launch") and r["kernel"]:
            key = (r["kernel"], int(r["fw"]))
            med.setdefault(key, {}).setdefault(r["form"], {})[r["metric"]] = float(r["median_ms"])
    keys = list(med.keys())
    if not keys:
        return
    def total(k, form):
        m = med[k].get(form, {})
        return m["ready_loader"] + m["first_launch"] if len(m) == 2 else None
    forms = [f for f in ("native", "cubin", "ptx") if any(total(k, f) for k in keys)]
    fig, ax = plt.subplots(figsize=(max(9, 0.35 * len(keys)), 5.5))
    width = 0.8 / (1 + len(forms))
    for j, form in enumerate(["source"] + forms):
        xs, ys = [], []
        for i, k in enumerate(keys):
            t = total(k, form)
            if t:
                xs.append(i + (j - len(forms) / 2) * width)
                ys.append(t)
        ax.bar(xs, ys, width=width, label=f"from {form}" if form == "source" else
               f"from the pack ({form})")
    ax.set_yscale("log")
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([f"{k} {'FW ' + str(w) if w else ''}" for k, w in keys], rotation=75,
                       ha="right", fontsize=7)
    ax.set_ylabel("ms to the end of the first launch (log)")
    ax.set_title(f"Start-up, cold driver caches — {device}", fontsize=10)
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, out, "startup.png")


def size_chart(out, rows, device):
    fams = []
    tot = {}
    for r in rows:
        f = r["family"] + ("" if r["form"] == "native" else f" ({r['form']})")
        if f not in fams:
            fams.append(f)
        t = tot.setdefault(f, [0, 0, 0])
        t[0] += int(r["raw_bytes"])
        t[1] += int(r["zlib_bytes"])
        t[2] += int(r["pack_bytes"])
    if not fams:
        return
    fig, ax = plt.subplots(figsize=(9, 5))
    width = 0.27
    for j, (what, label) in enumerate(((0, "raw binaries"), (1, "zlib alone, per binary"),
                                       (2, "pack (zlib / XOR delta)"))):
        xs = [i + (j - 1) * width for i in range(len(fams))]
        ys = [tot[f][what] / 1e6 for f in fams]
        bars = ax.bar(xs, ys, width=width, label=label)
        for b, f in zip(bars, fams):
            if what:
                ax.annotate(f"{100 * tot[f][what] / tot[f][0]:.0f}%",
                            (b.get_x() + b.get_width() / 2, b.get_height()),
                            ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(fams)))
    ax.set_xticklabels(fams, fontsize=8)
    ax.set_ylabel("MB")
    ax.set_title(f"Pack size by kernel family — {device}", fontsize=10)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, out, "size.png")


def main():
    if len(sys.argv) != 2:
        print("usage: bench_charts.py OUT_DIR", file=sys.stderr)
        return 2
    out = sys.argv[1]
    device = read_env(out).get("name", os.path.basename(out)).strip()
    speed = read_csv(os.path.join(out, "speed.csv"))
    if speed:
        speed_charts(out, speed, device)
        roofline_chart(out, speed, read_csv(os.path.join(out, "roofline.csv")), device)
    startup_chart(out, read_csv(os.path.join(out, "startup.csv")), device)
    size_chart(out, read_csv(os.path.join(out, "size.csv")), device)
    return 0


if __name__ == "__main__":
    sys.exit(main())
