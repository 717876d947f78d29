#!/usr/bin/env python3
"""Builds the agent bench's tree (see agent_tasks.py): TREE/repo, a git
repository of twenty real crates' sources (tracked), with what git ignores
beside them (node_modules copied from the servers' own npm install,
target/ as a build leaves it, a 5 MB log); TREE/app.log (5 MB of lines) and
TREE/data.json (5 MB, one line).

Usage: agent_tree.py TREE SERVERS (SERVERS holds the npm install whose
node_modules is copied)."""

import glob
import json
import os
import random
import shutil
import subprocess

# Twenty real crates, each as published (with its Cargo.toml.orig), taken
# from cargo's registry cache: every one is a dependency of this workspace,
# so `cargo fetch` in the repository brings them.
CRATES = [
    "tokio", "libc", "schemars", "rmcp", "futures-util", "syn", "thiserror",
    "serde_json", "itertools", "hyper", "flate2", "clap_builder", "memchr",
    "regex", "anyhow", "nom", "chrono", "aho-corasick", "indexmap", "regex-syntax",
]

NODE_MODULES_FILES = 7_000
TARGET_FILES = 3_000
LOG_BYTES = 5 << 20


def newest(name):
    cargo = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
    found = [
        d for d in glob.glob(os.path.join(cargo, "registry/src/*", f"{name}-[0-9]*"))
        if os.path.basename(d)[len(name) + 1:][:1].isdigit()
    ]
    if not found:
        raise SystemExit(f"crate {name} is not in cargo's registry: run `cargo fetch` in the repository")
    key = lambda d: [int(p) if p.isdigit() else 0 for p in os.path.basename(d)[len(name) + 1:].split("+")[0].replace("-", ".").split(".")]
    return max(found, key=key)


def log_lines(rng, n_bytes):
    levels = ["INFO", "DEBUG", "WARN", "ERROR"]
    out, size, i = [], 0, 0
    while size < n_bytes:
        line = f"2026-01-{1 + i // 100000:02d}T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}Z {rng.choice(levels)} worker-{rng.randrange(16)} request {rng.randrange(10**9)} took {rng.randrange(5000)} ms\n"
        out.append(line)
        size += len(line)
        i += 1
    return "".join(out)


def make_tree(tree, servers):
    rng = random.Random(20)
    if os.path.exists(tree):
        shutil.rmtree(tree)
    repo = os.path.join(tree, "repo")
    os.makedirs(os.path.join(repo, "crates"))
    for name in CRATES:
        src = newest(name)
        shutil.copytree(src, os.path.join(repo, "crates", name), ignore=shutil.ignore_patterns(".cargo-ok"))
    with open(os.path.join(repo, "Cargo.toml"), "w") as f:
        f.write('[workspace]\nmembers = ["crates/*"]\nresolver = "2"\n')
    with open(os.path.join(repo, ".gitignore"), "w") as f:
        f.write("/target\nnode_modules/\n*.log\n")
    with open(os.path.join(repo, "README.md"), "w") as f:
        f.write("# bench\n\nTwenty crates, for the agent tasks.\n")
    os.makedirs(os.path.join(repo, "logs"))
    with open(os.path.join(repo, "logs", "app.log"), "w") as f:
        f.write(log_lines(rng, LOG_BYTES))
    # Ignored by `*.log` but tracked (added with -f): git shows it, so must every server.
    with open(os.path.join(repo, "logs", "config-defaults.log"), "w") as f:
        f.write("retries = 3\ntimeout_ms = 5000\n")
    # node_modules: whole packages of the servers' own install, in name order.
    nm_src = os.path.join(servers, "node_modules")
    nm = os.path.join(repo, "node_modules")
    os.makedirs(nm)
    count = 0
    for pkg in sorted(os.listdir(nm_src)):
        if pkg.startswith(".") or pkg.startswith("@"):
            continue
        n = sum(len(fs) for _, _, fs in os.walk(os.path.join(nm_src, pkg)))
        if count + n > NODE_MODULES_FILES:
            continue
        shutil.copytree(os.path.join(nm_src, pkg), os.path.join(nm, pkg), symlinks=True)
        count += n
    # target/: what a build leaves, by its names and sizes.
    for i in range(TARGET_FILES):
        kind = ["deps", ".fingerprint", "build", "incremental"][i % 4]
        d = os.path.join(repo, "target", "debug", kind, f"{CRATES[i % len(CRATES)]}-{i // len(CRATES):04x}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"out-{i}.d" if kind == "deps" else f"config-{i}.json"), "w") as f:
            f.write(f"target {i}\n" * (1 + i % 7))
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com"}
    git = lambda *a: subprocess.run(["git", *a], cwd=repo, env=env, check=True, capture_output=True)
    git("init", "-q")
    git("add", "-A")
    git("add", "-f", "logs/config-defaults.log")
    git("commit", "-q", "-m", "bench tree")
    with open(os.path.join(tree, "app.log"), "w") as f:
        f.write(log_lines(rng, LOG_BYTES))
    with open(os.path.join(tree, "data.json"), "w") as f:
        json.dump([{"id": i, "name": f"item{i}", "tags": ["a", "b"], "score": rng.random()} for i in range(70000)], f)


if __name__ == "__main__":
    import sys
    make_tree(*sys.argv[1:3])
