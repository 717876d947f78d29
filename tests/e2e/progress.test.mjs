// How far opening a folder got, through the real window: while a folder
// with a slowed subfolder is opened (through "Open folder…"), the toolbar
// shows "Reading… N folders, M names" beside its spinner once the listing
// has taken a moment, N counting at least the folder itself; the spinner (a
// progressbar) carries the same text; and it is gone once the listing is done.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { SLOW_FOLDER, allRows, file, files, launch, removeTree, saveScreenshot, tempTree } from "./harness.mjs";

let start;
let slowRoot;
let s;

before(async () => {
  start = tempTree("canopy-e2e-progress-start-");
  files(start, "here", 2);
  slowRoot = tempTree("canopy-e2e-progress-");
  files(path.join(slowRoot, "quick"), "q", 30);
  file(path.join(slowRoot, "notes.txt"), "notes\n");
  // The test build reads a folder named SLOW_FOLDER in small batches, each
  // CANOPY_TEST_SLOW_DELAY_MS late: about five batches here, so the listing
  // runs for about two seconds (its time budget may cut it; that is fine).
  files(path.join(slowRoot, SLOW_FOLDER), "s", 100);
  s = await launch([start], { env: { CANOPY_TEST_PICK_FOLDER: slowRoot, CANOPY_TEST_SLOW_DELAY_MS: "500" } });
});

after(async () => {
  await s?.quit();
  removeTree(start);
  removeTree(slowRoot);
});

describe("opening a slow folder", () => {
  test("shows how far the listing got while it runs, then nothing", async () => {
    await s.clickCss('button[title="Open folder…"]');
    const during = await s.waitFor(
      () => {
        const text = document.querySelector(".toolbar .progress-text");
        const bar = document.querySelector('.toolbar [role="progressbar"][aria-label="Opening folder"]');
        const m = /^Reading… ([\d,]+) folders?, ([\d,]+) names?$/.exec(text?.textContent ?? "");
        const count = (n) => Number(n.replace(/,/g, ""));
        if (!text || text.hidden || text.getClientRects().length === 0 || !m || count(m[1]) === 0) return null;
        return { text: text.textContent, folders: count(m[1]), names: count(m[2]), valuetext: bar.getAttribute("aria-valuetext"), spinner: !bar.hidden };
      },
      { what: "the progress text with a folder counted", timeout: 10000 },
    );
    await saveScreenshot(s, "progress-reading");
    assert.ok(during.spinner, "the spinner turns beside the text");
    assert.equal(during.valuetext, during.text, "the progressbar carries the same text for screen readers");
    // The opened folder is read before its slow subfolder: its three names at least.
    assert.ok(during.names >= 3, `the opened folder's names are counted: ${during.text}`);

    const done = await s.waitFor(
      (name) => {
        const text = document.querySelector(".toolbar .progress-text");
        const bar = document.querySelector('.toolbar [role="progressbar"][aria-label="Opening folder"]');
        if (document.querySelector(".crumb[aria-current]")?.textContent !== name || !bar.hidden) return null;
        return { hidden: text.hidden, text: text.textContent, valuetext: bar.getAttribute("aria-valuetext") };
      },
      { what: "the listing done", args: [path.basename(slowRoot)], timeout: 30000 },
    );
    assert.deepEqual(done, { hidden: true, text: "", valuetext: null }, "the progress text is gone with the reply, and the progressbar's too");
    const top = (await allRows(s)).filter((r) => r.level === 1).map((r) => r.name);
    assert.deepEqual(top.slice().sort(), ["notes.txt", "quick", SLOW_FOLDER].sort(), "the folder is listed");
    await saveScreenshot(s, "progress-done");
  });
});
