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

async function startXvfb() {
  if (process.env.DISPLAY) return process.env.DISPLAY;
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

/** Runs one test file in a Node test runner of its own; its exit code, or "timeout". */
function runFile(file, env) {
  return new Promise((resolve) => {
    const t = spawn(process.execPath, ["--test", "--test-reporter=spec", file], { stdio: "inherit", env, detached: true });
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
      resolve(timedOut ? "timeout" : (c ?? 1));
    });
  });
}

async function main() {
  fs.mkdirSync(SHOTS, { recursive: true });
  fs.rmSync(ACTION_LOG, { force: true });
  fs.rmSync(OPEN_LOG, { force: true });
  makeDesktop();
  const display = await startXvfb();
  const base = desktopEnv({
    ...process.env,
    DISPLAY: display,
    WEBKIT_DISABLE_DMABUF_RENDERER: "1",
    CANOPY_TEST_SLOW_FOLDER: SLOW_FOLDER,
    CANOPY_TEST_ACTION_LOG: ACTION_LOG,
    CANOPY_TEST_PICK_FOLDER: PICKED_FOLDER,
    NO_AT_BRIDGE: "1",
  });
  delete base.WEBKIT_DISABLE_COMPOSITING_MODE;
  // No session bus: a test window never hands its path to a Canopy already
  // running on the desktop (single instance); the tests that need a bus start one.
  delete base.DBUS_SESSION_BUS_ADDRESS;
  let drivers = await startDrivers(base);
  const run = `${process.pid}-${Date.now()}`;
  const dir = path.join(REPO, "tests/e2e");
  const files = (d) => fs.readdirSync(d).filter((f) => f.endsWith(".test.mjs")).sort().map((f) => path.join(d, f));
  const parts = { "--test-build": files(dir), "--release": files(path.join(dir, "release")) };
  const args = process.argv.slice(2);
  const testFiles = args.length ? args.flatMap((a) => parts[a] ?? [path.resolve(a)]) : [...parts["--test-build"], ...parts["--release"]];
  const failed = [];
  const times = [];
  for (const file of testFiles) {
    const name = path.relative(dir, file);
    const began = Date.now();
    const code = await runFile(file, { ...base, ...drivers.env, CANOPY_E2E_RUN: run });
    times.push(`${name} ${Math.round((Date.now() - began) / 1000)} s`);
    // Every app this run started has ended by now, or is ended here.
    const prefix = `${LAUNCH_VAR}=${run}/`;
    const left = marked(prefix);
    let why = code === 0 ? null : code === "timeout" ? `ran past ${FILE_WITHIN_MS / 60000} minutes and was stopped` : `failed (exit ${code})`;
    if (left.length) {
      const running = describe(left);
      const stuck = await killMarked(prefix);
      const leak = `left ${left.length} process(es) of its apps running, killed: ${running.join("; ")}${stuck.length ? `; still there: ${stuck.join(", ")}` : ""}`;
      console.error(`\n${name} ${leak}`);
      why = why ? `${why}; ${leak}` : leak;
    }
    if (why) failed.push(`${name}: ${why}`);
    // A file that did not end its sessions (it was stopped, or left an app)
    // leaves the drivers holding one, which would refuse the next window.
    if (code === "timeout" || left.length) {
      await stopDrivers(drivers);
      drivers = await startDrivers(base);
    }
  }
  const code = failed.length ? 1 : 0;
  console.log(`\ntime per file: ${times.join(", ")}`);
  console.log(`\n${testFiles.length - failed.length} of ${testFiles.length} test files passed${failed.length ? `; failed:\n  ${failed.join("\n  ")}` : ""}`);
  await stopDrivers(drivers);
  stopAll();
  console.log(`screenshots: ${SHOTS}`);
  process.exit(code);
}

main().catch((err) => {
  console.error(err);
  stopAll();
  process.exit(1);
});
