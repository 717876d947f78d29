// Getting around, through the real window: `canopy FILE` opens its folder
// with the file selected, Alt+Up opens the parent with the folder we came
// from selected, the Dotfiles toggle lists names starting with "." or not,
// and type-ahead reaches an entry on a page not loaded yet (via `locate`).

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { Key } from "./webdriver.mjs";
import { allRows, diffManifests, file, files, launch, manifest, previewReady, removeTree, tempTree } from "./harness.mjs";

let root;
let manifestBefore;

before(() => {
  root = tempTree();
  file(path.join(root, "alpha/a.txt"), "a\n");
  file(path.join(root, "beta/inside.txt"), "inside beta\n");
  file(path.join(root, "beta/other.txt"), "other\n");
  file(path.join(root, ".hidden-file"), "dot\n");
  file(path.join(root, ".hidden-dir/x.txt"), "x\n");
  file(path.join(root, "visible.txt"), "v\n");
  // 2,000 entries: the first page (500) is loaded, f1500 is not.
  files(path.join(root, "many"), "f", 2000, 4);
  manifestBefore = manifest(root);
});

after(() => removeTree(root));

const selected = () => document.querySelector('[aria-selected="true"] .name')?.textContent ?? null;
const openFolder = () => document.querySelector(".crumb[aria-current]")?.textContent ?? null;

test("canopy FILE opens the file's folder with the file selected and previewed", async () => {
  const s = await launch([path.join(root, "beta/inside.txt")]);
  try {
    assert.equal(await s.exec(openFolder), "beta");
    assert.equal(await s.waitFor(selected, { what: "a selection" }), "inside.txt");
    const text = await previewReady(s, "pre.code .line");
    assert.match(text, /inside beta/);
    assert.equal(await s.exec(() => document.querySelector(".preview-title")?.textContent), "inside.txt");
  } finally {
    await s.quit();
  }
});

describe("one window", () => {
  let s;
  before(async () => {
    s = await launch([path.join(root, "beta")]);
  });
  after(async () => s?.quit());

  test("Alt+Up opens the parent with the folder we came from selected; Back returns", async () => {
    assert.equal(await s.exec(openFolder), "beta");
    await s.exec(() => document.querySelector('[role="tree"]').focus());
    await s.keys([Key.ArrowUp], [Key.Alt]);
    await s.waitFor((n) => document.querySelector(".crumb[aria-current]")?.textContent === n, { what: "the parent open", args: [path.basename(root)] });
    assert.equal(await s.waitFor(selected, { what: "a selection" }), "beta", "the folder we came from is selected");
    await s.keys([Key.ArrowLeft], [Key.Alt]);
    await s.waitFor(() => document.querySelector(".crumb[aria-current]")?.textContent === "beta", { what: "back in beta" });
    await s.keys([Key.ArrowUp], [Key.Alt]);
    await s.waitFor((n) => document.querySelector(".crumb[aria-current]")?.textContent === n, { what: "the parent again", args: [path.basename(root)] });
  });

  test("the Dotfiles toggle lists dot names or leaves them out", async () => {
    const top = async () => (await allRows(s)).filter((r) => r.level === 1).map((r) => r.name);
    const toggle = () =>
      s.exec(() => {
        const box = Array.from(document.querySelectorAll('[role="toolbar"] label')).find((l) => l.textContent.trim() === "Dotfiles").querySelector("input");
        box.click();
        return box.checked;
      });
    assert.deepEqual(await top(), [".hidden-dir", "alpha", "beta", "many", ".hidden-file", "visible.txt"], "shown by default");
    assert.equal(await toggle(), false);
    await s.waitFor(() => !Array.from(document.querySelectorAll('[role="treeitem"] .name')).some((n) => n.textContent.startsWith(".")), { what: "dot names gone" });
    assert.deepEqual(await top(), ["alpha", "beta", "many", "visible.txt"]);
    assert.match(await s.exec(() => document.querySelector(".status-bar").textContent), /^4 entries$/, "the total counts what is listed");
    assert.equal(await toggle(), true);
    await s.waitFor(() => Array.from(document.querySelectorAll('[role="treeitem"] .name')).some((n) => n.textContent === ".hidden-dir"), { what: "dot names back" });
    assert.deepEqual(await top(), [".hidden-dir", "alpha", "beta", "many", ".hidden-file", "visible.txt"]);
  });
});

test("type-ahead reaches an entry on a page not loaded yet", async () => {
  const s = await launch([path.join(root, "many")]);
  try {
    const before = await s.exec(() => ({
      status: document.querySelector(".status-bar").textContent,
      loaded: Array.from(document.querySelectorAll('[role="treeitem"]')).some((r) => r.querySelector(".name")?.textContent === "f1500"),
    }));
    assert.deepEqual(before, { status: "2,000 entries", loaded: false });
    await s.exec(() => document.querySelector('[role="tree"]').focus());
    await s.keys(["f", "1", "5"]);
    const hit = await s.waitFor(() => {
      const sel = document.querySelector('[aria-selected="true"]');
      return sel?.querySelector(".name")?.textContent === "f1500" && { pos: sel.getAttribute("aria-posinset"), focus: document.activeElement === document.querySelector('[role="tree"]') };
    }, { what: "f1500 selected" });
    assert.deepEqual(hit, { pos: "1500", focus: true });
  } finally {
    await s.quit();
  }
});

test("getting around changed nothing in the fixture", () => {
  assert.deepEqual(diffManifests(manifestBefore, manifest(root)), []);
});
