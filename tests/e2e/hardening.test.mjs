// The bad-input catalog where a user sees it, malformed IPC, and a folder
// slower than the time budget: stable codes on the right entries, nothing
// missing, nothing injected, no hang.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { Key } from "./webdriver.mjs";
import {
  SLOW_FOLDER,
  allRows,
  diffManifests,
  fifo,
  file,
  files,
  launch,
  manifest,
  previewReady,
  removeTree,
  rows,
  saveScreenshot,
  scrollToRow,
  selectRow,
  tempTree,
  waitForRow,
} from "./harness.mjs";

let root;
let outside;
let sock;
let manifestBefore;
const LONG = "n".repeat(255);
const BAD = Buffer.from([0x62, 0x61, 0x64, 0xff, 0x2d, 0x64, 0x69, 0x72]); // "bad\xff-dir"

before(async () => {
  root = tempTree();
  outside = tempTree("canopy-e2e-outside-");
  file(path.join(outside, "outside.txt"), "from outside\n");
  fs.symlinkSync("nowhere", path.join(root, "dangling"));
  fs.symlinkSync("self", path.join(root, "self"));
  fs.mkdirSync(path.join(root, "anc/child"), { recursive: true });
  fs.symlinkSync("..", path.join(root, "anc/child/up"));
  fs.symlinkSync(outside, path.join(root, "to-outside"));
  fifo(path.join(root, "a-fifo"));
  sock = net.createServer().listen(path.join(root, "a-socket"));
  files(path.join(root, "readonly"), "r", 3);
  fs.chmodSync(path.join(root, "readonly"), 0o444);
  file(path.join(root, LONG), "long name\n");
  const badDir = Buffer.concat([Buffer.from(root + "/"), BAD]);
  fs.mkdirSync(badDir);
  fs.writeFileSync(Buffer.concat([badDir, Buffer.from("/inside\xfe.txt", "latin1")]), "inside a bad name\n");
  file(path.join(root, "ctl-new\nline\tTAB\x1bESC"), "");
  file(path.join(root, "invoice\u202Etxt.exe"), "");
  file(path.join(root, "zero\u200Bwidth"), "");
  for (const n of ['"><svg onload=window.__pwned=1>', "`${window.__pwned=2}`", "back\\slash:colon", " lead", "trail "]) file(path.join(root, n), "");
  fs.mkdirSync(path.join(root, "empty-folder"));
  file(path.join(root, "empty-file"), "");
  file(path.join(root, "late-nul.txt"), Buffer.concat([Buffer.from("t".repeat(2000)), Buffer.from([0]), Buffer.from("rest")]));
  files(path.join(root, SLOW_FOLDER), "s", 400);
  files(path.join(root, "quick"), "q", 3);
  manifestBefore = manifest(root);
});

after(() => {
  sock?.close();
  removeTree(root);
  removeTree(outside);
});

const rowByName = (s, name) =>
  s.exec((n) => {
    const r = Array.from(document.querySelectorAll('[role="treeitem"]')).find((x) => x.querySelector(".name")?.textContent === n);
    return r && { id: r.id, text: r.textContent, badges: Array.from(r.querySelectorAll(".badge"), (b) => b.textContent), title: r.title, expanded: r.getAttribute("aria-expanded"), level: r.getAttribute("aria-level") };
  }, name);

describe("the catalog in the window", () => {
  let s;
  before(async () => {
    s = await launch([root, "--"]);
    // Depth 1: the slow folder is listed only when asked for (see below).
    await s.exec(() => {
      const sel = document.querySelector('select[aria-label="Depth"]');
      sel.value = "1";
      sel.dispatchEvent(new Event("change"));
    });
    await s.waitFor(() => !Array.from(document.querySelectorAll('[role="treeitem"]')).some((r) => r.getAttribute("aria-level") === "2"), { what: "depth 1" });
  });
  after(async () => s?.quit());

  test("1-2 dangling and self-looping links are marked", async () => {
    await scrollToRow(s, "dangling");
    assert.deepEqual((await rowByName(s, "dangling")).badges, ["dangling"]);
    await scrollToRow(s, "self");
    assert.deepEqual((await rowByName(s, "self")).badges, ["loop"]);
  });

  test("3 a link to an ancestor expands one level per expansion, no runaway", async () => {
    let sel = await scrollToRow(s, "anc");
    await s.clickCss(`${sel} .twisty`);
    sel = await scrollToRow(s, "child");
    await s.clickCss(`${sel} .twisty`);
    sel = await scrollToRow(s, "up");
    await s.clickCss(`${sel} .twisty`);
    // up -> anc: lists anc (child) at depth D=1.
    await s.waitFor(() => Array.from(document.querySelectorAll('[role="treeitem"][aria-level="4"] .name')).some((n) => n.textContent === "child"), { what: "one more level" });
    const deeper = await s.exec(() => document.querySelectorAll('[role="treeitem"][aria-level="5"]').length);
    assert.equal(deeper, 0, "nothing below the one level asked for");
  });

  test("4 a link to a folder outside the tree expands to that folder", async () => {
    const sel = await scrollToRow(s, "to-outside");
    await s.clickCss(`${sel} .twisty`);
    await waitForRow(s, "outside.txt");
  });

  test("5 a fifo and a socket are listed as special files", async () => {
    await scrollToRow(s, "a-fifo");
    const kinds = await s.exec(() => Array.from(document.querySelectorAll('[role="treeitem"]')).filter((r) => /^a-(fifo|socket)$/.test(r.querySelector(".name")?.textContent)).map((r) => r.dataset.kind));
    assert.deepEqual(kinds.sort(), ["fifo", "socket"]);
    await selectRow(s, "a-socket");
    assert.match(await previewReady(s, ".special-note"), /special file: not previewed/);
  });

  test("12 a folder whose names are readable but metadata is not", async () => {
    const sel = await scrollToRow(s, "readonly");
    await s.clickCss(`${sel} .twisty`);
    await waitForRow(s, "r001");
    const r = await rowByName(s, "r001");
    assert.deepEqual(r.badges, ["DENIED"], "listed by name, its details denied");
  });

  test("14 a 255-byte name is listed and previewed", async () => {
    await selectRow(s, LONG);
    assert.match(await previewReady(s, "pre.code .line"), /long name/);
  });

  test("15 a folder and a file with invalid UTF-8 names: expand and preview both work", async () => {
    // Shown with the bad byte as a visible escape marker.
    const name = "bad\\xff-dir";
    const sel = await scrollToRow(s, name);
    const marker = await s.exec((q) => document.querySelector(`${q} .escape`)?.textContent, sel);
    assert.equal(marker, "\\xff", "the bad byte shows as a visible escape");
    await s.clickCss(`${sel} .twisty`);
    await waitForRow(s, "inside\\xfe.txt");
    await selectRow(s, "inside\\xfe.txt");
    assert.match(await previewReady(s, "pre.code .line"), /inside a bad name/);
  });

  test("16 controls, bidi and zero-width characters show as escape markers", async () => {
    await scrollToRow(s, "invoice\\u{202e}txt.exe");
    const marks = await s.exec(() =>
      Array.from(document.querySelectorAll('[role="treeitem"] .name'))
        .filter((n) => n.querySelector(".escape"))
        .map((n) => Array.from(n.querySelectorAll(".escape"), (e) => e.textContent).join(" ")),
    );
    assert.ok(marks.includes("\\u{202e}"), JSON.stringify(marks));
    const bidi = await s.exec(() => {
      const n = Array.from(document.querySelectorAll('[role="treeitem"] .name')).find((x) => x.textContent.startsWith("invoice"));
      return { tag: n.tagName, visible: n.innerText };
    });
    assert.equal(bidi.tag, "BDI", "names are direction-isolated");
    assert.equal(bidi.visible, "invoice\\u{202e}txt.exe", "cannot pose as invoiceexe.txt");
    await scrollToRow(s, "zero\\u{200b}width");
    await scrollToRow(s, "ctl-new\\nline\\tTAB\\u{1b}ESC");
    const ctl = await s.exec(() => Array.from(document.querySelectorAll('[role="treeitem"] .name')).find((x) => x.textContent.startsWith("ctl-")).innerText);
    assert.equal(ctl, "ctl-new\\nline\\tTAB\\u{1b}ESC");
    await saveScreenshot(s, "hardening-escapes");
  });

  test("17-18 names with HTML, JS, backslashes, colons and spaces arrive as text", async () => {
    for (const n of ['"><svg onload=window.__pwned=1>', "`${window.__pwned=2}`", "back\\slash:colon", " lead", "trail "]) {
      await scrollToRow(s, n);
    }
    const dom = await s.exec(() => ({ svgs: document.querySelectorAll("svg").length, pwned: window.__pwned ?? null }));
    assert.deepEqual(dom, { svgs: 0, pwned: null });
  });

  test("19 an empty folder and an empty file", async () => {
    const sel = await scrollToRow(s, "empty-folder");
    await s.clickCss(`${sel} .twisty`);
    await s.waitFor(() => Array.from(document.querySelectorAll('[role="treeitem"]')).find((r) => r.querySelector(".name")?.textContent === "empty-folder")?.querySelector(".cell-size")?.textContent === "0 items", { what: "0 items" });
    await selectRow(s, "empty-file");
    await previewReady(s, "pre.code");
  });

  test("22 a NUL after the first KiB turns the rest binary", async () => {
    await selectRow(s, "late-nul.txt");
    await previewReady(s, "pre.code .line");
    await s.clickCss('[data-action="load-more"]');
    await previewReady(s, "pre.hex");
  });

  test("24 a hung folder: another listing completes while it is pending; it ends TIMEOUT with 'at least'", async () => {
    const slow = await scrollToRow(s, SLOW_FOLDER);
    await s.clickCss(`${slow} .twisty`);
    const quick = await scrollToRow(s, "quick");
    await s.clickCss(`${quick} .twisty`);
    await waitForRow(s, "q001");
    const slowState = await rowByName(s, SLOW_FOLDER);
    assert.equal(slowState.expanded, "false", "the slow folder is still pending when the quick one is done");
    const done = await s.waitFor((n) => {
      const r = Array.from(document.querySelectorAll('[role="treeitem"]')).find((x) => x.querySelector(".name")?.textContent === n);
      const b = r && Array.from(r.querySelectorAll(".badge"), (x) => x.textContent);
      return b && b.includes("TIMEOUT") && { badges: b, size: r.querySelector(".cell-size").textContent };
    }, { what: "the TIMEOUT badge", timeout: 30000, args: [SLOW_FOLDER] });
    assert.match(done.size, /^at least \d+ items$/);
    assert.ok(done.badges.some((b) => /^at least \d+ more$/.test(b)), JSON.stringify(done.badges));
    await saveScreenshot(s, "hardening-timeout");
  });

  test("6-7 /dev/zero and /dev/urandom are special; /proc files preview", async () => {
    await s.keys(["l"], [Key.Control]);
    const input = await s.find(".path-input");
    await s.exec(() => (document.querySelector(".path-input").value = ""));
    await s.type(input, "/dev" + Key.Enter);
    await s.waitFor(() => document.querySelector('.crumb[aria-current]')?.textContent === "dev", { what: "/dev open" });
    for (const n of ["zero", "urandom"]) {
      await selectRow(s, n);
      assert.match(await previewReady(s, ".special-note"), /special file: not previewed \(character device\)/);
    }
    await s.keys(["l"], [Key.Control]);
    await s.exec(() => (document.querySelector(".path-input").value = ""));
    await s.type(await s.find(".path-input"), "/proc/self" + Key.Enter);
    await s.waitFor(() => document.querySelector('.crumb[aria-current]')?.textContent === "self", { what: "/proc/self open" });
    await selectRow(s, "status");
    assert.match(await previewReady(s, "pre.code .line"), /Name:/);
  });

  test("13 a root that is a file or a fifo is refused with NOT_A_DIRECTORY", async () => {
    for (const p of [path.join(root, "empty-file"), path.join(root, "a-fifo")]) {
      await s.keys(["l"], [Key.Control]);
      await s.exec(() => (document.querySelector(".path-input").value = ""));
      await s.type(await s.find(".path-input"), p + Key.Enter);
      const err = await s.waitFor(() => {
        const e = document.querySelector(".open-error");
        return e && !e.hidden && e.querySelector(".error-code").textContent;
      }, { what: "the error" });
      assert.equal(err, "NOT_A_DIRECTORY");
      await s.keys([Key.Escape]);
    }
  });
});

describe("the content security policy is enforced", () => {
  test("inline scripts, eval, data: images and blob: workers are refused in the real webview", async () => {
    const s = await launch([root]);
    try {
      const r = await s.execAsync(async () => {
        const inline = document.createElement("script");
        inline.textContent = "window.__inlineRan = true";
        document.body.append(inline);
        let evalBlocked = false;
        try {
          // The page's own eval, as a script would call it.
          window.eval("1");
        } catch {
          evalBlocked = true;
        }
        const img = document.createElement("img");
        const loaded = await new Promise((resolve) => {
          img.onload = () => resolve(true);
          img.onerror = () => resolve(false);
          img.src = "data:image/gif;base64,R0lGODlhAQABAAAAACw=";
          document.body.append(img);
        });
        img.remove();
        inline.remove();
        // A worker made from a string at run time (worker-src 'self' only):
        // refused at once, or it fails to load; it never answers.
        const blobWorker = await new Promise((resolve) => {
          try {
            const w = new Worker(URL.createObjectURL(new Blob(["postMessage('ran')"], { type: "text/javascript" })));
            w.onmessage = () => resolve("ran");
            w.onerror = () => resolve("refused");
          } catch {
            resolve("refused");
          }
        });
        return { inlineRan: window.__inlineRan === true, evalBlocked, dataImageLoaded: loaded, blobWorker, tauriGlobal: "__TAURI__" in window };
      });
      assert.deepEqual(r, { inlineRan: false, evalBlocked: true, dataImageLoaded: false, blobWorker: "refused", tauriGlobal: false });
    } finally {
      await s.quit();
    }
  });
});

describe("malformed IPC is INVALID_ARGUMENT", () => {
  let s;
  before(async () => {
    s = await launch([root]);
  });
  after(async () => s?.quit());

  const invoke = (s, cmd, args) =>
    s.execAsync(async (c, a) => {
      try {
        const v = await window.__TAURI_INTERNALS__.invoke(c, a);
        return { ok: v && typeof v === "object" ? { clamped: v.clamped, requested: v.requested, length: v.length } : v };
      } catch (e) {
        return { code: e?.code ?? String(e) };
      }
    }, cmd, args);

  test("25 depth 0, depth 1000, negative and non-numeric values", async () => {
    const h = Buffer.from(root).toString("base64url");
    for (const depth of [0, 1000, -1, "two", 2.5, null]) {
      const r = await invoke(s, "list_directory", { request: { root: { handle: h }, settings: { depth } } });
      assert.deepEqual(r, { code: "INVALID_ARGUMENT" }, `depth ${JSON.stringify(depth)}`);
    }
  });

  test("26 bad handles, wrong types, a foreign cursor, a 10 GiB preview; an offset past the end is an empty page", async () => {
    const h = Buffer.from(root).toString("base64url");
    const f = Buffer.from(path.join(root, "late-nul.txt")).toString("base64url");
    const cases = [
      ["list_directory", { request: { root: { handle: "%%%not-base64" } } }],
      ["list_directory", { request: { root: "/" } }],
      ["list_directory", { request: { root: { handle: h }, after: "bm90LWEtY3Vyc29y" } }],
      ["list_directory", { request: { root: { handle: h }, after: 7 } }],
      ["list_directory", { request: { root: { handle: h }, settings: { limit: 0 } } }],
      ["list_directory", {}],
      ["list_directory", { request: "nonsense" }],
      ["locate", { request: { folder: 7, prefix: "a" } }],
      ["read_preview", { request: { handle: f, offset: 1e9 } }],
      ["read_preview", { request: { handle: f, length: -5 } }],
      ["read_preview", { request: { handle: "" } }],
      ["read_image", { request: { handle: f, extra: true } }],
      ["cancel_listing", { request: { requestId: "x" } }],
    ];
    for (const [cmd, args] of cases) {
      assert.deepEqual(await invoke(s, cmd, args), { code: "INVALID_ARGUMENT" }, `${cmd} ${JSON.stringify(args)}`);
    }
    // Folders shrink between pages: past the end is an empty page with the true total.
    const past = await s.execAsync(async (a) => {
      const l = await window.__TAURI_INTERNALS__.invoke("list_directory", a);
      return { entries: l.root.folder.entries.length, total: l.root.folder.total, offset: l.root.folder.offset };
    }, { request: { root: { handle: h }, offset: 10_000_000 } });
    assert.equal(past.entries, 0);
    assert.equal(past.offset, 10_000_000);
    assert.equal(past.total, fs.readdirSync(root).length, "the true total");
    const big = await invoke(s, "read_preview", { request: { handle: f, length: 10 * 1024 ** 3 } });
    assert.deepEqual(big.ok, { clamped: true, requested: 4 * 1024 * 1024, length: 2000 }, "a 10 GiB request is clamped and says so");
  });
});

test("the catalog changed nothing in the fixture", () => {
  assert.deepEqual(diffManifests(manifestBefore, manifest(root)), []);
});
