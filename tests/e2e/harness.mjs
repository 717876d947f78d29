// The end-to-end harness: fixture trees in temp dirs, a read-only manifest of
// them, and sessions of the real app started through tauri-driver (which
// run.mjs has started, under Xvfb when there is no display).

import { createHash } from "node:crypto";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after } from "node:test";
import { LAUNCH_VAR, RUN } from "./procs.mjs";
import { Session, quitAll } from "./webdriver.mjs";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const APP = process.env.CANOPY_APP ?? path.join(REPO, "target/debug/canopy");
export const SHOTS = path.join(REPO, "target/e2e-screenshots");
// The next three are per lane when run.mjs runs files side by side (each
// lane's files get their own through the variables the app reads too).
/** The app records file actions (copy path, reveal, open) here instead of performing them. */
export const ACTION_LOG = process.env.CANOPY_TEST_ACTION_LOG ?? path.join(REPO, "target/e2e-actions.log");
/** The suite's stand-in xdg-open (tests/e2e/bin, first on the app's PATH) records here what it was handed. */
export const OPEN_LOG = process.env.CANOPY_E2E_OPEN_LOG ?? path.join(REPO, "target/e2e-opened.log");
/** The XDG folders the app runs with: default applications the suite chose. */
export const E2E_DESKTOP = path.join(os.tmpdir(), "canopy-e2e-desktop");
/** The folder the app's "Open folder…" answers under test, instead of showing the picker. */
export const PICKED_FOLDER = process.env.CANOPY_TEST_PICK_FOLDER ?? path.join(os.tmpdir(), "canopy-e2e-picked-folder");
export const SLOW_FOLDER = process.env.CANOPY_TEST_SLOW_FOLDER ?? "canopy-slow-folder";
/** The prefix of the marker of every app this test file launches (procs.mjs finds them by it). */
export const MY_LAUNCHES = `${LAUNCH_VAR}=${RUN}/${process.pid}/`;

function driverUrl(theme) {
  const url = theme === "dark" ? process.env.CANOPY_E2E_DRIVER_DARK : process.env.CANOPY_E2E_DRIVER;
  if (!url) throw new Error("run the end-to-end suite through tests/e2e/run.mjs (it starts Xvfb and tauri-driver)");
  return url;
}

// After the file's tests, whatever they left open is ended, failed or not.
after(quitAll);

const sessionDirs = [];
process.on("exit", () => {
  for (const d of sessionDirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A fresh config folder (XDG_CONFIG_HOME) for a session, removed when the test file ends. */
export function freshConfigHome() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-e2e-config-"));
  sessionDirs.push(dir);
  return dir;
}

const quote = (v) => `'${String(v).replace(/'/g, "'\\''")}'`;

let launches = 0;

/**
 * The program a session starts: a small script that gives the app its own
 * XDG_CONFIG_HOME (so sessions never see each other's remembered view),
 * the launch's marker (`LAUNCH_VAR=launch`: procs.mjs finds the app by it)
 * and `env`, then becomes `app`.
 */
function launcher(app, configHome, env, launch) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-e2e-launch-"));
  sessionDirs.push(dir);
  const script = path.join(dir, "canopy");
  const lines = ["#!/bin/sh", `export XDG_CONFIG_HOME=${quote(configHome)}`, `export ${LAUNCH_VAR}=${quote(launch)}`];
  for (const [k, v] of Object.entries(env)) lines.push(v === null ? `unset ${k}` : `export ${k}=${quote(v)}`);
  lines.push(`exec ${quote(app)} "$@"`);
  fs.writeFileSync(script, lines.join("\n") + "\n", { mode: 0o755 });
  return script;
}

/**
 * Starts Canopy on `args` and waits until its window shows a listing (or an
 * error), or until `ready` (a page function) answers true. Each session gets
 * a fresh XDG_CONFIG_HOME unless `configHome` is given (a restart test passes
 * the same one twice); `env` adds variables (null unsets one); `app` runs
 * another build (the installed package). A window that does not open within
 * `openWithin` (webdriver.mjs's OPEN_WITHIN_MS) is killed with what it
 * started, and one that never gets ready is closed, before the error is
 * thrown (the driver takes one session at a time).
 */
export async function launch(args = [], { theme = "light", configHome = freshConfigHome(), env = {}, app = APP, ready = null, openWithin } = {}) {
  const id = `${RUN}/${process.pid}/${++launches}`;
  const s = await Session.start(driverUrl(theme), launcher(app, configHome, env, id), args, id, openWithin);
  s.configHome = configHome;
  const firstListing = () => {
    const err = document.querySelector(".open-error");
    return (
      document.querySelector('[role="tree"] [role="treeitem"]') !== null ||
      (err !== null && !err.hidden) ||
      document.querySelector(".status-bar")?.textContent === "0 entries"
    );
  };
  try {
    await s.waitFor(ready ?? firstListing, { what: ready ? "the window to be ready" : "the first listing", timeout: 30000 });
  } catch (e) {
    await s.quit().catch(() => undefined);
    throw e;
  }
  return s;
}

/** The tree's rows as the accessibility tree and the DOM say. */
export function rows(s) {
  return s.exec(() =>
    Array.from(document.querySelectorAll('[role="tree"] [role="treeitem"]')).map((r) => ({
      name: r.querySelector(".name")?.textContent ?? "",
      level: Number(r.getAttribute("aria-level")),
      setsize: Number(r.getAttribute("aria-setsize")),
      posinset: Number(r.getAttribute("aria-posinset")),
      expanded: r.getAttribute("aria-expanded"),
      selected: r.getAttribute("aria-selected") === "true",
      kind: r.dataset.kind ?? "placeholder",
      handle: r.dataset.handle ?? null,
      badges: Array.from(r.querySelectorAll(".badge")).map((b) => b.textContent),
      text: r.textContent,
    })),
  );
}

/**
 * Every row of the tree, top to bottom, read by scrolling the virtualized
 * list through (only a screenful is in the DOM at a time). Restores scroll.
 */
export function allRows(s) {
  return s.execAsync(async () => {
    const scroller = document.querySelector(".tree-scroller");
    const saved = scroller.scrollTop;
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const seen = new Map();
    scroller.scrollTop = 0;
    await frame();
    for (;;) {
      for (const r of document.querySelectorAll('[role="tree"] [role="treeitem"]')) {
        const y = Number(/translateY\((-?[0-9.]+)px\)/.exec(r.style.transform)?.[1] ?? 0);
        seen.set(r.id, {
          y,
          handle: r.dataset.handle ?? null,
          name: r.querySelector(".name")?.textContent ?? "",
          level: Number(r.getAttribute("aria-level")),
          setsize: Number(r.getAttribute("aria-setsize")),
          posinset: Number(r.getAttribute("aria-posinset")),
          expanded: r.getAttribute("aria-expanded"),
          badges: Array.from(r.querySelectorAll(".badge")).map((b) => b.textContent),
        });
      }
      if (scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 1) break;
      scroller.scrollTop += Math.max(100, scroller.clientHeight - 60);
      await frame();
    }
    scroller.scrollTop = saved;
    await frame();
    return Array.from(seen.values()).sort((a, b) => a.y - b.y);
  });
}

/** Scrolls the tree until the row named `name` is rendered; returns its selector. */
export async function scrollToRow(s, name) {
  const id = await s.execAsync(async (n) => {
    const scroller = document.querySelector(".tree-scroller");
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const find = () => Array.from(document.querySelectorAll('[role="treeitem"]')).find((r) => r.querySelector(".name")?.textContent === n);
    if (find()) return find().id;
    scroller.scrollTop = 0;
    await frame();
    for (;;) {
      const hit = find();
      if (hit) {
        hit.scrollIntoView({ block: "center" });
        await frame();
        return find()?.id ?? null;
      }
      if (scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 1) return null;
      scroller.scrollTop += Math.max(100, scroller.clientHeight - 60);
      await frame();
    }
  }, name);
  if (!id) throw new Error(`no row named ${name} anywhere in the tree`);
  return `[id="${id}"]`;
}

/** Clicks the row named `name` (scrolling to it) and waits until it is selected. */
export async function selectRow(s, name) {
  const sel = await scrollToRow(s, name);
  await s.clickCss(`${sel} .name`);
  await s.waitFor((n) => document.querySelector('[aria-selected="true"] .name')?.textContent === n, { what: `${name} selected`, args: [name] });
}

/** Text of the preview region once `ready` (a CSS selector inside it) appears. */
export async function previewReady(s, ready) {
  return s.waitFor((sel) => {
    const region = document.querySelector('[role="region"][aria-label="Preview"]');
    return region?.querySelector(sel) ? region.textContent : null;
  }, { what: `preview to show ${ready}`, args: [ready] });
}

/** Waits for a row whose name is `name` and returns it. */
export function waitForRow(s, name, what = `row ${name}`) {
  return s.waitFor(
    (n) => {
      const r = Array.from(document.querySelectorAll('[role="treeitem"]')).find((x) => x.querySelector(".name")?.textContent === n);
      return r ? { id: r.id, level: Number(r.getAttribute("aria-level")), expanded: r.getAttribute("aria-expanded") } : null;
    },
    { what, args: [name] },
  );
}

/** The CSS selector of the row with `name` (by its id). */
export async function rowSelector(s, name) {
  const r = await waitForRow(s, name);
  return `[id="${r.id}"]`;
}

/** Presses and releases the right mouse button on the element `css` (WebDriver pointer actions; WebKitWebDriver sends a click after the release). */
export async function rightClick(s, css) {
  const el = await s.find(css);
  await s.cmd("POST", "/actions", {
    actions: [
      {
        type: "pointer",
        id: "mouse",
        parameters: { pointerType: "mouse" },
        actions: [
          { type: "pointerMove", origin: { "element-6066-11e4-a52e-4f735466cecf": el }, x: 0, y: 0 },
          { type: "pointerDown", button: 2 },
          { type: "pointerUp", button: 2 },
        ],
      },
    ],
  });
  await s.cmd("DELETE", "/actions");
}

export async function saveScreenshot(s, name) {
  fs.mkdirSync(SHOTS, { recursive: true });
  const png = await s.screenshot();
  const file = path.join(SHOTS, `${name}.png`);
  fs.writeFileSync(file, png);
  return file;
}

/**
 * Lays out the desktop the app runs in (see `desktopEnv`): a viewer that runs
 * nothing as the default application for text, PDF and JPEG, and a Wine
 * launcher as the one for PNG, so "Open…" must refuse PNGs.
 */
export function makeDesktop() {
  fs.rmSync(E2E_DESKTOP, { recursive: true, force: true });
  const viewer = "[Desktop Entry]\nType=Application\nName=Viewer\nExec=true %U\n";
  const wine = "[Desktop Entry]\nType=Application\nName=Wine\nExec=env WINEPREFIX=/nonexistent wine start /unix %f\n";
  file(path.join(E2E_DESKTOP, "data/applications/canopy-e2e-viewer.desktop"), viewer);
  file(path.join(E2E_DESKTOP, "data/applications/wine-extension-png.desktop"), wine);
  const defaults = ["text/plain", "application/pdf", "image/jpeg"].map((m) => `${m}=canopy-e2e-viewer.desktop`);
  file(path.join(E2E_DESKTOP, "config/mimeapps.list"), ["[Default Applications]", ...defaults, "image/png=wine-extension-png.desktop", ""].join("\n"));
}

/** The environment that points the app at that desktop and at the stand-in opener. */
export function desktopEnv(env) {
  const out = {
    ...env,
    PATH: `${path.join(REPO, "tests/e2e/bin")}:${env.PATH ?? "/usr/bin:/bin"}`,
    CANOPY_E2E_OPEN_LOG: OPEN_LOG,
    // The defaults list sits in a config *dir*: each session's launcher gives it
    // a fresh XDG_CONFIG_HOME of its own (for the remembered view), and xdg-mime
    // reads XDG_CONFIG_DIRS after it.
    XDG_CONFIG_DIRS: path.join(E2E_DESKTOP, "config"),
    XDG_DATA_HOME: path.join(E2E_DESKTOP, "data"),
    XDG_CURRENT_DESKTOP: "X-Generic",
  };
  for (const v of ["DESKTOP_SESSION", "KDE_FULL_SESSION", "GNOME_DESKTOP_SESSION_ID", "MATE_DESKTOP_SESSION_ID", "XDG_MENU_PREFIX"]) delete out[v];
  return out;
}

// ---- fixtures --------------------------------------------------------------

export function tempTree(prefix = "canopy-e2e-") {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(root, 0o755);
  return root;
}

export function file(p, content = "") {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
  return p;
}

export function files(dir, prefix, n, width = 3) {
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 1; i <= n; i++) fs.writeFileSync(path.join(dir, `${prefix}${String(i).padStart(width, "0")}`), "");
}

export function fifo(p) {
  execFileSync("mkfifo", [p]);
  return p;
}

/** Restores modes and removes a fixture tree. */
export function removeTree(root) {
  try {
    execFileSync("chmod", ["-R", "u+rwx", root]);
  } catch {
    /* best effort */
  }
  fs.rmSync(root, { recursive: true, force: true });
}

// ---- read-only proof ---------------------------------------------------------

const HASH_LIMIT = 64 * 1024 * 1024;

/**
 * Names, kinds, sizes, modes, mtimes and content hashes of a tree, without
 * opening anything but folders and regular files. Paths are handled as bytes,
 * so names that are not UTF-8 are recorded exactly.
 */
export function manifest(root) {
  const out = {};
  const walk = (p, rel) => {
    const st = fs.lstatSync(p);
    const rec = { mode: st.mode, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
    if (st.isSymbolicLink()) rec.link = fs.readlinkSync(p, { encoding: "buffer" }).toString("hex");
    if (st.isFile()) {
      rec.hash = st.size <= HASH_LIMIT ? createHash("sha256").update(fs.readFileSync(p)).digest("hex") : "large";
    }
    out[rel.toString("hex")] = rec;
    if (st.isDirectory()) {
      let names = [];
      try {
        names = fs.readdirSync(p, { encoding: "buffer" });
      } catch {
        return; // unreadable folder: its own record is the check
      }
      names.sort(Buffer.compare);
      for (const n of names) {
        const child = Buffer.concat([p, Buffer.from("/"), n]);
        walk(child, rel.length ? Buffer.concat([rel, Buffer.from("/"), n]) : n);
      }
    }
  };
  walk(Buffer.from(root), Buffer.alloc(0));
  return out;
}

export function diffManifests(before, after) {
  const changes = [];
  for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const a = JSON.stringify(before[k]);
    const b = JSON.stringify(after[k]);
    if (a !== b) changes.push(`${Buffer.from(k, "hex").toString()}: ${a} -> ${b}`);
  }
  return changes;
}

/** A private session bus: `dbus-run-session` keeps it while its child (a sleep) lives; `stop()` ends both. */
export function startBus() {
  return new Promise((resolve, reject) => {
    // Its own process group, so stopping it stops the bus daemon and the sleep too.
    const bus = spawn("dbus-run-session", ["--", "sh", "-c", 'echo "$DBUS_SESSION_BUS_ADDRESS"; exec sleep 600'], { stdio: ["ignore", "pipe", "ignore"], detached: true });
    let out = "";
    bus.on("error", reject);
    bus.stdout.on("data", (d) => {
      out += d;
      if (!out.includes("\n")) return;
      bus.stdout.destroy();
      bus.unref();
      resolve({ address: out.trim(), stop: () => process.kill(-bus.pid, "SIGTERM") });
    });
  });
}

/**
 * Mounts the dead FUSE filesystem (`dead_mount`, a test tool) on `point`:
 * every request on it goes unanswered. With `deadRoot: false`, only some of
 * what it holds is dead (`dead/`, `cold/`, `frozen.txt`; `live/` answers: see
 * src-tauri/core/tests/deadfs). `stop()` aborts its connection, so every
 * stuck reader returns, and unmounts.
 */
export async function mountDead(point, { deadRoot = true } = {}) {
  const tool = path.join(REPO, "target/debug/examples/dead_mount");
  const mount = spawn(tool, [...(deadRoot ? ["--dead-root"] : []), point], { stdio: ["pipe", "pipe", "inherit"] });
  const ready = await new Promise((resolve) => {
    mount.stdout.once("data", (d) => resolve(String(d).trim()));
    mount.once("exit", () => resolve("exited"));
  });
  if (ready !== "ready") throw new Error(`the dead_mount tool (${tool}) did not mount its filesystem: ${ready}`);
  return {
    stop: async () => {
      if (mount.exitCode !== null) return;
      const exited = new Promise((r) => mount.once("exit", r));
      mount.stdin.end();
      await exited;
    },
  };
}
