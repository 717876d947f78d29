// The webview refuses what a file browser never needs, whatever the page
// does: plugin commands (the capability grants Canopy's own commands only),
// the webview's default context menu outside Canopy's own, navigation away
// from the app, new windows and downloads. The app notes each refusal of
// the last three in the e2e build's action log, so a test waits for the
// refusal itself rather than for time to pass.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ACTION_LOG, REPO, diffManifests, file, launch, manifest, removeTree, rightClick as clickRight, rowSelector, saveScreenshot, tempTree } from "./harness.mjs";

let root;
let manifestBefore;

before(() => {
  root = tempTree();
  file(path.join(root, "notes.txt"), "notes\n");
  file(path.join(root, "folder/inside.txt"), "inside\n");
  manifestBefore = manifest(root);
});

after(() => removeTree(root));

/** Lines of the action log (the e2e build's record of refused and recorded actions). */
function actionLog() {
  return fs.existsSync(ACTION_LOG) ? fs.readFileSync(ACTION_LOG, "utf8").split("\n").filter(Boolean) : [];
}

/** Waits until the action log has a line `line`. */
async function logged(line) {
  const deadline = Date.now() + 20000;
  while (!actionLog().includes(line)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for "${line}" in the action log (has: ${JSON.stringify(actionLog())})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("the locked-down webview", () => {
  let s;
  before(async () => {
    s = await launch([root]);
    // A mark that only survives if the page is never replaced.
    await s.exec(() => (window.__stillHere = true));
  });
  after(async () => s?.quit());

  const stillTheApp = () => s.exec(() => ({ here: window.__stillHere === true, origin: location.origin, rows: document.querySelectorAll('[role="treeitem"]').length > 0 }));

  test("plugin commands are refused at run time from the page", async () => {
    const target = path.join(root, "notes.txt");
    const calls = [
      ["plugin:opener|open_path", { path: target }],
      ["plugin:opener|open_url", { url: "https://example.com/" }],
      ["plugin:opener|reveal_item_in_dir", { paths: [target] }],
      ["plugin:dialog|open", { options: { directory: true } }],
      ["plugin:dialog|message", { message: "hi" }],
      ["plugin:clipboard-manager|write_text", { text: "pasted into a shell" }],
      ["plugin:clipboard-manager|read_text", {}],
      ["plugin:window|set_title", { label: "main", value: "pwned" }],
      ["plugin:event|emit", { event: "x", payload: null }],
    ];
    for (const [cmd, args] of calls) {
      const r = await s.execAsync(async (c, a) => {
        try {
          return { ok: await window.__TAURI_INTERNALS__.invoke(c, a) };
        } catch (e) {
          return { refused: String(e?.message ?? e) };
        }
      }, cmd, args);
      const pretty = cmd.replace(/^plugin:/, "").replace("|", ".");
      assert.ok(r.refused, `${cmd} must be refused, got ${JSON.stringify(r)}`);
      assert.ok(r.refused.startsWith(`${pretty} not allowed`), `${cmd}: ${r.refused}`);
    }
    assert.equal(await s.exec(() => document.title), "Canopy", "the title was not set");
    // Canopy's own commands still answer.
    const own = await s.execAsync(async () => (await window.__TAURI_INTERNALS__.invoke("startup_target", {})).startup?.folder !== undefined);
    assert.equal(own, true);
  });

  test("a right-click shows no webview menu; Canopy's own menu still opens on a tree row", async () => {
    await s.exec(() => {
      window.__menus = [];
      // Last in line (bubble phase on the window): sees whether anything before prevented the default menu.
      window.addEventListener("contextmenu", (e) => window.__menus.push({ on: e.target.closest("[role]")?.getAttribute("role") ?? e.target.tagName, prevented: e.defaultPrevented }));
    });
    const rightClick = (css) => clickRight(s, css);
    // The preview's empty area, the toolbar and the status bar: no menu of Canopy's there.
    for (const css of ['[role="region"][aria-label="Preview"]', '[role="toolbar"]', ".status-bar"]) await rightClick(css);
    const outside = await s.waitFor(() => window.__menus.length >= 3 && window.__menus, { what: "three context-menu events" });
    assert.deepEqual(outside.map((m) => m.on), ["region", "toolbar", "status"]);
    for (const m of outside) assert.equal(m.prevented, true, `the webview's menu is refused on ${m.on}`);
    const row = await rowSelector(s, "notes.txt");
    await rightClick(`${row} .name`);
    const ours = await s.waitFor(() => document.querySelector('[role="menu"][aria-label="Entry actions"], [aria-selected="true"]') && { selected: document.querySelector('[aria-selected="true"] .name')?.textContent, last: window.__menus.at(-1) }, { what: "the row's context menu event" });
    assert.deepEqual(ours, { selected: "notes.txt", last: { on: "treeitem", prevented: true } });
    const folder = await rowSelector(s, "folder");
    await rightClick(`${folder} .name`);
    const items = await s.waitFor(() => document.querySelector('[role="menu"][aria-label="Entry actions"]') && Array.from(document.querySelectorAll('[role="menu"] [role="menuitem"]'), (b) => b.textContent), { what: "Canopy's menu" });
    assert.ok(items.includes("Open as root"), `Canopy's own menu: ${items}`);
    await saveScreenshot(s, "lockdown-own-menu");
    await s.exec(() => document.querySelector('[role="menu"] [role="menuitem"]').dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true })));
  });

  test("navigation away from the app is refused and the page stays", async () => {
    fs.rmSync(ACTION_LOG, { force: true });
    // WebKit itself refuses a file: page from the app's origin; the next,
    // separate attempt is the app's to refuse, and is recorded once both are done.
    await s.exec(() => {
      location.href = "file:///etc/passwd";
    });
    for (const url of ["https://example.com/", "data:text/html,away", "about:blank"]) {
      await s.exec((u) => {
        location.href = u;
      }, url);
      await logged(`navigation-refused ${url}`);
      assert.deepEqual(await stillTheApp(), { here: true, origin: "tauri://localhost", rows: true }, `after ${url}`);
    }
    // A link the page might make, clicked as a user would.
    await s.exec(() => {
      const a = document.createElement("a");
      a.id = "e2e-link";
      a.href = "https://example.com/clicked";
      a.textContent = "a link";
      document.querySelector(".status-bar").append(a);
    });
    await s.clickCss("#e2e-link");
    await logged("navigation-refused https://example.com/clicked");
    assert.deepEqual(await stillTheApp(), { here: true, origin: "tauri://localhost", rows: true });
    await s.exec(() => document.getElementById("e2e-link").remove());
  });

  test("no new window opens", async () => {
    fs.rmSync(ACTION_LOG, { force: true });
    // From a user's click, so no pop-up blocker stands in for the app's refusal.
    await s.exec(() => {
      const b = document.createElement("button");
      b.id = "e2e-open";
      b.textContent = "open";
      b.addEventListener("click", () => (window.__opened = window.open("https://example.com/popup")));
      const link = (id, target) => {
        const a = document.createElement("a");
        a.id = id;
        a.href = `https://example.com/${id}`;
        a.target = target;
        a.textContent = id;
        return a;
      };
      document.querySelector(".status-bar").append(b, link("e2e-blank", "_blank"), link("e2e-named", "elsewhere"));
    });
    await s.clickCss("#e2e-open");
    await logged("new-window-refused https://example.com/popup");
    assert.equal(await s.exec(() => window.__opened), null, "window.open answers null");
    // WebKitGTK opens nothing for target=_blank here; a named target asks the
    // app, which refuses. Clicked in this order, the refusal comes after both.
    await s.clickCss("#e2e-blank");
    await s.clickCss("#e2e-named");
    await logged("new-window-refused https://example.com/e2e-named");
    const handles = await s.cmd("GET", "/window/handles");
    assert.equal(handles.length, 1, "one window");
    assert.deepEqual(await stillTheApp(), { here: true, origin: "tauri://localhost", rows: true });
    await s.exec(() => ["e2e-open", "e2e-blank", "e2e-named"].forEach((id) => document.getElementById(id).remove()));
  });

  test("nothing is downloaded", async () => {
    fs.rmSync(ACTION_LOG, { force: true });
    const name = `canopy-e2e-download-${crypto.randomBytes(6).toString("hex")}.txt`;
    const url = await s.exec((n) => {
      const a = document.createElement("a");
      a.id = "e2e-download";
      a.download = n;
      a.href = URL.createObjectURL(new Blob(["downloaded"], { type: "text/plain" }));
      a.textContent = "download";
      document.querySelector(".status-bar").append(a);
      return a.href;
    }, name);
    await s.clickCss("#e2e-download");
    // Refused as a navigation away from the app (a blob: URL), or as a download.
    const deadline = Date.now() + 20000;
    let refusal;
    while (!(refusal = actionLog().find((l) => l === `navigation-refused ${url}` || l === `download-refused ${url}`))) {
      if (Date.now() > deadline) throw new Error(`no refusal of the download in the action log: ${JSON.stringify(actionLog())}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    console.log(`the download was refused: ${refusal}`);
    for (const dir of [os.homedir(), path.join(os.homedir(), "Downloads"), REPO, process.cwd(), os.tmpdir()]) {
      assert.equal(fs.existsSync(path.join(dir, name)), false, `nothing written to ${dir}`);
    }
    assert.deepEqual(await stillTheApp(), { here: true, origin: "tauri://localhost", rows: true });
    await s.exec(() => document.getElementById("e2e-download").remove());
  });
});

test("nothing in the fixture changed", () => {
  assert.deepEqual(diffManifests(manifestBefore, manifest(root)), []);
});
