// Runs the end-to-end suite: starts Xvfb when there is no display, starts
// tauri-driver (twice: light and dark GTK theme) on free loopback ports, runs
// every *.test.mjs with Node's test runner one file at a time, and stops
// everything with SIGTERM (tauri-driver stops WebKitWebDriver only then).
//
// As root, the drivers run with CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH
// dropped from their bounding set, so a mode-000 folder is really denied.

import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { ACTION_LOG, OPEN_LOG, PICKED_FOLDER, REPO, SHOTS, SLOW_FOLDER, desktopEnv, makeDesktop } from "./harness.mjs";

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
  return `http://127.0.0.1:${port}`;
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
  const light = await startDriver({ ...base, GTK_THEME: "Adwaita" });
  const dark = await startDriver({ ...base, GTK_THEME: "Adwaita:dark" });
  const only = process.argv.slice(2);
  const dir = path.join(REPO, "tests/e2e");
  const testFiles = only.length
    ? only
    : fs.readdirSync(dir).filter((f) => f.endsWith(".test.mjs")).sort().map((f) => path.join(dir, f));
  const code = await new Promise((resolve) => {
    const t = spawn(process.execPath, ["--test", "--test-concurrency=1", "--test-reporter=spec", ...testFiles], {
      stdio: "inherit",
      env: { ...base, CANOPY_E2E_DRIVER: light, CANOPY_E2E_DRIVER_DARK: dark },
    });
    t.on("exit", (c) => resolve(c ?? 1));
  });
  stopAll();
  // Give tauri-driver a moment to stop WebKitWebDriver.
  await new Promise((r) => setTimeout(r, 300));
  try {
    execFileSync("pkill", ["-f", "WebKitWebDriver --port"], { stdio: "ignore" });
  } catch {
    /* none left */
  }
  console.log(`screenshots: ${SHOTS}`);
  process.exit(code);
}

main().catch((err) => {
  console.error(err);
  stopAll();
  process.exit(1);
});
