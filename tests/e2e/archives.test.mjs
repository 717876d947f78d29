// Archives through the real window: a zip in a folder shows as an archive
// (its own icon) that expands like a folder, a 300-entry folder inside it
// is cut at the cap with the same badge and actions as anywhere, a text
// file inside previews, the archive itself shows its summary, a name that
// would climb out of the archive is listed with a warning and never opened,
// the file actions of an entry inside act on the archive file (the
// outermost one, for an archive inside an archive), and the ratio guard's
// RATIO reaches the window in words: a tar.gz bomb's index stops at it (the
// row's badge, the summary's problem), and a zip bomb's member is refused
// before it is shown.
//
// The archives are made by Python's zipfile (the real tool that writes
// them), in the test's own temp folder.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import {
  ACTION_LOG,
  diffManifests,
  file,
  launch,
  manifest,
  previewReady,
  removeTree,
  rowSelector,
  saveScreenshot,
  scrollToRow,
  selectRow,
  tempTree,
  waitForRow,
} from "./harness.mjs";

/** site.zip: a text file, a 300-entry folder, a name that climbs out, a zip stored inside, and a comment. */
const SITE = `
import io, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("readme.txt", "hello from inside the zip\\nsecond line\\n")
    for i in range(1, 301):
        z.writestr(f"assets/img{i:03}.txt", f"image {i}\\n")
    z.writestr("docs/guide.md", "# Guide\\n")
    z.writestr("../evil.txt", "never opened\\n")
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as i:
        i.writestr("deep.txt", "two archives down\\n")
    z.writestr(zipfile.ZipInfo("inner.zip"), inner.getvalue())
    z.comment = b"built for the archives test"
`;

/** bomb.tar.gz: a tar of 200 MiB of zeros then a small file, gzipped at level 9 (about 1,000 : 1). */
const TAR_BOMB = `
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w:gz", compresslevel=9) as t:
    for name, data in (("zeros.bin", bytes(200 * 1024 * 1024)), ("after.txt", b"past the zeros\\n")):
        info = tarfile.TarInfo(name)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
`;

/** bomb.zip: one member of 200 MiB of zeros, deflated at level 9 (about 1,000 : 1). */
const BOMB = `
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    z.writestr("zeros.bin", bytes(200 * 1024 * 1024))
`;

const UNSAFE = "..\\u{2f}evil.txt"; // how the row shows "../evil.txt": the slash escaped

let root;
let manifestBefore;

before(() => {
  root = tempTree("canopy-e2e-archives-");
  file(path.join(root, "notes.txt"), "a plain file beside the archives\n");
  execFileSync("python3", ["-c", SITE, path.join(root, "site.zip")]);
  execFileSync("python3", ["-c", BOMB, path.join(root, "bomb.zip")]);
  execFileSync("python3", ["-c", TAR_BOMB, path.join(root, "bomb.tar.gz")]);
  manifestBefore = manifest(root);
});

after(() => removeTree(root));

/** The action log's lines for `action`, as text after the action's name. */
function logged(action) {
  if (!fs.existsSync(ACTION_LOG)) return [];
  return fs
    .readFileSync(ACTION_LOG, "utf8")
    .split("\n")
    .filter((l) => l.startsWith(`${action} `))
    .map((l) => l.slice(action.length + 1));
}

describe("archives in the window", () => {
  let s;
  before(async () => {
    s = await launch([root]);
  });
  after(async () => s?.quit());

  /** Clicks a row's expander and waits for `child` to show one level below it. */
  async function expand(name, child) {
    const sel = await scrollToRow(s, name);
    await s.clickCss(`${sel} .twisty`);
    const row = await waitForRow(s, child, `${child} inside ${name}`);
    return row;
  }

  test("a zip shows as a collapsed archive with its own icon", async () => {
    const sel = await rowSelector(s, "site.zip");
    const row = await s.exec(
      (q) => {
        const r = document.querySelector(q);
        const icon = r.querySelector(".cell-name > .icon:not(.icon-chevron)");
        return { kind: r.dataset.kind, expanded: r.getAttribute("aria-expanded"), icon: icon.className, label: icon.getAttribute("aria-label"), mask: getComputedStyle(icon).webkitMaskImage ?? getComputedStyle(icon).maskImage };
      },
      sel,
    );
    assert.deepEqual(
      { kind: row.kind, expanded: row.expanded, icon: row.icon, label: row.label },
      { kind: "file", expanded: "false", icon: "icon icon-archive", label: "ZIP archive" },
      "a file that expands, drawn as an archive",
    );
    assert.match(row.mask, /archive\.svg/, "the icon is the archive SVG");
    await saveScreenshot(s, "archives-tree");
  });

  test("expanding it lists its inside in place, and a 300-entry folder there has the badge and its actions", async () => {
    const assets = await expand("site.zip", "assets");
    assert.equal(assets.level, 2, "the zip's top folder is one level below it");
    assert.equal(assets.expanded, "true", "read within the view's depth, shown open");
    const sel = `[id="${assets.id}"]`;
    const badge = await s.waitFor((q) => document.querySelector(`${q} .badge-more`)?.textContent ?? null, { what: "the badge on assets", args: [sel] });
    assert.equal(badge, "200 more");
    const actions = await s.exec((q) => Array.from(document.querySelectorAll(`${q} .row-action`), (b) => b.textContent || b.getAttribute("aria-label")), sel);
    assert.deepEqual(actions.slice(0, 3), ["Show next 100", "Show all", "Filter…"]);
    await saveScreenshot(s, "archives-expanded");
    await s.clickCss(`${sel} [data-action="show-next"]`);
    const after = await s.waitFor((q) => document.querySelector(`${q} .badge-more`)?.textContent === "100 more" && "100 more", { what: "the next 100 inside the zip", args: [sel] });
    assert.equal(after, "100 more");
    await scrollToRow(s, "img200.txt");
    await saveScreenshot(s, "archives-show-next");
  });

  test("the archive's summary: format, counts, sizes, ratio, unsafe names and its comment", async () => {
    await selectRow(s, "site.zip");
    const text = await previewReady(s, ".archive-summary");
    const facts = await s.exec(() => Object.fromEntries(Array.from(document.querySelectorAll(".archive-facts dt"), (dt) => [dt.textContent, dt.nextElementSibling.textContent])));
    assert.equal(facts.Format, "ZIP");
    // 304 records; its two folders exist only in the names' paths, and are counted as shown.
    assert.equal(facts.Entries, "304 in its directory", `the zip's records: ${JSON.stringify(facts)}`);
    assert.equal(facts.Holds, "304 files, 2 folders", `what they hold: ${JSON.stringify(facts)}`);
    assert.equal(facts["Archive size"].length > 0, true);
    assert.match(facts.Ratio, /^[\d.,]+ : 1 \(uncompressed : archive\)$/);
    assert.match(facts["Unsafe names"], /^1 entry whose name would reach outside the archive/);
    assert.match(text, /built for the archives test/, "the comment, as text");
    await saveScreenshot(s, "archives-summary");
  });

  test("a text file inside previews; its file actions act on the archive file and say so", async () => {
    await selectRow(s, "readme.txt");
    await previewReady(s, "pre.code .line");
    const lines = await s.exec(() => Array.from(document.querySelectorAll('[aria-label="Preview"] pre.code .line'), (l) => l.textContent));
    assert.deepEqual(lines, ["hello from inside the zip", "second line"]);
    const head = await s.exec(() => ({
      facts: document.querySelector(".preview-facts").textContent,
      actions: Array.from(document.querySelectorAll(".preview-actions button"), (b) => b.textContent),
    }));
    assert.match(head.facts, /inside site\.zip/);
    assert.deepEqual(head.actions, ["Copy archive path", "Reveal archive", "Open archive…"]);
    await saveScreenshot(s, "archives-member-text");
    fs.rmSync(ACTION_LOG, { force: true });
    for (const action of ["copy-path", "reveal"]) {
      await s.exec(() => {
        document.querySelector(".preview-status").textContent = "";
      });
      await s.clickCss(`[data-action="${action}"]`);
      await s.waitFor(() => document.querySelector(".preview-status")?.textContent || null, { what: `${action} to answer` });
    }
    const zip = path.join(root, "site.zip");
    assert.deepEqual([logged("copy"), logged("reveal")], [[zip], [zip]], "the archive's own path, never a path inside it");
  });

  test("an archive inside the archive expands too; what it holds acts on the outer archive, the one file on disk", async () => {
    const sel = await scrollToRow(s, "inner.zip");
    assert.equal(await s.exec((q) => document.querySelector(`${q} .cell-name > .icon:not(.icon-chevron)`).className, sel), "icon icon-archive");
    await expand("inner.zip", "deep.txt");
    await selectRow(s, "inner.zip");
    await previewReady(s, ".archive-summary");
    const holds = await s.exec(() => Array.from(document.querySelectorAll(".archive-facts dt")).find((dt) => dt.textContent === "Holds")?.nextElementSibling.textContent);
    assert.equal(holds, "1 file, 0 folders", "the inner archive's own summary");
    await selectRow(s, "deep.txt");
    await previewReady(s, "pre.code .line");
    const text = await s.exec(() => document.querySelector('[aria-label="Preview"] pre.code .line').textContent);
    assert.equal(text, "two archives down");
    assert.match(await s.exec(() => document.querySelector(".preview-facts").textContent), /inside site\.zip$/);
    await saveScreenshot(s, "archives-nested");
    await s.clickCss(`${await scrollToRow(s, "inner.zip")} .twisty`);
  });

  test("a name that would climb out of the archive is listed with a warning and never opened", async () => {
    const sel = await scrollToRow(s, UNSAFE);
    const row = await s.exec(
      (q) => {
        const b = document.querySelector(`${q} .badge-error`);
        return { code: b?.dataset.code, warning: b?.querySelector(".icon-warning") !== null, title: b?.title, expandable: document.querySelector(q).hasAttribute("aria-expanded") };
      },
      sel,
    );
    assert.equal(row.code, "UNSAFE_NAME");
    assert.ok(row.warning, "the badge carries the warning icon");
    assert.match(row.title, /would reach outside it/, "the badge's sentence");
    assert.equal(row.expandable, false);
    await selectRow(s, UNSAFE);
    const shown = await previewReady(s, '.preview-error[data-code="UNSAFE_NAME"]');
    assert.match(shown, /UNSAFE_NAME — this name inside the archive would reach outside it/);
    assert.match(shown, /climb out of the archive/, "the engine's reason too");
    assert.match(shown, /Not previewed\./);
    await saveScreenshot(s, "archives-unsafe-name");
  });

  test("a tar.gz bomb's index stops at the ratio guard: the row and the summary say RATIO, in words", async () => {
    await s.clickCss(`${await scrollToRow(s, "site.zip")} .twisty`);
    await s.waitFor(() => !Array.from(document.querySelectorAll('[role="treeitem"] .name')).some((n) => n.textContent === "assets"), { what: "site.zip collapsed" });
    await expand("bomb.tar.gz", "zeros.bin");
    const sel = await scrollToRow(s, "bomb.tar.gz");
    const badge = await s.waitFor(
      (q) => {
        const b = document.querySelector(`${q} .badge-error`);
        const more = Array.from(document.querySelectorAll(`${q} .badge-more, ${q} .row-action:not([data-action="open-root"])`), (e) => e.textContent);
        return b ? { code: b.dataset.code, warning: b.querySelector(".icon-warning") !== null, title: b.title, more } : null;
      },
      { what: "the RATIO badge on bomb.tar.gz", args: [sel] },
    );
    assert.equal(badge.code, "RATIO");
    assert.ok(badge.warning, "with the warning icon");
    assert.match(badge.title, /a possible zip bomb/);
    assert.deepEqual(badge.more, [], "no 'more' badge nor 'Show next': reading again would stop at the same place");
    await selectRow(s, "bomb.tar.gz");
    const text = await previewReady(s, '.archive-summary .preview-error[data-code="RATIO"]');
    assert.match(text, /The index stops short\. Decompressing stopped: this expands to far more than its compressed size \(a possible zip bomb\)\./);
    await saveScreenshot(s, "archives-targz-bomb");
  });

  test("a zip bomb's summary shows its ratio, past 1,000 : 1", async () => {
    await s.clickCss(`${await scrollToRow(s, "bomb.tar.gz")} .twisty`);
    await expand("bomb.zip", "zeros.bin");
    await selectRow(s, "bomb.zip");
    await previewReady(s, ".archive-summary");
    const ratio = await s.exec(() => Array.from(document.querySelectorAll(".archive-facts dt")).find((dt) => dt.textContent === "Ratio")?.nextElementSibling.textContent);
    assert.match(ratio, /^1,0\d\d : 1/);
    await saveScreenshot(s, "archives-zip-bomb-summary");
  });

  test("previewing a zip bomb's member shows RATIO, not its bytes", async () => {
      await selectRow(s, "zeros.bin");
      const shown = await s.waitFor(
        () => {
          const region = document.querySelector('[role="region"][aria-label="Preview"]');
          const error = region.querySelector(".preview-body .preview-error");
          if (error) return { error: error.dataset.code, text: error.textContent };
          return region.querySelector("pre.hex, pre.code") ? { error: null, text: region.textContent.slice(0, 200) } : null;
        },
        { what: "the bomb's preview", timeout: 30000 },
      );
      await saveScreenshot(s, "archives-zip-bomb-member");
      assert.equal(shown.error, "RATIO", `the member is refused by the ratio guard, not shown: ${shown.text}`);
      assert.match(shown.text, /RATIO — decompressing stopped: this expands to far more than its compressed size/);
  });
});

test("in the dark theme the archive icon, the warning and the summary stay legible", async () => {
  const s = await launch([root], { theme: "dark" });
  try {
    await s.clickCss(`${await scrollToRow(s, "site.zip")} .twisty`);
    await waitForRow(s, "assets");
    await selectRow(s, "site.zip");
    await previewReady(s, ".archive-summary");
    await scrollToRow(s, UNSAFE);
    await saveScreenshot(s, "archives-dark");
  } finally {
    await s.quit();
  }
});

test("browsing the archives changed nothing on disk", () => {
  assert.deepEqual(diffManifests(manifestBefore, manifest(root)), []);
});
