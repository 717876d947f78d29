#!/usr/bin/env python3
"""Benchmark canopy-list against the kernel-bound baselines, in one run.

Generates its trees (once, under $CANOPY_BENCH_DIR or /tmp/canopy-bench), then
times, interleaved and with warm caches, each command N times and prints the
median wall time of each, the ratio to its baseline, peak memory (from
/usr/bin/time -v) and the JSON size. It asserts nothing: the figures are read
by people and go in the closing notes.

    python3 src-tauri/core/benches/compare.py [--runs 11] [--bin target/release/canopy-list]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.environ.get("CANOPY_BENCH_DIR", "/tmp/canopy-bench")


def make_files(folder, n, prefix="f"):
    os.makedirs(folder, exist_ok=True)
    for i in range(n):
        fd = os.open(os.path.join(folder, f"{prefix}{i:07d}"), os.O_CREAT | os.O_WRONLY, 0o644)
        os.close(fd)


def ensure_trees():
    done = os.path.join(ROOT, ".complete")
    if os.path.exists(done):
        return
    shutil.rmtree(ROOT, ignore_errors=True)
    print(f"generating trees under {ROOT} (once)...", file=sys.stderr)
    make_files(os.path.join(ROOT, "flat200k"), 200_000)
    wide = os.path.join(ROOT, "wide50")
    for d in range(50):
        top = os.path.join(wide, f"d{d:02d}")
        make_files(top, 150)
        for s in range(3):
            make_files(os.path.join(top, f"sub{s}"), 120)
    make_files(os.path.join(ROOT, "nested1m", "huge"), 1_000_000)
    os.makedirs(os.path.join(ROOT, "empty"), exist_ok=True)
    open(done, "w").close()


def ensure_sized():
    """flat200k with scattered sizes (a copy, so the older figures keep their tree)."""
    folder = os.path.join(ROOT, "sized200k")
    done = os.path.join(ROOT, ".sized-complete")
    if os.path.exists(done):
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    print(f"generating {folder} (once)...", file=sys.stderr)
    os.makedirs(folder)
    for i in range(200_000):
        fd = os.open(os.path.join(folder, f"f{i:07d}.{('jpg', 'png', 'txt', 'json')[i % 4]}"), os.O_CREAT | os.O_WRONLY, 0o644)
        os.ftruncate(fd, (i * 2_654_435_761) % 100_000)
        os.close(fd)
    open(done, "w").close()
    return folder


def ensure_repo():
    """A repository of 200,000 files, a quarter of them ignored by two rule files."""
    folder = os.path.join(ROOT, "repo200k")
    done = os.path.join(ROOT, ".repo-complete")
    if os.path.exists(done):
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    print(f"generating {folder} (once)...", file=sys.stderr)
    os.makedirs(os.path.join(folder, ".git", "info"))
    with open(os.path.join(folder, ".gitignore"), "w") as f:
        f.write("*.o\n/build/\n# comment\n*.tmp\n")
    with open(os.path.join(folder, ".git", "info", "exclude"), "w") as f:
        f.write("secret*\n")
    for i in range(200_000):
        ext = ("c", "h", "txt", "o")[i % 4]
        os.close(os.open(os.path.join(folder, f"f{i:07d}.{ext}"), os.O_CREAT | os.O_WRONLY, 0o644))
    open(done, "w").close()
    return folder


def wall(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, shell=True, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def peak_kib(argv):
    r = subprocess.run(["/usr/bin/time", "-v", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    for line in r.stderr.splitlines():
        if "Maximum resident set size" in line:
            return int(line.split(":")[1])
    raise RuntimeError("no peak RSS in /usr/bin/time output")


def compare(label, ours, base, runs):
    wall(ours), wall(base)  # warm the caches
    a, b = [], []
    for _ in range(runs):
        a.append(wall(ours))
        b.append(wall(base))
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"{label}\n  canopy-list {ma*1000:8.1f} ms   baseline {mb*1000:8.1f} ms   ratio {ma/mb:.2f}")
    return ma / mb


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--bin", default="target/release/canopy-list")
    args = ap.parse_args()
    if not shutil.which("/usr/bin/time"):
        sys.exit("needs /usr/bin/time (apt-get install time)")
    ensure_trees()
    b = os.path.abspath(args.bin)
    flat, wide, nested, empty = (os.path.join(ROOT, n) for n in ("flat200k", "wide50", "nested1m", "empty"))
    print(f"machine: {os.cpu_count()} cores; median of {args.runs} interleaved runs\n")
    compare("200,000 files, depth 2 (target <= 0.90 x `ls -f | wc -l`)",
            f"{b} {flat} --depth 2 | wc -l", f"ls -f {flat} | wc -l", args.runs)
    compare("50 folders of 513 entries (150 files + 3 x 120), depth 2 (target <= 1.00 x `find -maxdepth 2 | wc -l`)",
            f"{b} {wide} --depth 2 | wc -l", f"find {wide} -maxdepth 2 | wc -l", args.runs)
    compare("  (for scale) same tree, `ls -f` of the top folder only",
            f"{b} {wide} --depth 1 | wc -l", f"ls -f {wide} | wc -l", args.runs)
    peak_flat = peak_kib([b, flat, "--depth", "2"])
    peak_nested = peak_kib([b, nested, "--depth", "2"])
    peak_empty = peak_kib([b, empty, "--depth", "2"])
    peak_ls = peak_kib(["ls", "-f", flat])
    print(f"\npeak memory (max RSS)\n  200,000 files depth 2: {peak_flat/1024:.2f} MiB (target < 8 MiB; ls -f: {peak_ls/1024:.2f} MiB)")
    print(f"  1,000,000-entry subfolder: {peak_nested/1024:.2f} MiB vs empty folder {peak_empty/1024:.2f} MiB: "
          f"+{(peak_nested-peak_empty)/1024:.2f} MiB (target within 2 MiB)")
    out = subprocess.run([b, flat, "--json", "--limit", "500"], stdout=subprocess.PIPE, check=True).stdout
    print(f"\n--json --limit 500 on 200,000 files: {len(out)/1024:.1f} KiB (target < 128 KiB)")
    t = wall(f"{b} {nested} --depth 2 > /dev/null")
    print(f"1,000,000-entry subfolder at depth 2: {t*1000:.0f} ms (one run, warm)")
    arrange(b, flat, args.runs)


def arrange(b, flat, runs):
    """Order, filter and ignore rules (issue 12), against the same baselines."""
    sized, repo = ensure_sized(), ensure_repo()
    print("\n-- order, filter, ignore rules --")
    compare("filter '123' (substring) over 200,000 names (target <= 1.00 x `ls -f | grep -c 123`)",
            f"{b} {flat} --depth 1 --filter 123 | wc -l", f"ls -f {flat} | grep -c 123", runs)
    compare("filter '*9?9*' (glob) over 200,000 names (target <= 1.00 x `ls -f | grep -c '9.9'`)",
            f"{b} {flat} --depth 1 --filter '*9?9*' | wc -l", f"ls -f {flat} | grep -c '9.9'", runs)
    compare("size order, largest first, 200,000 files of scattered sizes "
            "(target <= 1.00 x `find -maxdepth 1 -printf '%s\\n' | wc -l`)",
            f"{b} {sized} --depth 1 --sort size --reverse | wc -l",
            f"find {sized} -maxdepth 1 -printf '%s\\n' | wc -l", runs)
    compare("modified order, newest first, same folder (same baseline: `find -printf '%T@\\n'`)",
            f"{b} {sized} --depth 1 --sort modified --reverse | wc -l",
            f"find {sized} -maxdepth 1 -printf '%T@\\n' | wc -l", runs)
    compare("  (for scale) type order vs the name order, same folder",
            f"{b} {sized} --depth 1 --sort type | wc -l", f"{b} {sized} --depth 1 | wc -l", runs)
    compare("--gitignore on a 200,000-file repository (a quarter ignored) vs the plain listing",
            f"{b} {repo} --depth 1 --gitignore | wc -l", f"{b} {repo} --depth 1 | wc -l", runs)
    compare("--summary (the rest by group) vs without, 200,000 files",
            f"{b} {sized} --depth 1 --summary | wc -l", f"{b} {sized} --depth 1 | wc -l", runs)
    plain = peak_kib([b, sized, "--depth", "1"])
    print(f"\npeak memory (max RSS), 200,000 files, depth 1; unsorted listing {plain/1024:.2f} MiB (target: within a few MiB)")
    for label, extra in [("--sort size --reverse", ["--sort", "size", "--reverse"]), ("--sort modified", ["--sort", "modified"]),
                         ("--sort type", ["--sort", "type"]), ("--filter '*9?9*'", ["--filter", "*9?9*"]),
                         ("--summary", ["--summary"]), ("deep page --offset 150000 --sort size", ["--offset", "150000", "--sort", "size"])]:
        peak = peak_kib([b, sized, "--depth", "1", *extra])
        print(f"  {label:40s} {peak/1024:6.2f} MiB  ({(peak-plain)/1024:+.2f} MiB)")
    peak = peak_kib([b, repo, "--depth", "1", "--gitignore"])
    base = peak_kib([b, repo, "--depth", "1"])
    print(f"  {'--gitignore (repository)':40s} {peak/1024:6.2f} MiB  ({(peak-base)/1024:+.2f} MiB vs its plain listing)")


if __name__ == "__main__":
    main()
