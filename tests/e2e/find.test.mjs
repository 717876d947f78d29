// Find (Ctrl+F) through the real window: names and contents below the open
// folder, found by the engine's search and shown in the "Find results"
// region as they stream in; a matching line shown with its match marked
// and a hostile line as text; a hit past a folder's cap (the 141st of 150
// entries) and one three folders down revealed in the tree by Enter and by
// a double-click, selected and previewed; Esc stopping a search held up in
// a slow folder, what it found kept. Ctrl+F in the preview still finds in
// the preview.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Key } from "./webdriver.mjs";
import { SLOW_FOLDER, file, launch, previewReady, removeTree, saveScreenshot, tempTree } from "./harness.mjs";

let root;
let slowRoot;
let s;
// Its match is within the 40 characters of lead a line keeps before it.
const HOSTILE = '<img src=x onerror="document.title=1">needle';

before(async () => {
  root = tempTree("canopy-e2e-find-");
  file(path.join(root, "alpha.txt"), "first line\nfind the Needle here\n");
  file(path.join(root, "hostile.txt"), `${HOSTILE}\n`);
  for (let i = 0; i < 150; i++) file(path.join(root, "big", `f${String(i).padStart(3, "0")}.txt`), i === 140 ? "hay\na needle in the haystack\n" : "hay\n");
  file(path.join(root, "nest/inner/deepest/needle-notes.md"), "# notes\n");
  file(path.join(root, "nest/inner/other.txt"), "nothing\n");
  // A folder the test build reads slowly: a search is held up there.
  slowRoot = tempTree("canopy-e2e-find-slow-");
  file(path.join(slowRoot, "early-needle.txt"), "x\n");
  for (let i = 0; i < 400; i++) file(path.join(slowRoot, "held", SLOW_FOLDER, `s${String(i).padStart(3, "0")}.txt`), "needle\n");
  s = await launch([root]);
});

after(async () => {
  await s?.quit();
  removeTree(root);
  removeTree(slowRoot);
});

/** The results as shown: the summary, whether it runs, and each hit's name, folder, line and marked text. */
function results() {
  return s.exec(() => {
    const region = document.querySelector('[role="region"][aria-label="Find results"]');
    if (!region || region.hidden) return null;
    return {
      summary: region.querySelector('[role="status"]').textContent,
      running: !region.querySelector('[role="progressbar"]').hidden,
      hits: Array.from(region.querySelectorAll('[role="option"]')).map((o) => ({
        name: o.querySelector(".find-name").textContent,
        folder: o.querySelector(".find-folder").textContent,
        line: o.querySelector(".find-text")?.textContent ?? null,
        number: o.querySelector(".find-line-number")?.textContent ?? null,
        marked: Array.from(o.querySelectorAll("mark"), (m) => m.textContent),
        elements: o.querySelectorAll("img, script, [onerror]").length,
      })),
    };
  });
}

async function find(text) {
  await s.keys(["f"], [Key.Control]);
  const focused = await s.exec(() => document.activeElement?.getAttribute("aria-label"));
  assert.equal(focused, "Find", "Ctrl+F focuses the toolbar's Find field");
  await s.exec(() => (document.activeElement.value = ""));
  await s.type(await s.find('input[aria-label="Find"]'), text);
}

async function finished() {
  return s.waitFor(
    () => {
      const region = document.querySelector('[role="region"][aria-label="Find results"]');
      return region && !region.hidden && region.querySelector('[role="progressbar"]').hidden && region.querySelector('[role="status"]').textContent !== "";
    },
    { what: "the search to end", timeout: 30000 },
  ).then(results);
}

/** The selected row of the tree and the preview's text once it shows `ready`. */
async function selectedAndPreviewed(name, ready) {
  const sel = await s.waitFor((n) => {
    const r = document.querySelector('[role="tree"] [aria-selected="true"]');
    return r?.querySelector(".name")?.textContent === n && { level: Number(r.getAttribute("aria-level")), handle: r.dataset.handle };
  }, { what: `${name} selected in the tree`, args: [name] });
  const text = await previewReady(s, ready);
  return { ...sel, text };
}

test("names and contents are found below the open folder, matches marked, a hostile line shown as text", async () => {
  const before = await s.exec(() => document.querySelectorAll('[role="tree"] [role="treeitem"] .name').length);
  assert.ok(before > 0);
  await find("needle");
  const r = await finished();
  const byName = r.hits.filter((h) => h.line === null).map((h) => `${h.folder}/${h.name}`);
  assert.deepEqual(byName, ["nest/inner/deepest/needle-notes.md"], "the one name that holds it");
  const lines = r.hits.filter((h) => h.line !== null).map((h) => `${h.folder}/${h.name}${h.number}${h.line}`);
  assert.deepEqual(lines, ["/alpha.txt2:find the Needle here", `/hostile.txt1:${HOSTILE}`, "big/f140.txt2:a needle in the haystack"], "every matching line, in the search's order");
  assert.deepEqual(r.hits.find((h) => h.name === "alpha.txt").marked, ["Needle"], "the match is marked, case ignored");
  assert.equal(r.hits.find((h) => h.name === "hostile.txt").elements, 0, "a line is text: no element made from it");
  assert.notEqual(await s.exec(() => document.title), "1");
  assert.match(r.summary, /^1 name · 3 files, 3 lines; 15\d files searched$/, "the engine's counts");
  await saveScreenshot(s, "find-results");
});

test("Enter on a hit past its folder's cap reveals it: the folder loads the page that holds it, the row selected and previewed", async () => {
  const capped = await s.exec(() => Array.from(document.querySelectorAll('[role="treeitem"] .name'), (n) => n.textContent).includes("f140.txt"));
  assert.equal(capped, false, "f140.txt is past big's cap of 100: not in the tree before");
  await s.keys([Key.ArrowDown]);
  await s.waitFor(() => document.activeElement?.getAttribute("role") === "option", { what: "the first hit focused" });
  // The hits in the search's order: alpha.txt, hostile.txt, big/f140.txt, then the name three folders down.
  await s.keys([Key.ArrowDown, Key.ArrowDown, Key.Enter]);
  const shown = await selectedAndPreviewed("f140.txt", "pre.code .line");
  assert.equal(shown.level, 2, "in big, below the root");
  assert.match(shown.text, /a needle in the haystack/, "previewed");
  await saveScreenshot(s, "find-reveal-past-cap");
});

test("Ctrl+F in the preview finds in the preview", async () => {
  // f140.txt is previewed: its text has focus once clicked.
  await s.clickCss('[role="region"][aria-label="Preview"] pre[aria-label="File contents"]');
  await s.keys(["f"], [Key.Control]);
  const focused = await s.exec(() => document.activeElement?.getAttribute("aria-label"));
  assert.equal(focused, "Find in preview");
});

test("a double-click on a name three folders down expands each folder on the way and selects it", async () => {
  const target = await s.exec(() => {
    const o = Array.from(document.querySelectorAll('[role="region"][aria-label="Find results"] [role="option"]')).find((x) => x.querySelector(".find-name").textContent === "needle-notes.md");
    o.setAttribute("data-e2e-target", "1");
    return !!o;
  });
  assert.ok(target);
  const el = await s.find('[data-e2e-target="1"]');
  await s.cmd("POST", "/actions", {
    actions: [{ type: "pointer", id: "mouse", parameters: { pointerType: "mouse" }, actions: [
      { type: "pointerMove", origin: { "element-6066-11e4-a52e-4f735466cecf": el }, x: 0, y: 0 },
      { type: "pointerDown", button: 0 }, { type: "pointerUp", button: 0 },
      { type: "pointerDown", button: 0 }, { type: "pointerUp", button: 0 },
    ] }],
  });
  await s.cmd("DELETE", "/actions");
  const shown = await selectedAndPreviewed("needle-notes.md", "pre.code .line, .markdown, article");
  assert.equal(shown.level, 4, "nest / inner / deepest / needle-notes.md");
  const expanded = await s.exec(() => Array.from(document.querySelectorAll('[role="treeitem"][aria-expanded="true"] .name'), (n) => n.textContent));
  for (const f of ["nest", "inner", "deepest"]) assert.ok(expanded.includes(f), `${f} expanded: ${expanded}`);
});

test("Esc stops a search held up in a slow folder; what it found stays", async () => {
  await s.keys(["l"], [Key.Control]);
  await s.exec(() => (document.querySelector(".path-input").value = ""));
  await s.type(await s.find(".path-input"), slowRoot + Key.Enter);
  await s.waitFor((n) => document.querySelector(".crumb[aria-current]")?.textContent === n, { what: "the slow root open", args: [path.basename(slowRoot)] });
  assert.equal(await results(), null, "results found below another folder went");
  await find("needle");
  const running = await s.waitFor(() => {
    const region = document.querySelector('[role="region"][aria-label="Find results"]');
    const hits = region && !region.hidden ? Array.from(region.querySelectorAll(".find-name"), (n) => n.textContent) : [];
    return hits.includes("early-needle.txt") && !region.querySelector('[role="progressbar"]').hidden && hits;
  }, { what: "a hit shown while the search is held up", timeout: 15000 });
  assert.deepEqual(running, ["early-needle.txt"]);
  await s.keys([Key.Escape]);
  const r = await s.waitFor(() => {
    const region = document.querySelector('[role="region"][aria-label="Find results"]');
    return region.querySelector('[role="progressbar"]').hidden && region.querySelector('[role="status"]').textContent;
  }, { what: "the search stopped" });
  assert.match(r, /^Stopped: 1 name; \d+ files? searched/);
  const after = await results();
  assert.deepEqual(after.hits.map((h) => h.name), ["early-needle.txt"], "what it found stays");
  await saveScreenshot(s, "find-stopped");
});
