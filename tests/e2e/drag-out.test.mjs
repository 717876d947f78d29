// Dragging rows out and Ctrl+C, through the real window: what a drag of a
// row offers (`text/uri-list`, the engine's file:// URI of the entry, its
// name's space escaped), that a row inside an archive offers nothing (no
// file on disk to hand over), and that Ctrl+C on the selected row puts
// GNOME's `x-special/gnome-copied-files` on the clipboard (recorded by the
// test build instead of reaching an X clipboard). The drag is a DragEvent
// dispatched on the row with a DataTransfer the test reads back: what
// WebKitGTK hands to GTK's drag is that DataTransfer. Shares an app launch
// with nothing else it needs (a fresh app is fine, none is required).

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Key } from "./webdriver.mjs";
import { ACTION_LOG, diffManifests, file, launch, manifest, removeTree, rowSelector, saveScreenshot, selectRow, tempTree } from "./harness.mjs";

let root;
let before_;

before(() => {
  root = tempTree();
  file(path.join(root, "a b.txt"), "hello\n");
  file(path.join(root, "zipped/readme.txt"), "inside\n");
  execFileSync("python3", ["-c", "import shutil,sys; shutil.make_archive(sys.argv[1], 'zip', sys.argv[2])", path.join(root, "bundle"), path.join(root, "zipped")]);
  fs.rmSync(path.join(root, "zipped"), { recursive: true });
  before_ = manifest(root);
});

after(() => removeTree(root));

/** Presses the row down, then starts a drag of it: what the drag offers, or null when it was not started. */
function dragOffer(s, css) {
  return s.execAsync(async (sel) => {
    const row = document.querySelector(sel);
    row.dispatchEvent(new PointerEvent("pointerdown", { bubbles: true, button: 0 }));
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 20));
      const dt = new DataTransfer();
      const ev = new DragEvent("dragstart", { bubbles: true, cancelable: true, dataTransfer: dt });
      row.dispatchEvent(ev);
      if (!ev.defaultPrevented) return { uriList: dt.getData("text/uri-list"), text: dt.getData("text/plain"), draggable: row.draggable };
    }
    return null;
  }, css);
}

test("a dragged row offers its file:// URI as text/uri-list; Ctrl+C copies it as a file manager does", async () => {
  const s = await launch([root]);
  try {
    const uri = `file://${root}/a%20b.txt`;
    const offer = await dragOffer(s, await rowSelector(s, "a b.txt"));
    assert.deepEqual(offer, { uriList: `${uri}\r\n`, text: uri, draggable: true });

    await selectRow(s, "a b.txt");
    await s.keys(["c"], [Key.Control]);
    await s.waitFor(() => document.querySelector(".status-bar")?.textContent?.startsWith("Copied 1 item"), { what: "the copy said" });
    const log = fs.readFileSync(ACTION_LOG, "utf8").split("\n");
    assert.ok(log.includes(`copy-files copy ${uri}`), `x-special/gnome-copied-files was offered:\n${log.join("\n")}`);

    // Inside an archive there is no file to hand over: the drag does not start.
    await s.clickCss(`${await rowSelector(s, "bundle.zip")} .twisty`);
    const inside = await rowSelector(s, "readme.txt");
    const none = await s.execAsync(async (sel) => {
      const row = document.querySelector(sel);
      row.dispatchEvent(new PointerEvent("pointerdown", { bubbles: true, button: 0 }));
      await new Promise((r) => setTimeout(r, 500));
      const ev = new DragEvent("dragstart", { bubbles: true, cancelable: true, dataTransfer: new DataTransfer() });
      row.dispatchEvent(ev);
      return ev.defaultPrevented;
    }, inside);
    assert.equal(none, true, "a row inside an archive starts no drag");
    await saveScreenshot(s, "drag-out");
  } finally {
    await s.quit();
  }
});

test("dragging and copying wrote nothing to the folder", () => {
  assert.deepEqual(diffManifests(before_, manifest(root)), []);
});
