// Accessibility through the real window, judged by Deque's axe-core (the
// version pinned in ui/package.json), not by rules of our own: its WCAG 2.1
// A and AA rules run inside the window on each main screen (the tree with a
// cut folder, an error and a selection; the row menu; the filter field; the
// preview of every kind; the find bar; the Open dialog and its refusal), in
// the light and the dark theme. Any violation fails the screen, listed with
// the elements axe names. The elements a screen is about (the "N more"
// badge, an error badge, the dialog's buttons...) must be among those axe
// judged for contrast: a check that could not see them would prove nothing.
// Every screen has the Places sidebar beside it.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Key } from "./webdriver.mjs";
import {
  REPO,
  fifo,
  file,
  files,
  launch,
  previewReady,
  removeTree,
  rightClick,
  rowSelector,
  saveScreenshot,
  scrollToRow,
  selectRow,
  tempTree,
} from "./harness.mjs";

const AXE_SOURCE = fs.readFileSync(path.join(REPO, "ui/node_modules/axe-core/axe.min.js"), "utf8");
/** axe's tags for the WCAG 2.0 and 2.1 success criteria at levels A and AA. */
const WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

let root;

before(() => {
  root = tempTree();
  files(path.join(root, "many"), "g", 150);
  file(path.join(root, "docs/a.md"), "x\n");
  file(path.join(root, "docs/b.txt"), "x\n");
  fs.mkdirSync(path.join(root, "locked"));
  fs.chmodSync(path.join(root, "locked"), 0o000);
  fs.symlinkSync("missing-target", path.join(root, "dangling"));
  file(path.join(root, "notes.txt"), "first line\nsecond line\nthird line\n");
  file(path.join(root, "code.rs"), '// the answer\nfn main() {\n    let answer = 42;\n    println!("{answer} {}", "text");\n}\n');
  file(path.join(root, "readme.md"), "# Heading\n\nSome *emphasis*, `code` and a [link](https://example.com).\n\n> quoted\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```rust\nfn main() {}\n```\n");
  fs.copyFileSync(path.join(REPO, "src-tauri/icons/icon.png"), path.join(root, "icon.png"));
  const bin = Buffer.alloc(256);
  for (let i = 0; i < bin.length; i++) bin[i] = (i * 7) & 0xff;
  file(path.join(root, "blob.bin"), bin);
  const big = [];
  for (let i = 1; i <= 6000; i++) big.push(`line ${String(i).padStart(6, "0")} ${"x".repeat(50)}`);
  file(path.join(root, "large.log"), big.join("\n") + "\n");
  file(path.join(root, "unreadable.txt"), "secret\n");
  fs.chmodSync(path.join(root, "unreadable.txt"), 0o000);
  file(path.join(root, "script.sh"), "#!/bin/sh\necho hi\n");
  fs.chmodSync(path.join(root, "script.sh"), 0o755);
  fifo(path.join(root, "pipe"));
});

after(() => removeTree(root));

/**
 * Runs axe-core's WCAG 2.1 A/AA rules on the whole window (injecting it the
 * first time) and returns its violations, plus those of `mustJudge` (CSS
 * selectors) that hold no text the contrast rule judged (passed or failed,
 * rather than left "incomplete" or never seen).
 */
async function audit(s, mustJudge = []) {
  if (!(await s.exec(() => typeof window.axe === "object"))) {
    await s.cmd("POST", "/execute/sync", { script: `${AXE_SOURCE}\n;return typeof window.axe;`, args: [] });
  }
  return s.execAsync(
    async (tags, selectors) => {
      // Let the last paint and any transition settle: axe reads computed colours.
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const r = await window.axe.run(document, { runOnly: { type: "tag", values: tags }, elementRef: true });
      const contrast = [...r.passes, ...r.violations].find((x) => x.id === "color-contrast")?.nodes ?? [];
      const undecided = r.incomplete.find((x) => x.id === "color-contrast")?.nodes ?? [];
      const why = (sel) => undecided.filter((n) => n.element?.closest?.(sel)).map((n) => n.any.map((c) => c.data?.messageKey ?? c.message).join(", "));
      return {
        violations: r.violations.map((v) => ({
          id: v.id,
          impact: v.impact,
          help: v.help,
          nodes: v.nodes.map((n) => ({ target: n.target.join(" "), why: n.failureSummary?.replace(/\s+/g, " ") })),
        })),
        unjudged: selectors.filter((sel) => !contrast.some((n) => n.element?.closest?.(sel))).map((sel) => `${sel} ${JSON.stringify(why(sel))}`),
      };
    },
    WCAG_AA,
    mustJudge,
  );
}

/** Fails with every violation listed when axe finds any on the screen `what`. */
async function expectAccessible(s, what, mustJudge = []) {
  const r = await audit(s, mustJudge);
  const list = r.violations.flatMap((v) => v.nodes.map((n) => `  ${v.impact} ${v.id} (${v.help}): ${n.target}\n    ${n.why}`));
  assert.equal(list.length, 0, `axe-core on ${what}:\n${list.join("\n")}`);
  assert.deepEqual(r.unjudged, [], `axe-core judged the contrast of these on ${what}`);
}

for (const theme of ["light", "dark"]) {
  describe(`axe-core, ${theme} theme`, () => {
    let s;
    const shot = (name) => saveScreenshot(s, `a11y-${theme}-${name}`);
    before(async () => {
      s = await launch([root], { theme });
    });
    after(async () => s?.quit());

    test("the tree: a cut folder, a denied folder, a dangling link and a selected file", async () => {
      const dark = await s.exec(() => matchMedia("(prefers-color-scheme: dark)").matches);
      assert.equal(dark, theme === "dark", "the window follows the theme");
      // Folders first: docs, locked, many (cut: 100 of its 150 shown); then the files.
      // The sidebar too: its headings, the marked place (the root filesystem's, for a folder in /tmp), a mount's free space.
      await s.waitFor(() => document.querySelector('nav[aria-label="Places"] .place-space'), { what: "a free space in Places" });
      await expectAccessible(s, "the tree before a selection", ['[role="columnheader"]', ".badge-more", '.badge-error[data-code="DENIED"]', ".status-bar", ".places-heading", ".place[aria-current]", ".place-space"]);
      await shot("tree-top");
      await selectRow(s, "notes.txt");
      await previewReady(s, "pre.code .line");
      await expectAccessible(s, "the tree with a selected file", [".badge-dangling", '[aria-selected="true"] .cell-size', '[aria-selected="true"] .cell-time', "pre.code .line"]);
      await scrollToRow(s, "many");
      await expectAccessible(s, "the tree scrolled back to the cut folder", [".badge-more"]);
      await shot("tree");
    });

    test("the row menu", async () => {
      const many = await rowSelector(s, "many");
      await rightClick(s, `${many} .name`);
      await s.waitFor(() => document.querySelector('[role="menu"] [role="menuitem"]'), { what: "the row's menu" });
      await expectAccessible(s, "the row menu", ['[role="menuitem"]']);
      await shot("menu");
      // The click that ends a right-button gesture leaves the focus on the tree: Escape goes to the menu.
      await s.exec(() => document.querySelector('[role="menu"] [role="menuitem"]').focus());
      await s.keys([Key.Escape]);
      await s.waitFor(() => !document.querySelector('[role="menu"]'), { what: "the menu closed" });
    });

    test("the filter field and a filtered folder", async () => {
      await s.clickCss(`${await rowSelector(s, "many")} [data-action="filter"]`);
      const input = await s.find(".filter-input");
      await s.type(input, "1");
      await s.waitFor(() => document.querySelector(".badge-filter") && /match/.test(document.querySelector(".filter-count")?.textContent ?? ""), { what: "the folder filtered" });
      await expectAccessible(s, "the filter field", [".badge-filter", ".filter-count", ".filter-input"]);
      await shot("filter");
      await s.keys([Key.Escape]);
      await s.waitFor(() => !document.querySelector(".badge-filter"), { what: "the filter cleared" });
    });

    const previews = [
      { name: "code.rs", ready: 'pre.code[data-colour="done"] .hljs-keyword', judge: [".hljs-keyword", ".hljs-comment", ".hljs-string", ".hljs-number"] },
      { name: "readme.md", ready: '.markdown-view[data-render="done"] .markdown h1', judge: [".markdown h1", ".markdown code", ".markdown blockquote p"] },
      { name: "icon.png", ready: "img.preview-image", judge: [".image-info"] },
      { name: "blob.bin", ready: "pre.hex", judge: ["pre.hex"] },
      { name: "large.log", ready: ".load-more-bar .badge-more", judge: [".load-more-bar .badge-more"] },
      { name: "docs", ready: "dl.facts dd", judge: [".facts dt", ".facts dd"] },
      { name: "unreadable.txt", ready: ".preview-error", judge: [".preview-error"] },
      { name: "pipe", ready: ".special-note", judge: [".special-note"] },
    ];
    for (const p of previews) {
      test(`the preview of ${p.name}`, async () => {
        await selectRow(s, p.name);
        await previewReady(s, p.ready);
        if (p.name === "icon.png") await s.waitFor(() => document.querySelector("img.preview-image")?.naturalWidth > 0, { what: "the image decoded" });
        await expectAccessible(s, `the preview of ${p.name}`, [".preview-title", ".preview-facts", ...p.judge]);
        await shot(`preview-${p.name.replace(/\W/g, "-")}`);
      });
    }

    test("the find bar in a text preview", async () => {
      await selectRow(s, "notes.txt");
      await previewReady(s, "pre.code .line");
      await s.exec(() => document.querySelector('[aria-label="Preview"] pre.code').focus());
      await s.keys(["f"], [Key.Control]);
      await s.type(await s.find(".find-bar input"), "second");
      await s.waitFor(() => document.querySelector(".find-count")?.textContent === "1 of 1", { what: "one match" });
      await expectAccessible(s, "the find bar", [".find-count", ".find-match"]);
      await shot("find");
    });

    test("the Find field and its results", async () => {
      await s.exec(() => document.querySelector('[role="tree"]').focus());
      await s.keys(["f"], [Key.Control]);
      await s.type(await s.find('input[aria-label="Find"]'), "second");
      await s.waitFor(() => {
        const r = document.querySelector('[role="region"][aria-label="Find results"]');
        return r && !r.hidden && r.querySelector('[role="progressbar"]').hidden && r.querySelector(".found-match");
      }, { what: "the search's results" });
      await expectAccessible(s, "the Find results", [".found-match", ".find-result", ".find-summary"]);
      await shot("find-results");
      await s.keys([Key.Escape]);
      await s.waitFor(() => document.querySelector('[role="region"][aria-label="Find results"]').hidden, { what: "the results closed" });
    });

    test("the Open dialog, and the refusal of a script", async () => {
      await selectRow(s, "script.sh");
      await previewReady(s, "pre.code .line");
      await s.clickCss('[data-action="open-default"]');
      await s.waitFor(() => document.querySelector('[role="alertdialog"]'), { what: "the dialog" });
      await expectAccessible(s, "the Open dialog", ['[role="alertdialog"] p', '[data-action="cancel"]', '[data-action="confirm-open"]']);
      await shot("confirm");
      await s.clickCss('[data-action="confirm-open"]');
      await s.waitFor(() => /NOT_OPENABLE/.test(document.querySelector(".preview-status")?.textContent ?? ""), { what: "the refusal" });
      await expectAccessible(s, "the refusal", [".preview-status"]);
      await shot("not-openable");
    });

    test("the grid, a thumbnail selected", async () => {
      await s.exec(() => document.querySelector('[role="tree"]').focus());
      await s.keys(["2"], [Key.Control]);
      await s.waitFor(() => document.querySelector(".cell img")?.naturalWidth > 0, { what: "icon.png's thumbnail" });
      await s.clickCss('.cell[title="icon.png"]');
      await s.waitFor(() => document.querySelector('.cell[aria-selected="true"]')?.title === "icon.png", { what: "icon.png selected" });
      await expectAccessible(s, "the grid", [".grid-name", '.cell[aria-selected="true"] .grid-name']);
      await shot("grid");
      await s.keys(["1"], [Key.Control]);
    });
  });
}
