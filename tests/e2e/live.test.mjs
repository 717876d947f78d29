// Live refresh through the real window: files created, renamed, deleted and
// written in expanded folders show without F5, while expansion, selection,
// scroll and preview hold; a folder crossing the cap gains its badge; the
// root's total follows; too many open folders are said and refresh on focus.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { file, files, launch, removeTree, rowSelector, saveScreenshot, scrollToRow, selectRow, tempTree, waitForRow } from "./harness.mjs";

let root;

before(() => {
  root = tempTree();
  files(path.join(root, "cap"), "c", 100);
  file(path.join(root, "docs/a.txt"), "a\n");
  file(path.join(root, "docs/b.txt"), "bee\n");
  file(path.join(root, "docs/c.txt"), "c\n");
  files(path.join(root, "other"), "o", 2);
  for (let i = 0; i < 60; i++) file(path.join(root, `top${String(i).padStart(2, "0")}.txt`), "");
});

after(() => removeTree(root));

/** Installs, in the page, a record of when each named row first appears and last disappears (page clock, epoch ms). */
function watchRows(s) {
  return s.exec(() => {
    const seen = (window.__rowTimes = { appeared: {}, gone: {} });
    const scan = () => {
      const now = performance.timeOrigin + performance.now();
      const names = new Set(Array.from(document.querySelectorAll('[role="treeitem"] .name'), (n) => n.textContent));
      for (const n of names) if (!(n in seen.appeared)) seen.appeared[n] = now;
      for (const n of Object.keys(seen.appeared)) if (!names.has(n) && !(n in seen.gone)) seen.gone[n] = now;
    };
    scan();
    new MutationObserver(scan).observe(document.querySelector('[role="tree"]'), { childList: true, subtree: true, characterData: true });
  });
}

const rowTimes = (s) => s.exec(() => window.__rowTimes);

/** The row at the top of the tree's view and how far it sits below the top. */
function topRow(s) {
  return s.exec(() => {
    const scroller = document.querySelector(".tree-scroller");
    const top = scroller.getBoundingClientRect().top;
    const rowsInView = Array.from(document.querySelectorAll('[role="treeitem"]'))
      .map((r) => ({ name: r.querySelector(".name")?.textContent, y: r.getBoundingClientRect().top - top }))
      .filter((r) => r.y >= -1)
      .sort((a, b) => a.y - b.y);
    return rowsInView[0];
  });
}

function rowGone(s, name) {
  return s.waitFor((n) => !Array.from(document.querySelectorAll('[role="treeitem"] .name')).some((x) => x.textContent === n), { what: `${name} gone`, args: [name] });
}

describe("live refresh", () => {
  let s;
  const figures = [];
  before(async () => {
    s = await launch([root]);
  });
  after(async () => {
    if (figures.length) console.log(`time from the change on disk to the row in the window: ${figures.join(", ")}`);
    await s?.quit();
  });

  test("created, renamed and deleted files show without F5; expansion, selection, scroll and preview hold", async () => {
    // Collapse one folder, select a file, and scroll so the folder below `docs` is at the top.
    await s.clickCss(`${await scrollToRow(s, "other")} .twisty`);
    await s.waitFor(() => document.querySelector('[role="treeitem"][data-handle] .name') && Array.from(document.querySelectorAll('[role="treeitem"]')).find((r) => r.querySelector(".name")?.textContent === "other")?.getAttribute("aria-expanded") === "false", { what: "other collapsed" });
    await selectRow(s, "b.txt");
    await s.waitFor(() => /bee/.test(document.querySelector(".preview-body")?.textContent ?? ""), { what: "b.txt previewed" });
    await s.execAsync(async () => {
      const other = Array.from(document.querySelectorAll('[role="treeitem"]')).find((r) => r.querySelector(".name")?.textContent === "other");
      const y = Number(/translateY\((-?[0-9.]+)px\)/.exec(other.style.transform)[1]);
      document.querySelector(".tree-scroller").scrollTop = y;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    });
    const topBefore = await topRow(s);
    assert.equal(topBefore.name, "other", "the view starts with `other` at its top");
    await watchRows(s);

    const created = Date.now();
    fs.writeFileSync(path.join(root, "docs/a0-new.txt"), "");
    await s.waitFor(() => window.__rowTimes.appeared["a0-new.txt"], { what: "the created file's row" });
    figures.push(`created ${Math.round((await rowTimes(s)).appeared["a0-new.txt"] - created)} ms`);
    assert.deepEqual(await topRow(s), topBefore, "a row added above the view does not move the rows in view");
    const state = await s.exec(() => {
      const row = (n) => Array.from(document.querySelectorAll('[role="treeitem"]')).find((r) => r.querySelector(".name")?.textContent === n);
      return {
        selected: document.querySelector('[aria-selected="true"] .name')?.textContent,
        docs: row("docs")?.getAttribute("aria-expanded"),
        other: row("other")?.getAttribute("aria-expanded"),
        cap: row("cap")?.getAttribute("aria-expanded") ?? "not rendered",
        previewStatus: document.querySelector(".preview-status").textContent,
        preview: document.querySelector(".preview-body").textContent,
      };
    });
    assert.deepEqual(state, { selected: "b.txt", docs: "true", other: "false", cap: "not rendered", previewStatus: "", preview: state.preview });
    assert.match(state.preview, /bee/, "the preview stays");

    const renamed = Date.now();
    fs.renameSync(path.join(root, "docs/a0-new.txt"), path.join(root, "docs/a1-renamed.txt"));
    await rowGone(s, "a0-new.txt");
    await s.waitFor(() => window.__rowTimes.appeared["a1-renamed.txt"], { what: "the renamed file's row" });
    figures.push(`renamed ${Math.round((await rowTimes(s)).appeared["a1-renamed.txt"] - renamed)} ms`);

    const deleted = Date.now();
    fs.unlinkSync(path.join(root, "docs/a1-renamed.txt"));
    await rowGone(s, "a1-renamed.txt");
    figures.push(`deleted ${Math.round((await rowTimes(s)).gone["a1-renamed.txt"] - deleted)} ms`);
    assert.deepEqual(await topRow(s), topBefore, "rows removed above the view do not move the rows in view");

    // Another file written: the preview of b.txt stays as it was.
    fs.writeFileSync(path.join(root, "docs/a.txt"), "a longer content\n");
    await s.waitFor(() => /17 B/.test(Array.from(document.querySelectorAll('[role="treeitem"]')).find((r) => r.querySelector(".name")?.textContent === "a.txt")?.textContent ?? ""), { what: "a.txt's new size in its row" });
    assert.equal(await s.exec(() => document.querySelector(".preview-status").textContent), "", "another file's change leaves the preview alone");

    // The previewed file written: its first part is read again, and the window says so.
    fs.writeFileSync(path.join(root, "docs/b.txt"), "bee changed\n");
    const preview = await s.waitFor(() => {
      const body = document.querySelector(".preview-body").textContent;
      const status = document.querySelector(".preview-status").textContent;
      return /bee changed/.test(body) ? status : null;
    }, { what: "the preview to show the new content" });
    assert.match(preview, /changed on disk/);
    await saveScreenshot(s, "live-after-changes");

    // The selected file deleted: the selection moves to its neighbour.
    fs.unlinkSync(path.join(root, "docs/b.txt"));
    await rowGone(s, "b.txt");
    const selected = await s.waitFor(() => document.querySelector('[aria-selected="true"] .name')?.textContent, { what: "a selection" });
    assert.equal(selected, "c.txt", "the nearest neighbour is selected");
  });

  test("a folder crossing the cap gains its badge live, and the root's total follows", async () => {
    await s.exec(() => (document.querySelector(".tree-scroller").scrollTop = 0));
    const cap = await rowSelector(s, "cap");
    assert.equal(await s.exec((sel) => document.querySelector(`${sel} .badge-more`), cap), null, "100 entries: no badge yet");
    fs.writeFileSync(path.join(root, "cap/c000-extra"), "");
    const badge = await s.waitFor((sel) => document.querySelector(`${sel} .badge-more`)?.textContent, { what: "the badge", args: [cap] });
    assert.equal(badge, "1 more");
    const total = await s.exec(() => document.querySelector(".status-bar").textContent);
    fs.writeFileSync(path.join(root, "top99.txt"), "");
    const after = await s.waitFor((before) => {
      const t = document.querySelector(".status-bar").textContent;
      return t !== before ? t : null;
    }, { what: "the root's total to change", args: [total] });
    assert.equal(Number(after.replace(/\D/g, "")), Number(total.replace(/\D/g, "")) + 1, `${total} -> ${after}`);
    await saveScreenshot(s, "live-cap-badge");
  });
});

describe("more open folders than can be watched", () => {
  let many;
  let s;
  before(async () => {
    many = tempTree();
    for (let i = 0; i < 1100; i++) file(path.join(many, `d${String(i).padStart(4, "0")}`, "x"), "");
    s = await launch([many]);
  });
  after(async () => {
    await s?.quit();
    removeTree(many);
  });

  test("says so, and the unwatched folders refresh when the window regains focus", async () => {
    // Scroll through so every page of the root (1,100 expanded folders) is loaded.
    await s.execAsync(async () => {
      const scroller = document.querySelector(".tree-scroller");
      const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      for (let i = 0; i < 400 && scroller.scrollTop + scroller.clientHeight < scroller.scrollHeight - 1; i++) {
        scroller.scrollTop += scroller.clientHeight;
        await frame();
      }
    });
    await waitForRow(s, "d1099");
    const notice = await s.waitFor(() => {
      const n = document.querySelector(".live-notice");
      return n && !n.hidden ? n.textContent : null;
    }, { what: "the notice" });
    assert.match(notice, /Too many open folders to watch: 77 open folders refresh when the window regains focus/);
    await saveScreenshot(s, "live-too-many");
    fs.writeFileSync(path.join(many, "d1099", "y"), "");
    // A watched folder still refreshes live.
    fs.writeFileSync(path.join(many, "d0000", "y"), "");
    await s.execAsync(async () => {
      document.querySelector(".tree-scroller").scrollTop = 0;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    });
    await s.waitFor(() => Array.from(document.querySelectorAll('[role="treeitem"]')).filter((r) => r.getAttribute("aria-level") === "2" && r.querySelector(".name")?.textContent === "y").length > 0, { what: "d0000/y, live" });
    await s.exec(() => window.dispatchEvent(new FocusEvent("focus")));
    await s.execAsync(async () => {
      const scroller = document.querySelector(".tree-scroller");
      scroller.scrollTop = scroller.scrollHeight;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    });
    const last = await s.waitFor(() => {
      const rows = Array.from(document.querySelectorAll('[role="treeitem"]'));
      const i = rows.findIndex((r) => r.querySelector(".name")?.textContent === "d1099");
      return i >= 0 && rows[i + 2]?.querySelector(".name")?.textContent === "y" ? rows.slice(i, i + 3).map((r) => r.querySelector(".name").textContent) : null;
    }, { what: "d1099/y after focus" });
    assert.deepEqual(last, ["d1099", "x", "y"]);
  });
});
