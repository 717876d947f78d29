// Regenerates the README's screenshot of the real window: a demo folder with
// a truncated folder, an error, a symlink and a code file previewed.
//
//   scripts/screenshot

import { test } from "node:test";
import fs from "node:fs";
import path from "node:path";
import { REPO, file, files, launch, removeTree, selectRow, previewReady, tempTree } from "./harness.mjs";

test("README screenshot", async () => {
  const root = path.join(tempTree("canopy-shot-"), "demo");
  fs.mkdirSync(root);
  for (const n of ["a.md", "b.md", "c.md"]) file(path.join(root, "docs", n), `# ${n}\n`);
  files(path.join(root, "photos"), "img_", 552);
  fs.mkdirSync(path.join(root, "locked"));
  fs.chmodSync(path.join(root, "locked"), 0o000);
  fs.copyFileSync(path.join(REPO, "src-tauri/core/src/order.rs"), path.join(root, "order.rs"));
  file(path.join(root, "notes.txt"), "hello\n");
  fs.symlinkSync("docs", path.join(root, "link"));
  fs.symlinkSync("gone", path.join(root, "old-link"));
  const s = await launch([root]);
  try {
    await s.exec(() => document.querySelector('[role="tree"]').focus());
    // Collapse the big folder (its badge stays) so every top-level entry shows.
    await s.exec(() => {
      const row = Array.from(document.querySelectorAll('[role="treeitem"]')).find((r) => r.querySelector(".name")?.textContent === "photos");
      row.querySelector(".twisty").dispatchEvent(new MouseEvent("click", { bubbles: true }));
    });
    await s.waitFor(() => document.querySelector('[role="treeitem"][aria-expanded="false"] .badge-more'), { what: "photos collapsed" });
    await selectRow(s, "order.rs");
    await previewReady(s, "pre.code .hljs-keyword");
    const out = path.join(REPO, "tests/e2e/screenshot/canopy.png");
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, await s.screenshot());
    console.log(`wrote ${out}`);
  } finally {
    await s.quit();
    removeTree(path.dirname(root));
  }
});
