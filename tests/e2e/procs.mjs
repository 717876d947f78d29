// The apps the suite started, found through /proc: each launch puts a marker
// in the app's environment (`CANOPY_E2E_LAUNCH=RUN/FILE/N`, see harness.mjs's
// launcher), which the supervisor and the program keep, and what they start
// is found below them by parent pid (the renderer's children run with an
// environment of their own). So a launch that never opened its window, a
// session that failed, or a test file that timed out leaves nothing running
// that a later file would count.

import fs from "node:fs";

export const LAUNCH_VAR = "CANOPY_E2E_LAUNCH";

/** This run's id (run.mjs sets it for every test file); a file run by hand has its own. */
export const RUN = process.env.CANOPY_E2E_RUN ?? `by-hand-${process.pid}`;

const read = (file) => {
  try {
    return fs.readFileSync(file);
  } catch {
    return null;
  }
};

/** State (field 3) and parent pid (field 4) of /proc/PID/stat, or null once the process is gone. */
function stat(pid) {
  const text = read(`/proc/${pid}/stat`)?.toString("latin1");
  if (!text) return null;
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0], ppid: Number(fields[1]) };
}

/** Running: not gone, not a zombie waiting for its parent. */
export function alive(pid) {
  const s = stat(pid);
  return s !== null && s.state !== "Z" && s.state !== "X";
}

const allPids = () => fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p)).map(Number);

/** The running processes, each with its parent, and whether `test` holds for it. */
function scan(test) {
  const children = new Map();
  const roots = [];
  for (const pid of allPids()) {
    if (pid === process.pid) continue;
    const s = stat(pid);
    if (!s || s.state === "Z" || s.state === "X") continue;
    if (!children.has(s.ppid)) children.set(s.ppid, []);
    children.get(s.ppid).push(pid);
    if (test(pid)) roots.push(pid);
  }
  return below(roots, children);
}

/** `roots` and every process below them. */
function below(roots, children) {
  const out = new Set();
  const stack = [...roots];
  while (stack.length) {
    const pid = stack.pop();
    if (out.has(pid)) continue;
    out.add(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return [...out];
}

/**
 * The running processes whose environment holds a marker starting with
 * `prefix` (`CANOPY_E2E_LAUNCH=...`), and every process below them.
 */
export function marked(prefix) {
  const needle = Buffer.from(prefix);
  return scan((pid) => {
    const env = read(`/proc/${pid}/environ`);
    if (!env) return false;
    // Each variable is NUL-terminated; a marker is one whose text starts with the needle.
    let at = env.indexOf(needle);
    while (at > 0 && env[at - 1] !== 0) at = env.indexOf(needle, at + 1);
    return at !== -1;
  });
}

/** `pids` and every running process below them. */
export function tree(pids) {
  const roots = new Set(pids);
  return scan((pid) => roots.has(pid));
}

/** Command lines, for saying what was left running. */
export function describe(pids) {
  return pids.map((pid) => `${pid} ${(read(`/proc/${pid}/cmdline`)?.toString("latin1") ?? "").split("\0").join(" ").trim()}`);
}

/**
 * Kills (SIGKILL) every process marked with `prefix` and what runs below
 * them, and waits up to `waitMs` for them to be gone. A thread in an
 * uninterruptible call (a dead mount) keeps its process until the call
 * returns: what is still there then is returned.
 */
export async function killMarked(prefix, waitMs = 10000) {
  const deadline = Date.now() + waitMs;
  let left = marked(prefix);
  for (;;) {
    for (const pid of left) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* gone meanwhile */
      }
    }
    left = left.filter(alive);
    // Something may have been started by a process as it was killed.
    if (left.length === 0) left = marked(prefix);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
}
