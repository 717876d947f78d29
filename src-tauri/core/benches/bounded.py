#!/usr/bin/env python3
"""Benchmark what bounds a request, in one run: pages at any offset, the request
budget on a bushy tree, and dead mounts.

Prints, for the same folders in the same run (warm caches, median of N runs):
  1. peak memory (max RSS) and time of `canopy-list --depth 1` at offset 0, at a
     deep offset and past the end, for 100,000 files with 200-character names
     and a 1,000,000-entry folder on tmpfs; with --before BIN, the same for an
     older canopy-list (the baseline);
  2. the bushy depth-4 reply (30 x 30 x 30 folders, 5 files each): entries,
     BUDGET count, time;
  3. dead mounts (needs root and /dev/fuse; uses the `dead_mount` example):
     time until canopy-list's output ends with a dead folder beside a live one,
     and with the dead folder as the root.
It asserts nothing: the figures are read by people and go in the notes.

    cargo build --release -p canopy-list -p canopy-core --bin canopy-list --example dead_mount
    python3 src-tauri/core/benches/bounded.py [--runs 5] [--before OLD_CANOPY_LIST]

With --deep-pages it prints only offsets 0, 50,000 and 99,500 of the long
names, under each order and a filter, with CPU time beside wall time (on a
shared machine the CPU time is the steadier figure).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

DISK = os.environ.get("CANOPY_BENCH_DIR", "/tmp/canopy-bench")
SHM = "/dev/shm/canopy-bench"


def make_files(folder, names):
    os.makedirs(folder, exist_ok=True)
    for n in names:
        os.close(os.open(os.path.join(folder, n), os.O_CREAT | os.O_WRONLY, 0o644))


def once(path, build):
    done = os.path.join(path, ".complete")
    if not os.path.exists(done):
        shutil.rmtree(path, ignore_errors=True)
        print(f"generating {path} (once)...", file=sys.stderr)
        build(path)
        open(done, "w").close()
    return path


def long_names(path):
    # 200 characters, distinct in the middle so the natural order must work.
    make_files(path, (f"{'x' * 96}{i:06d}{'y' * 98}" for i in range(100_000)))


def million(path):
    make_files(path, (f"m{i:07d}" for i in range(1_000_000)))


def bushy(path):
    for a in range(30):
        for b in range(30):
            for c in range(30):
                make_files(os.path.join(path, f"a{a:02d}", f"b{b:02d}", f"c{c:02d}"), (f"f{i}" for i in range(5)))


def measure(argv):
    """(wall seconds, peak KiB, exit code, CPU seconds, cut by the time budget) of one run."""
    t = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t
    peak, user, system = r.stderr.decode().strip().splitlines()[-1].split()
    return wall, int(peak), r.returncode, float(user) + float(system), b"[TIMEOUT]" in r.stdout


def median_of(argv, runs):
    measure(argv)  # warm
    samples = [measure(argv) for _ in range(runs)]
    return statistics.median(s[0] for s in samples), max(s[1] for s in samples), samples[-1][2]


# The orders a deep page is measured under: (label, extra canopy-list arguments).
ORDERS = [
    ("name", []),
    ("name, reversed", ["--reverse"]),
    ("size", ["--sort", "size"]),
    ("modified", ["--sort", "modified"]),
    ("type, reversed", ["--sort", "type", "--reverse"]),
    ("filter *5*", ["--filter", "*5*"]),
]


def deep_pages(bins, runs, orders):
    """Offsets 0, 50,000 and 99,500 of the 100,000 long names, side by side:
    wall and CPU time (median) and peak RSS, each against offset 0 of the same
    binary and order. The binaries' runs interleave, so a busy machine slows
    them alike."""
    path = once(os.path.join(DISK, "names200"), long_names)
    offsets = (0, 50_000, 99_500)
    print("1. a page of 500 of 100,000 files with 200-character names (disk): "
          "median wall and CPU time, peak RSS, ratio to offset 0")
    for label, extra in orders:
        if label.startswith("filter"):
            # 40,951 of the names hold a 5; the same offsets, scaled.
            these = (0, 20_000, 40_451)
        else:
            these = offsets
        print(f"  {label}")
        got = {}
        for _ in range(runs):
            for name, b in bins:
                for offset in these:
                    got.setdefault((name, offset), []).append(measure([b, path, "--depth", "1", "--offset", str(offset), *extra]))
        for name, _ in bins:
            base = got[(name, 0)]
            base_wall = statistics.median(s[0] for s in base)
            base_cpu = statistics.median(s[3] for s in base)
            base_peak = max(s[1] for s in base)
            for offset in these:
                s = got[(name, offset)]
                wall = statistics.median(x[0] for x in s)
                cpu = statistics.median(x[3] for x in s)
                peak = max(x[1] for x in s)
                code = "" if s[-1][2] == 0 else f"  (exit {s[-1][2]})"
                cut = sum(x[4] for x in s)
                if cut:
                    code += f"  ({cut} of {len(s)} cut by the time budget: no page)"
                print(f"    {name:7} offset {offset:>6,}  {wall*1000:7.0f} ms ({wall/base_wall:4.2f}x)  "
                      f"cpu {cpu*1000:5.0f} ms ({cpu/base_cpu:4.2f}x)  {peak/1024:6.2f} MiB (+{(peak-base_peak)/1024:5.2f}){code}")


def pages(bins, runs):
    folders = [
        ("100,000 files, 200-char names (disk)", once(os.path.join(DISK, "names200"), long_names), 100_000, 99_500),
        ("1,000,000 entries (tmpfs)", once(os.path.join(SHM, "million"), million), 1_000_000, 700_000),
    ]
    print("1. a page of 500 at any offset: time (median) and peak RSS")
    for label, path, total, deep in folders:
        print(f"  {label}")
        for name, b in bins:
            rows = []
            for where, offset in (("offset 0", 0), (f"offset {deep:,}", deep), ("past the end", total + 10)):
                wall, peak, code = median_of([b, path, "--depth", "1", "--offset", str(offset)], runs)
                rows.append((where, wall, peak, code))
            base_wall, base_peak = rows[0][1], rows[0][2]
            for where, wall, peak, code in rows:
                note = "" if code == 0 else f"  (exit {code})"
                print(f"    {name:7} {where:16} {wall*1000:8.1f} ms ({wall/base_wall:4.2f}x)  "
                      f"{peak/1024:7.2f} MiB (+{(peak-base_peak)/1024:6.2f}){note}")


def count(folder, acc):
    for e in folder.get("entries", []):
        acc["entries"] += 1
        if e.get("error", {}).get("code") == "BUDGET":
            acc["budget"] += 1
        if e.get("folder"):
            count(e["folder"], acc)


def bushy_reply(bins, runs):
    path = once(os.path.join(SHM, "bushy"), bushy)
    print("\n2. bushy tree, depth 4 (30 x 30 x 30 folders, 5 files each: 162,930 entries)")
    for name, b in bins:
        argv = [b, path, "--depth", "4", "--json"]
        wall, peak, _ = median_of(argv, runs)
        out = subprocess.run(argv, stdout=subprocess.PIPE, check=True).stdout
        acc = {"entries": 0, "budget": 0}
        count(json.loads(out)["root"]["folder"], acc)
        print(f"    {name:7} {acc['entries']:7,} entries in the reply, {acc['budget']:6,} BUDGET, "
              f"{wall*1000:7.1f} ms, {peak/1024:6.1f} MiB peak, {len(out)/1048576:6.1f} MiB of JSON")


def time_to_eof(argv):
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = p.stdout.read()
    err = p.stderr.read()
    took = time.perf_counter() - t
    p.started = t
    return took, out.decode(errors="replace"), err.decode(errors="replace"), p


def exit_time(p, patience=10.0):
    """When `p`'s parent's wait returned, from its start; None if not within `patience` s."""
    try:
        p.wait(timeout=max(0.0, patience - (time.perf_counter() - p.started)))
        return time.perf_counter() - p.started
    except subprocess.TimeoutExpired:
        return None


def dead_mounts(tool, cli):
    print("\n3. dead mounts (a FUSE folder whose readdir never answers)")
    if not os.path.exists(tool):
        print(f"    skipped: build the example first ({tool} is missing)")
        return
    parent = tempfile.mkdtemp(prefix="canopy-dead-")
    os.makedirs(os.path.join(parent, "live", "inner"))
    make_files(os.path.join(parent, "live"), [f"f{i}" for i in range(3)])
    point = os.path.join(parent, "mnt")
    os.makedirs(point)
    mount = subprocess.Popen([tool, "--dead-root", point], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert mount.stdout.readline().strip() == b"ready"
        took, out, _, p = time_to_eof([cli, parent])
        exited = exit_time(p)
        print(f"    live folder beside a dead one: output ended after {took*1000:.0f} ms "
              f"(folder budget 2,000 ms + grace 250 ms); the dead one: {[l for l in out.splitlines() if 'mnt' in l]}")
        took2, _, err, p2 = time_to_eof([cli, point])
        exited2 = exit_time(p2)
        print(f"    the dead folder as the root: output ended after {took2*1000:.0f} ms: {err.strip()}")
        for label, took in (("beside a dead one", exited), ("the dead one as the root", exited2)):
            said = f"exited (its parent's wait returned) after {took*1000:.0f} ms" if took else "had not exited 10 s after its start"
            print(f"    canopy-list on {label}: {said}")
    finally:
        mount.stdin.close()
        mount.wait()
        shutil.rmtree(parent, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--bin", default="target/release/canopy-list")
    ap.add_argument("--before", help="an older canopy-list to compare with (the baseline)")
    ap.add_argument("--dead-mount", default="target/release/examples/dead_mount")
    ap.add_argument("--deep-pages", action="store_true",
                    help="only offsets 0, 50,000 and 99,500 of the long names, under every order")
    args = ap.parse_args()
    bins = [("before", os.path.abspath(args.before))] if args.before else []
    bins.append(("after", os.path.abspath(args.bin)))
    print(f"machine: {os.cpu_count()} cores; median of {args.runs} runs, warm caches\n")
    if args.deep_pages:
        deep_pages(bins, args.runs, ORDERS)
        return
    pages(bins, args.runs)
    bushy_reply(bins, max(1, args.runs // 2))
    dead_mounts(os.path.abspath(args.dead_mount), os.path.abspath(args.bin))


if __name__ == "__main__":
    main()
