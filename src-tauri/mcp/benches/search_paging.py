#!/usr/bin/env python3
"""The CPU of paging a content search to its end against one full search
(`count: true`, which reads the whole tree once), in the same run: each
measured as the server process's user + system time (`/usr/bin/time`),
runs interleaved, medians printed. The tree: FILES files of LINES lines of
WIDTH characters, every EVERY-th holding the needle (1,000 hits in 100 MB).

Usage: search_paging.py SCRATCH CANOPY_MCP_BINARY [RUNS]
(SCRATCH: a folder this makes and fills; delete it after.)
"""

import asyncio
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

FILES, LINES, WIDTH, EVERY = 10, 10_000, 1000, 100
HITS = FILES * LINES // EVERY


def make_tree(root):
    rng = random.Random(7)
    letters = bytes(b"abcdefghij "[b % 11] for b in range(256))
    os.makedirs(root, exist_ok=True)
    for k in range(FILES):
        blob = rng.randbytes(LINES * WIDTH).translate(letters)
        with open(os.path.join(root, f"f{k}.txt"), "wb") as f:
            for i in range(LINES):
                if i % EVERY == 3:
                    f.write(b"needle ")
                f.write(blob[i * WIDTH:(i + 1) * WIDTH] + b"\n")


async def session(binary, root, cpu_file, work):
    params = StdioServerParameters(
        command="/usr/bin/time", args=["-f", "%U %S", "-o", cpu_file, binary, "--root", root]
    )
    async with stdio_client(params, errlog=open(os.devnull, "w")) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            return await work(s)


async def full(s, root):
    r = await s.call_tool("search", {"path": root, "content": "needle", "count": True})
    text = r.content[0].text
    return int(re.search(r"\[TOTAL\] (\d+) hits", text).group(1)), 1


async def paged(s, root):
    args, hits, pages = {"path": root, "content": "needle"}, 0, 0
    while True:
        r = await s.call_tool("search", args)
        pages += 1
        hits += len(r.structured_content.get("hits", []))
        cursor = r.structured_content.get("nextCursor")
        if not cursor:
            return hits, pages
        args = {**args, "cursor": cursor}


def cpu(binary, root, work):
    with tempfile.NamedTemporaryFile("r", suffix=".cpu") as f:
        hits, pages = asyncio.run(session(binary, root, f.name, lambda s: work(s, root)))
        user, system = map(float, open(f.name).read().split()[-2:])
    return user + system, hits, pages


def idle(binary, root):
    async def nothing(s, root):
        return 0, 0
    return cpu(binary, root, nothing)[0]


def main():
    scratch, binary = sys.argv[1], os.path.abspath(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    root = os.path.join(os.path.abspath(scratch), "wide")
    make_tree(root)
    want = HITS
    base, one, all_pages = [], [], []
    for _ in range(runs):
        base.append(idle(binary, root))
        t, hits, _ = cpu(binary, root, full)
        assert hits == want, (hits, want)
        one.append(t)
        t, hits, pages = cpu(binary, root, paged)
        assert hits == want, ("every hit once across pages", hits, want)
        all_pages.append(t)
    b, o, p = (statistics.median(x) for x in (base, one, all_pages))
    print(f"{want} hits on {WIDTH}-character lines, {FILES} files of {LINES} lines; {pages} pages; median of {runs}")
    print(f"server start and stop alone: {b:.3f} s CPU")
    print(f"one full search (count): {o:.3f} s CPU; paging to the end: {p:.3f} s CPU")
    print(f"ratio {p / o:.2f}x; without start and stop {(p - b) / (o - b):.2f}x")


if __name__ == "__main__":
    main()
