// A window on a folder holding a dead FUSE mount lets go when it is told to
// end, while its call on the mount is still stuck:
// - sent SIGTERM, the pid that was started (the supervisor) exits within
//   seconds, though the program's thread in the FUSE request cannot;
// - the program's session-bus connection goes with it, so the
//   single-instance name is free and a second `canopy PATH` opens a window
//   of its own instead of handing PATH to a process that shows nothing.
// The mount is aborted only in `after`: every assertion is made while it
// still holds a request (its connection's `waiting` count).

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { APP, REPO, launch, mountDead, removeTree, rowSelector, saveScreenshot, startBus, tempTree, waitForRow } from "./harness.mjs";

/** tauri-plugin-single-instance's name: the app's identifier + ".SingleInstance" (src/platform_impl/linux.rs). */
const IDENTIFIER = JSON.parse(fs.readFileSync(path.join(REPO, "tauri.conf.json"), "utf8")).identifier;
const INSTANCE_NAME = `${IDENTIFIER}.SingleInstance`;
/** A liveness bound: the supervisor promises 200 ms after the program's main thread exited. */
const EXIT_WITHIN_MS = 6000;
/** The supervisor's command line is the program's plus this (src-tauri/core/src/supervisor.rs). */
const SUPERVISOR_SUFFIX = " (supervisor)";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Whether `name` has an owner on the bus at `address`. */
function nameHasOwner(address, name) {
  const out = execFileSync(
    "dbus-send",
    ["--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", `string:${name}`],
    { env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: address }, encoding: "utf8", timeout: 10000 },
  );
  const m = /boolean (true|false)/.exec(out);
  assert.ok(m, `NameHasOwner answered: ${out}`);
  return m[1] === "true";
}

const readProc = (file) => {
  try {
    return fs.readFileSync(file);
  } catch {
    return null;
  }
};

/** Field 3 (state) and 4 (ppid) of a /proc stat file. */
function stat(file) {
  const text = readProc(file)?.toString("latin1");
  if (!text) return null;
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0], ppid: Number(fields[1]) };
}

/** The states of a process's threads ([] once it is gone). */
function threadStates(pid) {
  let tasks;
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.map((t) => stat(`/proc/${pid}/task/${t}/stat`)?.state).filter(Boolean);
}

/** Gone, or a zombie with no thread left (only its parent's wait is missing). */
const hasExited = (pid) => threadStates(pid).every((s) => s === "Z" || s === "X");

/**
 * The Canopy processes of one session (told apart from any other by the
 * session's XDG_CONFIG_HOME): the one that was started (its parent is not one
 * of them) and the program (whose command line is APP's alone).
 */
function processesOf(configHome) {
  const mine = new Map();
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    const env = readProc(`/proc/${pid}/environ`)?.toString("latin1").split("\0") ?? [];
    if (!env.includes(`XDG_CONFIG_HOME=${configHome}`)) continue;
    const arg0 = readProc(`/proc/${pid}/cmdline`)?.toString("latin1").split("\0")[0];
    if (arg0 !== APP && arg0 !== APP + SUPERVISOR_SUFFIX) continue;
    mine.set(Number(pid), { arg0, ppid: stat(`/proc/${pid}/stat`)?.ppid });
  }
  const started = [...mine].filter(([, p]) => !mine.has(p.ppid)).map(([pid]) => pid);
  const program = [...mine].filter(([, p]) => p.arg0 === APP).map(([pid]) => pid);
  assert.equal(started.length, 1, `one process started for the session: ${JSON.stringify([...mine])}`);
  assert.equal(program.length, 1, `one program for the session: ${JSON.stringify([...mine])}`);
  return { started: started[0], program: program[0], all: [...mine.keys()] };
}

/** The FUSE connection number of the mount on `point` (its device's minor number, from mountinfo). */
function fuseConnection(point) {
  for (const line of fs.readFileSync("/proc/self/mountinfo", "utf8").split("\n")) {
    const f = line.split(" ");
    if (f[4] === point) return Number(f[2].split(":")[1]);
  }
  throw new Error(`no mount on ${point}`);
}

/** Requests the mount holds unanswered. */
const waiting = (connection) => Number(fs.readFileSync(`/sys/fs/fuse/connections/${connection}/waiting`, "utf8").trim());

/** Ends a WebDriver session whose app may be gone or stuck, without waiting on it for long. */
const quitSoon = (s) => Promise.race([s?.quit(), sleep(5000)]);

describe("a window on a dead mount, sent SIGTERM", () => {
  let root;
  let mount;
  let connection;
  let bus;
  let first;
  let second;
  let firstProcs;
  before(async () => {
    root = tempTree("canopy-e2e-dead-exit-");
    for (let i = 1; i <= 3; i++) fs.mkdirSync(path.join(root, "live", `inner${i}`), { recursive: true });
    fs.mkdirSync(path.join(root, "mnt"));
    mount = await mountDead(path.join(root, "mnt"));
    connection = fuseConnection(path.join(root, "mnt"));
    bus = await startBus();
  });
  after(async () => {
    // Abort first: every reader stuck in the mount returns, so the program can end.
    if (connection !== undefined) {
      try {
        fs.writeFileSync(`/sys/fs/fuse/connections/${connection}/abort`, "1");
      } catch {
        /* already gone */
      }
    }
    await mount?.stop();
    await quitSoon(first);
    await quitSoon(second);
    // Whatever of the first session is left (a program that outlived its supervisor).
    for (const pid of firstProcs?.all ?? []) {
      try {
        if (!hasExited(pid)) process.kill(pid, "SIGKILL");
      } catch {
        /* gone */
      }
    }
    bus?.stop();
    removeTree(root);
  });

  test("the pid that was started exits within seconds, while the program's call is still stuck", async () => {
    first = await launch([root], { env: { DBUS_SESSION_BUS_ADDRESS: bus.address } });
    await waitForRow(first, "inner3", "the live folder's entries");
    const mnt = await rowSelector(first, "mnt");
    const code = await first.waitFor((sel) => document.querySelector(`${sel} .badge-error`)?.dataset.code ?? null, { what: "the dead folder's code", args: [mnt] });
    assert.equal(code, "TIMEOUT");
    await saveScreenshot(first, "dead-exit-before");
    assert.ok(waiting(connection) > 0, "the app's read of the dead folder is held by the mount");
    assert.equal(nameHasOwner(bus.address, INSTANCE_NAME), true, `the window holds ${INSTANCE_NAME}`);

    firstProcs = processesOf(first.configHome);
    const { started, program } = firstProcs;
    const programParent = stat(`/proc/${program}/stat`)?.ppid;

    const sent = Date.now();
    process.kill(started, "SIGTERM");
    while (!hasExited(started) && Date.now() - sent < EXIT_WITHIN_MS) await sleep(20);
    const took = Date.now() - sent;
    const startedStates = threadStates(started);
    const programStates = threadStates(program);
    const held = waiting(connection);
    console.log(`SIGTERM: the started pid ${started} exited after ${took} ms (threads now ${JSON.stringify(startedStates)}); the program ${program} has threads ${JSON.stringify(programStates)}; the mount holds ${held} request(s)`);
    assert.ok(hasExited(started), `the started pid ${started} still runs ${EXIT_WITHIN_MS} ms after SIGTERM: threads ${JSON.stringify(startedStates)}`);
    // The point: it went while the mount was still dead, not because the call returned.
    assert.ok(held > 0, "the mount still holds the program's request");
    assert.ok(programStates.includes("D"), `the program's read is stuck in the mount (a thread in D state): ${JSON.stringify(programStates)}`);
    assert.notEqual(started, program, "the pid started is a supervisor, the program its child");
    assert.equal(programParent, started);
  });

  test("the single-instance name is free, and a second canopy PATH opens its own window", async () => {
    assert.ok(firstProcs, "the first window was started and sent SIGTERM");
    // The program's files (its bus connection) are closed as it exits, though its stuck thread lives on.
    const deadline = Date.now() + EXIT_WITHIN_MS;
    while (nameHasOwner(bus.address, INSTANCE_NAME) && Date.now() < deadline) await sleep(100);
    assert.equal(nameHasOwner(bus.address, INSTANCE_NAME), false, `${INSTANCE_NAME} is still owned, by the first window's stuck program`);
    assert.ok(waiting(connection) > 0, "the mount still holds the first program's request");

    // The driver holds one session at a time: end the first window's (its app is gone).
    await quitSoon(first);
    first = undefined;
    second = await launch([path.join(root, "live")], { env: { DBUS_SESSION_BUS_ADDRESS: bus.address } });
    await waitForRow(second, "inner1", "the second window's listing");
    const crumb = await second.exec(() => Array.from(document.querySelectorAll(".crumb")).at(-1)?.textContent ?? null);
    assert.equal(crumb, "live");
    assert.equal(nameHasOwner(bus.address, INSTANCE_NAME), true, "the second window holds the name now");
    const procs = processesOf(second.configHome);
    assert.ok(!hasExited(procs.program), "the second program runs");
    await saveScreenshot(second, "dead-exit-second");
  });
});
