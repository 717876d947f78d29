// Runs the end-to-end suite: starts Xvfb when there is no display, starts
// tauri-driver (twice: light and dark GTK theme) on free loopback ports, runs
// every tests/e2e/*.test.mjs with Node's test runner, one file at a time,
// then those of tests/e2e/release/ (they need the release: scripts/test
// builds it), and stops everything with SIGTERM (tauri-driver stops
// WebKitWebDriver only then).
//
// After each file, no app it started may still run: what is left (found by
// the marker each launch puts in the app's environment, see procs.mjs) is
// killed, with what it started, and the file fails. So a launch that hung or
// a test that failed half-way cannot make a later file count two apps.
// A file that runs past FILE_WITHIN_MS is stopped and fails.
//
// As root, the drivers run with CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH
// dropped from their bounding set, so a mode-000 folder is really denied.
//
//   node tests/e2e/run.mjs [FILE...]      the given files, or every file
//   node tests/e2e/run.mjs --test-build   the files that drive the test build
//   node tests/e2e/run.mjs --release      the files that need the release

import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { ACTION_LOG, OPEN_LOG, PICKED_FOLDER, REPO, SHOTS, SLOW_FOLDER, desktopEnv, makeDesktop } from "./harness.mjs";
import { LAUNCH_VAR, describe, killMarked, marked, tree } from "./procs.mjs";

/** A liveness bound for one test file (the longest takes a few minutes). */
const FILE_WITHIN_MS = 20 * 60 * 1000;

/**
 * How many files run side by side (CANOPY_E2E_LANES), each lane with a
 * display, drivers and action logs of its own.
 */
const LANES = Number(process.env.CANOPY_E2E_LANES ?? 1);

/**
 * Files that run with nothing beside them: what they mount (a dead FUSE
 * mount, a tmpfs) shows in every window's Places, or they hold the window or
 * the renderer to a time (a round trip against the window at rest, a key
 * answered during a storm, a page drawn within the renderer's deadline), or
 * they need the release (many launches of it, its package installed).
 */
const ALONE = new Set([
  "bounded.test.mjs",
  "dead-exit.test.mjs",
  "grid.test.mjs",
  "hostile-content.test.mjs",
  "live-storm.test.mjs",
  "media.test.mjs",
  "places.test.mjs",
  "sizes.test.mjs",
  "release/launches.test.mjs",
  "release/package.test.mjs",
  "release/release.test.mjs",
]);

/** Each file's time in the last run (the longest start first). */
const TIMES = path.join(REPO, "target/e2e-times.json");

const children = [];

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitPort(port, what) {
  const deadline = Date.now() + 20000;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const sock = net.connect(port, "127.0.0.1");
      sock.on("connect", () => {
        sock.end();
        resolve(true);
      });
      sock.on("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${what} did not start on port ${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function startXvfb(own = false) {
  if (process.env.DISPLAY && !own) return process.env.DISPLAY;
  let n = 99;
  while (fs.existsSync(`/tmp/.X${n}-lock`)) n++;
  const display = `:${n}`;
  const x = spawn("Xvfb", [display, "-screen", "0", "1440x900x24", "-nolisten", "tcp"], { stdio: "ignore" });
  children.push(x);
  const deadline = Date.now() + 15000;
  while (!fs.existsSync(`/tmp/.X11-unix/X${n}`)) {
    if (Date.now() > deadline) throw new Error("Xvfb did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
  return display;
}

async function startDriver(env) {
  const port = await freePort();
  const nativePort = await freePort();
  const args = ["--port", String(port), "--native-port", String(nativePort)];
  const isRoot = process.getuid?.() === 0;
  const cmd = isRoot ? "capsh" : "tauri-driver";
  const cmdArgs = isRoot
    ? ["--drop=cap_dac_override,cap_dac_read_search", "--", "-c", `exec tauri-driver ${args.join(" ")}`]
    : args;
  const log = fs.openSync(path.join(REPO, "target", `tauri-driver-${port}.log`), "w");
  const child = spawn(cmd, cmdArgs, { env, stdio: ["ignore", log, log] });
  children.push(child);
  await waitPort(port, "tauri-driver");
  return { url: `http://127.0.0.1:${port}`, child };
}

/** The two drivers, for the light and the dark GTK theme: the variables that name them, and their processes. */
async function startDrivers(base) {
  const light = await startDriver({ ...base, GTK_THEME: "Adwaita" });
  const dark = await startDriver({ ...base, GTK_THEME: "Adwaita:dark" });
  return { env: { CANOPY_E2E_DRIVER: light.url, CANOPY_E2E_DRIVER_DARK: dark.url }, procs: [light.child, dark.child] };
}

/** Stops drivers (tauri-driver stops its WebKitWebDriver on SIGTERM; what is left is killed). */
async function stopDrivers(drivers) {
  const procs = drivers.procs.filter((c) => c.exitCode === null);
  const all = tree(procs.map((c) => c.pid));
  for (const c of procs) c.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 300));
  for (const pid of all) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      /* ended */
    }
  }
  for (const c of drivers.procs) children.splice(children.indexOf(c), 1);
}

function stopAll() {
  for (const c of children.reverse()) {
    if (c.exitCode === null) c.kill("SIGTERM");
  }
}
process.on("SIGINT", () => {
  stopAll();
  process.exit(130);
});

/**
 * Runs one test file in a Node test runner of its own; its exit code, or
 * "timeout". With `out`, its output is collected there (files side by side
 * are shown one after another), else shown as it comes.
 */
function runFile(file, env, out = null) {
  return new Promise((resolve) => {
    const stdio = out ? ["ignore", "pipe", "pipe"] : "inherit";
    const t = spawn(process.execPath, ["--test", "--test-reporter=spec", file], { stdio, env, detached: true });
    if (out) {
      t.stdout.on("data", (d) => out.push(d));
      t.stderr.on("data", (d) => out.push(d));
    }
    children.push(t);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-t.pid, "SIGKILL");
      } catch {
        /* gone */
      }
    }, FILE_WITHIN_MS);
    t.on("exit", (c) => {
      clearTimeout(timer);
      children.splice(children.indexOf(t), 1);
      const done = () => resolve(timedOut ? "timeout" : (c ?? 1));
      // Collected output: what is still in the pipes, unless something the
      // file started holds them open.
      if (out) {
        const grace = setTimeout(done, 2000);
        t.on("close", () => {
          clearTimeout(grace);
          done();
        });
      } else done();
    });
  });
}

/**
 * A lane: a display, its two drivers and the files the app records to, for
 * one file at a time. Lane 0 is the suite's display (Xvfb, or the one it was
 * started on); each other lane has an Xvfb of its own.
 */
async function startLane(n, base) {
  const suffix = n === 0 ? "" : `-${n + 1}`;
  const env = {
    ...base,
    DISPLAY: await startXvfb(n > 0),
    CANOPY_TEST_ACTION_LOG: ACTION_LOG.replace(/\.log$/, `${suffix}.log`),
    CANOPY_E2E_OPEN_LOG: OPEN_LOG.replace(/\.log$/, `${suffix}.log`),
    CANOPY_TEST_PICK_FOLDER: `${PICKED_FOLDER}${suffix}`,
  };
  fs.rmSync(env.CANOPY_TEST_ACTION_LOG, { force: true });
  fs.rmSync(env.CANOPY_E2E_OPEN_LOG, { force: true });
  return { n, env, drivers: await startDrivers(env) };
}

async function main() {
  fs.mkdirSync(SHOTS, { recursive: true });
  makeDesktop();
  const base = desktopEnv({
    ...process.env,
    WEBKIT_DISABLE_DMABUF_RENDERER: "1",
    CANOPY_TEST_SLOW_FOLDER: SLOW_FOLDER,
    NO_AT_BRIDGE: "1",
  });
  delete base.WEBKIT_DISABLE_COMPOSITING_MODE;
  // No session bus: a test window never hands its path to a Canopy already
  // running on the desktop (single instance); the tests that need a bus start one.
  delete base.DBUS_SESSION_BUS_ADDRESS;
  const run = `${process.pid}-${Date.now()}`;
  const dir = path.join(REPO, "tests/e2e");
  const files = (d) => fs.readdirSync(d).filter((f) => f.endsWith(".test.mjs")).sort().map((f) => path.join(d, f));
  const parts = { "--test-build": files(dir), "--release": files(path.join(dir, "release")) };
  const args = process.argv.slice(2);
  const testFiles = args.length ? args.flatMap((a) => parts[a] ?? [path.resolve(a)]) : [...parts["--test-build"], ...parts["--release"]];
  const name = (file) => path.relative(dir, file);
  let last = {};
  try {
    last = JSON.parse(fs.readFileSync(TIMES, "utf8"));
  } catch {
    /* not timed yet */
  }
  // Side by side: the longest of the last run first (one not timed yet
  // counts as long), so the last to end is not a long one started late.
  const took = (f) => last[name(f)] ?? Number.MAX_SAFE_INTEGER;
  const shared = testFiles.filter((f) => !ALONE.has(name(f))).sort((a, b) => took(b) - took(a));
  const alone = testFiles.filter((f) => ALONE.has(name(f)));
  const lanes = [];
  for (let n = 0; n < Math.max(1, Math.min(LANES, shared.length)); n++) lanes.push(await startLane(n, base));

  const failed = [];
  const times = {};
  let runs = 0;
  const runOne = async (lane, file, out) => {
    const id = `${run}.${++runs}`;
    const began = Date.now();
    const code = await runFile(file, { ...lane.env, ...lane.drivers.env, CANOPY_E2E_RUN: id }, out);
    times[name(file)] = Math.round((Date.now() - began) / 1000);
    // Every app this file started has ended by now, or is ended here.
    const prefix = `${LAUNCH_VAR}=${id}/`;
    const left = marked(prefix);
    let why = code === 0 ? null : code === "timeout" ? `ran past ${FILE_WITHIN_MS / 60000} minutes and was stopped` : `failed (exit ${code})`;
    if (left.length) {
      const running = describe(left);
      const stuck = await killMarked(prefix);
      const leak = `left ${left.length} process(es) of its apps running, killed: ${running.join("; ")}${stuck.length ? `; still there: ${stuck.join(", ")}` : ""}`;
      (out ?? []).push(`\n${name(file)} ${leak}\n`);
      if (!out) console.error(`\n${name(file)} ${leak}`);
      why = why ? `${why}; ${leak}` : leak;
    }
    if (why) failed.push(`${name(file)}: ${why}`);
    // A file that did not end its sessions (it was stopped, or left an app)
    // leaves the drivers holding one, which would refuse the next window.
    if (code === "timeout" || left.length) {
      await stopDrivers(lane.drivers);
      lane.drivers = await startDrivers(lane.env);
    }
  };
  // The files that may share the machine, one per lane at a time; with more
  // than one lane each file's output is shown when it ends.
  await Promise.all(
    lanes.map(async (lane) => {
      for (let file; (file = shared.shift()); ) {
        if (lanes.length === 1) {
          await runOne(lane, file, null);
          continue;
        }
        const out = [];
        await runOne(lane, file, out);
        process.stdout.write(`\n---- ${name(file)} (lane ${lane.n + 1}, ${times[name(file)]} s)\n`);
        for (const chunk of out) process.stdout.write(chunk);
      }
    }),
  );
  // Then those that run with nothing beside them.
  for (const file of alone) await runOne(lanes[0], file, null);

  const code = failed.length ? 1 : 0;
  fs.writeFileSync(TIMES, JSON.stringify({ ...last, ...times }, null, 1));
  console.log(`\ntime per file (${lanes.length} lane${lanes.length > 1 ? "s" : ""}): ${Object.entries(times).map(([f, t]) => `${f} ${t} s`).join(", ")}`);
  console.log(`\n${testFiles.length - failed.length} of ${testFiles.length} test files passed${failed.length ? `; failed:\n  ${failed.join("\n  ")}` : ""}`);
  for (const lane of lanes) await stopDrivers(lane.drivers);
  stopAll();
  console.log(`screenshots: ${SHOTS}`);
  process.exit(code);
}

main().catch((err) => {
  console.error(err);
  stopAll();
  process.exit(1);
});
