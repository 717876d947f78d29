#!/usr/bin/env python3
"""Benchmark canopy-list inside archives against the tools that list them, in one run.

Makes its archives once (under $CANOPY_BENCH_DIR/archives, default
/tmp/canopy-bench/archives): a 1,000,000-entry zip and the tar.gz of the same
tree (1,000 folders of 1,000 empty files), a 10-entry zip (the memory
baseline), and a 200,000-entry tar.zst. Then times each command N times,
interleaved and with warm caches, and prints the median wall time, the ratio to
its baseline and the peak RSS (from /usr/bin/time). It asserts nothing: the figures go
in the closing notes.

    python3 src-tauri/core/benches/archives.py [--runs 7] [--bin target/release/canopy-list]
"""

import argparse
import io
import os
import statistics
import subprocess
import sys
import tarfile
import time
import zipfile

ROOT = os.path.join(os.environ.get("CANOPY_BENCH_DIR", "/tmp/canopy-bench"), "archives")


def ensure_archives():
    done = os.path.join(ROOT, ".complete")
    if os.path.exists(done):
        return
    os.makedirs(ROOT, exist_ok=True)
    print(f"making archives under {ROOT} (once)...", file=sys.stderr)
    with zipfile.ZipFile(os.path.join(ROOT, "m1.zip"), "w", zipfile.ZIP_STORED) as z:
        for d in range(1000):
            for f in range(1000):
                z.writestr(f"d{d:04}/f{f:04}.txt", b"")
    with zipfile.ZipFile(os.path.join(ROOT, "m10.zip"), "w") as z:
        for i in range(10):
            z.writestr(f"d/f{i}.txt", b"")
    with tarfile.open(os.path.join(ROOT, "m1.tar.gz"), "w:gz", format=tarfile.GNU_FORMAT, compresslevel=6) as t:
        for d in range(1000):
            for f in range(1000):
                t.addfile(tarfile.TarInfo(f"d{d:04}/f{f:04}.txt"))
    plain = os.path.join(ROOT, "k200.tar")
    with tarfile.open(plain, "w", format=tarfile.GNU_FORMAT) as t:
        for d in range(200):
            for f in range(1000):
                t.addfile(tarfile.TarInfo(f"d{d:03}/f{f:04}.txt"))
    subprocess.run(["zstd", "-q", "-f", plain, "-o", os.path.join(ROOT, "k200.tar.zst")], check=True)
    os.remove(plain)
    open(done, "w").close()


def run(argv):
    """Wall seconds and peak RSS (KiB, from /usr/bin/time) of one run, output discarded."""
    if isinstance(argv, str):
        argv = ["sh", "-c", argv]
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
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--bin", default="target/release/canopy-list")
    args = ap.parse_args()
    ensure_archives()
    cl = os.path.abspath(args.bin)
    a = lambda n: os.path.join(ROOT, n)
    # (label, command, baseline label); a shell pipeline's RSS is its largest process's.
    cases = [
        ("unzip -Z1 m1.zip | wc -l", f"unzip -Z1 {a('m1.zip')} | wc -l", None),
        ("canopy-list m1.zip (first page, depth 2)", [cl, a("m1.zip")], "unzip -Z1 m1.zip | wc -l"),
        ("canopy-list --depth 1 m1.zip", [cl, "--depth", "1", a("m1.zip")], "unzip -Z1 m1.zip | wc -l"),
        ("canopy-list m10.zip (memory baseline)", [cl, a("m10.zip")], None),
        ("bsdtar -tf m1.tar.gz | wc -l", f"bsdtar -tf {a('m1.tar.gz')} | wc -l", None),
        ("canopy-list m1.tar.gz (first page)", [cl, a("m1.tar.gz")], "bsdtar -tf m1.tar.gz | wc -l"),
        ("tar --zstd -tf k200.tar.zst | wc -l", f"tar --zstd -tf {a('k200.tar.zst')} | wc -l", None),
        ("canopy-list --all --cap 1000 k200.tar.zst (every entry)", [cl, "--all", "--cap", "1000", a("k200.tar.zst")], "tar --zstd -tf k200.tar.zst | wc -l"),
    ]
    times = {label: [] for label, _, _ in cases}
    rss = {label: [] for label, _, _ in cases}
    for _ in range(args.runs):
        for label, argv, _ in cases:
            w, m = run(argv)
            times[label].append(w)
            rss[label].append(m)
    med = {label: statistics.median(v) for label, v in times.items()}
    print(f"{'command':58} {'median ms':>10} {'ratio':>7} {'peak RSS KiB':>13}")
    for label, _, base in cases:
        ratio = f"{med[label] / med[base]:.2f}x" if base else ""
        print(f"{label:58} {med[label] * 1000:10.0f} {ratio:>7} {max(rss[label]):13}")


if __name__ == "__main__":
    main()
