#!/usr/bin/env python3
"""Benchmark canopy-list --sizes against du, gdu and dua, in one run.

Makes its trees once (under $CANOPY_BENCH_DIR/sizes, default
/tmp/canopy-bench/sizes): `m1` holds 1,000,000 files in 10,000 folders (100
folders of 100 folders of 100 files, 0 to 4,095 bytes each, so disk usage and
apparent size differ), `k200` holds 200,000 files in one folder, and `t10`
holds 10 files (the memory baseline); under $CANOPY_BENCH_FOLDERS_DIR (default
the same place; tmpfs keeps 600,000 empty folders off the disk) `f300k` holds
300,000 empty folders in one folder and `d300k` 300,763 folders three levels
deep (67 x 67 x 67), for memory. Then times each command N times,
interleaved and with warm caches (one untimed round first), and prints the
median wall time, the ratio to its baselines and the peak RSS (from
/usr/bin/time). It asserts nothing: the figures go in the closing notes.

Targets (issue 19): canopy-list at most 0.7x `du -s` (single-threaded) and at
most 1.0x the best of `gdu -n -p` and `dua` (parallel); the 1,000,000-file
tree, and each 300,000-folder tree, at most +16 MiB of peak RSS over the 10-file
tree. A tool that is not
installed is left out and said so (gdu: `apt install gdu`; dua: `cargo install
dua-cli`, or --dua PATH).

    python3 src-tauri/core/benches/sizes.py [--runs 5] [--bin target/release/canopy-list] [--dua PATH]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.join(os.environ.get("CANOPY_BENCH_DIR", "/tmp/canopy-bench"), "sizes")
FOLDERS = os.path.join(os.environ.get("CANOPY_BENCH_FOLDERS_DIR", os.path.dirname(ROOT)), "sizes-folders")


def ensure_folder_trees():
    done = os.path.join(FOLDERS, ".complete")
    if os.path.exists(done):
        return
    print(f"making folder trees under {FOLDERS} (once)...", file=sys.stderr)
    for i in range(300_000):
        os.makedirs(os.path.join(FOLDERS, "f300k", f"d{i:06}"), exist_ok=True)
    for a in range(67):
        for b in range(67):
            for c in range(67):
                os.makedirs(os.path.join(FOLDERS, "d300k", f"a{a:02}", f"b{b:02}", f"c{c:02}"), exist_ok=True)
    open(done, "w").close()


def ensure_trees():
    done = os.path.join(ROOT, ".complete")
    if os.path.exists(done):
        return
    os.makedirs(ROOT, exist_ok=True)
    print(f"making trees under {ROOT} (once; a few minutes)...", file=sys.stderr)
    data = b"x" * 4096
    n = 0
    for a in range(100):
        for b in range(100):
            d = os.path.join(ROOT, "m1", f"a{a:02}", f"b{b:02}")
            os.makedirs(d, exist_ok=True)
            for f in range(100):
                with open(os.path.join(d, f"f{f:02}"), "wb") as out:
                    out.write(data[: (n * 2654435761) % 4096])
                n += 1
    flat = os.path.join(ROOT, "k200")
    os.makedirs(flat, exist_ok=True)
    for f in range(200_000):
        with open(os.path.join(flat, f"f{f:06}"), "wb") as out:
            out.write(data[: (f * 2654435761) % 512])
    small = os.path.join(ROOT, "t10")
    os.makedirs(small, exist_ok=True)
    for f in range(10):
        with open(os.path.join(small, f"f{f}"), "wb") as out:
            out.write(b"x")
    open(done, "w").close()


def run(argv):
    """Wall seconds and peak RSS (KiB, from /usr/bin/time) of one run, output discarded."""
    report = os.path.join(ROOT, ".time")
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"failed: {argv}")
    with open(report) as f:
        return wall, int(f.read().split()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--bin", default="target/release/canopy-list")
    ap.add_argument("--dua", default=shutil.which("dua"))
    args = ap.parse_args()
    ensure_trees()
    ensure_folder_trees()
    cl = os.path.abspath(args.bin)
    gdu = shutil.which("gdu") or shutil.which("gdu-go")
    missing = [name for name, path in (("gdu", gdu), ("dua", args.dua)) if not path]
    cases = []
    for tree in ("m1", "k200"):
        t = os.path.join(ROOT, tree)
        cases.append((f"du -s {tree}", ["du", "-s", t], tree, "du"))
        if gdu:
            cases.append((f"gdu -n -p {tree}", [gdu, "-n", "-p", t], tree, "parallel"))
        if args.dua:
            cases.append((f"dua {tree}", [args.dua, t], tree, "parallel"))
        cases.append((f"canopy-list --sizes --depth 1 {tree}", [cl, "--sizes", "--depth", "1", t], tree, "canopy"))
    for tree in ("f300k", "d300k"):
        t = os.path.join(FOLDERS, tree)
        cases.append((f"du -s {tree}", ["du", "-s", t], tree, "du"))
        cases.append((f"canopy-list --sizes --depth 1 {tree}", [cl, "--sizes", "--depth", "1", t], tree, "canopy"))
    t10 = os.path.join(ROOT, "t10")
    cases.append(("canopy-list --sizes --depth 1 t10 (memory baseline)", [cl, "--sizes", "--depth", "1", t10], "t10", "base"))
    for _, argv, _, _ in cases:  # warm the caches
        run(argv)
    times = {label: [] for label, _, _, _ in cases}
    rss = {label: [] for label, _, _, _ in cases}
    for _ in range(args.runs):
        for label, argv, _, _ in cases:
            w, m = run(argv)
            times[label].append(w)
            rss[label].append(m)
    med = {label: statistics.median(v) for label, v in times.items()}
    print(f"{'command':52} {'median ms':>10} {'vs du':>7} {'vs best parallel':>17} {'peak RSS KiB':>13}")
    for label, _, tree, role in cases:
        du = med[f"du -s {tree}"] if tree != "t10" else None
        par = [med[l] for l, _, t, r in cases if t == tree and r == "parallel"]
        vs_du = f"{med[label] / du:.2f}x" if du and role != "du" else ""
        vs_par = f"{med[label] / min(par):.2f}x" if par and role == "canopy" else ""
        print(f"{label:52} {med[label] * 1000:10.0f} {vs_du:>7} {vs_par:>17} {max(rss[label]):13}")
    base = max(rss["canopy-list --sizes --depth 1 t10 (memory baseline)"])
    for tree in ("m1", "f300k", "d300k"):
        big = max(rss[f"canopy-list --sizes --depth 1 {tree}"])
        print(f"peak RSS, {tree} over t10: +{(big - base) / 1024:.1f} MiB (target at most +16 MiB)")
    if missing:
        print(f"not measured (not installed): {', '.join(missing)}")


if __name__ == "__main__":
    main()
