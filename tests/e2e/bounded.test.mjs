// Bounded at any depth and on any mount, through the real window:
// - a bushy tree at depth 4 gets BUDGET badges where the request had no
//   room, and "Read this folder" reads one by its own sub-query;
// - a dead FUSE mount beside a live folder does not hold the listing, and 20
//   retries of it neither slow the window nor add more than
//   MAX_STUCK_THREADS threads to the app.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { APP, REPO, launch, mountDead, removeTree, rowSelector, saveScreenshot, tempTree, waitForRow } from "./harness.mjs";

const LIMIT_VALUES = fs.readFileSync(path.join(REPO, "ui/src/bindings/limit-values.ts"), "utf8");
const MAX_STUCK_THREADS = Number(/maxStuckThreads: (\d+)/.exec(LIMIT_VALUES)[1]);

/** The pid of the app under test (its command line starts with APP). */
function appPid() {
  const pids = fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p)).filter((p) => {
    try {
      return fs.readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0")[0] === APP;
    } catch {
      return false;
    }
  });
  assert.equal(pids.length, 1, `exactly one ${APP} running`);
  return pids[0];
}

const threadsOf = (pid) => fs.readdirSync(`/proc/${pid}/task`).length;

/** Sets the toolbar's depth control. */
function setDepth(s, depth) {
  return s.exec((d) => {
    const sel = document.querySelector('select[aria-label="Depth"]');
    sel.value = String(d);
    sel.dispatchEvent(new Event("change"));
  }, depth);
}

describe("a bushy tree at depth 4", () => {
  let root;
  before(() => {
    // 30 x 30 x 30 folders, 5 files each: 162,930 entries (on tmpfs when there is one).
    root = fs.existsSync("/dev/shm") ? fs.mkdtempSync("/dev/shm/canopy-e2e-bushy-") : tempTree("canopy-e2e-bushy-");
    for (let a = 0; a < 30; a++)
      for (let b = 0; b < 30; b++)
        for (let c = 0; c < 30; c++) {
          const dir = path.join(root, `a${String(a).padStart(2, "0")}`, `b${String(b).padStart(2, "0")}`, `c${String(c).padStart(2, "0")}`);
          fs.mkdirSync(dir, { recursive: true });
          for (let f = 0; f < 5; f++) fs.writeFileSync(path.join(dir, `f${f}`), "");
        }
  });
  after(() => removeTree(root));

  test("folders the request had no room for say BUDGET, and 'Read this folder' reads one", async () => {
    const s = await launch([root]);
    try {
      await setDepth(s, 4);
      await s.waitFor(() => document.querySelector('[role="treeitem"][aria-level="4"]') !== null, { what: "the depth-4 listing", timeout: 60000 });
      // Breadth-first: the last folders of the deepest level are the ones left unread.
      await s.exec(() => document.querySelector(".tree-scroller").scrollTo({ top: 1e9 }));
      const cut = await s.waitFor(() => {
        const rows = Array.from(document.querySelectorAll('[role="treeitem"]')).filter((r) => r.querySelector('.badge[data-code="BUDGET"]'));
        const r = rows.at(-1);
        return r ? { id: r.id, name: r.querySelector(".name").textContent, level: Number(r.getAttribute("aria-level")), text: r.textContent } : null;
      }, { what: "a BUDGET badge at the end of the tree" });
      assert.equal(cut.level, 3, "a level-4 folder's row (its entries would be level 4)");
      assert.match(cut.text, /Read this folder/);
      await saveScreenshot(s, "bounded-budget");
      await s.clickCss(`[id="${cut.id}"] [data-action="read-folder"]`);
      const read = await s.waitFor((id) => {
        const r = document.getElementById(id);
        if (!r || r.querySelector('.badge[data-code="BUDGET"]') || r.getAttribute("aria-expanded") !== "true") return null;
        const next = r.nextElementSibling;
        return { expanded: true, nextLevel: Number(next?.getAttribute("aria-level")), nextName: next?.querySelector(".name")?.textContent };
      }, { what: "the folder read by its own sub-query", args: [cut.id] });
      assert.equal(read.nextLevel, 4, "its entries appear below it");
      assert.equal(read.nextName, "f0");
    } finally {
      await s.quit();
    }
  });
});

describe("a dead mount beside a live folder", () => {
  let root;
  let mount;
  before(async () => {
    root = tempTree("canopy-e2e-dead-");
    for (let i = 1; i <= 3; i++) fs.mkdirSync(path.join(root, "live", `inner${i}`), { recursive: true });
    fs.mkdirSync(path.join(root, "mnt"));
    mount = await mountDead(path.join(root, "mnt"));
  });
  after(async () => {
    // Aborts the connection (every stuck reader returns) and unmounts.
    await mount?.stop();
    removeTree(root);
  });

  test("the live folder is shown beside the dead one, and 20 retries cost neither time nor threads", async () => {
    const started = Date.now();
    const s = await launch([root]);
    try {
      await waitForRow(s, "inner3", "the live folder's entries");
      const shownAfter = Date.now() - started;
      const mnt = await rowSelector(s, "mnt");
      const code = await s.waitFor((sel) => document.querySelector(`${sel} .badge-error`)?.dataset.code ?? null, { what: "the dead folder's code", args: [mnt] });
      assert.equal(code, "TIMEOUT");
      await saveScreenshot(s, "bounded-dead-mount");

      const pid = appPid();
      const threadsBefore = threadsOf(pid);
      const retryStarted = Date.now();
      for (let i = 0; i < 20; i++) {
        await s.clickCss(`${mnt} .twisty`);
        await s.waitFor(
          (sel) => {
            const r = document.querySelector(sel);
            return r && !r.querySelector(".spinner") && /earlier call/.test(r.querySelector(".badge-error")?.title ?? "");
          },
          { what: `retry ${i + 1} answered`, args: [mnt] },
        );
      }
      const retriesTook = Date.now() - retryStarted;
      const threadsAfter = threadsOf(pid);
      console.log(`live folder shown ${shownAfter} ms after launch; 20 retries of the dead folder took ${retriesTook} ms; app threads ${threadsBefore} -> ${threadsAfter}`);
      assert.ok(threadsAfter - threadsBefore <= MAX_STUCK_THREADS, `threads ${threadsBefore} -> ${threadsAfter}`);

      // The window still answers at once: select the live folder and move down.
      await s.clickCss(`${await rowSelector(s, "live")} .name`);
      await s.waitFor(() => document.querySelector('[aria-selected="true"] .name')?.textContent === "live", { what: "live selected" });
      await s.keys(["\uE015"]); // ArrowDown
      await s.waitFor(() => document.querySelector('[aria-selected="true"] .name')?.textContent === "inner1", { what: "the selection moved" });
    } finally {
      await s.quit();
    }
  });
});
