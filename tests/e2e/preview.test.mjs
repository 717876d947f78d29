// The preview through the real window: bounded, honest and inert.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Key } from "./webdriver.mjs";
import {
  APP,
  REPO,
  diffManifests,
  fifo,
  file,
  launch,
  manifest,
  previewReady,
  removeTree,
  saveScreenshot,
  selectRow,
  tempTree,
} from "./harness.mjs";

const HOSTILE_NAME = "<img src=x onerror=window.__pwned=1>.txt";
let root;
let writer;
let manifestBefore;

before(() => {
  root = tempTree();
  file(path.join(root, "notes.txt"), "first line\nsecond line\nthird line\n");
  for (const n of ["a.md", "b.md", "c.txt"]) file(path.join(root, "docs", n), "x\n");
  fs.mkdirSync(path.join(root, "docs/inner"));
  file(path.join(root, "code.rs"), 'fn main() {\n    let answer = 42; // the answer\n    println!("{answer}");\n}\n');
  const big = [];
  for (let i = 1; i <= 10000; i++) big.push(`line ${String(i).padStart(6, "0")} ${"x".repeat(50)}`);
  file(path.join(root, "large.log"), big.join("\n") + "\n");
  fs.copyFileSync(path.join(REPO, "src-tauri/icons/icon.png"), path.join(root, "icon.png"));
  const bin = Buffer.alloc(10000);
  for (let i = 0; i < bin.length; i++) bin[i] = (i * 7) & 0xff;
  file(path.join(root, "blob.bin"), bin);
  file(
    path.join(root, "readme.md"),
    '# Heading One\n\nSome *emphasis* and a [link](https://example.com).\n\n## Heading Two\n\n<script>window.__pwned = "md"; document.title = "pwned"</script>\n\n<img src=x onerror="window.__pwned = \'md-img\'">\n\n```rust\nfn main() {}\n```\n',
  );
  file(path.join(root, "page.html"), '<html><body><script>window.__pwned = "html"</script><h1>not rendered</h1></body></html>\n');
  file(path.join(root, HOSTILE_NAME), '<script>window.__pwned = "content"</script><img src=x onerror="window.__pwned = \'content-img\'">\n');
  file(path.join(root, "evil.svg"), '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><script>window.__pwned = "svg"</script><rect width="40" height="30" fill="green"/></svg>\n');
  const u16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("Grüße aus UTF-16\n", "utf16le")]);
  file(path.join(root, "utf16.txt"), u16);
  file(path.join(root, "script.sh"), "#!/bin/sh\necho hi\n");
  fs.chmodSync(path.join(root, "script.sh"), 0o755);
  const sparse = path.join(root, "sparse.img");
  fs.closeSync(fs.openSync(sparse, "w"));
  fs.truncateSync(sparse, 2 * 1024 ** 3);
  fifo(path.join(root, "pipe"));
  // A writer blocks until someone opens the fifo for reading.
  writer = spawn("sh", ["-c", `echo hello > '${path.join(root, "pipe")}'`], { stdio: "ignore" });
  manifestBefore = manifest(root);
});

after(() => {
  if (writer.exitCode === null) {
    // Release it by opening the fifo ourselves.
    fs.closeSync(fs.openSync(path.join(root, "pipe"), fs.constants.O_RDONLY | fs.constants.O_NONBLOCK));
    writer.kill();
  }
  removeTree(root);
});

/** Where a writer sleeps in open() until a fifo has a reader. */
const FIFO_OPEN_WCHAN = "wait_for_partner";
/** Where a thread sleeps opening or reading a fifo. */
const FIFO_WAITS = [FIFO_OPEN_WCHAN, "fifo_open", "pipe_read", "pipe_wait", "pipe_wait_readable"];

/** The kernel function a process or task (`PID` or `PID/task/TID`) sleeps in; `0` when it runs. */
function wchan(id) {
  try {
    return fs.readFileSync(`/proc/${id}/wchan`, "utf8");
  } catch {
    return "gone";
  }
}

/** Waits until the fixture's writer is asleep in open(): it gets there on its own, so the deadline only catches a broken fixture. */
async function writerBlocked() {
  const deadline = Date.now() + 10000;
  while (wchan(writer.pid) !== FIFO_OPEN_WCHAN) {
    assert.equal(writer.exitCode, null, "the writer was released before the test began");
    assert.ok(Date.now() < deadline, `the writer never blocked in open(): wchan ${wchan(writer.pid)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The pid of the session's app: the process running APP with the session's own XDG_CONFIG_HOME. */
function appPid(s) {
  const mine = `XDG_CONFIG_HOME=${s.configHome}`;
  const pids = fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p)).filter((p) => {
    try {
      return fs.readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0")[0] === APP && fs.readFileSync(`/proc/${p}/environ`, "utf8").split("\0").includes(mine);
    } catch {
      return false;
    }
  });
  assert.equal(pids.length, 1, `exactly one ${APP} of this session: ${pids}`);
  return pids[0];
}

/** The app's file descriptors (any thread's: they share the table) that point at `target`. */
function fdsOn(pid, target) {
  const st = fs.statSync(target);
  return fs.readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      const t = fs.statSync(`/proc/${pid}/fd/${fd}`);
      return t.dev === st.dev && t.ino === st.ino;
    } catch {
      return false;
    }
  });
}

describe("the preview pane", () => {
  let s;
  before(async () => {
    s = await launch([root]);
  });
  after(async () => s?.quit());

  test("a text file shows its content with line numbers", async () => {
    await selectRow(s, "notes.txt");
    await previewReady(s, "pre.code .line");
    const lines = await s.exec(() =>
      Array.from(document.querySelectorAll('[aria-label="Preview"] pre.code .line')).map((l) => [l.textContent, getComputedStyle(l, "::before").content]),
    );
    assert.deepEqual(lines.map((l) => l[0]), ["first line", "second line", "third line"]);
    assert.ok(lines.every((l) => l[1] && l[1] !== "none"), "each line has a number in its gutter");
    await saveScreenshot(s, "preview-text");
  });

  test("code is highlighted from a token tree", async () => {
    await selectRow(s, "code.rs");
    await previewReady(s, "pre.code .hljs-keyword");
    const kw = await s.exec(() => document.querySelector('[aria-label="Preview"] .hljs-keyword').textContent);
    assert.equal(kw, "fn");
    await saveScreenshot(s, "preview-code");
  });

  test("a large file shows what part is shown, and Load more appends the next chunk", async () => {
    await selectRow(s, "large.log");
    await previewReady(s, ".load-more-bar");
    const first = await s.exec(() => document.querySelector(".load-more-bar .badge")?.textContent);
    assert.equal(first, "showing first 256 KiB of 615 KiB");
    const before = await s.exec(() => document.querySelectorAll('[aria-label="Preview"] pre.code .line').length);
    await s.clickCss('[data-action="load-more"]');
    await s.waitFor((n) => document.querySelectorAll('[aria-label="Preview"] pre.code .line').length > n, { what: "more lines", args: [before] });
    const badge = await s.exec(() => document.querySelector(".load-more-bar .badge")?.textContent);
    assert.equal(badge, "showing first 512 KiB of 615 KiB");
    const lines = await s.exec(() => Array.from(document.querySelectorAll('[aria-label="Preview"] pre.code .line'), (l) => l.textContent));
    lines.forEach((l, i) => assert.equal(l.slice(0, 11), `line ${String(i + 1).padStart(6, "0")}`, "no line lost or split at the chunk boundary"));
    await saveScreenshot(s, "preview-large");
  });

  test("find in the preview selects the match", async () => {
    await s.exec(() => document.querySelector('[aria-label="Preview"] pre.code').focus());
    await s.keys(["f"], [Key.Control]);
    const input = await s.find('.find-bar input');
    await s.type(input, "line 000500");
    const count = await s.waitFor(() => document.querySelector(".find-count")?.textContent === "1 of 1" && "1 of 1", { what: "one match" });
    assert.equal(count, "1 of 1");
    assert.equal(await s.exec(() => document.querySelector(".find-match")?.textContent), "line 000500");
    assert.equal(await s.exec(() => document.activeElement === document.querySelector(".find-bar input")), true, "focus stays in the find field");
    await saveScreenshot(s, "preview-find");
  });

  test("an image renders in an img element from a blob: URL", async () => {
    await selectRow(s, "icon.png");
    await previewReady(s, "img.preview-image");
    const img = await s.waitFor(() => {
      const i = document.querySelector("img.preview-image");
      return i && i.complete && i.naturalWidth > 0 && { w: i.naturalWidth, src: i.src.slice(0, 5), info: document.querySelector(".image-info").textContent };
    }, { what: "the image to decode" });
    assert.equal(img.w, 512);
    assert.equal(img.src, "blob:");
    assert.match(img.info, /512 × 512 px/);
    await saveScreenshot(s, "preview-image");
  });

  test("an SVG with a script is shown as an image and its script does not run", async () => {
    await selectRow(s, "evil.svg");
    await s.waitFor(() => document.querySelector("img.preview-image")?.naturalWidth > 0, { what: "the svg to decode" });
    assert.equal(await s.exec(() => window.__pwned ?? null), null);
  });

  test("a binary file shows hex", async () => {
    await selectRow(s, "blob.bin");
    await previewReady(s, "pre.hex");
    const hex = await s.exec(() => document.querySelector("pre.hex").textContent.split("\n")[0]);
    assert.equal(hex, "00000000  00 07 0e 15 1c 23 2a 31  38 3f 46 4d 54 5b 62 69  |.....#*18?FMT[bi|");
    await saveScreenshot(s, "preview-binary");
  });

  test("markdown renders headings and its embedded script does not run", async () => {
    await selectRow(s, "readme.md");
    await previewReady(s, ".markdown h1");
    const md = await s.exec(() => {
      const region = document.querySelector('[aria-label="Preview"]');
      return {
        h1: region.querySelector(".markdown h1")?.textContent,
        h2: region.querySelector(".markdown h2")?.textContent,
        scripts: region.querySelectorAll("script").length,
        imgs: region.querySelectorAll("img").length,
        link: region.querySelector(".md-link")?.getAttribute("href"),
        shownAsText: region.textContent.includes("<script>"),
        pwned: window.__pwned ?? null,
        title: document.title,
      };
    });
    assert.deepEqual(md, { h1: "Heading One", h2: "Heading Two", scripts: 0, imgs: 0, link: null, shownAsText: true, pwned: null, title: "Canopy" });
    await saveScreenshot(s, "preview-markdown");
    await s.clickCss('[data-action="markdown-source"]');
    await s.waitFor(() => !document.querySelector("pre.code").hidden, { what: "the source" });
  });

  test("HTML is shown as source text, never rendered", async () => {
    await selectRow(s, "page.html");
    const text = await previewReady(s, "pre.code .line");
    assert.match(text, /<script>window.__pwned = "html"<\/script><h1>not rendered<\/h1>/);
    assert.equal(await s.exec(() => document.querySelectorAll('[aria-label="Preview"] h1, script:not([src])').length), 0);
  });

  test("a hostile name and content create no element and run nothing", async () => {
    await selectRow(s, HOSTILE_NAME);
    const text = await previewReady(s, "pre.code .line");
    assert.ok(text.includes('<script>window.__pwned = "content"</script>'));
    const dom = await s.exec(() => ({ imgs: document.querySelectorAll("img").length, scripts: document.querySelectorAll("script:not([src])").length, pwned: window.__pwned ?? null }));
    assert.deepEqual(dom, { imgs: 0, scripts: 0, pwned: null });
    await saveScreenshot(s, "preview-hostile");
  });

  test("UTF-16 text is decoded", async () => {
    await selectRow(s, "utf16.txt");
    const text = await previewReady(s, "pre.code .line");
    assert.match(text, /Grüße aus UTF-16/);
    assert.match(text, /utf-16le/);
  });

  test("a 2 GiB sparse file shows only its first chunk", async () => {
    await selectRow(s, "sparse.img");
    await previewReady(s, ".load-more-bar");
    const badge = await s.exec(() => document.querySelector(".load-more-bar .badge")?.textContent);
    assert.equal(badge, "showing first 4.0 KiB of 2.0 GiB", "binary: the hex view's 4 KiB");
  });

  test("a fifo is not previewed, and its blocked writer stays blocked", async () => {
    const pipe = path.join(root, "pipe");
    await writerBlocked();
    await selectRow(s, "pipe");
    const text = await previewReady(s, ".special-note");
    assert.match(text, /special file: not previewed/);
    // Read from the kernel, not assumed after a pause: any reader's open
    // would have woken the writer (its wchan leaves wait_for_partner), and
    // while no one holds the fifo for reading a non-blocking open for
    // writing fails with ENXIO.
    assert.equal(wchan(writer.pid), FIFO_OPEN_WCHAN, "the writer still waits in open(): nothing opened the fifo for reading");
    assert.equal(writer.exitCode, null, "the writer is still there");
    assert.throws(() => fs.closeSync(fs.openSync(pipe, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)), { code: "ENXIO" }, "no reader holds the fifo");
    const pid = appPid(s);
    const holders = fdsOn(pid, pipe);
    assert.deepEqual(holders, [], "no descriptor of the app is on the fifo");
    const waiting = fs.readdirSync(`/proc/${pid}/task`).map((t) => wchan(`${pid}/task/${t}`)).filter((w) => FIFO_WAITS.includes(w));
    assert.deepEqual(waiting, [], "no thread of the app sleeps on a fifo");
    await saveScreenshot(s, "preview-fifo");
  });

  test("a folder shows a summary from the listing in hand", async () => {
    await selectRow(s, "docs");
    const facts = await s.waitFor(() => {
      const dl = document.querySelector('[aria-label="Preview"] dl.facts');
      return dl && Array.from(dl.querySelectorAll("dd"), (d) => d.textContent);
    }, { what: "the folder summary" });
    assert.deepEqual(facts, ["4 entries", "1 folder, 3 files, 0 others", "4 of 4 (all)"]);
  });
});

test("previewing changed nothing in the fixture", () => {
  assert.deepEqual(diffManifests(manifestBefore, manifest(root)), []);
});
