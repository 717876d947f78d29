// Foundation: the real window opens the folder it is given and shows its entries.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { diffManifests, file, launch, manifest, removeTree, rows, saveScreenshot, tempTree } from "./harness.mjs";

let root;
let before_;

before(() => {
  root = tempTree();
  file(path.join(root, "alpha.txt"), "hello\n");
  file(path.join(root, "beta/inside.md"), "# inside\n");
  file(path.join(root, "Gamma10.txt"));
  file(path.join(root, "gamma2.txt"));
  before_ = manifest(root);
});

after(() => removeTree(root));

test("the window shows the entries of the folder given on the command line", async () => {
  const s = await launch([root]);
  try {
    const got = await rows(s);
    assert.deepEqual(
      got.map((r) => [r.name, r.level]),
      [["beta", 1], ["inside.md", 2], ["alpha.txt", 1], ["gamma2.txt", 1], ["Gamma10.txt", 1]],
      "folders first, natural order, depth 2",
    );
    const crumbs = await s.exec(() => Array.from(document.querySelectorAll(".crumb")).map((c) => c.textContent));
    assert.equal(crumbs.at(-1), path.basename(root), "the path bar ends with the open folder");
    await saveScreenshot(s, "launch");
  } finally {
    await s.quit();
  }
});

test("the fixture was not changed by browsing it", () => {
  assert.deepEqual(diffManifests(before_, manifest(root)), []);
});
