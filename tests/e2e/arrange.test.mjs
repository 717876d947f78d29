// Order, filter, ignore rules and the rest, through the real window:
// - a click on a column header sorts every folder over the whole folder
//   (the largest of 552 photos comes first, not the largest of 100), again
//   reverses; the header says so with aria-sort, and works from the keyboard;
// - the badge's tooltip and the folder's summary say what the rest is made of;
// - a truncated folder is filtered from its badge, over all of its entries,
//   with the exact match count, and comes back as it was when cleared;
// - "Hide ignored" hides what git would, and the folder shows how many;
// - a folder whose sizes cannot all be read in time says "order is partial".

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Key } from "./webdriver.mjs";
import { SLOW_FOLDER, allRows, file, launch, previewReady, removeTree, rowSelector, saveScreenshot, scrollToRow, tempTree } from "./harness.mjs";

let root;
let s;

/** Size of photo `i` (1-based): scattered over 0..540 bytes, every size once. */
const sizeOf = (i) => (i * 37) % 541;

/** Names of the entries of the row named `parent` (null: the top level), in tree order, read by scrolling through. */
async function childNames(parent) {
  const all = await allRows(s);
  if (parent === null) return all.filter((r) => r.level === 1).map((r) => r.name);
  const at = all.findIndex((r) => r.name === parent);
  if (at < 0) return null;
  const out = [];
  for (const r of all.slice(at + 1)) {
    if (r.level <= all[at].level) break;
    if (r.level === all[at].level + 1) out.push(r.name);
  }
  return out;
}

function sortState() {
  return s.exec(() =>
    Array.from(document.querySelectorAll('[role="columnheader"]'), (h) => ({ label: h.textContent, sort: h.getAttribute("aria-sort"), tab: h.tabIndex })),
  );
}

const largestFirst = Array.from({ length: 540 }, (_, k) => k + 1)
  .sort((a, b) => sizeOf(b) - sizeOf(a) || a - b)
  .map((i) => `img_${String(i).padStart(4, "0")}.jpg`);

describe("order, filter, ignored and the rest in the window", () => {
  before(async () => {
    root = tempTree("canopy-e2e-arrange-");
    // 540 photos of scattered sizes and 12 small .json files: 552 entries, 100 shown.
    for (let i = 1; i <= 540; i++) file(path.join(root, "photos", `img_${String(i).padStart(4, "0")}.jpg`), "x".repeat(sizeOf(i)));
    for (let i = 1; i <= 12; i++) file(path.join(root, "photos", `meta${String(i).padStart(2, "0")}.json`), "{}");
    // A repository (a .git git takes for one: HEAD, objects, refs): its rules hide two logs and a build folder.
    for (const d of ["objects", "refs"]) fs.mkdirSync(path.join(root, "repo", ".git", d), { recursive: true });
    file(path.join(root, "repo", ".git", "HEAD"), "ref: refs/heads/main\n");
    file(path.join(root, "repo", ".gitignore"), "*.log\nbuild/\n");
    for (const f of ["a.txt", "b.log", "c.log", "build/out.o", "src/main.rs"]) file(path.join(root, "repo", f), "data");
    file(path.join(root, "small.txt"), "1");
    file(path.join(root, "large.bin"), "x".repeat(5000));
    file(path.join(root, "medium.md"), "x".repeat(300));
    s = await launch([root]);
  });

  after(async () => {
    await s?.quit();
    removeTree(root);
  });

  test("the badge's tooltip and the folder's summary say what the rest is made of", async () => {
    const sel = await rowSelector(s, "photos");
    const badge = await s.exec((q) => {
      const b = document.querySelector(`${q} .badge-more`);
      return b && { text: b.textContent, title: b.title };
    }, sel);
    assert.deepEqual(badge, { text: "452 more", title: "452 more: 440 .jpg, 12 .json (showing 100 of 552)" });
    await s.clickCss(`${sel} .name`);
    const summary = await previewReady(s, "dl.facts");
    assert.match(summary, /Not shown452 more: 440 \.jpg, 12 \.json/);
    await saveScreenshot(s, "arrange-rest-summary");
  });

  test("a header click sorts every folder over all of it; again reverses; aria-sort says which", async () => {
    const headers = await sortState();
    assert.deepEqual(headers, [
      { label: "Name", sort: "ascending", tab: 0 },
      { label: "Size", sort: null, tab: 0 },
      { label: "Modified", sort: null, tab: 0 },
    ]);
    await s.clickCss('[role="columnheader"][data-sort="size"]');
    await s.waitFor(() => document.querySelector('[role="columnheader"][data-sort="size"]').getAttribute("aria-sort") === "ascending", { what: "Size ascending" });
    await s.waitFor(() => !document.querySelector('[role="tree"] .spinner'), { what: "the re-listing" });
    const ascending = (await childNames(null)).filter((n) => /\.(txt|bin|md)$/.test(n));
    assert.deepEqual(ascending, ["small.txt", "medium.md", "large.bin"], "the top level by size, smallest first");
    await s.clickCss('[role="columnheader"][data-sort="size"]');
    await s.waitFor(() => document.querySelector('[role="columnheader"][data-sort="size"]').getAttribute("aria-sort") === "descending", { what: "Size descending" });
    const photos = await s.waitFor(() => {
      const rows = Array.from(document.querySelectorAll('[role="treeitem"]'));
      const at = rows.findIndex((r) => r.querySelector(".name")?.textContent === "photos");
      const next = rows.slice(at + 1, at + 4).map((r) => r.querySelector(".name")?.textContent);
      return next.length === 3 && next[0]?.startsWith("img_") && next[0] !== "img_0001.jpg" ? next : null;
    }, { what: "photos' first entries, largest first" });
    assert.deepEqual(photos, largestFirst.slice(0, 3), "the largest of all 552, not of the first 100");
    const top = await childNames(null);
    assert.deepEqual(top.filter((n) => /\.(txt|bin|md)$/.test(n)), ["large.bin", "medium.md", "small.txt"], "folders first, then largest first");
    await saveScreenshot(s, "arrange-sorted-by-size");
    // From the keyboard: Tab reaches a header, Enter sorts by it.
    await s.exec(() => document.querySelector('[role="columnheader"][data-sort="modified"]').focus());
    await s.keys([Key.Enter]);
    await s.waitFor(() => document.querySelector('[role="columnheader"][data-sort="modified"]').getAttribute("aria-sort") === "ascending", { what: "Modified chosen with Enter" });
    assert.equal(await s.exec(() => document.querySelector('[role="columnheader"][data-sort="size"]').getAttribute("aria-sort")), null, "only the active header has aria-sort");
    await s.clickCss('[role="columnheader"][data-sort="name"]');
    await s.waitFor(() => document.querySelector('[role="columnheader"][data-sort="name"]').getAttribute("aria-sort") === "ascending", { what: "back to names" });
  });

  test("a truncated folder is filtered from its badge over all its entries, and comes back when cleared", async () => {
    const sel = await scrollToRow(s, "photos");
    await s.waitFor((q) => document.querySelector(`${q} [data-action="filter"]`) !== null, { what: "photos' Filter… action", args: [sel] });
    await s.clickCss(`${sel} [data-action="filter"]`);
    const bar = await s.waitFor(() => {
      const b = document.querySelector(".filter-bar");
      return b && !b.hidden && document.activeElement === b.querySelector("input") ? b.querySelector(".filter-target").textContent : null;
    }, { what: "the filter field for photos, focused" });
    assert.equal(bar, "photos");
    await s.type(await s.find(".filter-bar input"), "*.JSON");
    const filtered = await s.waitFor(() => {
      const count = document.querySelector(".filter-bar .filter-count").textContent;
      const rows = Array.from(document.querySelectorAll('[role="treeitem"]'));
      const at = rows.findIndex((r) => r.querySelector(".name")?.textContent === "photos");
      const badges = Array.from(rows[at]?.querySelectorAll(".badge") ?? [], (b) => b.textContent);
      const kids = rows.slice(at + 1).filter((r) => r.getAttribute("aria-level") === "2").map((r) => r.querySelector(".name").textContent);
      return count === "12 of 552 match" ? { count, badges, kids: kids.slice(0, 13) } : null;
    }, { what: "12 of 552 match" });
    assert.deepEqual(filtered.badges, ["filter: *.JSON"], "no 'more' badge: every match is shown");
    assert.deepEqual(filtered.kids.slice(0, 12), Array.from({ length: 12 }, (_, i) => `meta${String(i + 1).padStart(2, "0")}.json`));
    await saveScreenshot(s, "arrange-filtered");
    await s.keys([Key.Escape]);
    await s.waitFor((q) => document.querySelector(`${q} .badge-more`)?.textContent === "452 more" && document.querySelector(".filter-bar").hidden, { what: "photos as it was", args: [sel] });
  });

  test("'Hide ignored' hides what git would, and the folder says how many", async () => {
    const before = await childNames("repo");
    assert.ok(before.includes("b.log") && before.includes("build"), JSON.stringify(before));
    await s.clickCss('input[data-action="hide-ignored"]');
    await s.waitFor(() => document.querySelector('input[data-action="hide-ignored"]').checked && document.querySelector('.toolbar .spinner').hidden, { what: "the re-listing hiding ignored entries" });
    const sel = await scrollToRow(s, "repo");
    const repo = await s.waitFor((q) => {
      const badge = document.querySelector(`${q} .badge-ignored`);
      return badge ? { text: badge.textContent, title: badge.title } : null;
    }, { what: "repo's ignored badge", args: [sel] });
    assert.deepEqual(repo, { text: "4 ignored", title: "4 entries are hidden by ignore rules" });
    assert.deepEqual(await childNames("repo"), ["src", ".gitignore", "a.txt"], ".git, b.log, c.log and build/ are hidden");
    await s.clickCss(`${await rowSelector(s, "repo")} .name`);
    const summary = await previewReady(s, "dl.facts");
    assert.match(summary, /Ignored4 ignored: hidden by ignore rules/);
    await saveScreenshot(s, "arrange-hide-ignored");
  });
});

describe("a folder whose sizes come slowly", () => {
  let slowRoot;
  let slow;
  before(async () => {
    slowRoot = tempTree("canopy-e2e-partial-");
    // The test build reads every lstat in a folder named SLOW_FOLDER 20 ms late:
    // 300 of them cannot fit in the folder's time budget.
    for (let i = 1; i <= 300; i++) file(path.join(slowRoot, SLOW_FOLDER, `f${String(i).padStart(3, "0")}.dat`), "x".repeat(i));
    slow = await launch([slowRoot], { env: { CANOPY_TEST_SLOW_DELAY_MS: "0", CANOPY_TEST_SLOW_STAT_MS: "20" } });
  });
  after(async () => {
    await slow?.quit();
    removeTree(slowRoot);
  });

  test("sorted by size, it says how many of its entries were placed", async () => {
    await slow.clickCss('[role="columnheader"][data-sort="size"]');
    const partial = await slow.waitFor((name) => {
      const row = Array.from(document.querySelectorAll('[role="treeitem"]')).find((r) => r.querySelector(".name")?.textContent === name);
      return row?.querySelector(".badge-partial")?.textContent ?? null;
    }, { what: "the partial-order badge", args: [SLOW_FOLDER], timeout: 30000 });
    const m = /^order is partial: (\d+) of 300 checked$/.exec(partial);
    assert.ok(m, partial);
    assert.ok(Number(m[1]) > 0 && Number(m[1]) < 300, partial);
    await saveScreenshot(slow, "arrange-partial-order");
  });
});
