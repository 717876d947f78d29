// Characters that are invisible or move text around them (Unicode Zl, Zp,
// Cf, the tag block, the blank fillers) show in the window as visible escape
// markers: in the tree's names, in link targets, and in the path bar.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { file, launch, removeTree, saveScreenshot, tempTree } from "./harness.mjs";

let root;
let folder;

before(() => {
  root = tempTree();
  folder = path.join(root, "line\u2028sep\u202Etxt");
  fs.mkdirSync(folder);
  file(path.join(folder, "soft\u00ADhyphen"), "");
  file(path.join(folder, "\u3164\u115F"), "");
  file(path.join(folder, "tag\u{E0041}\u{E007F}"), "");
  file(path.join(folder, "para\u2029graph"), "");
  fs.symlinkSync("to\u2028there", path.join(folder, "link"));
});

after(() => removeTree(root));

test("names, link targets and breadcrumbs show invisible characters as markers", async () => {
  const s = await launch([folder]);
  try {
    const crumb = await s.waitFor(
      () => {
        const c = document.querySelector(".crumb[aria-current]");
        return c && { markers: Array.from(c.querySelectorAll(".escape"), (e) => e.textContent), text: c.innerText.trim(), raw: /[\u2028\u202e]/.test(c.textContent) };
      },
      { what: "the open folder's breadcrumb" },
    );
    assert.deepEqual(crumb, { markers: ["\\u{2028}", "\\u{202e}"], text: "line\\u{2028}sep\\u{202e}txt", raw: false });
    const names = await s.exec(() =>
      Array.from(document.querySelectorAll('[role="treeitem"] .name'), (n) => ({
        text: n.textContent,
        markers: Array.from(n.querySelectorAll(".escape"), (e) => e.textContent),
      })),
    );
    const byText = Object.fromEntries(names.map((n) => [n.text, n.markers]));
    assert.deepEqual(byText["soft\\u{ad}hyphen"], ["\\u{ad}"]);
    assert.deepEqual(byText["\\u{3164}\\u{115f}"], ["\\u{3164}", "\\u{115f}"]);
    assert.deepEqual(byText["tag\\u{e0041}\\u{e007f}"], ["\\u{e0041}", "\\u{e007f}"]);
    assert.deepEqual(byText["para\\u{2029}graph"], ["\\u{2029}"]);
    const raw = await s.exec(() => /[\u00ad\u2028\u2029\u3164\u115f]|\u{E0041}/u.test(document.querySelector('[role="tree"]').textContent));
    assert.equal(raw, false, "no invisible character reaches the tree raw");
    const target = await s.exec(() => {
      const row = Array.from(document.querySelectorAll('[role="treeitem"]')).find((r) => r.querySelector(".name")?.textContent === "link");
      return row && Array.from(row.querySelectorAll(".escape"), (e) => e.textContent);
    });
    assert.deepEqual(target, ["\\u{2028}"], "the link target's separator is a marker too");
    await saveScreenshot(s, "escapes-breadcrumbs");
  } finally {
    await s.quit();
  }
});
