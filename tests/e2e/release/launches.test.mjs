// Every launch of the release opens (issue 29, section 0). One launch in
// twenty once never showed a window: the program, forked from a process in
// which a library of the WebKit stack had already started a thread, inherited
// that thread's allocator lock held, and waited forever for a thread it did
// not have. The supervisor's program is now a fresh image (it executes the
// binary again); this starts the release many times on a folder of 100 files
// and fails on any launch that does not reach its first painted listing
// within a liveness bound (the harness's: the window opens within
// OPEN_WITHIN_MS, the listing is there within 30 s). A launch that hangs is
// killed with what it started (procs.mjs), and the next one goes on.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { REPO, files, launch, removeTree, tempTree } from "../harness.mjs";

const RELEASE_APP = path.join(REPO, "target/release/canopy");
/** Launches: a hang in one of twenty is missed by all of them with odds 0.95^40, about one in eight. */
const LAUNCHES = 40;
/** After this many hung launches the point is made: the rest would only cost their bounds. */
const ENOUGH_FAILURES = 3;
const ENTRIES = 100;

let root;

before(() => {
  root = tempTree("canopy-e2e-launches-");
  files(root, "file-", ENTRIES);
});

after(() => removeTree(root));

test(`the release reaches its first painted listing on each of ${LAUNCHES} launches`, async () => {
  const failures = [];
  let opened = 0;
  for (let i = 1; i <= LAUNCHES && failures.length < ENOUGH_FAILURES; i++) {
    let s;
    try {
      s = await launch([root], { app: RELEASE_APP });
      // Painted: two animation frames after the rows are in the page.
      const shown = await s.execAsync(async () => {
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        return {
          rows: document.querySelectorAll('[role="tree"] [role="treeitem"]').length,
          status: document.querySelector(".status-bar")?.textContent ?? "",
        };
      });
      assert.ok(shown.rows > 0 && shown.status.includes(String(ENTRIES)), `launch ${i} shows the folder: ${JSON.stringify(shown)}`);
      opened++;
    } catch (err) {
      failures.push(`launch ${i}: ${err.message}`);
    } finally {
      await s?.quit();
    }
  }
  console.log(`${opened} launches opened, ${failures.length} did not`);
  assert.deepEqual(failures, [], "every launch of the release opens its window on the folder");
});
