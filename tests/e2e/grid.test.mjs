// The grid through the real window: Ctrl+2 shows the open folder as cells,
// images as thumbnails the engine made (and wrote to the freedesktop cache
// of a cache folder made for the test, with the URI and modification time
// other applications check), a valid thumbnail another application made
// reused as it is, a text file as an icon; the keyboard moves the selection;
// on 10,000 images the DOM holds only the cells in view, whatever the
// scroll; Ctrl+1 goes back to the list. The browsed folders are unchanged.
// A fresh app (it sets XDG_CACHE_HOME).

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { Key } from "./webdriver.mjs";
import { diffManifests, file, launch, manifest, removeTree, saveScreenshot, tempTree } from "./harness.mjs";

let root;
let big;
let cache;
let before_;

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(crc(body));
  return Buffer.concat([len, body, sum]);
}
/** A solid-colour RGB PNG, with tEXt keys. */
function png(w, h, [r, g, b], text = {}) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: w }, () => [r, g, b]).flat())]);
  const raw = Buffer.concat(Array.from({ length: h }, () => row));
  const texts = Object.entries(text).map(([k, v]) => chunk("tEXt", Buffer.from(`${k}\0${v}`, "latin1")));
  return Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), chunk("IHDR", ihdr), ...texts, chunk("IDAT", zlib.deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}
const uriOf = (p) => "file://" + p.split("/").map((s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => c)).join("/");

before(() => {
  root = tempTree();
  for (let i = 1; i <= 12; i++) file(path.join(root, `photo${String(i).padStart(2, "0")}.png`), png(320, 200, [200, 40 + i * 10, 40]));
  file(path.join(root, "seeded.png"), png(320, 200, [220, 0, 0]));
  file(path.join(root, "notes.txt"), "not an image\n");
  big = tempTree();
  const one = png(64, 48, [30, 140, 60]);
  for (let i = 0; i < 10000; i++) fs.writeFileSync(path.join(big, `img${String(i).padStart(5, "0")}.png`), one);
  cache = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-e2e-cache-"));
  // Another application's thumbnail of seeded.png: blue, 16 x 16, valid for its URI and mtime.
  const seeded = path.join(root, "seeded.png");
  const uri = uriOf(seeded);
  const mtime = Math.floor(fs.statSync(seeded).mtimeMs / 1000);
  const name = createHash("md5").update(uri).digest("hex");
  file(path.join(cache, "thumbnails/normal", `${name}.png`), png(16, 16, [0, 0, 255], { "Thumb::URI": uri, "Thumb::MTime": String(mtime) }));
  before_ = [manifest(root), manifest(big)];
});

after(() => {
  removeTree(root);
  removeTree(big);
  removeTree(cache);
});

const cells = (s) =>
  s.exec(() =>
    Array.from(document.querySelectorAll('[role="listbox"][aria-label="Folder contents"] [role="option"]')).map((c) => ({
      name: c.querySelector(".grid-name")?.textContent,
      thumb: c.querySelector(".thumb")?.dataset.thumb ?? null,
      drawn: (c.querySelector("img")?.naturalWidth ?? 0) > 0,
      reused: c.querySelector("img")?.dataset.reused === "true",
      selected: c.getAttribute("aria-selected") === "true",
      pos: Number(c.getAttribute("aria-posinset")),
    })),
  );

test("Ctrl+2 shows thumbnails the engine made and cached, reuses another application's, and Ctrl+1 the list", async () => {
  const s = await launch([root], { env: { XDG_CACHE_HOME: cache } });
  try {
    await s.keys(["2"], [Key.Control]);
    await s.waitFor(() => document.querySelectorAll(".cell img").length >= 13, { what: "13 thumbnails drawn" });
    await s.waitFor(() => Array.from(document.querySelectorAll(".cell img")).every((i) => i.complete && i.naturalWidth > 0), { what: "every thumbnail decoded" });
    const got = await cells(s);
    const by = Object.fromEntries(got.map((c) => [c.name, c]));
    assert.equal(by["notes.txt"].thumb, "none", "a text file shows its icon");
    assert.ok(by["photo01.png"].drawn && !by["photo01.png"].reused);
    assert.ok(by["seeded.png"].reused, "the valid thumbnail in the cache was taken");
    const seededPixel = await s.execAsync(async () => {
      const img = Array.from(document.querySelectorAll(".cell")).find((c) => c.querySelector(".grid-name")?.textContent === "seeded.png").querySelector("img");
      const cv = document.createElement("canvas");
      cv.width = img.naturalWidth;
      cv.height = img.naturalHeight;
      cv.getContext("2d").drawImage(img, 0, 0);
      return [img.naturalWidth, Array.from(cv.getContext("2d").getImageData(1, 1, 1, 1).data)];
    });
    assert.deepEqual(seededPixel, [16, [0, 0, 255, 255]], "drawn from the other application's blue 16 x 16, not made again");
    // Canopy's own thumbnails went to the cache, with the keys other applications check.
    const uri = uriOf(path.join(root, "photo01.png"));
    const written = fs.readFileSync(path.join(cache, "thumbnails/normal", `${createHash("md5").update(uri).digest("hex")}.png`));
    assert.ok(written.includes(Buffer.from(`Thumb::URI\0${uri}`, "latin1")), "Thumb::URI");
    assert.ok(written.includes(Buffer.from("Thumb::MTime\0", "latin1")), "Thumb::MTime");
    // The keyboard: Home, then Right selects the second cell (and previews it).
    await s.keys([Key.Home, Key.ArrowRight]);
    await s.waitFor(() => document.querySelector('.cell[aria-selected="true"] .grid-name')?.textContent === "photo01.png", { what: "photo01 selected by keyboard" });
    await saveScreenshot(s, "grid");
    await s.keys(["1"], [Key.Control]);
    await s.waitFor(() => !document.querySelector('[role="tree"]').closest(".tree-pane").hidden && document.querySelector(".grid-pane").hidden, { what: "the list back" });
    assert.equal(await s.exec(() => document.querySelector('[aria-selected="true"] .name')?.textContent), "photo01.png", "the selection stays");
  } finally {
    await s.quit();
  }
});

test("on 10,000 images the DOM holds only the cells in view", async () => {
  const s = await launch([big], { env: { XDG_CACHE_HOME: cache } });
  try {
    await s.keys(["2"], [Key.Control]);
    await s.waitFor(() => document.querySelectorAll(".cell img").length > 0, { what: "thumbnails" });
    const top = await cells(s);
    const bound = await s.exec(() => {
      const sc = document.querySelector(".grid-scroller");
      return (Math.ceil(sc.clientHeight / 164) + 3) * Math.floor(sc.clientWidth / 140);
    });
    assert.ok(top.length <= bound, `${top.length} cells in the DOM, at most ${bound}`);
    await s.keys([Key.End]);
    await s.waitFor(() => document.querySelector('.cell[aria-selected="true"] .grid-name')?.textContent === "img09999.png", { what: "the last image selected", timeout: 30000 });
    const bottom = await cells(s);
    assert.ok(bottom.length <= bound, `${bottom.length} cells at the end`);
    assert.equal(Math.max(...bottom.map((c) => c.pos)), 10000);
    assert.equal(await s.exec(() => document.querySelectorAll("img").length <= document.querySelectorAll(".cell").length + 2), true, "no image outside the cells in view");
    await saveScreenshot(s, "grid-10000");
  } finally {
    await s.quit();
  }
});

test("the browsed folders were not changed", () => {
  assert.deepEqual(diffManifests(before_[0], manifest(root)), []);
  assert.deepEqual(diffManifests(before_[1], manifest(big)), []);
});
