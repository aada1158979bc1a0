#!/usr/bin/env python3
"""vendor_bench.py — what each vendor's offline entries cost (docs/vendors/).

Builds the bundled kernels at a few filter widths (default 3,15,31: every
kernel, a stated subset of the default set) once for the local CPU device
(PoCL) and once per offline toolchain with --device none (--intel-gpu,
--amd-gpu, --spirv, each with its default target list), and prints, as
Markdown: the build time each adds (wall at -j, and the summed time of its
build jobs), the bytes its entries add to a pack, raw and stored, and what
the delta bases between one vendor's targets save (each entry compressed
alone at the pack's zstd level, 19, without a dictionary or prefix,
against the pack). Then the pack of all of them merged, and, for Intel on
the width-3 variants: per-target entries against ocloc's fat archive (one
`ar` of every target per variant), and the default (ocloc -exclude_ir)
against --intel-ir (each binary keeps the program's SPIR-V).

Usage: scripts/vendor_bench.py [--clc build/clc-pack] [--widths 3,15,31]
                               [-j N] [--out FILE]
Prints the table; with --out also writes it to FILE. Needs the offline
compilers (make deps) and the zstd command (zlib -9 stands in without it,
and the tables say so).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zlib


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit("vendor_bench: %s failed (%d):\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    return p.stdout


def pack(clc, args, out, jobs):
    """Builds a pack; returns (wall s, summed build s)."""
    t0 = time.monotonic()
    text = run([clc] + args + ["--rebuild", "-j", str(jobs), "-o", out])
    wall = time.monotonic() - t0
    m = re.search(r"([0-9.]+) s of builds", text)
    return wall, float(m.group(1)) if m else 0.0


def entries(clc, path):
    return json.loads(run([clc, "list", "--json", path]))


ZSTD = shutil.which("zstd")
ALONE = "zstd -19" if ZSTD else "zlib -9"


def compressed(data):
    """data compressed alone: zstd at the pack's level (a frame without a
    checksum, as the pack stores), else zlib -9."""
    if ZSTD:
        return len(subprocess.run([ZSTD, "-19", "-q", "-c", "--no-check"], input=data,
                                  capture_output=True, check=True).stdout)
    return len(zlib.compress(data, 9))


def alone_bytes(clc, path, index):
    """One entry's binary compressed alone, as if stored with no delta base."""
    data = subprocess.run([clc, "extract", path, "--entry", str(index), "-o", "-"],
                          capture_output=True, check=True).stdout
    return compressed(data)


def kib(n):
    return "%.1f KiB" % (n / 1024.0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clc", default="build/clc-pack")
    ap.add_argument("--kernels", default="kernels")
    ap.add_argument("--widths", default="3,15,31")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out")
    a = ap.parse_args()
    clc = os.path.abspath(a.clc)
    tmp = tempfile.mkdtemp(prefix="clc-vendor-bench-")
    load_before = os.getloadavg()
    env_cache = os.environ.setdefault("XDG_CACHE_HOME", os.path.join(tmp, "cache"))
    base = ["--kernels", a.kernels, "--widths", a.widths]
    runs = [("PoCL (native, the baseline)", "cpu", ["--device", "cpu"]),
            ("Intel (ocloc, default targets)", "intel", ["--device", "none", "--intel-gpu"]),
            ("AMD (clang + ROCm device libs, default targets)", "amd",
             ["--device", "none", "--amd-gpu"]),
            ("SPIR-V (clang + llvm-spirv)", "spirv", ["--device", "none", "--spirv"])]
    rows, paths, tools = [], [], []
    for label, name, extra in runs:
        path = os.path.join(tmp, name + ".clcpack")
        wall, builds = pack(clc, base + extra, path, a.j)
        info = entries(clc, path)
        tools += ["%s: %s" % (d["device_name"], d["driver_version"]) for d in info["devices"]]
        offline = [e for e in info["entries"] if e["kind"] not in ("native", "ptx", "cubin")]
        kept = offline if name != "cpu" else info["entries"]
        raw = sum(e["raw_size"] for e in kept)
        stored = sum(e["stored_size"] for e in kept)
        targets = sorted({e["target"] for e in kept if e["target"]})
        variants = len({(e["kernel"], json.dumps(e["defines"]), tuple(e["wg"])) for e in kept})
        cross = sum(1 for e in kept if e["base"] is not None and
                    info["entries"][e["base"]]["arch"] != e["arch"])
        alone = sum(alone_bytes(clc, path, e["index"]) for e in kept) if name != "cpu" else 0
        rows.append((label, variants, len(kept), len(targets) or 1, wall, builds, raw, stored,
                     alone, cross))
        paths.append(path)
    merged = os.path.join(tmp, "all.clcpack")
    run([clc, "merge"] + paths + ["-o", merged, "-q"])
    all_size = os.path.getsize(merged)

    # Intel: per-target entries against ocloc's fat archive, width 3.
    fat_note = ""
    ocloc = shutil.which("ocloc")
    if ocloc:
        w3 = os.path.join(tmp, "intel3.clcpack")
        pack(clc, ["--kernels", a.kernels, "--widths", "3", "--device", "none", "--intel-gpu"],
             w3, a.j)
        info = entries(clc, w3)
        targets = sorted({e["target"] for e in info["entries"]},
                         key=lambda t: [e["arch"] for e in info["entries"] if e["target"] == t][0])
        per_target = sum(e["stored_size"] for e in info["entries"])
        seen, fat_raw, fat_z, fat_s = set(), 0, 0, 0.0
        w3ir = os.path.join(tmp, "intel3-ir.clcpack")
        ir_wall = pack(clc, ["--kernels", a.kernels, "--widths", "3", "--device", "none",
                             "--intel-gpu", "--intel-ir"], w3ir, a.j)[0]
        ir_info = entries(clc, w3ir)
        ir_rows = []
        for label, p_info, p_path in (("default (`-exclude_ir`)", info, w3),
                                      ("`--intel-ir`", ir_info, w3ir)):
            es = p_info["entries"]
            ir_rows.append("| %s | %d | %s | %s | %s |"
                           % (label, len(es), kib(sum(e["raw_size"] for e in es)),
                              kib(sum(e["stored_size"] for e in es)),
                              kib(os.path.getsize(p_path))))
        for e in info["entries"]:
            key = (e["kernel"], json.dumps(e["defines"]), tuple(e["wg"]))
            if key in seen:
                continue
            seen.add(key)
            d = tempfile.mkdtemp(dir=tmp)
            src = os.path.join(d, "p.cl")
            subprocess.run([clc, "extract", w3, "--entry", str(e["index"]), "--source", "-o", src],
                           check=True, capture_output=True)
            t0 = time.monotonic()
            # -exclude_ir as clc-pack's own entries (docs/vendors/INTEL.md).
            run([ocloc, "compile", "-q", "-file", src, "-device", ",".join(targets), "-out_dir", d,
                 "-output", "fat", "-output_no_suffix", "-exclude_ir", "-options", e["options"]])
            fat_s += time.monotonic() - t0
            blob = open(os.path.join(d, "fat"), "rb").read()
            fat_raw += len(blob)
            fat_z += compressed(blob)
            shutil.rmtree(d)
        fat_note = ("| %d variants, %d targets | per-target entries in a pack: %s | one fat archive "
                    "per variant: %s raw, %s with %s (one ocloc run per variant: %.1f s in all) |"
                    % (len(seen), len(targets), kib(per_target), kib(fat_raw), kib(fat_z), ALONE,
                       fat_s))

    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    out = []
    out.append("# What each vendor adds to a pack\n")
    load_after = os.getloadavg()
    out.append("Written by `scripts/vendor_bench.py --widths %s -j %d` on %s, %s (%d cores, "
               "shared with other builds while it ran: load average %.1f at the start, "
               "%.1f at the end (1 minute); build times vary several-fold with "
               "the machine's load, sizes do not), "
               "with clc-pack's default target lists; the bundled kernels at filter widths %s "
               "(a stated subset of the default set's 3, 5, ..., 31). Build times are for the "
               "offline compilers alone (`--device none`), except the PoCL row; *build jobs* is "
               "the sum of the variants' build times, *build wall* the run's. Toolchains: %s.\n"
               % (a.widths, a.j, time.strftime("%Y-%m-%d"), cpu, os.cpu_count() or 1,
                  load_before[0], load_after[0], a.widths,
                  "; ".join(sorted(set(tools)))))
    out.append("| entries of | variants | entries | targets | build wall | build jobs | raw | in "
               "the pack | each alone (%s) | delta against another target |" % ALONE)
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, v, n, t, wall, builds, raw, stored, alone, cross in rows:
        out.append("| %s | %d | %d | %d | %.1f s | %.1f s | %s | %s | %s | %d |"
                   % (label, v, n, t, wall, builds, kib(raw), kib(stored),
                      kib(alone) if alone else "-", cross))
    out.append("")
    out.append("All four merged (`clc-pack merge`): %s (%d bytes).\n" % (kib(all_size), all_size))
    if fat_note:
        out.append("Intel, per-target entries against ocloc's fat archive (width 3 only; both "
                   "without the SPIR-V inside, ocloc `-exclude_ir`):\n")
        out.append("| subset | per-target | fat archive |")
        out.append("|---|---|---|")
        out.append(fat_note)
        out.append("")
        out.append("Intel, the program's SPIR-V inside each binary (width 3 only, the same "
                   "variants and targets; `--intel-ir` built in %.1f s):\n" % ir_wall)
        out.append("| Intel binaries | entries | raw | in the pack | pack file |")
        out.append("|---|---:|---:|---:|---:|")
        out.extend(ir_rows)
        out.append("")
    text = "\n".join(out) + "\n"
    sys.stdout.write(text)
    if a.out:
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        with open(a.out, "w") as f:
            f.write(text)
    shutil.rmtree(tmp, ignore_errors=True)
    del env_cache


if __name__ == "__main__":
    main()
