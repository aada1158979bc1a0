#!/usr/bin/env python3
"""bench_tables.py OUT_DIR — the tables of a `make bench` run that are
computed from its CSV files rather than printed by the benchmark programs:

  OUT_DIR/build.md     build scaling, from build.csv
  OUT_DIR/findings.md  the seeds' published claims re-checked, from speed.csv
  OUT_DIR/README.md    the device's page: the run, every table, every chart
  OUT_DIR/../README.md every device measured so far, and the claims side by
                       side (from each device folder's speed.csv)

Standard library only, so the tables exist even where matplotlib does not.
docs/BENCH.md describes the method and the rule that decides "holds".
"""
import csv
import math
import os
import statistics
import sys

# A claim holds ("yes") when the measured effect points the way the seed says
# and is at least half its size on a log scale, that is when the measured
# speed-up is at least the square root of the claimed one; "partly" when it
# points that way but is smaller (more than NOISE); "no" otherwise.
NOISE = 1.03


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read_env(out):
    env = {}
    path = os.path.join(out, "env.txt")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    env[k] = v
    return env


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


# ---------------------------------------------------------------- build

def build_table(rows):
    if not rows:
        return ""
    rows = sorted(rows, key=lambda r: int(r["jobs"]))
    one = next((r for r in rows if r["jobs"] == "1"), None)
    lines = [
        "### Build: the default pack, cold driver caches",
        "",
        "Wall time of `clc-pack` building every default variant (each kernel at widths 3, 5, "
        "…, 31 and its default work-groups), checked and warmed up, into one pack. `-j N` "
        "builds in N worker processes, each with its own OpenCL context, since a driver may "
        "serialize builds inside one process.",
        "",
        "The goals: on a 2-core PoCL machine -j2 at least 1.8× faster than -j1; on the "
        "16-core GPU host -j16 at least 10× (0.63 per worker).",
        "",
        "| -j | wall s | variants | s per variant | speed-up | speed-up / N | goal | same bytes as -j1 |",
        "|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in rows:
        j = int(r["jobs"])
        wall = float(r["wall_s"])
        n = int(r["variants"] or 0)
        per = f"{wall / n:.2f}" if n else "–"
        if one and float(one["wall_s"]) > 0 and wall > 0:
            sp = float(one["wall_s"]) / wall
            spd, eff = f"{sp:.2f}×", f"{sp / j:.2f}"
        else:
            spd = eff = "–"
        status = "" if r["status"] == "0" else f" (exit status {r['status']})"
        same = r.get("identical_to_j1") or "–"
        goal = "–"
        if j > 1 and one and float(one["wall_s"]) > 0 and wall > 0:
            sp = float(one["wall_s"]) / wall
            want = 1.8 if j == 2 else 0.63 * j
            goal = f"≥ {want:.1f}×: " + ("met" if sp >= want else f"short by {want / sp:.2f}×")
        lines.append(f"| {j} | {wall:.1f}{status} | {n} | {per} | {spd} | {eff} | {goal} | {same} |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- findings

class Speed:
    """Median ms by (kernel, wg) series, width and image size."""

    def __init__(self, rows):
        self.ms = {}
        self.sizes = sorted({int(r["width"]) for r in rows})
        self.wgs = {}
        for r in rows:
            key = (r["kernel"], r["wg"], int(r["fw"]), int(r["width"]))
            self.ms[key] = float(r["median_ms"])
            self.wgs.setdefault(r["kernel"], set()).add(r["wg"])

    def wg(self, kernel, want="16x16"):
        wgs = self.wgs.get(kernel, set())
        return want if want in wgs else (sorted(wgs)[0] if wgs else None)

    def ratios(self, a, b, size, widths):
        """a's time over b's at each width both have; a and b are (kernel, wg)."""
        out = {}
        for w in widths:
            x = self.ms.get((a[0], a[1], w, size))
            y = self.ms.get((b[0], b[1], w, size))
            if x is not None and y:
                out[w] = x / y
        return out


def verdict_speedup(measured, claimed):
    """measured and claimed: how many times faster (>1) or slower (<1) A is than B."""
    if measured is None:
        return None
    if claimed < 1:
        measured, claimed = 1 / measured, 1 / claimed
    if measured >= math.sqrt(claimed):
        return "yes"
    if measured > NOISE:
        return "partly"
    return "no"


def pct(x):
    return f"{100 * x:.0f}%"


def size_label(s):
    return f"{s}²"


def combine(verdicts):
    """One verdict from the per-size ones."""
    got = [v for _, v in verdicts if v]
    if not got:
        return "not measured"
    if all(v == got[0] for v in got):
        return got[0]
    detail = ", ".join(f"{size_label(s)}: {v}" for s, v in verdicts if v)
    return f"partly ({detail})"


def claim_sawtooth(sp, size):
    conv, unroll = ("Convolve", sp.wg("Convolve")), ("Convolve_Unroll", sp.wg("Convolve_Unroll"))
    r = sp.ratios(unroll, conv, size, range(16, 21))
    if len(r) < 5:
        return None, None
    vals = [r[w] for w in range(16, 21)]
    text = "/".join(f"{100 * v:.0f}" for v in vals) + "%"
    # Beyond noise: every width at least 3% faster than Convolve, and width
    # 19 (3 left over after unrolling by 4) at least 3 points above both
    # neighbours of the pattern, 16 and 20.
    faster = all(v * NOISE <= 1 for v in vals)
    peak = r[19] == max(vals) and r[19] - max(r[16], r[20]) >= NOISE - 1
    v = "yes" if faster and peak else "partly" if faster or peak else "no"
    return text, v


def claim_unrollif_flat(sp, size):
    conv = ("Convolve", sp.wg("Convolve"))
    a = sp.ratios(("Convolve_Unroll", sp.wg("Convolve_Unroll")), conv, size, range(16, 21))
    b = sp.ratios(("Convolve_UnrollIf", sp.wg("Convolve_UnrollIf")), conv, size, range(16, 21))
    if len(a) < 5 or len(b) < 5:
        return None, None
    spread_a = max(a.values()) - min(a.values())
    spread_b = max(b.values()) - min(b.values())
    text = f"spread {100 * spread_b:.0f} points (Unroll: {100 * spread_a:.0f})"
    if spread_a < 0.05:
        return text, "moot (no sawtooth)"
    v = "yes" if spread_b <= 0.5 * spread_a or spread_b < 0.05 else \
        "partly" if spread_b < spread_a else "no"
    return text, v


def median_ratio(sp, a, b, size, widths):
    r = sp.ratios(a, b, size, widths)
    return statistics.median(r.values()) if r else None


def claim_ratio(a, b, widths, claimed_time_ratio):
    """A claim "A takes claimed_time_ratio of B's time" over widths."""
    def check(sp, size):
        ka = (a[0], sp.wg(a[0], a[1] or "16x16"))
        kb = (b[0], sp.wg(b[0], b[1] or "16x16"))
        m = median_ratio(sp, ka, kb, size, widths)
        if m is None:
            return None, None
        return pct(m), verdict_speedup(1 / m, 1 / claimed_time_ratio)
    return check


def claim_no_help_below_13(sp, size):
    conv, unroll = ("Convolve", sp.wg("Convolve")), ("Convolve_Unroll", sp.wg("Convolve_Unroll"))
    lo = median_ratio(sp, unroll, conv, size, range(3, 13))
    hi = median_ratio(sp, unroll, conv, size, range(13, 32))
    if lo is None or hi is None:
        return None, None
    text = f"below 13: {pct(lo)}, 13 and up: {pct(hi)}"
    no_help = lo >= 1 / NOISE
    helps_later = hi * NOISE < lo
    v = "yes" if no_help and helps_later else "partly" if no_help or helps_later else "no"
    return text, v


def claim_local_16_vs_8(sp, size):
    m = median_ratio(sp, ("reda_local", "8x8"), ("reda_local", "16x16"), size, range(9, 32))
    if m is None:
        return None, None
    text = f"8×8 takes {pct(m)} of 16×16's time"
    v = "yes" if m > 1.02 else "partly" if m >= 0.98 else "no"
    return text, v


LARGE = range(9, 32)
ALL = range(1, 33)
SMALL = range(3, 10)

# (claim, seed's figure, where the seed says it, check(sp, size) -> (text, verdict))
CLAIMS = [
    ("Convolve_Unroll is a sawtooth at widths 16–20 (best at width%4 = 0, worst at 3)",
     "74/78/83/92/79% of Convolve", "AMD step 4", claim_sawtooth),
    ("Convolve_UnrollIf removes the sawtooth", "flat at 16–20", "AMD step 4",
     claim_unrollif_flat),
    ("Unrolling is no help below width 13 (and helps above)", "≥100% below 13; down to 74% above",
     "AMD step 4", claim_no_help_below_13),
    ("Convolve_Def (width compiled in) is ~20% faster at small widths", "~80% of Convolve (3–9)",
     "AMD step 5", claim_ratio(("Convolve_Def", None), ("Convolve", None), SMALL, 0.8)),
    ("`__constant` filter: ~70% of the naive kernel's time", "~70% of reda_naive",
     "Reda 2", claim_ratio(("reda_constant", None), ("reda_naive", None), ALL, 0.7)),
    ("float4: ~5× faster than `__constant`", "~20% of reda_constant", "Reda 3",
     claim_ratio(("reda_float4", None), ("reda_constant", None), ALL, 0.2)),
    ("Local memory 16×16: ~35% of float4's time", "~35% of reda_float4", "Reda, local memory",
     claim_ratio(("reda_local", "16x16"), ("reda_float4", None), ALL, 0.35)),
    ("Local memory 16×16 beats 8×8 (8×8 a bit slower at larger filters)",
     "8×8 slower, widths ≥ 9", "Reda, local memory", claim_local_16_vs_8),
    ("Reda's unrolled kernel is slower than the looped float4 one for large filters",
     "~2× float4's time (widths ≥ 9)", "Reda 4",
     claim_ratio(("reda_unrolled", None), ("reda_float4", None), LARGE, 2.0)),
    ("Unrolling the local-memory kernel makes it slower",
     "up to 3× reda_local's time (widths ≥ 9)", "Reda, local unrolled",
     claim_ratio(("reda_local_unrolled", "16x16"), ("reda_local", "16x16"), LARGE, 3.0)),
]


def findings(rows):
    """[(claim, seed figure, source, measured text, verdict)] for one device."""
    sp = Speed(rows)
    out = []
    for claim, seed, where, check in CLAIMS:
        per_size = [(s,) + tuple(check(sp, s)) for s in sp.sizes]
        measured = " · ".join(f"{size_label(s)}: {t}" for s, t, _ in per_size if t)
        verdict = combine([(s, v) for s, _, v in per_size])
        out.append((claim, seed, where, measured or "not measured", verdict))
    return out


def findings_table(rows, device):
    if not rows:
        return ""
    sizes = sorted({int(r["width"]) for r in rows})
    lines = [
        "### The seeds' findings, re-checked",
        "",
        f"On {device}, from `speed.csv` (image sizes "
        + ", ".join(f"{s}×{s}" for s in sizes)
        + "). Ratios are medians over the widths named, of one kernel's median time over the "
        "other's at the same width and size. *Holds*: yes when the effect goes the seed's way "
        "and is at least half its size on a log scale (a claimed 5× needs ≥ 2.24×, a claimed "
        "20% gain ≥ 11.8%); partly when it goes that way but is smaller (over 3%); no otherwise "
        "(docs/BENCH.md).",
        "",
        "| claim | seed | source | measured | holds |",
        "|---|---|---|---|---|",
    ]
    for claim, seed, where, measured, verdict in findings(rows):
        lines.append(f"| {claim} | {seed} | {where} | {measured} | {verdict} |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- pages

def section(out, name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        return f.read().strip() + "\n"


def device_page(out, env):
    name = env.get("name", os.path.basename(out))
    lines = [f"# Benchmarks: {name}", ""]
    lines += [
        "| | |",
        "|---|---|",
        f"| device | {name} ({env.get('type', '?')}, {env.get('compute_units', '?')} compute "
        f"units, {env.get('clock_mhz', '?')} MHz) |",
        f"| platform | {env.get('platform', '?')}; {env.get('version', '?')} |",
        f"| driver | {env.get('driver', '?')} |",
    ]
    if env.get("compute_capability"):
        lines.append(f"| compute capability | {env['compute_capability']} |")
    lines += [
        f"| commit | {env.get('commit', '?')} |",
        f"| host | {env.get('host_cores', '?')} cores |",
        f"| driver caches | {env.get('caches', '?')} |",
    ]
    for part in ("build", "warm", "size", "startup", "speed"):
        if env.get("part_" + part):
            lines.append(f"| {part} measured | {env['part_' + part]} |")
    lines += [
        "",
        "Made by `make bench` (scripts/bench.sh); method and caveats in "
        "[docs/BENCH.md](../../BENCH.md). The load average is the host's, 1-minute, when the "
        "part started and ended. Every table's numbers are also in the CSV file beside it.",
        "",
    ]
    for md in ("findings.md", "startup.md", "build.md", "build-warm.md", "size.md"):
        text = section(out, md)
        if text:
            lines += ["", text.replace("\n### ", "\n#### ").replace("### ", "## ", 1)]
    charts = sorted(f for f in os.listdir(out) if f.endswith(".png"))
    if charts:
        lines += ["", "## Charts", ""]
        for c in charts:
            lines += [f"![{c[:-4]}]({c})", ""]
    if os.path.exists(os.path.join(out, "speed.md")):
        lines += ["", "## Kernel speed", "",
                  "Every kernel at every width and size, relative tables and roofline "
                  "fractions: [speed.md](speed.md)."]
    return "\n".join(lines).rstrip() + "\n"


def index_page(root):
    devices = []
    for d in sorted(os.listdir(root)):
        path = os.path.join(root, d)
        if os.path.isdir(path) and os.path.exists(os.path.join(path, "env.txt")):
            env = read_env(path)
            devices.append((d, env, read_csv(os.path.join(path, "speed.csv"))))
    lines = ["# Benchmark results", "",
             "One folder per device, written by `make bench` (docs/BENCH.md).", "",
             "| device | driver | type | measured |", "|---|---|---|---|"]
    for d, env, _ in devices:
        when = (env.get("part_speed") or env.get("part_startup") or "?").split(",")[0]
        lines.append(f"| [{env.get('name', d)}]({d}/README.md) | {env.get('driver', '?')} | "
                     f"{env.get('type', '?')} | {when} |")
    measured = [(d, env, rows) for d, env, rows in devices if rows]
    if measured:
        lines += ["", "## The seeds' findings on each device", "",
                  "Each cell: whether the claim holds, then the figure measured at that "
                  "device's largest image size; every size is in the device's findings table, "
                  "and the rule for *holds* in docs/BENCH.md.", ""]
        head = "| claim | seed |" + "".join(f" {env.get('name', d)} |" for d, env, _ in measured)
        lines += [head, "|---|---|" + "---|" * len(measured)]
        per_device = [findings(rows) for _, _, rows in measured]
        for i, (claim, seed, _, _) in enumerate(CLAIMS):
            # The verdict, and the figure at the device's largest image size.
            cells = "".join(f" {f[i][4]}; {f[i][3].split(' · ')[-1]} |" for f in per_device)
            lines.append(f"| {claim} | {seed} |{cells}")
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) != 2:
        print("usage: bench_tables.py OUT_DIR", file=sys.stderr)
        return 2
    out = sys.argv[1]
    if not os.path.isdir(out):
        print(f"bench_tables.py: {out} is not a folder", file=sys.stderr)
        return 1
    env = read_env(out)
    device = env.get("name", os.path.basename(out))
    build = build_table(read_csv(os.path.join(out, "build.csv")))
    if build:
        write_atomic(os.path.join(out, "build.md"), build)
    found = findings_table(read_csv(os.path.join(out, "speed.csv")), device)
    if found:
        write_atomic(os.path.join(out, "findings.md"), found)
    write_atomic(os.path.join(out, "README.md"), device_page(out, env))
    root = os.path.dirname(os.path.abspath(out))
    write_atomic(os.path.join(root, "README.md"), index_page(root))
    return 0


if __name__ == "__main__":
    sys.exit(main())
