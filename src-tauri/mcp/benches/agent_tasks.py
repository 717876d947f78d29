#!/usr/bin/env python3
"""Ten agent tasks against three MCP file servers, driven by the official
Python SDK, on one tree, in one run (issues 20 and 34's benchmark).

Servers: canopy-mcp (this crate), the reference
@modelcontextprotocol/server-filesystem and @wonderwhy-er/desktop-commander
(both from npm, installed in SERVERS/node_modules with gpt-tokenizer:
`PUPPETEER_SKIP_DOWNLOAD=1 npm install --ignore-scripts
@modelcontextprotocol/server-filesystem @wonderwhy-er/desktop-commander
gpt-tokenizer`). Each server gets the calls an agent reading its tool
definitions would make for the task; every answer is checked against git,
ripgrep or the file system, and a task a server has no tool for is `-`.

Tokens: what the model reads of each reply (every text block, and the
structured content as compact JSON when there is one), counted with the
cl100k_base encoding of the npm package gpt-tokenizer (tiktoken fetches
its BPE file at run time, which this workplace cannot). Definitions: the
tools as the SDK serializes them (`Tool.model_dump_json()`, summed).

The tree (TREE): built by agent_tree.py beside this file.

Usage: agent_tasks.py TREE SERVERS CANOPY_MCP_BINARY
"""

import asyncio
import fnmatch
import json
import os
import re
import subprocess
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

TREE, SERVERS, CANOPY = (os.path.abspath(a) for a in sys.argv[1:4])
REPO = os.path.join(TREE, "repo")
COUNTED = r"\bunsafe\b"
ALTERNATIVES = ["build.rs", "*.md"]
FACTS = [f"crates/{c}/Cargo.toml" for c in ["tokio", "syn", "libc", "regex", "nom"]]


def tokens(texts):
    """cl100k_base token counts of `texts`, by gpt-tokenizer under node."""
    script = (
        "const {encode}=require('gpt-tokenizer/encoding/cl100k_base');"
        "let d='';process.stdin.on('data',c=>d+=c).on('end',()=>{"
        "console.log(JSON.stringify(JSON.parse(d).map(t=>encode(t).length)))})"
    )
    out = subprocess.run(
        ["node", "-e", script], input=json.dumps(texts).encode(),
        capture_output=True, cwd=SERVERS, check=True,
    )
    return json.loads(out.stdout)


def reply_text(result):
    """What the model reads: every text block, and the structured content
    (as compact JSON); and the text blocks alone (a client that shows the
    model only those)."""
    parts = [c.text for c in result.content if getattr(c, "text", None) is not None]
    plain = "\n".join(parts)
    if result.structured_content:
        parts.append(json.dumps(result.structured_content, separators=(",", ":")))
    return "\n".join(parts), plain


class Agent:
    """One server's session; every reply of the current task is kept."""

    def __init__(self, session):
        self.s, self.texts, self.plain, self.rows = session, [], [], {}

    async def call(self, tool, args):
        text, plain = reply_text(await self.s.call_tool(tool, args))
        self.texts.append(text)
        self.plain.append(plain)
        return text

    def take(self):
        taken = (self.texts, self.plain)
        self.texts, self.plain = [], []
        return taken


def git(*args):
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout


def tracked():
    """Files git shows (tracked, and untracked not ignored)."""
    return [p for p in git("ls-files", "-co", "--exclude-standard").split("\n") if p]


def named(pred):
    return sorted(p for p in tracked() if pred(p.rsplit("/", 1)[-1]))


def three_file_string():
    """A literal that occurs in exactly 3 files of the checkout (git's view)."""
    words = subprocess.run(
        ["git", "grep", "-h", "-o", "-E", "[A-Z][A-Z_]{11,}"], cwd=REPO, capture_output=True, text=True,
    ).stdout.split()
    for w in sorted(set(words)):
        files = git("grep", "-l", "-F", w).split()
        if len(files) == 3:
            return w, sorted(files)
    raise SystemExit("no string occurs in exactly 3 files")


def expected():
    needle, three = three_file_string()
    counts = [l.rsplit(":", 1) for l in git("grep", "-c", "-E", COUNTED).split("\n") if l]
    with open(os.path.join(TREE, "app.log")) as f:
        log50 = [next(f) for _ in range(50)]
    with open(os.path.join(TREE, "data.json")) as f:
        json_head = f.read(200)
    return {
        "needle": needle,
        "three": three,
        "count": (sum(int(n) for _, n in counts), len(counts)),
        "config": named(lambda n: "config" in n.lower()),
        "cargo": named(lambda n: n == "Cargo.toml"),
        "alternatives": named(lambda n: any(fnmatch.fnmatchcase(n, g) for g in ALTERNATIVES)),
        "node_modules": sorted(os.listdir(os.path.join(REPO, "node_modules"))),
        "crates": sorted(os.listdir(os.path.join(REPO, "crates"))),
        "log50": log50,
        "json_head": json_head,
        "sizes": [os.stat(os.path.join(REPO, p)).st_size for p in FACTS],
    }


def paths_in(texts, prefix=""):
    """Relative paths of REPO named on lines of `texts` (absolute or not)."""
    found = set()
    for t in texts:
        for m in re.finditer(r"(?:^|[\s\"'])(" + re.escape(prefix) + r"[^\s\"':,\]\\]+)", t, re.M):
            p = m.group(1)
            if p.startswith(REPO + "/"):
                p = p[len(REPO) + 1:]
            found.add(p)
    return found


def exact(found, want, within=None):
    """`found` (restricted to `within`) is exactly `want`."""
    if within is not None:
        found = {p for p in found if within(p)}
    return found == set(want), f"{len(found & set(want))} of {len(want)}, {len(found - set(want))} extra"


def heads_ok(text, e, f):
    if f == "app.log":
        return all(l.rstrip("\n") in text for l in e["log50"]), "first 50 lines"
    return e["json_head"] in text, "first 200 characters"


def facts_ok(texts, e):
    body = "\n".join(texts)
    return all(re.search(rf"\b{s}\b", body) for s in e["sizes"]), "5 sizes"


async def canopy(a, e):
    rows = a.rows
    text = await a.call("list_directory", {"path": REPO, "depth": 3})
    rows["structure"] = (all(f"{c}/" in text for c in e["crates"]) and "node_modules/" not in text.replace("[IGNORED]", ""), "every crate, no ignored bulk")
    args = {"path": REPO, "name": "*config*"}
    while True:
        text = await a.call("search", args)
        m = re.search(r'\[NEXT\] call search with cursor "([^"]+)"', text)
        if not m:
            break
        args = {**args, "cursor": m.group(1)}
    texts = a.texts
    rows["find *config*"] = exact({l[7:] for t in texts for l in t.split("\n") if l.startswith("[FILE] ")}, e["config"])
    text = await a.call("search", {"path": REPO, "content": e["needle"], "literal": True})
    rows["content search"] = exact({l.split(":", 1)[0] for l in text.split("\n") if re.match(r"[^\[].*:\d+: ", l)}, e["three"])
    text = await a.call("search", {"path": REPO, "content": COUNTED, "count": True, "limit": 0})
    m = re.search(r"\[TOTAL\] (\d+) hits in (\d+) files", text)
    rows["count lines"] = (m is not None and (int(m.group(1)), int(m.group(2))) == e["count"], f"stated {m.groups() if m else None}, git grep -c {e['count']}")
    for task, name, key in [("name Cargo.toml", "Cargo.toml", "cargo"), ("{build.rs,*.md}", "{" + ",".join(ALTERNATIVES) + "}", "alternatives")]:
        text = await a.call("search", {"path": REPO, "name": name})
        rows[task] = exact({l[7:] for l in text.split("\n") if l.startswith("[FILE] ")}, e[key])
    text = await a.call("list_directory", {"path": os.path.join(REPO, "node_modules"), "depth": 1})
    rows["ignored folder by name"] = exact({l[6:] for l in text.split("\n") if l.startswith("[DIR] ")}, e["node_modules"])
    await a.call("file_info", {"paths": [os.path.join(REPO, p) for p in FACTS]})
    rows["5 files' facts"] = facts_ok(a.texts, e)
    for f in ["app.log", "data.json"]:
        text = await a.call("read_file", {"path": os.path.join(TREE, f), "head": 50})
        rows[f"head 50 {f}"] = heads_ok(text, e, f)
    return rows


async def reference(a, e):
    rows = a.rows
    text = await a.call("directory_tree", {"path": REPO, "excludePatterns": ["node_modules", "target", ".git"]})
    rows["structure"] = (all(f'"{c}"' in text for c in e["crates"]) and '"node_modules"' not in text, "every crate, no ignored bulk")
    excl = ["**/node_modules/**", "**/.git/**", "**/target/**"]
    for task, pattern, key in [
        ("find *config*", "**/*config*", "config"),
        ("name Cargo.toml", "**/Cargo.toml", "cargo"),
        ("{build.rs,*.md}", "**/{" + ",".join(ALTERNATIVES) + "}", "alternatives"),
    ]:
        text = await a.call("search_files", {"path": REPO, "pattern": pattern, "excludePatterns": excl})
        rows[task] = exact(paths_in([text], REPO), e[key])
    rows["content search"] = None
    rows["count lines"] = None
    text = await a.call("list_directory", {"path": os.path.join(REPO, "node_modules")})
    rows["ignored folder by name"] = exact({l[6:] for l in text.split("\n") if l.startswith("[DIR] ")}, e["node_modules"])
    for p in FACTS:
        await a.call("get_file_info", {"path": os.path.join(REPO, p)})
    rows["5 files' facts"] = facts_ok(a.texts, e)
    for f in ["app.log", "data.json"]:
        text = await a.call("read_text_file", {"path": os.path.join(TREE, f), "head": 50})
        rows[f"head 50 {f}"] = heads_ok(text, e, f)
    return rows


async def dc_search(a, args, length=100000):
    """start_search, then get_more_search_results until it says completed."""
    text = await a.call("start_search", args)
    m = re.search(r"session: (\S+)", text)
    for _ in range(40):
        if not m or re.search(r"Status: COMPLETED|Search completed", text):
            break
        await asyncio.sleep(0.5)
        text = await a.call("get_more_search_results", {"sessionId": m.group(1), "offset": 0, "length": length})
    return a.texts


async def dc(a, e):
    rows = a.rows
    text = await a.call("list_directory", {"path": REPO, "depth": 3})
    rows["structure"] = (all(f"{c}" in text for c in e["crates"]) and "node_modules/" not in text, "every crate, no ignored bulk")
    for task, args, key in [
        ("find *config*", {"pattern": "config"}, "config"),
        ("name Cargo.toml", {"pattern": "Cargo.toml"}, "cargo"),
    ]:
        texts = await dc_search(a, {"path": REPO, "searchType": "files", "earlyTermination": False, **args})
        rows[task] = exact(paths_in(texts[-1:], REPO), e[key])
    # Its pattern is a substring: one search for each alternative.
    found = set()
    for alt in ["build.rs", ".md"]:
        texts = await dc_search(a, {"path": REPO, "searchType": "files", "earlyTermination": False, "pattern": alt})
        found |= paths_in(texts[-1:], REPO)
    rows["{build.rs,*.md}"] = exact(found, e["alternatives"])
    texts = await dc_search(a, {"path": REPO, "pattern": e["needle"], "searchType": "content", "literalSearch": True, "contextLines": 0})
    rows["content search"] = exact({p.rsplit(":", 1)[0] for p in paths_in(texts[-1:], REPO)}, e["three"])
    texts = await dc_search(a, {"path": REPO, "pattern": COUNTED, "searchType": "content", "contextLines": 0}, length=5)
    m = re.search(r"Total results found: (\d+)", texts[-1])
    rows["count lines"] = (m is not None and int(m.group(1)) == e["count"][0], f"stated {m.group(1) if m else None}, git grep -c {e['count']}")
    text = await a.call("list_directory", {"path": os.path.join(REPO, "node_modules"), "depth": 1})
    rows["ignored folder by name"] = exact({l[6:] for l in text.split("\n") if l.startswith("[DIR] ")}, e["node_modules"])
    for p in FACTS:
        await a.call("get_file_info", {"path": os.path.join(REPO, p)})
    rows["5 files' facts"] = facts_ok(a.texts, e)
    for f in ["app.log", "data.json"]:
        text = await a.call("read_file", {"path": os.path.join(TREE, f), "offset": 0, "length": 50})
        rows[f"head 50 {f}"] = heads_ok(text, e, f)
    return rows


def main():
    e = expected()
    node = os.path.join(SERVERS, "node_modules")
    servers = [
        ("canopy-mcp", StdioServerParameters(command=CANOPY, args=["--root", TREE]), canopy),
        ("server-filesystem", StdioServerParameters(
            command="node", args=[os.path.join(node, "@modelcontextprotocol/server-filesystem/dist/index.js"), TREE]), reference),
        ("desktop-commander", StdioServerParameters(
            command="node", args=[os.path.join(node, "@wonderwhy-er/desktop-commander/dist/index.js")]), dc),
    ]
    print(f"string in 3 files: {e['needle']}; lines matching {COUNTED}: {e['count'][0]} in {e['count'][1]} files (git grep -c)")
    table = {}
    for name, params, tasks in servers:
        defs, defs_tokens, rows = asyncio.run(measure(params, tasks, e))
        print(f"\n{name}: tool definitions {defs} characters, {defs_tokens} tokens")
        print(f"{'task':24} {'calls':>5} {'chars':>8} {'tokens':>7} {'text only':>9}  correct")
        for task, ((texts, plain), check) in rows.items():
            if check is None:
                print(f"{task:24} {'-':>5}  no tool for it")
                table.setdefault(task, {})[name] = None
                continue
            toks = sum(tokens(texts)) if texts else 0
            plain_toks = sum(tokens(plain)) if plain else 0
            ok, note = check
            print(f"{task:24} {len(texts):5} {sum(map(len, texts)):8} {toks:7} {plain_toks:9}  {'yes' if ok else 'NO'} ({note})")
            table.setdefault(task, {})[name] = (ok, toks, plain_toks)
    print("\ntokens: text and structured content (text alone)")
    print("\n| task | " + " | ".join(n for n, _, _ in servers) + " |")
    print("|---|" + "---|" * len(servers))
    for task, by in table.items():
        cells = []
        for n, _, _ in servers:
            v = by.get(n)
            cells.append("-" if v is None else f"{'ok' if v[0] else 'WRONG'}, {v[1]:,} ({v[2]:,})")
        print(f"| {task} | " + " | ".join(cells) + " |")


async def measure(params, tasks, e):
    """Runs `tasks` on one session; each task's replies are those since the last task's row."""
    async with stdio_client(params, errlog=open(os.devnull, "w")) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            tools = (await s.list_tools()).tools
            defs = sum(len(t.model_dump_json()) for t in tools)
            defs_tokens = tokens(["".join(t.model_dump_json() for t in tools)])[0]
            agent = Agent(s)
            rows = {}

            class Rows(dict):
                def __setitem__(self, task, check):
                    rows[task] = (agent.take(), check)
                    super().__setitem__(task, check)

            agent.rows = Rows()
            await tasks(agent, e)
    return defs, defs_tokens, rows


if __name__ == "__main__":
    main()
