#!/usr/bin/env python3
"""Four agent tasks against three MCP file servers, driven by the official
Python SDK, on one tree, in one run (issue 20's benchmark).

Servers: canopy-mcp (this crate, release build), the reference
@modelcontextprotocol/server-filesystem and @wonderwhy-er/desktop-commander
(both from npm, installed in SERVERS/node_modules). Tokens are counted with
the o200k_base encoding of the npm package gpt-tokenizer (tiktoken fetches
its BPE file at run time, which this workplace cannot). ripgrep comes from
the PyPI package `ripgrep`.

The tree (TREE): repo/ (a git clone with its .git and an npm install of a
dozen packages in node_modules), big/ (200,000 files), app.log (5 MB of
lines), data.json (5 MB, one line). See the README of this folder for the
commands that build it.

Usage: agent_tasks.py TREE SERVERS CANOPY_MCP_BINARY
Prints one row per server and task: characters, tokens, seconds per reply,
and what the reply got right.
"""

import asyncio
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

TREE, SERVERS, CANOPY = (os.path.abspath(a) for a in sys.argv[1:4])
REPO = os.path.join(TREE, "repo")


def tokens(texts):
    """o200k_base token counts of `texts`, by gpt-tokenizer under node."""
    script = (
        "const {encode}=require('gpt-tokenizer/encoding/o200k_base');"
        "let d='';process.stdin.on('data',c=>d+=c).on('end',()=>{"
        "console.log(JSON.stringify(JSON.parse(d).map(t=>encode(t).length)))})"
    )
    out = subprocess.run(
        ["node", "-e", script],
        input=json.dumps(texts).encode(),
        capture_output=True,
        cwd=SERVERS,
        check=True,
    )
    return json.loads(out.stdout)


def reply_text(result):
    """What the model reads: every text block, and structuredContent."""
    parts = [c.text for c in result.content if getattr(c, "text", None) is not None]
    if getattr(result, "structuredContent", None):
        parts.append(json.dumps(result.structuredContent, separators=(",", ":")))
    return "\n".join(parts)


async def call(session, tool, args):
    start = time.perf_counter()
    r = await session.call_tool(tool, args)
    return reply_text(r), time.perf_counter() - start


def git_config_files():
    out = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=REPO, capture_output=True, text=True, check=True,
    ).stdout.split("\n")
    return sorted(p for p in out if p and "config" in p.rsplit("/", 1)[-1].lower())


def three_file_string():
    """A literal that occurs in exactly 3 files of the checkout (git's view)."""
    words = subprocess.run(
        ["git", "grep", "-h", "-o", "-E", "[A-Z][A-Z_]{11,}"],
        cwd=REPO, capture_output=True, text=True,
    ).stdout.split()
    for w in sorted(set(words)):
        files = subprocess.run(
            ["git", "grep", "-l", "-F", w], cwd=REPO, capture_output=True, text=True
        ).stdout.split()
        if len(files) == 3:
            return w, sorted(files)
    raise SystemExit("no string occurs in exactly 3 files")


RUNS = 21


def rg_once(needle):
    """One `rg -c -F` over the checkout: its wall time and the files it counted."""
    rg = shutil.which("rg") or os.path.join(os.path.dirname(sys.executable), "rg")
    start = time.perf_counter()
    out = subprocess.run([rg, "-c", "-F", needle, REPO], capture_output=True, text=True)
    t = time.perf_counter() - start
    return t, sorted(l.rsplit(":", 1)[0] for l in out.stdout.split())


async def content_vs_rg(s, needle):
    """The content search and `rg -c`, interleaved RUNS times in this run
    (each rg run right before each search, so both see the same load):
    the medians of each, and the files each found."""
    rg_times, ours = [], []
    for _ in range(RUNS):
        t, rg_files = rg_once(needle)
        rg_times.append(t)
        text, t = await call(s, "search", {"path": REPO, "content": needle, "literal": True})
        ours.append(t)
    return statistics.median(ours), statistics.median(rg_times), rg_files, text


async def canopy_tasks(s, needle):
    rows = []
    text, t = await call(s, "list_directory", {"path": REPO, "depth": 3})
    ignored = [l for l in text.split("\n") if re.search(r"(^|\] |/)(node_modules|\.git)(/|$)", l)]
    expanded = all(f"[DIR] {d}/" in text or f"] {d}/" in text for d in ["src-tauri", "tests", "ui"])
    rows.append(("structure depth 3", [text], [t], f"ignored lines {len(ignored)}, src folders expanded {expanded}"))
    texts, times, args = [], [], {"path": REPO, "name": "*config*"}
    while True:
        text, t = await call(s, "search", args)
        texts.append(text); times.append(t)
        m = re.search(r'\[NEXT\] call search with cursor "([^"]+)"', text)
        if not m:
            break
        args = {**args, "cursor": m.group(1)}
    found = sorted(l[len("[FILE] "):] for tx in texts for l in tx.split("\n") if l.startswith("[FILE] "))
    rows.append(("find *config*", texts, times, f"{len(set(found) & set(git_config_files()))} of {len(git_config_files())} found"))
    t, rg_t, rg_files, text = await content_vs_rg(s, needle)
    files = sorted({l.split(":", 1)[0] for l in text.split("\n") if ":" in l and not l.startswith("[")})
    rows.append(("content search", [text], [t], f"files {files}; median of {RUNS}: {t * 1000:.1f} ms, rg -c {rg_t * 1000:.1f} ms ({t / rg_t:.2f}x), rg found {len(rg_files)} files"))
    for f in ["app.log", "data.json"]:
        text, t = await call(s, "read_file", {"path": os.path.join(TREE, f), "head": 50})
        body = text.split("\n\n", 1)[1] if "\n\n" in text else text
        rows.append((f"head 50 {f}", [text], [t], f"{body.count(chr(10))} lines, {len(body)} chars of content"))
    return rows


async def reference_tasks(s, needle):
    rows = []
    text, t = await call(s, "directory_tree", {"path": REPO})
    rows.append(("structure (directory_tree)", [text], [t], f"node_modules mentions {text.count('node_modules')}"))
    excl = ["**/node_modules/**", "**/.git/**", "**/target/**"]
    text, t = await call(s, "search_files", {"path": REPO, "pattern": "**/*config*", "excludePatterns": excl})
    git = git_config_files()
    hits = sum(1 for g in git if os.path.join(REPO, g) in text)
    rows.append(("find *config* (excludes)", [text], [t], f"{hits} of {len(git)} found"))
    rows.append(("content search", [], [], "no content search tool"))
    for f in ["app.log", "data.json"]:
        text, t = await call(s, "read_text_file", {"path": os.path.join(TREE, f), "head": 50})
        rows.append((f"head 50 {f}", [text], [t], f"{text.count(chr(10))} line breaks"))
    return rows


async def dc_tasks(s, needle):
    rows = []
    text, t = await call(s, "list_directory", {"path": REPO, "depth": 3})
    rows.append(("structure depth 3", [text], [t], f"node_modules mentions {text.count('node_modules')}"))
    for task, args in [
        ("find *config*", {"path": REPO, "pattern": "config", "searchType": "files", "earlyTermination": False}),
        ("content search", {"path": REPO, "pattern": needle, "searchType": "content", "literalSearch": True}),
    ]:
        texts, times = [], []
        text, t = await call(s, "start_search", args)
        texts.append(text); times.append(t)
        m = re.search(r"[Ss]ession(?: ID)?:?\s*([\w-]+)", text)
        for _ in range(20):
            if not m or re.search(r"complete|finished", text, re.I):
                break
            await asyncio.sleep(0.5)
            text, t = await call(s, "get_more_search_results", {"sessionId": m.group(1), "offset": 0, "length": 100000})
            texts.append(text); times.append(t)
        rows.append((task, texts, times, f"last reply starts {texts[-1][:80]!r}"))
    for f in ["app.log", "data.json"]:
        text, t = await call(s, "read_file", {"path": os.path.join(TREE, f), "offset": 0, "length": 50})
        rows.append((f"head 50 {f}", [text], [t], f"{text.count(chr(10))} line breaks"))
    return rows


async def run(name, params, tasks, needle):
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            tools = await s.list_tools()
            defs = json.dumps([t.model_dump(exclude_none=True) for t in tools.tools], separators=(",", ":"))
            rows = await tasks(s, needle)
    return name, len(defs), rows


def main():
    needle, three = three_file_string()
    rg_time, rg_files = rg_once(needle)
    node = os.path.join(SERVERS, "node_modules")
    servers = [
        ("canopy-mcp", StdioServerParameters(command=CANOPY, args=["--root", TREE]), canopy_tasks),
        ("server-filesystem", StdioServerParameters(
            command="node", args=[os.path.join(node, "@modelcontextprotocol/server-filesystem/dist/index.js"), TREE]), reference_tasks),
        ("desktop-commander", StdioServerParameters(
            command="node", args=[os.path.join(node, "@wonderwhy-er/desktop-commander/dist/index.js")]), dc_tasks),
    ]
    print(f"string in 3 files: {needle} {three}; rg -c found {rg_files} (first run {rg_time * 1000:.1f} ms)")
    for name, params, tasks in servers:
        try:
            name, defs, rows = asyncio.run(run(name, params, tasks, needle))
        except Exception as e:  # a server that fails a task is reported, not fatal
            print(f"{name}: failed: {e!r}")
            continue
        print(f"\n{name}: tool definitions {defs} characters")
        print(f"{'task':30} {'replies':>7} {'chars':>10} {'tokens':>9} {'max chars':>10} {'s/reply':>8}  notes")
        for task, texts, times, note in rows:
            if not texts:
                print(f"{task:30} {'-':>7}  {note}")
                continue
            toks = tokens(texts)
            chars = [len(t) for t in texts]
            print(f"{task:30} {len(texts):7} {sum(chars):10} {sum(toks):9} {max(chars):10} {sum(times) / len(times):8.3f}  {note}")


if __name__ == "__main__":
    main()
