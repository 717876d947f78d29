// One Canopy per desktop session: a second `canopy PATH` opens PATH in the
// running window and exits (over a D-Bus session bus, started here with
// dbus-run-session); a path that is not UTF-8 arrives byte-exact; without a
// bus Canopy starts normally.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { APP, file, freshConfigHome, launch, removeTree, saveScreenshot, startBus, tempTree } from "./harness.mjs";

let first;
let second;

before(() => {
  first = tempTree();
  file(path.join(first, "first.txt"));
  second = tempTree();
  file(path.join(second, "second.txt"));
  const odd = Buffer.concat([Buffer.from(second + "/"), Buffer.from([0x63, 0x61, 0x66, 0xe9])]);
  fs.mkdirSync(odd);
  fs.writeFileSync(Buffer.concat([odd, Buffer.from("/inside-odd.txt")]), "");
});

after(() => {
  removeTree(first);
  removeTree(second);
});

/** Runs a second Canopy through `sh -c script` and resolves with its exit code (liveness timeout only). */
function secondInstance(script, env) {
  return new Promise((resolve, reject) => {
    const p = spawn("sh", ["-c", script], { env: { ...process.env, ...env }, stdio: "inherit" });
    const timer = setTimeout(() => {
      p.kill("SIGKILL");
      reject(new Error("the second instance did not exit: it started its own window"));
    }, 30000);
    p.on("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

const lastCrumb = (s) => s.exec(() => Array.from(document.querySelectorAll(".crumb")).at(-1)?.textContent ?? null);

describe("a second canopy PATH", () => {
  let bus;
  let s;
  before(async () => {
    bus = await startBus();
    s = await launch([first], { env: { DBUS_SESSION_BUS_ADDRESS: bus.address } });
  });
  after(async () => {
    await s?.quit();
    bus?.stop();
  });

  test("opens PATH in the running window and exits", async () => {
    assert.equal(await lastCrumb(s), path.basename(first));
    const code = await secondInstance(`exec "$APP" "$DIR"`, { APP, DIR: second, DBUS_SESSION_BUS_ADDRESS: bus.address, XDG_CONFIG_HOME: freshConfigHome() });
    assert.equal(code, 0, "the second instance hands over and exits successfully");
    await s.waitFor((n) => Array.from(document.querySelectorAll(".crumb")).at(-1)?.textContent === n, { what: "the second path in the first window", args: [path.basename(second)] });
    assert.ok(await s.exec(() => Array.from(document.querySelectorAll('[role="treeitem"] .name')).some((n) => n.textContent === "second.txt")));
    assert.equal(await s.exec(() => document.querySelector('[aria-label^="Back"]')?.disabled ?? null), false, "Back returns to the first folder");
  });

  test("a path that is not UTF-8 arrives byte-exact", async () => {
    // printf writes the raw byte \351 (0xE9): the argument is not UTF-8.
    const code = await secondInstance(`exec "$APP" "$(printf '%s/caf\\351' "$DIR")"`, {
      APP,
      DIR: second,
      DBUS_SESSION_BUS_ADDRESS: bus.address,
      XDG_CONFIG_HOME: freshConfigHome(),
    });
    assert.equal(code, 0);
    await s.waitFor(() => Array.from(document.querySelectorAll('[role="treeitem"] .name')).some((n) => n.textContent === "inside-odd.txt"), { what: "the odd folder's contents" });
    assert.equal(await lastCrumb(s), "caf\\xe9", "the path bar shows the folder, its odd byte as a marker");
    await saveScreenshot(s, "single-instance-odd");
  });
});

test("without a session bus Canopy starts normally", async () => {
  const s = await launch([first], { env: { DBUS_SESSION_BUS_ADDRESS: "unix:path=/nonexistent/canopy-no-bus" } });
  try {
    assert.equal(await lastCrumb(s), path.basename(first));
    assert.ok(await s.exec(() => Array.from(document.querySelectorAll('[role="treeitem"] .name')).some((n) => n.textContent === "first.txt")));
  } finally {
    await s.quit();
  }
});
