// The tree through the real window: depth 2, inline truncation badges, the
// targeted sub-queries behind "Show next 100", "Show all" and expanding a
// folder at the depth limit, keyboard navigation and type-ahead, errors on
// their rows, and a 200,000-entry folder virtualized.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Key } from "./webdriver.mjs";
import {
  ACTION_LOG,
  PICKED_FOLDER,
  allRows,
  scrollToRow,
  diffManifests,
  file,
  files,
  launch,
  manifest,
  removeTree,
  rows,
  rowSelector,
  saveScreenshot,
  tempTree,
  waitForRow,
} from "./harness.mjs";

let root;
let huge;
let manifestBefore;

before(() => {
  root = tempTree();
  files(path.join(root, "alpha"), "a", 150);
  file(path.join(root, "alpha/sub1/x.txt"));
  file(path.join(root, "alpha/sub2/y.txt"));
  files(path.join(root, "beta"), "b", 3);
  files(path.join(root, "big"), "g", 552);
  file(path.join(root, "deep/level2/level3/bottom.txt"), "bottom\n");
  fs.mkdirSync(path.join(root, "locked"));
  file(path.join(root, "locked/secret.txt"), "s");
  fs.chmodSync(path.join(root, "locked"), 0o000);
  fs.symlinkSync("beta", path.join(root, "link-to-beta"));
  file(path.join(root, "notes.txt"), "notes\n");
  file(path.join(root, "zebra.txt"));
  huge = tempTree("canopy-e2e-huge-");
  const dir = path.join(huge, "huge");
  fs.mkdirSync(dir);
  for (let i = 1; i <= 200_000; i++) fs.closeSync(fs.openSync(path.join(dir, `f${String(i).padStart(6, "0")}`), "w"));
  manifestBefore = { root: manifest(root), huge: manifest(huge) };
});

after(() => {
  removeTree(root);
  removeTree(huge);
});

/** Rows under the folder row named `folder` (its direct children). */
function childrenOf(all, folder) {
  const i = all.findIndex((r) => r.name === folder);
  const level = all[i].level;
  const out = [];
  for (let j = i + 1; j < all.length && all[j].level > level; j++) if (all[j].level === level + 1) out.push(all[j]);
  return out;
}

describe("the tree", () => {
  let s;
  before(async () => {
    s = await launch([root]);
  });
  after(async () => s?.quit());

  test("opens at depth 2 with the accessibility tree the contract describes", async () => {
    const visible = await rows(s);
    assert.ok(visible.length <= 200, "virtualized");
    const all = await allRows(s);
    const top = all.filter((r) => r.level === 1).map((r) => r.name);
    assert.deepEqual(top, ["alpha", "beta", "big", "deep", "locked", "link-to-beta", "notes.txt", "zebra.txt"]);
    const alpha = all.find((r) => r.name === "alpha");
    assert.equal(alpha.expanded, "true");
    assert.equal(alpha.setsize, 8);
    assert.equal(alpha.posinset, 1);
    const kids = childrenOf(all, "alpha");
    assert.deepEqual(kids.slice(0, 3).map((r) => r.name), ["sub1", "sub2", "a001"], "folders first inside too");
    assert.ok(kids.every((r) => r.setsize === 152), "children's setsize is the parent's total");
    assert.deepEqual(kids.slice(0, 3).map((r) => r.posinset), [1, 2, 3]);
    const level2 = all.find((r) => r.name === "level2");
    assert.equal(level2.expanded, "false", "a folder at the depth limit shows collapsed");
    // Found by what it shows, not by its role: the row holding "alpha" is a
    // treeitem, inside the focusable tree that names the folder's contents.
    const roles = await s.exec(() => {
      const row = Array.from(document.querySelectorAll(".tree-scroller .name")).find((n) => n.textContent === "alpha").closest(".row");
      const container = row.parentElement.closest("[role]");
      return { row: row.getAttribute("role"), container: container?.getAttribute("role"), label: container?.getAttribute("aria-label"), focusable: container?.tabIndex === 0 };
    });
    assert.deepEqual(roles, { row: "treeitem", container: "tree", label: "Folder contents", focusable: true });
    await saveScreenshot(s, "tree-normal");
  });

  test("a truncated folder carries an inline badge with the exact count", async () => {
    const all = await allRows(s);
    assert.deepEqual(all.find((r) => r.name === "alpha").badges, ["52 more"]);
    assert.deepEqual(all.find((r) => r.name === "big").badges, ["452 more"]);
    const title = await s.exec(() => {
      const row = Array.from(document.querySelectorAll('[role="treeitem"]')).find((r) => r.querySelector(".name")?.textContent === "alpha");
      return row.querySelector(".badge-more").title;
    });
    assert.equal(title, "52 more: 52 without extension (showing 100 of 152)", "what the rest is made of, from the engine");
    assert.deepEqual(all.find((r) => r.name === "beta").badges, [], "a complete folder has no badge");
  });

  test("an error lands on its own row as a badge", async () => {
    await scrollToRow(s, "locked");
    const all = await rows(s);
    const locked = all.find((r) => r.name === "locked");
    assert.deepEqual(locked.badges, ["DENIED"], "the DAC-capability-less app is really denied");
    const hover = await s.exec(() => document.querySelector('.badge-error[data-code="DENIED"]').title);
    assert.match(hover, /permission/);
    await saveScreenshot(s, "tree-errors");
  });

  test("Show next 100 fetches one page of that folder and appends it", async () => {
    const sel = await scrollToRow(s, "big");
    await s.clickCss(`${sel} [data-action="show-next"]`);
    await s.waitFor(() => {
      const row = Array.from(document.querySelectorAll('[role="treeitem"]')).find((r) => r.querySelector(".name")?.textContent === "big");
      return row?.querySelector(".badge-more")?.textContent === "352 more";
    }, { what: "big's badge to read 352 more" });
    // big's children are now its first 200 entries, in order, each saying where it sits among all 552.
    const kids = childrenOf(await allRows(s), "big");
    assert.deepEqual(kids.map((r) => r.posinset), Array.from({ length: 200 }, (_, i) => i + 1), "posinsets 1..200, none missing or doubled");
    assert.deepEqual(kids.map((r) => r.name), Array.from({ length: 200 }, (_, i) => `g${String(i + 1).padStart(3, "0")}`));
    assert.ok(kids.every((r) => r.setsize === 552 && r.level === 2), "setsize is big's total");
    await saveScreenshot(s, "tree-truncated");
  });

  test("Show all reaches the folder's last entry while a sibling's children stay as they were", async () => {
    const betaBefore = childrenOf(await allRows(s), "beta").map((r) => [r.name, r.posinset]);
    const sel = await scrollToRow(s, "alpha");
    await s.clickCss(`${sel} [data-action="show-all"]`);
    await s.waitFor(() => !Array.from(document.querySelectorAll('[role="treeitem"]')).find((r) => r.querySelector(".name")?.textContent === "alpha")?.querySelector(".badge-more"), { what: "alpha's badge to go" });
    // Scroll until alpha's last entry is rendered.
    const found = await s.waitFor(() => {
      const last = Array.from(document.querySelectorAll('[role="treeitem"]')).find((r) => r.querySelector(".name")?.textContent === "a150");
      if (last) return { posinset: last.getAttribute("aria-posinset"), setsize: last.getAttribute("aria-setsize") };
      document.querySelector(".tree-scroller").scrollTop += 400;
      return null;
    }, { what: "a150 to scroll into view" });
    assert.deepEqual(found, { posinset: "152", setsize: "152" });
    const betaAfter = childrenOf(await allRows(s), "beta").map((r) => [r.name, r.posinset]);
    assert.deepEqual(betaAfter, betaBefore, "merge in place: the sibling's children are unchanged");
    await s.exec(() => (document.querySelector(".tree-scroller").scrollTop = 0));
  });

  test("expanding a folder at the depth limit lists it at depth D", async () => {
    await s.exec(() => (document.querySelector(".tree-scroller").scrollTop = 0));
    // Collapse alpha and big to bring deep into view.
    for (const name of ["alpha", "big"]) {
      const sel = await scrollToRow(s, name);
      await s.clickCss(`${sel} .twisty`);
    }
    const sel = await scrollToRow(s, "level2");
    await s.clickCss(`${sel} .twisty`);
    await waitForRow(s, "bottom.txt");
    const all = await rows(s);
    assert.equal(all.find((r) => r.name === "level2").expanded, "true");
    assert.equal(all.find((r) => r.name === "level3").level, 3);
    assert.equal(all.find((r) => r.name === "bottom.txt").level, 4, "the drill-down shows two levels, like the first view");
  });

  test("a symlink to a folder expands by following it once", async () => {
    const sel = await rowSelector(s, "link-to-beta");
    await s.clickCss(`${sel} .twisty`);
    await s.waitFor(() => {
      const all = Array.from(document.querySelectorAll('[role="treeitem"]'));
      const i = all.findIndex((r) => r.querySelector(".name")?.textContent === "link-to-beta");
      return i >= 0 && all[i + 1]?.getAttribute("aria-level") === "2" && all[i + 1].querySelector(".name").textContent === "b001";
    }, { what: "the link's children" });
  });

  test("keyboard: arrows move and select, Left collapses, Right expands, type-ahead jumps", async () => {
    await s.exec(() => document.querySelector('[role="tree"]').focus());
    await s.keys([Key.Home]);
    let sel = await s.waitFor(() => document.querySelector('[aria-selected="true"] .name')?.textContent, { what: "a selection" });
    assert.equal(sel, "alpha");
    await s.keys([Key.ArrowDown]);
    sel = await s.waitFor(() => document.querySelector('[aria-selected="true"] .name')?.textContent === "beta" && "beta", { what: "beta selected" });
    // beta is expanded: Left collapses it, Right expands it again.
    await s.keys([Key.ArrowLeft]);
    await s.waitFor(() => document.querySelector('[aria-selected="true"]')?.getAttribute("aria-expanded") === "false", { what: "collapsed" });
    await s.keys([Key.ArrowRight]);
    await s.waitFor(() => document.querySelector('[aria-selected="true"]')?.getAttribute("aria-expanded") === "true", { what: "expanded" });
    await s.keys([Key.ArrowRight]);
    await s.waitFor(() => document.querySelector('[aria-selected="true"] .name')?.textContent === "b001", { what: "moved into beta" });
    await s.keys([Key.ArrowLeft]);
    await s.waitFor(() => document.querySelector('[aria-selected="true"] .name')?.textContent === "beta", { what: "back to the parent" });
    // Type-ahead among the root's entries.
    await s.keys(["n", "o"]);
    await s.waitFor(() => document.querySelector('[aria-selected="true"] .name')?.textContent === "notes.txt", { what: "type-ahead to notes.txt" });
    const active = await s.exec(() => {
      const tree = document.querySelector('[role="tree"]');
      return document.activeElement === tree && tree.getAttribute("aria-activedescendant") === document.querySelector('[aria-selected="true"]').id;
    });
    assert.ok(active, "focus stays on the tree and points at the selected row");
  });

  test("a bad typed path shows its code and leaves the tree as it was", async () => {
    const before = (await rows(s)).map((r) => r.name);
    await s.keys(["l"], [Key.Control]);
    const input = await s.find(".path-input");
    await s.exec(() => (document.querySelector(".path-input").value = ""));
    await s.type(input, path.join(root, "does-not-exist") + Key.Enter);
    const err = await s.waitFor(() => {
      const e = document.querySelector(".open-error");
      return e && !e.hidden && e.textContent;
    }, { what: "the open error" });
    assert.match(err, /NOT_FOUND/);
    assert.deepEqual((await rows(s)).map((r) => r.name), before);
    await saveScreenshot(s, "tree-bad-path");
    await s.keys([Key.Escape]);
  });

  test("Open folder… calls the folder picker and opens what it answers", async () => {
    fs.rmSync(PICKED_FOLDER, { recursive: true, force: true });
    files(PICKED_FOLDER, "picked", 2);
    fs.rmSync(ACTION_LOG, { force: true });
    try {
      const button = await s.find('button[title="Open folder…"]');
      await s.click(button);
      await s.waitFor((n) => document.querySelector('.crumb[aria-current]')?.textContent === n, { what: "the picked folder", args: [path.basename(PICKED_FOLDER)] });
      assert.deepEqual((await rows(s)).map((r) => r.name), ["picked001", "picked002"]);
      assert.equal(fs.readFileSync(ACTION_LOG, "utf8").trim(), `pick ${PICKED_FOLDER}`, "the picker was called once");
      await s.keys([Key.ArrowLeft], [Key.Alt]);
      await s.waitFor((n) => document.querySelector('.crumb[aria-current]')?.textContent === n, { what: "back", args: [path.basename(root)] });
    } finally {
      removeTree(PICKED_FOLDER);
    }
  });

  test("Open as root re-roots the view, and Back returns", async () => {
    const sel = await scrollToRow(s, "beta");
    await s.clickCss(`${sel} [data-action="open-root"]`);
    await s.waitFor(() => document.querySelector('.crumb[aria-current]')?.textContent === "beta", { what: "beta as root" });
    assert.deepEqual((await rows(s)).map((r) => r.name), ["b001", "b002", "b003"]);
    await s.keys([Key.ArrowLeft], [Key.Alt]);
    await s.waitFor((n) => document.querySelector('.crumb[aria-current]')?.textContent === n, { what: "back to the root", args: [path.basename(root)] });
  });
});

describe("a folder of 200,000 entries", () => {
  let s;
  before(async () => {
    s = await launch([path.join(huge, "huge")]);
  });
  after(async () => s?.quit());

  test("shows its first rows with at most 200 rows in the DOM", async () => {
    const r = await rows(s);
    assert.ok(r.length > 0 && r.length <= 200, `rows in the DOM: ${r.length}`);
    assert.equal(r[0].name, "f000001");
    assert.equal(r[0].setsize, 200000);
    const height = await s.exec(() => document.querySelector(".tree-spacer").getBoundingClientRect().height);
    assert.ok(height >= 200000 * 20, "the scrollbar covers every entry from the start");
  });

  test("End fetches the last page and shows the last entry", async () => {
    await s.exec(() => document.querySelector('[role="tree"]').focus());
    await s.keys([Key.End]);
    const last = await s.waitFor(() => {
      const sel = document.querySelector('[aria-selected="true"]');
      return sel && { name: sel.querySelector(".name").textContent, pos: sel.getAttribute("aria-posinset") };
    }, { what: "the last entry selected", timeout: 30000 });
    assert.deepEqual(last, { name: "f200000", pos: "200000" });
    const count = await s.exec(() => document.querySelectorAll('[role="treeitem"]').length);
    assert.ok(count <= 200, `rows in the DOM: ${count}`);
    await saveScreenshot(s, "tree-200k-end");
  });
});

describe("dark theme", () => {
  test("follows the system setting", async () => {
    const s = await launch([root], { theme: "dark" });
    try {
      const bg = await s.exec(() => getComputedStyle(document.body).backgroundColor);
      await saveScreenshot(s, "tree-dark");
      assert.equal(bg, "rgb(27, 30, 28)", "GTK_THEME=Adwaita:dark turns on prefers-color-scheme: dark");
    } finally {
      await s.quit();
    }
  });
});

test("browsing changed nothing in the fixtures", () => {
  assert.deepEqual(diffManifests(manifestBefore.root, manifest(root)), []);
  assert.deepEqual(diffManifests(manifestBefore.huge, manifest(huge)), []);
});
