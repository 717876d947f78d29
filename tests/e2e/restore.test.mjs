// Restart through the real window: the view is remembered on exit and
// restored on a start without a path, safely: folders are re-listed with the
// cap (never "Show all"), vanished ones are dropped, a slow folder delays
// nothing else, names that are not UTF-8 come back exact, and a corrupt
// state file is ignored with a message. A huge remembered window is fitted
// to the screen; a SIGTERM while a folder keeps changing still writes the view.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { APP, SLOW_FOLDER, file, files, freshConfigHome, launch, removeTree, saveScreenshot, scrollToRow, selectRow, tempTree } from "./harness.mjs";

let root;
const ODD = Buffer.from([0x63, 0x61, 0x66, 0xe9]); // "caf\xe9": not UTF-8

before(() => {
  root = tempTree();
  files(path.join(root, "a", SLOW_FOLDER), "s", 400);
  file(path.join(root, "deep/level2/level3/bottom.txt"), "bottom\n");
  files(path.join(root, "deep/level2"), "l", 3);
  files(path.join(root, "gone"), "g", 2);
  files(path.join(root, "grows"), "w", 50, 4);
  files(path.join(root, "huge"), "h", 1000, 4);
  fs.mkdirSync(path.join(root, "odd"));
  const odd = Buffer.concat([Buffer.from(path.join(root, "odd") + "/"), ODD]);
  fs.mkdirSync(odd);
  fs.writeFileSync(Buffer.concat([odd, Buffer.from("/inner.txt")]), "");
  files(path.join(root, "other"), "o", 2);
});

after(() => removeTree(root));

const row = (s, name) =>
  s.exec((n) => {
    const r = Array.from(document.querySelectorAll('[role="treeitem"]')).find((x) => x.querySelector(".name")?.textContent === n);
    return r ? { expanded: r.getAttribute("aria-expanded"), selected: r.getAttribute("aria-selected"), more: r.querySelector(".badge-more")?.textContent ?? null, spinner: r.querySelector(".spinner") !== null, text: r.textContent } : null;
  }, name);

async function toggle(s, name) {
  await s.clickCss(`${await scrollToRow(s, name)} .twisty`);
}

/** The saved view, once it holds the selection and the window's size. */
function savedWith(file, rect) {
  try {
    const saved = JSON.parse(fs.readFileSync(file, "utf8"));
    const sel = saved.view?.selected && Buffer.from(saved.view.selected, "base64url").toString();
    return sel?.endsWith("bottom.txt") && saved.window?.width === rect.width && saved.window?.height === rect.height ? saved : null;
  } catch {
    return null;
  }
}

describe("restart", () => {
  const configHome = freshConfigHome();
  const stateFile = path.join(configHome, "canopy/state.json");
  let rect;

  test("on exit the view is remembered in XDG_CONFIG_HOME, paths as handles", async () => {
    const s = await launch([root], { configHome });
    try {
      await toggle(s, "other");
      await toggle(s, "level2");
      await s.waitFor(() => Array.from(document.querySelectorAll('[role="treeitem"] .name')).some((n) => n.textContent === "bottom.txt"), { what: "level2's contents" });
      await toggle(s, "caf\\xe9");
      await s.waitFor(() => Array.from(document.querySelectorAll('[role="treeitem"] .name')).some((n) => n.textContent === "inner.txt"), { what: "the odd folder's contents" });
      await toggle(s, SLOW_FOLDER);
      await s.waitFor((n) => {
        const r = Array.from(document.querySelectorAll('[role="treeitem"]')).find((x) => x.querySelector(".name")?.textContent === n);
        return r && r.getAttribute("aria-expanded") === "true" && !r.querySelector(".spinner");
      }, { what: "the slow folder listed", args: [SLOW_FOLDER], timeout: 30000 });
      await s.clickCss(`${await scrollToRow(s, "huge")} [data-action="show-all"]`);
      await s.waitFor(() => {
        const r = Array.from(document.querySelectorAll('[role="treeitem"]')).find((x) => x.querySelector(".name")?.textContent === "h0001");
        return r?.getAttribute("aria-setsize") === "1000" && !document.querySelector('[data-action="show-all"]');
      }, { what: "huge shown whole" });
      await selectRow(s, "bottom.txt");
      await s.cmd("POST", "/window/rect", { width: 1100, height: 760 });
      rect = await s.cmd("GET", "/window/rect");
      // Written shortly after the last change (and on close): wait for it, then end the app.
      const deadline = Date.now() + 20000;
      while (!savedWith(stateFile, rect)) {
        assert.ok(Date.now() < deadline, "the view is written within 20 s of the last change");
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await s.quit();
    }
    const saved = JSON.parse(fs.readFileSync(stateFile, "utf8"));
    const decode = (h) => Buffer.from(h, "base64url");
    assert.equal(decode(saved.view.folder).toString(), root);
    assert.ok(saved.view.expanded.some((h) => decode(h).equals(Buffer.concat([Buffer.from(path.join(root, "odd") + "/"), ODD]))), "the odd folder is kept byte-exact");
    assert.ok(!saved.view.expanded.some((h) => decode(h).toString() === path.join(root, "other")), "a collapsed folder is not remembered as expanded");
    assert.equal(decode(saved.view.selected).toString(), path.join(root, "deep/level2/level3/bottom.txt"));
    assert.deepEqual([saved.window.width, saved.window.height], [rect.width, rect.height]);
    assert.deepEqual(fs.readdirSync(path.dirname(stateFile)), ["state.json"], "no temporary file left");
  });

  test("a start without a path restores folder, expansion and selection; safely", async () => {
    assert.ok(fs.existsSync(stateFile), "the first test saved a view");
    // Between the sessions: a remembered folder vanished, another grew past the cap.
    removeTree(path.join(root, "gone"));
    files(path.join(root, "grows"), "w", 5000, 4);
    const s = await launch([], { configHome });
    try {
      // Each remembered folder is its own sub-query: level2 shows while the slow folder still reads.
      const early = await s.waitFor((slow) => {
        const rows = Array.from(document.querySelectorAll('[role="treeitem"]'));
        const byName = (n) => rows.find((x) => x.querySelector(".name")?.textContent === n);
        const slowRow = byName(slow);
        return byName("bottom.txt") && slowRow?.querySelector(".spinner") ? "level2 restored while the slow folder still reads" : null;
      }, { what: "the restored folders, the slow one still reading", args: [SLOW_FOLDER] });
      assert.ok(early);
      const crumbs = await s.exec(() => Array.from(document.querySelectorAll(".crumb")).map((c) => c.textContent));
      assert.equal(crumbs.at(-1), path.basename(root), "the folder is restored");
      const sel = await s.waitFor(() => {
        const r = document.querySelector('[aria-selected="true"]');
        if (!r) return null;
        const box = r.getBoundingClientRect();
        const view = document.querySelector(".tree-scroller").getBoundingClientRect();
        return { name: r.querySelector(".name").textContent, inView: box.top >= view.top && box.bottom <= view.bottom };
      }, { what: "the restored selection" });
      assert.deepEqual(sel, { name: "bottom.txt", inView: true }, "the selection is restored and in view");
      assert.equal((await row(s, "level2")).expanded, "true");
      await saveScreenshot(s, "restore-restored");
      // The slow folder is restored too, once it answers (its row is found by scrolling).
      let slow = null;
      for (const end = Date.now() + 30000; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
        await scrollToRow(s, SLOW_FOLDER);
        slow = await row(s, SLOW_FOLDER);
        if (slow?.expanded === "true" && !slow.spinner) break;
      }
      assert.equal(slow?.expanded, "true", "the slow folder is restored too");
      assert.equal(slow.spinner, false, "and done reading");
      await scrollToRow(s, "caf\\xe9");
      assert.equal((await row(s, "caf\\xe9")).expanded, "true", "a folder named with invalid UTF-8 is restored");
      assert.ok(await row(s, "inner.txt"));
      await scrollToRow(s, "other");
      assert.equal((await row(s, "other")).expanded, "false", "a collapsed folder stays collapsed");
      await scrollToRow(s, "huge");
      assert.equal((await row(s, "huge")).more, "900 more", "'Show all' is not restored: the first 100 and the badge");
      await scrollToRow(s, "grows");
      assert.equal((await row(s, "grows")).more, "4,900 more", "a folder that grew past the cap shows its first page");
      const names = await s.exec(() => Array.from(document.querySelectorAll('[role="treeitem"][aria-level="1"] .name'), (n) => n.textContent));
      assert.ok(!names.includes("gone"), "a vanished folder is dropped");
      const size = await s.cmd("GET", "/window/rect");
      assert.deepEqual([size.width, size.height], [rect.width, rect.height], "the window size is restored");
    } finally {
      await s.quit();
    }
  });

  test("a corrupt state file is ignored with a message", async () => {
    const corrupt = freshConfigHome();
    fs.mkdirSync(path.join(corrupt, "canopy"));
    fs.writeFileSync(path.join(corrupt, "canopy/state.json"), '{"version":1,"view":{"folder":');
    const s = await launch([], { configHome: corrupt });
    try {
      const status = await s.waitFor(() => {
        const t = document.querySelector(".status-bar").textContent;
        return /ignored/.test(t) ? t : null;
      }, { what: "the message" });
      assert.match(status, /saved view .*state\.json.* was ignored: it is not a saved view/);
      const crumbs = await s.exec(() => Array.from(document.querySelectorAll(".crumb")).map((c) => c.textContent));
      assert.equal(crumbs.at(-1), path.basename(process.env.HOME ?? "/root"), "a fresh start opens the home folder");
      await saveScreenshot(s, "restore-corrupt");
    } finally {
      await s.quit();
    }
  });
});

/** The pid of the app a session started on `folder` (the launcher execs it: its arguments are the app and the folder). */
function appPid(folder) {
  const lines = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" }).split("\n");
  const hits = lines.map((l) => l.trim().split(/\s+/)).filter(([, exe, arg]) => exe === APP && arg === folder);
  assert.equal(hits.length, 1, `one app started on ${folder}`);
  return Number(hits[0][0]);
}

/** True once `pid` has exited (gone, or a zombie its parent has not reaped yet). */
function exited(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").startsWith("Z");
  } catch {
    return true;
  }
}

describe("the remembered window and view, pushed", () => {
  test("a remembered 30000x30000 window opens within the screen's work area", async () => {
    const configHome = freshConfigHome();
    fs.mkdirSync(path.join(configHome, "canopy"));
    const huge = { version: 1, window: { x: 0, y: 0, width: 30000, height: 30000, maximized: false } };
    fs.writeFileSync(path.join(configHome, "canopy/state.json"), JSON.stringify(huge));
    const s = await launch([root], { configHome });
    try {
      const screen = await s.exec(() => ({ width: screen.availWidth * devicePixelRatio, height: screen.availHeight * devicePixelRatio }));
      const rect = await s.cmd("GET", "/window/rect");
      assert.ok(rect.width <= screen.width && rect.height <= screen.height, `${rect.width}x${rect.height} fits ${screen.width}x${screen.height}`);
      assert.ok(rect.x >= 0 && rect.y >= 0 && rect.x + rect.width <= screen.width && rect.y + rect.height <= screen.height, `placed on the screen: ${JSON.stringify(rect)}`);
    } finally {
      await s.quit();
    }
  });

  test("killed (SIGTERM) while an expanded folder keeps changing, the app writes the view before it ends", async () => {
    const busyRoot = tempTree();
    const busy = path.join(busyRoot, "busy");
    files(busy, "b", 3);
    const configHome = freshConfigHome();
    const stateFile = path.join(configHome, "canopy/state.json");
    const heldLog = path.join(configHome, "remembered.log");
    const held = () => (fs.existsSync(heldLog) ? fs.readFileSync(heldLog, "utf8").trim().split("\n").at(-1) : "");
    const chosen = path.join(busy, "b002");
    // A download in progress: a new file every 0.2 s, so a live refresh (and a
    // view to remember) follows every 0.2 s, never a pause of 0.5 s.
    let n = 0;
    const writer = setInterval(() => fs.writeFileSync(path.join(busy, `new-${String(++n).padStart(4, "0")}`), ""), 200);
    const s = await launch([busyRoot], { configHome, env: { CANOPY_TEST_REMEMBER_LOG: heldLog } });
    try {
      // busy is open at depth 2, and refreshing.
      const seen = `new-${String(n + 3).padStart(4, "0")}`;
      await s.waitFor((want) => Array.from(document.querySelectorAll('[role="treeitem"] .name')).some((x) => x.textContent === want), {
        what: "files made while the window is open",
        args: [seen],
      });
      await selectRow(s, "b002");
      // The app holds the view with the selection (not a sleep: it says so), then is killed at once.
      for (const end = Date.now() + 20000; held() !== `selected ${Buffer.from(chosen).toString("base64url")}`; await new Promise((r) => setTimeout(r, 10))) {
        assert.ok(Date.now() < end, "the app holds the selection");
      }
      const pid = appPid(busyRoot);
      process.kill(pid, "SIGTERM");
      for (const end = Date.now() + 20000; !exited(pid); await new Promise((r) => setTimeout(r, 50))) assert.ok(Date.now() < end, "the app ends on SIGTERM");
    } finally {
      clearInterval(writer);
      await s.quit().catch(() => undefined);
    }
    assert.ok(fs.existsSync(stateFile), "the view was written before the app ended");
    const saved = JSON.parse(fs.readFileSync(stateFile, "utf8"));
    assert.equal(Buffer.from(saved.view.selected ?? "", "base64url").toString(), chosen, "with the selection made just before the kill");
    assert.ok(saved.view.expanded.some((h) => Buffer.from(h, "base64url").toString() === busy), "and the folder that kept changing expanded");
    removeTree(busyRoot);
  });
});
