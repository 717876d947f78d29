// Folder sizes through the real window (issue 19): "Sizes" fills every
// shown folder's Size cell, a slowed folder shows its lower bound ("≥",
// counting) while it is read, each figure then equals `du -sB1 -x` on that
// folder (disk usage) and, switched, `du -sb -x` (apparent size); each row
// has a bar of its share of its folder; the preview pane says where a
// folder's space goes (its largest children, the rest as "N others") and a
// click there selects the child in the tree; Esc stops a count at once and
// what was counted stays as a lower bound, with the reason on hover.
//
// Beside a hung FUSE mount (tests/deadfs): the count completes, the mount
// costs its TIMEOUT, the rest is exact, and every figure above it is "≥"
// saying why.
//
// The slowed folder is the test build's seam (CANOPY_TEST_SLOW_FOLDER, read
// in small batches CANOPY_TEST_SLOW_DELAY_MS apart).

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { REPO, SLOW_FOLDER, file, launch, mountDead, previewReady, removeTree, saveScreenshot, scrollToRow, selectRow, tempTree } from "./harness.mjs";

const KiB = 1024;
/** A name that is markup: it must reach the page as text. */
const HOSTILE = "<img src=x onerror=window.__pwned=1>.raw";
const MiB = 1024 * KiB;

let root;
let s;

/** The window's words for a size (ui/src/view/format.ts `formatSize`). */
function formatSize(bytes) {
  const UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  if (bytes < 1024) return `${bytes} B`;
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${UNITS[u]}`;
}

/** What `du -x` says of `dir`: disk usage in bytes (`-B1`), or apparent size (`-b`). */
function du(dir, apparent = false) {
  const out = execFileSync("du", ["-s", "-x", apparent ? "-b" : "-B1", dir], { encoding: "utf8" });
  return Number(out.split("\t")[0]);
}

/** The Size cell of the row named `name` (scrolled to): its text, classes, hover and bar. */
async function cell(name) {
  await scrollToRow(s, name);
  return s.exec((n) => {
    const row = Array.from(document.querySelectorAll('[role="treeitem"]')).find((r) => r.querySelector(".name")?.textContent === n);
    const c = row?.querySelector(".cell-size");
    if (!c) return null;
    const bar = c.querySelector(".size-bar");
    return {
      text: c.querySelector(".size-text")?.textContent ?? "",
      sized: c.classList.contains("sized"),
      counting: c.classList.contains("counting"),
      title: c.getAttribute("title") ?? "",
      bar: bar && !bar.hidden ? parseFloat(bar.style.width) : null,
    };
  }, name);
}

const AXE_SOURCE = fs.readFileSync(path.join(REPO, "ui/node_modules/axe-core/axe.min.js"), "utf8");

/** axe-core's WCAG 2.1 A/AA violations on the window, and which of `mustJudge` (selectors) it did not judge for contrast. */
async function axe(session, mustJudge) {
  if (!(await session.exec(() => typeof window.axe === "object"))) {
    await session.cmd("POST", "/execute/sync", { script: `${AXE_SOURCE}\n;return typeof window.axe;`, args: [] });
  }
  return session.execAsync(async (selectors) => {
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const r = await window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] }, elementRef: true });
    const contrast = [...r.passes, ...r.violations].find((x) => x.id === "color-contrast")?.nodes ?? [];
    return {
      violations: r.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(" ")}: ${n.failureSummary?.replace(/\s+/g, " ")}`)),
      unjudged: selectors.filter((sel) => !contrast.some((n) => n.element?.closest?.(sel))),
    };
  }, mustJudge);
}

const counting = () => s.exec(() => document.querySelector('button[data-action="sizes"]')?.getAttribute("aria-pressed") === "true");

describe("folder sizes", () => {
  before(async () => {
    root = tempTree("canopy-e2e-sizes-");
    file(path.join(root, "photos/a.raw"), Buffer.alloc(3 * MiB, 1));
    file(path.join(root, "photos/b.raw"), Buffer.alloc(1 * MiB, 2));
    file(path.join(root, "photos/c.jpg"), Buffer.alloc(200 * KiB, 3));
    file(path.join(root, "photos", HOSTILE), Buffer.alloc(2 * MiB, 8));
    for (let i = 1; i <= 12; i++) file(path.join(root, `photos/small${String(i).padStart(2, "0")}.txt`), Buffer.alloc(KiB * i, 4));
    file(path.join(root, "docs/guide.md"), "# Guide\n".repeat(1000));
    file(path.join(root, "docs/sub/deep.txt"), Buffer.alloc(500 * KiB, 5));
    fs.mkdirSync(path.join(root, "empty"));
    for (let i = 1; i <= 100; i++) file(path.join(root, SLOW_FOLDER, `s${String(i).padStart(3, "0")}`), Buffer.alloc(KiB, 6));
    file(path.join(root, "notes.txt"), "notes\n");
    // Sparse: 64 MiB long, no block written.
    fs.closeSync(fs.openSync(path.join(root, "sparse.img"), "w"));
    fs.truncateSync(path.join(root, "sparse.img"), 64 * MiB);
    s = await launch([root], { env: { CANOPY_TEST_SLOW_DELAY_MS: "250" } });
  });

  after(async () => {
    await s?.quit();
    if (root) removeTree(root);
  });

  test("the Sizes key starts a count, Esc stops it at once; what was counted stays, as a lower bound saying why", async () => {
    await selectRow(s, SLOW_FOLDER);
    // Ctrl+Shift+S, the Sizes key.
    await s.keys(["S"], ["\uE009", "\uE008"]);
    await s.waitFor(
      (n) => {
        const row = Array.from(document.querySelectorAll('[role="treeitem"]')).find((r) => r.querySelector(".name")?.textContent === n);
        return row?.querySelector(".cell-size.counting") !== null && row !== undefined;
      },
      { what: "the slow folder counting again", args: [SLOW_FOLDER], timeout: 15000 },
    );
    await s.exec(() => document.querySelector('[role="tree"]').focus());
    const t0 = Date.now();
    await s.keys(["\uE00C"]);
    await s.waitFor(() => document.querySelector('button[data-action="sizes"]')?.getAttribute("aria-pressed") === "false", { what: "the count stopped", timeout: 5000 });
    const stoppedIn = Date.now() - t0;
    const slow = await cell(SLOW_FOLDER);
    assert.match(slow.text, /^≥ /, "the slow folder's figure is a lower bound");
    assert.match(slow.title, /counting was stopped/, "its hover says why");
    assert.equal(slow.counting, false, "it no longer looks like counting");
    console.log(`stopped ${stoppedIn} ms after Esc`);
    await saveScreenshot(s, "sizes-stopped");
  });

  test("Sizes fills every shown folder: '≥' while the slow folder is read, then du's figures and the bars", async () => {
    // Its 100 files would fill the view: collapsed, it is still counted (it is shown).
    await s.clickCss(`${await scrollToRow(s, SLOW_FOLDER)} .twisty`);
    await s.waitFor((n) => Array.from(document.querySelectorAll('[role="treeitem"]')).find((r) => r.querySelector(".name")?.textContent === n)?.getAttribute("aria-expanded") === "false", { what: "the slow folder collapsed", args: [SLOW_FOLDER] });
    await s.clickCss('button[data-action="sizes"]');
    const during = await s.waitFor(
      (n) => {
        const row = Array.from(document.querySelectorAll('[role="treeitem"]')).find((r) => r.querySelector(".name")?.textContent === n);
        const c = row?.querySelector(".cell-size.counting");
        const text = c?.querySelector(".size-text")?.textContent ?? "";
        return text.startsWith("≥ ") ? { text, title: c.getAttribute("title") } : null;
      },
      { what: "the slow folder counting, as a lower bound", args: [SLOW_FOLDER], timeout: 15000 },
    );
    assert.match(during.title, /still counting/, "its hover says why it is a lower bound");
    assert.ok(await counting(), "the Sizes button is pressed while it counts");
    await saveScreenshot(s, "sizes-counting");

    await s.waitFor(() => document.querySelector('button[data-action="sizes"]')?.getAttribute("aria-pressed") === "false", { what: "the count done", timeout: 60000 });
    for (const name of ["photos", "docs", "empty", SLOW_FOLDER]) {
      const c = await cell(name);
      assert.ok(c?.sized, `${name} has a figure`);
      assert.equal(c.counting, false, `${name} is no longer counting`);
      assert.equal(c.text, formatSize(du(path.join(root, name))), `${name}: du -sB1 -x's figure`);
    }
    // The nested folder shown (depth 2) has its own figure too.
    const sub = await cell("sub");
    assert.equal(sub?.text, formatSize(du(path.join(root, "docs/sub"))), "docs/sub: du's figure");
    // The bar is the row's share of its folder (the root).
    const photos = await cell("photos");
    const share = (100 * du(path.join(root, "photos"))) / du(root);
    assert.ok(Math.abs(photos.bar - share) < 0.5, `photos' bar is ${photos.bar}% wide, its share is ${share.toFixed(2)}%`);
    const status = await s.exec(() => document.querySelector(".status-bar")?.textContent ?? "");
    assert.ok(status.includes(`${formatSize(du(root))} disk usage`), `the status bar gives the root's figure: ${status}`);
    await s.exec(() => {
      document.querySelector(".tree-scroller").scrollTop = 0;
    });
    await saveScreenshot(s, "sizes-done");
  });

  test("disk usage by default, apparent size when switched (a sparse file)", async () => {
    const sparse = await cell("sparse.img");
    assert.equal(sparse?.text, "64 MiB", "a file's cell keeps its length");
    assert.match(sparse.title, /^0 B \(0 bytes\) disk usage/, "a sparse file uses no block");
    assert.equal(sparse.bar, 0, "no share of its folder's disk usage");
    await s.exec(() => {
      const select = document.querySelector('select[data-action="size-measure"]');
      select.value = "apparent";
      select.dispatchEvent(new Event("change"));
    });
    await s.waitFor(() => document.querySelector(".status-bar")?.textContent.includes("apparent size"), { what: "apparent sizes shown" });
    const apparentShare = (100 * 64 * MiB) / du(root, true);
    const sparseNow = await cell("sparse.img");
    assert.ok(Math.abs(sparseNow.bar - apparentShare) < 0.5, `its bar is its share of the apparent size: ${sparseNow.bar}% vs ${apparentShare.toFixed(2)}%`);
    assert.equal((await cell("photos")).text, formatSize(du(path.join(root, "photos"), true)), "photos: du -sb -x's figure");
    await s.exec(() => {
      const select = document.querySelector('select[data-action="size-measure"]');
      select.value = "diskUsage";
      select.dispatchEvent(new Event("change"));
    });
  });

  test("'where the space goes': the largest children as bars, the rest as others; a click selects one in the tree", async () => {
    await selectRow(s, "photos");
    await previewReady(s, ".space .space-item");
    const pane = await s.exec(() =>
      Array.from(document.querySelectorAll('[role="region"][aria-label="Preview"] .space-item')).map((b) => ({
        name: b.querySelector(".space-name")?.textContent ?? "",
        size: b.querySelector(".space-size")?.textContent ?? "",
        share: b.querySelector(".space-share")?.textContent ?? "",
        bar: parseFloat(b.querySelector(".space-bar")?.style.width ?? "0"),
        button: b.tagName === "BUTTON",
      })),
    );
    assert.equal(pane.filter((p) => p.button).length, 10, "its 10 largest children");
    assert.deepEqual(pane.slice(0, 4).map((p) => p.name), ["a.raw", HOSTILE, "b.raw", "c.jpg"], "largest first; a name that is markup shown as text");
    assert.equal(pane.at(-1).name, "6 others", "the rest as N others");
    const injected = await s.exec(() => ({ img: document.querySelector('[role="region"][aria-label="Preview"] img') !== null, pwned: window.__pwned ?? null }));
    assert.deepEqual(injected, { img: false, pwned: null }, "no name became markup");
    assert.ok(pane[0].bar > pane[1].bar && pane[1].bar > pane[2].bar, "bars as long as their shares");
    await saveScreenshot(s, "sizes-why-big");
    const audit = await axe(s, [".space-item .space-size", ".space-item .space-share", ".cell-size.sized"]);
    assert.deepEqual(audit, { violations: [], unjudged: [] }, "axe-core: the sizes, their bars and the pane are accessible (WCAG 2.1 AA)");
    await s.clickCss('[role="region"][aria-label="Preview"] .space-list li:nth-child(3) button.space-item');
    await s.waitFor(() => document.querySelector('[aria-selected="true"] .name')?.textContent === "b.raw", { what: "b.raw selected in the tree" });
  });


  test("a recount stopped by Esc gives back the earlier exact figures", async () => {
    await selectRow(s, SLOW_FOLDER);
    await s.clickCss('button[data-action="sizes"]');
    await s.waitFor(
      (n) => {
        const row = Array.from(document.querySelectorAll('[role="treeitem"]')).find((r) => r.querySelector(".name")?.textContent === n);
        return row !== undefined && row.querySelector(".cell-size.counting") !== null;
      },
      { what: "the slow folder counted anew", args: [SLOW_FOLDER], timeout: 15000 },
    );
    await s.exec(() => document.querySelector('[role="tree"]').focus());
    await s.keys(["\uE00C"]);
    await s.waitFor(() => document.querySelector('button[data-action="sizes"]')?.getAttribute("aria-pressed") === "false", { what: "the count stopped", timeout: 5000 });
    const slow = await cell(SLOW_FOLDER);
    assert.equal(slow.text, formatSize(du(path.join(root, SLOW_FOLDER))), "its earlier exact figure is back");
    assert.equal(slow.counting, false);
  });

  test("dark theme: the counted rows and where the space goes", async () => {
    const d = await launch([root], { theme: "dark" });
    try {
      await d.clickCss('button[data-action="sizes"]');
      await d.waitFor(() => document.querySelector('button[data-action="sizes"]')?.getAttribute("aria-pressed") === "false" && document.querySelector(".cell-size.sized") !== null, { what: "the count done", timeout: 60000 });
      await selectRow(d, "photos");
      await previewReady(d, ".space .space-item");
      await d.exec(() => {
        document.querySelector(".tree-scroller").scrollTop = 0;
      });
      await saveScreenshot(d, "sizes-why-big-dark");
      const audit = await axe(d, [".space-item .space-size", ".cell-size.sized"]);
      assert.deepEqual(audit, { violations: [], unjudged: [] }, "axe-core, dark theme");
    } finally {
      await d.quit();
    }
  });
});

describe("folder sizes over a dead mount", () => {
  let top;
  let mount;
  before(async () => {
    top = tempTree("canopy-e2e-sizes-dead-");
    file(path.join(top, "live/data.bin"), Buffer.alloc(64 * KiB, 7));
    fs.mkdirSync(path.join(top, "mnt"));
    mount = await mountDead(path.join(top, "mnt"), { deadRoot: false });
  });
  after(async () => {
    await mount?.stop();
    if (top) removeTree(top);
  });

  test("a hung mount below costs its TIMEOUT: the count completes, the rest is exact, the figures above say '≥' and why", async () => {
    // Listing the holder at depth 2 already left a lookup in the mount hanging
    // (its cold/ folder): the mount point now hangs as a dead NFS server's does.
    const d = await launch([top]);
    try {
      const started = Date.now();
      await d.clickCss('button[data-action="sizes"]');
      await d.waitFor(() => document.querySelector('button[data-action="sizes"]')?.getAttribute("aria-pressed") === "false" && document.querySelector(".cell-size.sized") !== null, { what: "the count done", timeout: 30000 });
      console.log(`counted beside the hung mount in ${Date.now() - started} ms`);
      const cells = await d.exec(() =>
        Object.fromEntries(
          Array.from(document.querySelectorAll('[role="treeitem"]')).map((r) => [r.querySelector(".name")?.textContent, { text: r.querySelector(".size-text")?.textContent ?? "", title: r.querySelector(".cell-size")?.getAttribute("title") ?? "" }]),
        ),
      );
      assert.match(cells.mnt.text, /^≥ /, `the hung mount is a lower bound: ${JSON.stringify(cells.mnt)}`);
      assert.match(cells.mnt.title, /\[TIMEOUT\] \(e\.g\. mnt\)/, "its hover says it timed out, and where");
      assert.equal(cells.live.text, formatSize(du(path.join(top, "live"))), "the live folder beside it: du's figure");
      const status = await d.exec(() => document.querySelector(".status-bar")?.textContent ?? "");
      assert.match(status, /· ≥ .* disk usage/, `the holder's figure is a lower bound: ${status}`);
      await saveScreenshot(d, "sizes-hung-mount");
    } finally {
      await d.quit();
    }
  });
});
