// The harness itself: a launch that never opens its window fails within its
// bound and leaves nothing running, and the driver opens the next window as
// if nothing had happened. (A launch of the app that hung once cost the
// suite 5 minutes and its app stayed, so that later files counted two.)

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { MY_LAUNCHES, file, launch, removeTree, rows, tempTree } from "./harness.mjs";
import { marked } from "./procs.mjs";

let root;
let tools;

before(() => {
  root = tempTree();
  file(path.join(root, "alpha.txt"), "a\n");
  tools = tempTree("canopy-e2e-tools-");
});

after(() => {
  removeTree(root);
  removeTree(tools);
});

test("a launch whose window never opens fails within its bound and leaves nothing of it running; the next launch opens", async () => {
  // An app that hangs before its window: it starts a child (as the app starts
  // WebKit's processes), then waits forever.
  const hang = path.join(tools, "hangs");
  fs.writeFileSync(hang, "#!/bin/sh\nsleep 600 &\nexec sleep 600\n", { mode: 0o755 });
  const started = Date.now();
  await assert.rejects(launch([root], { app: hang, openWithin: 5000 }), /did not open within 5 s .*killed \d+ .*sleep 600/);
  assert.ok(Date.now() - started < 60000, "the launch failed at its bound, not at the driver's");
  assert.deepEqual(marked(MY_LAUNCHES), [], "nothing of the hung launch runs");

  const s = await launch([root]);
  try {
    assert.deepEqual((await rows(s)).map((r) => r.name), ["alpha.txt"]);
  } finally {
    await s.quit();
  }
  assert.deepEqual(marked(MY_LAUNCHES), [], "the app ended with its session");
});
