// PDFs, photos, audio and video through the real window: a PDF made here is
// paged through (facts, "page N of M", the page's text), a photo with an EXIF
// GPS position shows its GPS line, a hostile PDF is rendered by a child that
// is killed while the window answers, videos made here by ffmpeg show their
// poster frame and details, play and stop, or say their codec is not
// available, a font shows its facts and a sample the renderer drew (the
// font never loaded by the window; a broken one, or one that crashes the
// renderer, is said), a TIFF and a HEIC photo are drawn by the renderer with
// their details, and without the renderer's tools the pane says which
// package is missing.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Key } from "./webdriver.mjs";
import { APP, REPO, file, launch, previewReady, removeTree, saveScreenshot, selectRow, tempTree } from "./harness.mjs";

/** A PDF whose pages each say their text in Helvetica; `extra` goes into the catalog. */
function pdf(pages, { title = "Field Notes", author = "Ada Lovelace", extra = "" } = {}) {
  const objs = [];
  const kids = pages.map((_, i) => `${5 + 2 * i} 0 R`).join(" ");
  objs.push(`<< /Type /Catalog /Pages 2 0 R ${extra} >>`);
  objs.push(`<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`);
  objs.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  objs.push(`<< /Title (${title}) /Author (${author}) >>`);
  pages.forEach((text, i) => {
    objs.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 400] /Resources << /Font << /F1 3 0 R >> >> /Contents ${6 + 2 * i} 0 R >>`);
    objs.push(stream(`BT /F1 28 Tf 40 300 Td (${text}) Tj ET 0.2 0.4 0.8 rg 40 60 220 ${20 + 10 * i} re f`));
  });
  return assemble(objs, "/Info 4 0 R");
}

function stream(body, dict = "") {
  return `<< ${dict} /Length ${body.length} >>\nstream\n${body}\nendstream`;
}

function assemble(objs, trailer) {
  let out = "%PDF-1.4\n";
  const offsets = [];
  objs.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R ${trailer} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

/** One page drawing a form that draws the next twice, 40 deep: no renderer finishes it. */
function formBomb() {
  const depth = 40;
  const objs = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 400] /Resources << /XObject << /X 5 0 R >> >> /Contents 4 0 R >>",
    stream("/X Do"),
  ];
  for (let d = 0; d < depth; d++) {
    const form = "/Type /XObject /Subtype /Form /BBox [0 0 300 400]";
    objs.push(d < depth - 1 ? stream("/X Do /X Do", `${form} /Resources << /XObject << /X ${6 + d} 0 R >> >>`) : stream("0 0 1 1 re f", form));
  }
  return assemble(objs, "");
}

/** A big-endian TIFF holding IFD0 (camera), an EXIF IFD and a GPS IFD. */
function exifTiff({ make, model, taken, lat, lon }) {
  const ascii = (s) => Buffer.from(`${s}\0`, "latin1");
  const rationals = (pairs) => {
    const b = Buffer.alloc(8 * pairs.length);
    pairs.forEach(([n, d], i) => {
      b.writeUInt32BE(n, 8 * i);
      b.writeUInt32BE(d, 8 * i + 4);
    });
    return b;
  };
  const dms = (v) => {
    const a = Math.abs(v);
    const deg = Math.floor(a);
    const min = Math.floor((a - deg) * 60);
    const sec = Math.round(((a - deg) * 60 - min) * 60 * 100);
    return [[deg, 1], [min, 1], [sec, 100]];
  };
  const short = (n) => {
    const b = Buffer.alloc(2);
    b.writeUInt16BE(n);
    return b;
  };
  // [tag, type, count, bytes | {ifd}]: types 2 ASCII, 3 SHORT, 4 LONG, 5 RATIONAL.
  const ifds = {
    ifd0: [[0x010f, 2, ascii(make)], [0x0110, 2, ascii(model)], [0x0112, 3, short(1)], [0x8769, 4, { ifd: "exif" }], [0x8825, 4, { ifd: "gps" }]],
    exif: [[0x829a, 5, rationals([[1, 250]])], [0x829d, 5, rationals([[18, 10]])], [0x9003, 2, ascii(taken)]],
    gps: [[1, 2, ascii(lat < 0 ? "S" : "N")], [2, 5, rationals(dms(lat))], [3, 2, ascii(lon < 0 ? "W" : "E")], [4, 5, rationals(dms(lon))]],
  };
  const order = ["ifd0", "exif", "gps"];
  const at = {};
  let pos = 8;
  for (const k of order) {
    at[k] = pos;
    pos += 2 + 12 * ifds[k].length + 4;
  }
  const ifdBufs = [];
  const dataParts = [];
  let data = pos;
  const head = Buffer.from([0x4d, 0x4d, 0, 42, 0, 0, 0, 8]);
  for (const k of order) {
    const b = Buffer.alloc(2 + 12 * ifds[k].length + 4);
    b.writeUInt16BE(ifds[k].length, 0);
    ifds[k].forEach(([tag, type, value], i) => {
      const o = 2 + 12 * i;
      b.writeUInt16BE(tag, o);
      b.writeUInt16BE(type, o + 2);
      if (value.ifd) {
        b.writeUInt32BE(1, o + 4);
        b.writeUInt32BE(at[value.ifd], o + 8);
        return;
      }
      const unit = { 2: 1, 3: 2, 4: 4, 5: 8 }[type];
      b.writeUInt32BE(value.length / unit, o + 4);
      if (value.length <= 4) value.copy(b, o + 8);
      else {
        b.writeUInt32BE(data, o + 8);
        dataParts.push(value);
        data += value.length;
      }
    });
    ifdBufs.push(b);
  }
  // The IFDs first (in order), then the data they point to.
  return Buffer.concat([head, ...ifdBufs, ...dataParts]);
}

/** `jpeg` with an EXIF segment put right after its start marker. */
function withExif(jpeg, tiff) {
  const body = Buffer.concat([Buffer.from("Exif\0\0", "latin1"), tiff]);
  const len = Buffer.alloc(2);
  len.writeUInt16BE(body.length + 2);
  return Buffer.concat([jpeg.subarray(0, 2), Buffer.from([0xff, 0xe1]), len, body, jpeg.subarray(2)]);
}

/** One second of silence (8 kHz mono 16-bit WAV) with a RIFF INFO list naming its title and artist. */
function taggedWav(title, artist) {
  const chunk = (id, body) => {
    const len = Buffer.alloc(4);
    len.writeUInt32LE(body.length);
    return Buffer.concat([Buffer.from(id, "latin1"), len, body, body.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
  };
  const fmt = Buffer.alloc(16);
  fmt.writeUInt16LE(1, 0);
  fmt.writeUInt16LE(1, 2);
  fmt.writeUInt32LE(8000, 4);
  fmt.writeUInt32LE(16000, 8);
  fmt.writeUInt16LE(2, 12);
  fmt.writeUInt16LE(16, 14);
  const info = Buffer.concat([Buffer.from("INFO", "latin1"), chunk("INAM", Buffer.from(`${title}\0`, "latin1")), chunk("IART", Buffer.from(`${artist}\0`, "latin1"))]);
  const body = Buffer.concat([Buffer.from("WAVE", "latin1"), chunk("fmt ", fmt), chunk("data", Buffer.alloc(16000)), chunk("LIST", info)]);
  return chunk("RIFF", body);
}

/** Two seconds of ffmpeg's testsrc (320 x 240, 10 fps) and a 440 Hz tone, encoded with `codec`. */
function video(out, codec) {
  const src = ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=10", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "2"];
  execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "error", ...src, ...codec, "-y", out]);
}

/** A baseline RGB TIFF (uncompressed, one strip) of a gradient, naming its camera. */
function gradientTiff(w, h, make) {
  const pixels = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const o = 3 * (y * w + x);
      pixels[o] = Math.floor((x * 255) / w);
      pixels[o + 1] = Math.floor((y * 255) / h);
      pixels[o + 2] = 140;
    }
  }
  const makeBytes = Buffer.from(`${make}\0`, "latin1");
  // [tag, type, count, value]; type 3 SHORT, 4 LONG, 2 ASCII.
  const entries = [[256, 4, 1, w], [257, 4, 1, h], [258, 3, 3, "bps"], [259, 3, 1, 1], [262, 3, 1, 2], [271, 2, makeBytes.length, "make"], [273, 4, 1, "data"], [277, 3, 1, 3], [278, 4, 1, h], [279, 4, 1, pixels.length]];
  const ifdSize = 2 + 12 * entries.length + 4;
  const at = { bps: 8 + ifdSize, make: 8 + ifdSize + 6, data: 8 + ifdSize + 6 + makeBytes.length };
  const ifd = Buffer.alloc(ifdSize);
  ifd.writeUInt16LE(entries.length, 0);
  entries.forEach(([tag, type, count, value], i) => {
    const o = 2 + 12 * i;
    ifd.writeUInt16LE(tag, o);
    ifd.writeUInt16LE(type, o + 2);
    ifd.writeUInt32LE(count, o + 4);
    const v = typeof value === "string" ? at[value] : value;
    if (type === 3 && count === 1) ifd.writeUInt16LE(v, o + 8);
    else ifd.writeUInt32LE(v, o + 8);
  });
  const bps = Buffer.from([8, 0, 8, 0, 8, 0]);
  return Buffer.concat([Buffer.from([0x49, 0x49, 42, 0, 8, 0, 0, 0]), ifd, bps, makeBytes, pixels]);
}

const DEJAVU = "/usr/share/fonts/truetype/dejavu";

const PAGES = Array.from({ length: 12 }, (_, i) => `Page ${i + 1} of the notes`);
const LAT = 48.85837;
const LON = -2.294481;
let root;

before(() => {
  root = tempTree("canopy-e2e-media-");
  file(path.join(root, "a-notes.txt"), "plain text\n");
  file(path.join(root, "field-notes.pdf"), pdf(PAGES));
  file(path.join(root, "hostile.pdf"), formBomb());
  file(path.join(root, "song.wav"), taggedWav("Morning Song", "The Testers"));
  // A real JPEG, made by poppler from a PDF, with an EXIF GPS position put in.
  const tmp = tempTree("canopy-e2e-jpeg-");
  file(path.join(tmp, "src.pdf"), pdf(["A photo"], {}));
  execFileSync("pdftoppm", ["-jpeg", "-singlefile", "-scale-to", "240", path.join(tmp, "src.pdf"), path.join(tmp, "out")]);
  const jpeg = fs.readFileSync(path.join(tmp, "out.jpg"));
  // Videos made by ffmpeg: one this machine's GStreamer plays (VP8 and
  // Vorbis in WebM), one whose codec it has no decoder for (H.265 in MP4,
  // as phones record; WebKitGTK has none without gstreamer1.0-libav), and a cut one.
  video(path.join(root, "clip.webm"), ["-c:v", "libvpx", "-b:v", "400k", "-c:a", "libvorbis"]);
  video(path.join(root, "phone.mp4"), ["-c:v", "libx265", "-x265-params", "log-level=error", "-pix_fmt", "yuv420p", "-tag:v", "hvc1", "-c:a", "aac"]);
  const whole = path.join(root, "cut.mp4");
  video(whole, ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-an"]);
  const bytes = fs.readFileSync(whole);
  fs.writeFileSync(whole, bytes.subarray(0, bytes.length >> 1));
  // A font (Debian's DejaVu Sans Bold, under a name that is not a font's),
  // and one that is junk behind a TrueType header.
  fs.copyFileSync(path.join(DEJAVU, "DejaVuSans-Bold.ttf"), path.join(root, "specimen.bin"));
  const real = fs.readFileSync(path.join(DEJAVU, "DejaVuSans.ttf"));
  file(path.join(root, "broken.ttf"), Buffer.concat([real.subarray(0, 64), Buffer.alloc(4000, 0xa5)]));
  // A TIFF and a HEIC photo the window cannot decode itself.
  file(path.join(root, "scan.tif"), gradientTiff(480, 320, "Canopy Scanner"));
  execFileSync("heif-enc", ["-q", "80", "-o", path.join(root, "photo.heic"), path.join(tmp, "out.jpg")]);
  removeTree(tmp);
  file(path.join(root, "IMG_2041.jpg"), withExif(jpeg, exifTiff({ make: "Canon", model: "Canon EOS R6", taken: "2024:05:01 14:03:22", lat: LAT, lon: LON })));
});

after(() => removeTree(root));

/** The degrees the window shows for a value stored as whole degrees, minutes and hundredths of seconds. */
function shown(v) {
  const a = Math.abs(v);
  const deg = Math.floor(a);
  const min = Math.floor((a - deg) * 60);
  const sec = Math.round(((a - deg) * 60 - min) * 60 * 100) / 100;
  return (deg + min / 60 + sec / 3600).toFixed(6);
}

/** Pids of renderer children (pdftoppm, pdftotext) whose parent is `appPid`. */
function renderChildren(appPid) {
  return fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p)).filter((p) => {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, "utf8");
      const ppid = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1];
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      return ppid === String(appPid) && /^pdfto/.test(comm) && !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
    } catch {
      return false;
    }
  });
}

function appPidOf(s) {
  const mine = `XDG_CONFIG_HOME=${s.configHome}`;
  const pids = fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p)).filter((p) => {
    try {
      return fs.readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0")[0] === APP && fs.readFileSync(`/proc/${p}/environ`, "utf8").split("\0").includes(mine);
    } catch {
      return false;
    }
  });
  assert.equal(pids.length, 1, `one app of this session: ${pids}`);
  return pids[0];
}

const AXE_SOURCE = fs.readFileSync(path.join(REPO, "ui/node_modules/axe-core/axe.min.js"), "utf8");

/** axe-core's WCAG 2.1 A/AA violations on the window (as sizes.test.mjs runs it). */
async function axe(session) {
  if (!(await session.exec(() => typeof window.axe === "object"))) {
    await session.cmd("POST", "/execute/sync", { script: `${AXE_SOURCE}\n;return typeof window.axe;`, args: [] });
  }
  return session.execAsync(async () => {
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const r = await window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
    return r.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(" ")}: ${n.failureSummary?.replace(/\s+/g, " ")}`));
  });
}

const label = () => document.querySelector(".pdf-page-label")?.textContent ?? null;

describe("PDFs and photos in the preview", () => {
  let s;
  before(async () => {
    s = await launch([root]);
  });
  after(async () => s?.quit());

  test("a PDF shows its facts, its first page at the pane's width and the page's text", async () => {
    await selectRow(s, "field-notes.pdf");
    await previewReady(s, "img.pdf-page-image");
    const page = await s.waitFor(() => {
      const img = document.querySelector("img.pdf-page-image");
      if (!img || !img.complete || img.naturalWidth === 0) return null;
      // The page and the facts are asked for side by side: either may come first.
      if (!document.querySelector(".pdf-page-label")?.textContent) return null;
      const body = document.querySelector(".preview-body");
      return {
        label: document.querySelector(".pdf-page-label").textContent,
        facts: Array.from(document.querySelectorAll(".pdf-facts dd"), (d) => d.textContent),
        text: document.querySelector("pre.pdf-text")?.textContent.trim(),
        src: img.src.slice(0, 5),
        shownWidth: img.getBoundingClientRect().width,
        paneWidth: body.clientWidth,
        naturalWidth: img.naturalWidth,
        naturalHeight: img.naturalHeight,
      };
    }, { what: "page 1 decoded" });
    assert.equal(page.label, "page 1 of 12");
    assert.deepEqual(page.facts, ["Field Notes", "Ada Lovelace", "12", "1.4"]);
    assert.equal(page.text, "Page 1 of the notes");
    assert.equal(page.src, "blob:", "the page is Canopy's own PNG, from a blob: URL");
    assert.ok(page.shownWidth > page.paneWidth * 0.7 && page.shownWidth <= page.paneWidth, `the page fills the pane's width: ${page.shownWidth} of ${page.paneWidth}`);
    assert.equal(Math.round((page.naturalHeight / page.naturalWidth) * 3), 4, "the page keeps its 3:4 shape");
    await saveScreenshot(s, "media-pdf-page1");
  });

  test("next, previous and the page field move through the pages", async () => {
    await s.clickCss('[data-action="pdf-next"]');
    await s.waitFor(() => document.querySelector("pre.pdf-text")?.textContent.includes("Page 2 of") && document.querySelector(".pdf-page-label").textContent === "page 2 of 12", { what: "page 2" });
    const field = await s.find(".pdf-page-field");
    await s.exec(() => {
      document.querySelector(".pdf-page-field").value = "";
    });
    await s.type(field, "7");
    await s.keys([Key.Enter]);
    await s.waitFor(() => document.querySelector("pre.pdf-text")?.textContent.includes("Page 7 of") && document.querySelector("img.pdf-page-image")?.dataset.page === "7", { what: "page 7" });
    assert.equal(await s.exec(label), "page 7 of 12");
    await s.clickCss('[data-action="pdf-prev"]');
    await s.waitFor(() => document.querySelector("pre.pdf-text")?.textContent.includes("Page 6 of"), { what: "page 6" });
    assert.equal(await s.exec(label), "page 6 of 12");
    await saveScreenshot(s, "media-pdf-page6");
  });

  test("the page's text is found with Ctrl+F", async () => {
    await s.exec(() => document.querySelector("pre.pdf-text").focus());
    await s.keys(["f"], [Key.Control]);
    const input = await s.find(".find-bar input");
    await s.type(input, "of the notes");
    await s.waitFor(() => document.querySelector(".find-count")?.textContent === "1 of 1", { what: "one match" });
    assert.equal(await s.exec(() => document.querySelector(".find-match")?.textContent), "of the notes");
    await s.keys([Key.Escape]);
  });

  test("a photo shows its EXIF details and a visible GPS line", async () => {
    await selectRow(s, "IMG_2041.jpg");
    await previewReady(s, ".photo-details");
    const d = await s.waitFor(() => {
      const box = document.querySelector(".photo-details");
      const img = document.querySelector("img.preview-image");
      return box && img?.naturalWidth > 0 && {
        gps: box.querySelector(".gps-line")?.textContent,
        facts: Array.from(box.querySelectorAll("dt"), (dt) => [dt.textContent, dt.nextElementSibling.textContent]),
        visible: (() => {
          const r = box.querySelector(".gps-line").getBoundingClientRect();
          return r.height > 0 && r.width > 0;
        })(),
      };
    }, { what: "the photo and its details" });
    assert.equal(d.gps, `This photo carries a GPS location: ${shown(LAT)}° N, ${shown(LON)}° W`);
    assert.ok(d.visible, "the GPS line is on screen");
    assert.deepEqual(Object.fromEntries(d.facts), {
      Camera: "Canon EOS R6",
      Exposure: "1/250 s · f/1.8",
      Taken: "2024-05-01 14:03:22",
      Orientation: "upright",
    });
    await saveScreenshot(s, "media-photo-gps");
  });

  test("an audio file shows its tags and properties", async () => {
    await selectRow(s, "song.wav");
    await previewReady(s, ".audio-details");
    const facts = await s.exec(() => Array.from(document.querySelectorAll(".audio-details dt"), (dt) => [dt.textContent, dt.nextElementSibling.textContent]));
    assert.deepEqual(Object.fromEntries(facts), {
      Title: "Morning Song",
      Artist: "The Testers",
      Duration: "0:01",
      Format: "WAV · 128 kbit/s · 8 kHz · mono",
    });
    await saveScreenshot(s, "media-audio");
  });

  test("an audio file plays from the app's stream, and stops when the selection moves on", async () => {
    await selectRow(s, "song.wav");
    const src = await s
      .waitFor(() => {
        const a = document.querySelector("audio.audio-player");
        return a && a.src.startsWith("blob:") && a.readyState >= 1 && { duration: a.duration };
      }, { what: "the audio's metadata, fetched from canopy-media: into a blob:", timeout: 15000 })
      .catch(async (e) => {
        const state = await s.exec(() => {
          const a = document.querySelector("audio");
          return { player: a && { src: a.src, stream: a.dataset.stream, ready: a.readyState, error: a.error?.code }, errors: Array.from(document.querySelectorAll(".preview-error"), (x) => x.textContent) };
        });
        throw new Error(`${e.message}: ${JSON.stringify(state)}`);
      });
    assert.equal(Math.round(src.duration), 1, "the whole second is there");
    // What the page fetched it from: the app's stream, by a random name.
    const streamUrl = await s.exec(() => document.querySelector("audio.audio-player").dataset.stream);
    await s.exec(() => {
      const a = document.querySelector("audio.audio-player");
      window.__played = false;
      a.addEventListener("timeupdate", () => (window.__played = a.currentTime > 0));
      void a.play().catch((e) => (window.__playError = String(e)));
    });
    const played = await s.waitFor(() => window.__played || window.__playError || null, { what: "playback to advance", timeout: 15000 });
    assert.equal(played, true, `it plays: ${played}`);
    await saveScreenshot(s, "media-audio-playing");
    // Another file: the player stops and the stream's URL answers nothing any more.
    await selectRow(s, "a-notes.txt");
    await previewReady(s, "pre.code .line");
    assert.equal(await s.exec(() => document.querySelector("audio") === null), true, "no player left");
    const status = (url) => fetch(url, { headers: { Range: "bytes=0-" } }).then((r) => r.status, (e) => String(e));
    assert.match(streamUrl, /^canopy-media:\/\/localhost\/[0-9a-f]{32}$/);
    assert.equal(await s.execAsync(status, streamUrl), 403, "a closed stream serves nothing");
    assert.equal(await s.execAsync(status, "canopy-media://localhost/00000000000000000000000000000000"), 403, "a stream that is not open serves nothing");
  });

  test("a video shows its poster frame and its details", async () => {
    await selectRow(s, "clip.webm");
    await previewReady(s, ".video-view");
    const v = await s.waitFor(() => {
      const img = document.querySelector("img.video-poster");
      const facts = document.querySelectorAll(".video-facts dt");
      if (!img || !img.complete || img.naturalWidth === 0 || facts.length === 0) return null;
      return {
        src: img.src.slice(0, 5),
        natural: [img.naturalWidth, img.naturalHeight],
        shown: img.getBoundingClientRect().width,
        pane: document.querySelector(".preview-body").clientWidth,
        facts: Array.from(facts, (dt) => [dt.textContent, dt.nextElementSibling.textContent]),
        play: document.querySelector('[data-action="video-play"]')?.disabled,
        canPlay: document.querySelector(".video-view").dataset.canPlay,
        type: document.querySelector(".preview-top")?.textContent,
      };
    }, { what: "the poster frame and details", timeout: 15000 });
    assert.equal(v.src, "blob:", "the poster is Canopy's own PNG, from a blob: URL");
    assert.equal(Math.round((v.natural[1] / v.natural[0]) * 4), 3, `the frame keeps its 4:3 shape: ${v.natural}`);
    assert.ok(v.shown > v.pane * 0.7 && v.shown <= v.pane, `the poster fills the pane's width: ${v.shown} of ${v.pane}`);
    const facts = Object.fromEntries(v.facts);
    assert.equal(facts.Duration, "0:02");
    assert.equal(facts.Resolution, "320 × 240 px");
    assert.equal(facts.Video, "VP8 · 10 fps");
    assert.equal(facts.Audio, "Vorbis · 48 kHz · mono");
    assert.match(facts.Container, /^WebM · [\d,]+ kbit\/s$/);
    assert.ok(["maybe", "probably"].includes(v.canPlay), `the player says it can try: ${v.canPlay}`);
    assert.equal(v.play, false, "Play is offered");
    // The poster's pixels are testsrc's colour bars, not a blank frame.
    const colours = await s.execAsync(async () => {
      const img = document.querySelector("img.video-poster");
      const c = document.createElement("canvas");
      c.width = img.naturalWidth;
      c.height = img.naturalHeight;
      const g = c.getContext("2d");
      g.drawImage(img, 0, 0);
      const px = g.getImageData(0, 0, c.width, c.height).data;
      const seen = new Set();
      for (let i = 0; i < px.length; i += 4 * 7) seen.add((px[i] >> 4) * 256 + (px[i + 1] >> 4) * 16 + (px[i + 2] >> 4));
      return seen.size;
    });
    assert.ok(colours > 20, `a real frame: ${colours} colours`);
    await saveScreenshot(s, "media-video-poster");
  });

  test("a video plays from the app's stream, and stops when the selection moves on", async () => {
    await selectRow(s, "clip.webm");
    await s.waitFor(() => document.querySelector('[data-action="video-play"]')?.disabled === false || null, { what: "Play offered", timeout: 15000 });
    await s.clickCss('[data-action="video-play"]');
    const ready = await s
      .waitFor(() => {
        const v = document.querySelector("video.video-player");
        return v && v.src.startsWith("blob:") && v.readyState >= 1 && { duration: v.duration, w: v.videoWidth, h: v.videoHeight };
      }, { what: "the video's metadata, fetched from canopy-media: into a blob:", timeout: 20000 })
      .catch(async (e) => {
        const state = await s.exec(() => {
          const v = document.querySelector("video");
          return { player: v && { src: v.src, ready: v.readyState, error: v.error?.code }, note: document.querySelector(".video-note")?.textContent, errors: Array.from(document.querySelectorAll(".preview-error"), (x) => x.textContent) };
        });
        throw new Error(`${e.message}: ${JSON.stringify(state)}`);
      });
    assert.equal(Math.round(ready.duration), 2, "the whole two seconds are there");
    assert.deepEqual([ready.w, ready.h], [320, 240]);
    const streamUrl = await s.exec(() => document.querySelector(".video-view").dataset.stream);
    const played = await s.waitFor(() => {
      const v = document.querySelector("video.video-player");
      if (!v) return "no player";
      if (v.error) return `error ${v.error.code}`;
      return v.currentTime > 0.2 ? true : null;
    }, { what: "playback to advance", timeout: 15000 });
    assert.equal(played, true, `it plays: ${played}`);
    await saveScreenshot(s, "media-video-playing");
    // Another file: the player is gone and the stream's URL answers nothing.
    await selectRow(s, "a-notes.txt");
    await previewReady(s, "pre.code .line");
    assert.equal(await s.exec(() => document.querySelector("video") === null), true, "no player left");
    assert.match(streamUrl, /^canopy-media:\/\/localhost\/[0-9a-f]{32}$/);
    const status = (url) => fetch(url, { headers: { Range: "bytes=0-" } }).then((r) => r.status, (e) => String(e));
    assert.equal(await s.execAsync(status, streamUrl), 403, "a closed stream serves nothing");
  });

  test("a video whose codec the player lacks says so, with its poster and details", async () => {
    await selectRow(s, "phone.mp4");
    await previewReady(s, ".video-view");
    // The player is asked first; if it says "maybe", pressing Play finds out.
    const asked = await s.waitFor(() => {
      const view = document.querySelector(".video-view");
      if (document.querySelector(".codec-missing")) return "said";
      const play = document.querySelector('[data-action="video-play"]');
      return play && !play.disabled && view.dataset.canPlay ? "offered" : null;
    }, { what: "the player's answer", timeout: 15000 });
    if (asked === "offered") await s.clickCss('[data-action="video-play"]');
    const v = await s.waitFor(() => {
      const line = document.querySelector(".codec-missing");
      const img = document.querySelector("img.video-poster");
      if (!line || !img || !img.complete || img.naturalWidth === 0) return null;
      return {
        line: line.textContent,
        visible: line.getBoundingClientRect().height > 0,
        facts: Object.fromEntries(Array.from(document.querySelectorAll(".video-facts dt"), (dt) => [dt.textContent, dt.nextElementSibling.textContent])),
        player: document.querySelector("video") !== null,
        playShown: !document.querySelector(".video-controls")?.hidden,
      };
    }, { what: "the codec-missing line beside the poster", timeout: 20000 });
    assert.match(v.line, /^This video's codec is not available \(H\.265 \(HEVC\) \(Main\) with AAC\)/);
    assert.ok(v.visible, "the line is on screen");
    assert.equal(v.facts.Video, "H.265 (HEVC) (Main) · 10 fps");
    assert.equal(v.facts.Resolution, "320 × 240 px");
    assert.equal(v.player, false, "no player left that cannot play");
    assert.equal(v.playShown, false, "Play is not offered");
    console.log(`# the codec-missing line came from ${asked === "said" ? "canPlayType" : "the player's error event"}`);
    await saveScreenshot(s, "media-video-codec-missing");
  });

  test("a cut video says it could not be read, and the window goes on", async () => {
    await selectRow(s, "cut.mp4");
    const codes = await s.waitFor(() => {
      const d = document.querySelector(".video-details-error");
      const p = document.querySelector(".video-poster-error");
      return d && p && [d.dataset.code, p.dataset.code];
    }, { what: "both renders refused", timeout: 20000 });
    assert.deepEqual(codes, ["RENDER_FAILED", "RENDER_FAILED"]);
    await selectRow(s, "a-notes.txt");
    await previewReady(s, "pre.code .line");
  });

  test("a font shows its facts and a sample the renderer drew, and the window never loads the font", async () => {
    await selectRow(s, "specimen.bin");
    await previewReady(s, ".font-view");
    const f = await s.waitFor(() => {
      const img = document.querySelector("img.font-sample");
      const facts = document.querySelectorAll(".font-facts dt");
      if (!img || !img.complete || img.naturalWidth === 0 || facts.length === 0) return null;
      return {
        src: img.src.slice(0, 5),
        alt: img.alt,
        natural: [img.naturalWidth, img.naturalHeight],
        shown: img.getBoundingClientRect().width,
        pane: document.querySelector(".preview-body").clientWidth,
        facts: Object.fromEntries(Array.from(facts, (dt) => [dt.textContent, dt.nextElementSibling.textContent])),
        fonts: Array.from(document.fonts, (ff) => ff.family),
      };
    }, { what: "the font's sample and facts", timeout: 15000 });
    assert.equal(f.src, "blob:", "the sample is Canopy's own PNG");
    assert.match(f.alt, /^Sample of DejaVu Sans: The quick brown fox/);
    assert.ok(f.shown <= f.pane, `the sample fits the pane: ${f.shown} of ${f.pane}`);
    assert.equal(f.facts.Family, "DejaVu Sans");
    assert.equal(f.facts.Style, "Bold");
    assert.equal(f.facts.Weight, "700 (Bold)");
    assert.equal(f.facts.Format, "TrueType");
    assert.ok(!f.fonts.some((name) => /DejaVu/i.test(name)), `no font face of the file in the window: ${f.fonts}`);
    await saveScreenshot(s, "media-font");
  });

  test("a broken font says the renderer could not read it, and the window goes on", async () => {
    await selectRow(s, "broken.ttf");
    const err = await s.waitFor(() => {
      const e = document.querySelector(".font-view .preview-error");
      return e && { code: e.dataset.code, text: e.textContent };
    }, { what: "the font's failure", timeout: 15000 });
    assert.equal(err.code, "RENDER_FAILED");
    assert.match(err.text, /cannot read this file as a font/);
    await saveScreenshot(s, "media-font-broken");
    await selectRow(s, "a-notes.txt");
    await previewReady(s, "pre.code .line");
  });

  test("a TIFF and a HEIC photo are drawn by the renderer, with their details", async () => {
    await selectRow(s, "scan.tif");
    const t = await s.waitFor(() => {
      const img = document.querySelector("img.rendered-photo");
      const details = document.querySelector(".photo-details");
      if (!img || !img.complete || img.naturalWidth === 0 || !details) return null;
      return {
        src: img.src.slice(0, 5),
        natural: [img.naturalWidth, img.naturalHeight],
        info: document.querySelector(".photo-render .image-info")?.textContent,
        facts: Object.fromEntries(Array.from(details.querySelectorAll("dt"), (dt) => [dt.textContent, dt.nextElementSibling.textContent])),
      };
    }, { what: "the TIFF drawn", timeout: 15000 });
    assert.equal(t.src, "blob:");
    assert.equal(Math.round((t.natural[0] / t.natural[1]) * 2), 3, `the TIFF keeps its 3:2 shape: ${t.natural}`);
    assert.match(t.info, /^TIFF · drawn by the sandboxed renderer/);
    assert.equal(t.facts.Camera, "Canopy Scanner", "its EXIF details still show");
    await saveScreenshot(s, "media-tiff");
    await selectRow(s, "photo.heic");
    const h = await s.waitFor(() => {
      const img = document.querySelector("img.rendered-photo");
      const err = document.querySelector(".no-photo-preview");
      if (err) return { error: err.textContent };
      return img?.complete && img.naturalWidth > 0 ? { info: document.querySelector(".photo-render .image-info")?.textContent } : null;
    }, { what: "the HEIC drawn", timeout: 15000 });
    assert.match(h.info ?? h.error, /^HEIF · drawn by the sandboxed renderer/);
    await saveScreenshot(s, "media-heic");
  });

  test("a hostile PDF is rendered by a child that is killed when the selection moves on, and the window answers meanwhile", async () => {
    const app = appPidOf(s);
    await selectRow(s, "hostile.pdf");
    await previewReady(s, ".pdf-rendering");
    // The renderer's children are working on the page.
    await s.waitFor(() => document.querySelector(".pdf-rendering") !== null, { what: "rendering" });
    const deadline = Date.now() + 4000;
    let children = [];
    while (children.length === 0 && Date.now() < deadline) {
      children = renderChildren(app);
      if (children.length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(children.length > 0, "pdftoppm runs as a child of the app");
    // The window answers while the page renders: 20 round trips into the page.
    const times = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      await s.exec(() => document.querySelectorAll('[role="treeitem"]').length);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    console.log(`# round trip into the window while a hostile PDF renders: median ${times[10].toFixed(1)} ms`);
    await saveScreenshot(s, "media-hostile-rendering");
    // Moving on kills the job's children.
    await s.keys([Key.ArrowUp]);
    await s.waitFor(() => document.querySelector('[aria-selected="true"] .name')?.textContent !== "hostile.pdf", { what: "selection moved" });
    const gone = Date.now() + 3000;
    while (children.some((p) => fs.existsSync(`/proc/${p}`) && !fs.readFileSync(`/proc/${p}/stat`, "utf8").includes(") Z ")) && Date.now() < gone) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(children.filter((p) => fs.existsSync(`/proc/${p}`) && !fs.readFileSync(`/proc/${p}/stat`, "utf8").includes(") Z ")), [], "the renderer's children were killed (well before their 5 s deadline)");
  });

  test("a hostile PDF left selected is stopped at its limit and the pane says so", async () => {
    const app = appPidOf(s);
    await selectRow(s, "hostile.pdf");
    // The window answers key presses while the page renders: a digit typed
    // into the page field, 20 times, each timed until the field holds it.
    await s.waitFor(() => document.querySelector(".pdf-nav")?.hidden === false, { what: "the page field" });
    await s.exec(() => {
      const f = document.querySelector(".pdf-page-field");
      f.value = "";
      f.focus();
    });
    const keyTimes = [];
    for (let i = 0; i < 20; i++) {
      const digit = String(i % 10);
      const t0 = performance.now();
      await s.keys([digit]);
      const value = await s.exec(() => document.querySelector(".pdf-page-field").value);
      keyTimes.push(performance.now() - t0);
      assert.equal(value, digit, "the key reached the page field");
      await s.keys([Key.Backspace]);
    }
    const rendering = renderChildren(app).length > 0;
    keyTimes.sort((a, b) => a - b);
    console.log(`# a key press answered (a digit typed into the page field) while a hostile PDF renders: median ${keyTimes[10].toFixed(1)} ms of 20 (renderer ${rendering ? "still working" : "done by the end"})`);
    const code = await s.waitFor(() => document.querySelector(".pdf-view .preview-error")?.dataset.code ?? null, { what: "the renderer's limit", timeout: 20000 });
    assert.ok(["TIMEOUT", "RENDER_FAILED"].includes(code), code);
    await saveScreenshot(s, "media-hostile-stopped");
    // The window still works: another file previews.
    await selectRow(s, "a-notes.txt");
    await previewReady(s, "pre.code .line");
  });
});

describe("a video in the light and dark themes", () => {
  test("its poster, details and the codec-missing line pass axe-core", async () => {
    for (const theme of ["light", "dark"]) {
      const d = await launch([root], { theme });
      try {
        await selectRow(d, "clip.webm");
        await d.waitFor(() => document.querySelector("img.video-poster")?.naturalWidth > 0 && document.querySelector(".video-facts dt") !== null, { what: "poster and details", timeout: 15000 });
        await saveScreenshot(d, `media-video-${theme}`);
        assert.deepEqual(await axe(d), [], `axe-core, ${theme} theme, a video`);
        await selectRow(d, "phone.mp4");
        const asked = await d.waitFor(() => (document.querySelector(".codec-missing") ? "said" : document.querySelector('[data-action="video-play"]')?.disabled === false ? "offered" : null), { what: "the player's answer", timeout: 15000 });
        if (asked === "offered") await d.clickCss('[data-action="video-play"]');
        await d.waitFor(() => document.querySelector(".codec-missing") !== null && document.querySelector("img.video-poster")?.naturalWidth > 0, { what: "the codec-missing line", timeout: 20000 });
        await saveScreenshot(d, `media-video-codec-missing-${theme}`);
        assert.deepEqual(await axe(d), [], `axe-core, ${theme} theme, the codec-missing line`);
      } finally {
        await d.quit();
      }
    }
  });
});

describe("a font in the light and dark themes", () => {
  test("its sample and facts pass axe-core", async () => {
    for (const theme of ["light", "dark"]) {
      const d = await launch([root], { theme });
      try {
        await selectRow(d, "specimen.bin");
        await d.waitFor(() => document.querySelector("img.font-sample")?.naturalWidth > 0 && document.querySelector(".font-facts dt") !== null, { what: "sample and facts", timeout: 15000 });
        await saveScreenshot(d, `media-font-${theme}`);
        assert.deepEqual(await axe(d), [], `axe-core, ${theme} theme, a font`);
      } finally {
        await d.quit();
      }
    }
  });
});

describe("a font that crashes the renderer", () => {
  let s;
  let tools;
  before(async () => {
    // fontconfig's fc-query as it is, and an hb-view that dies as a crashing FreeType would.
    tools = tempTree("canopy-e2e-tools-");
    fs.symlinkSync("/usr/bin/fc-query", path.join(tools, "fc-query"));
    file(path.join(tools, "hb-view"), "#!/bin/sh\nkill -SEGV $$\n");
    fs.chmodSync(path.join(tools, "hb-view"), 0o755);
    s = await launch([root], { env: { CANOPY_TEST_TOOL_FOLDERS: tools } });
  });
  after(async () => {
    await s?.quit();
    removeTree(tools);
  });

  test("costs the child: the pane says so, shows the facts, and the window lives", async () => {
    await selectRow(s, "specimen.bin");
    const r = await s.waitFor(() => {
      const e = document.querySelector(".font-sample-error");
      const facts = document.querySelectorAll(".font-facts dt");
      return e && facts.length > 0 && { code: e.dataset.code, text: e.textContent, family: facts[0].nextElementSibling.textContent };
    }, { what: "the crash said", timeout: 15000 });
    assert.equal(r.code, "RENDER_FAILED");
    assert.match(r.text, /the renderer failed on this font.*crashed or ran out of its memory \(signal 11\)/);
    assert.equal(r.family, "DejaVu Sans");
    await saveScreenshot(s, "media-font-renderer-crashed");
    await selectRow(s, "a-notes.txt");
    await previewReady(s, "pre.code .line");
  });
});

describe("without the renderer's tools (poppler-utils, ffmpeg, ffmpegthumbnailer)", () => {
  let s;
  before(async () => {
    // The e2e build's seam: the renderer looks for its programs here only.
    s = await launch([root], { env: { CANOPY_TEST_TOOL_FOLDERS: path.join(root, "no-tools-here") } });
  });
  after(async () => s?.quit());

  test("a PDF says which package is missing", async () => {
    await selectRow(s, "field-notes.pdf");
    const err = await s.waitFor(() => {
      const e = document.querySelector(".pdf-view .preview-error");
      return e && { code: e.dataset.code, text: e.textContent };
    }, { what: "the missing-tool message" });
    assert.equal(err.code, "TOOL_MISSING");
    assert.match(err.text, /pdfinfo is not installed: install the Debian package poppler-utils/);
    await saveScreenshot(s, "media-missing-tool");
  });
  test("a video says which packages are missing, for its facts and its poster", async () => {
    await selectRow(s, "clip.webm");
    const err = await s.waitFor(() => {
      const d = document.querySelector(".video-details-error");
      const p = document.querySelector(".video-poster-error");
      return d && p && { details: [d.dataset.code, d.textContent], poster: [p.dataset.code, p.textContent] };
    }, { what: "the missing-tool messages" });
    assert.equal(err.details[0], "TOOL_MISSING");
    assert.match(err.details[1], /ffprobe is not installed: install the Debian package ffmpeg/);
    assert.equal(err.poster[0], "TOOL_MISSING");
    assert.match(err.poster[1], /ffmpegthumbnailer is not installed: install the Debian package ffmpegthumbnailer/);
    await saveScreenshot(s, "media-video-missing-tool");
  });
  test("a font says fontconfig is missing, and a TIFF has no preview but its details", async () => {
    await selectRow(s, "specimen.bin");
    const err = await s.waitFor(() => {
      const e = document.querySelector(".font-view .preview-error");
      return e && { code: e.dataset.code, text: e.textContent };
    }, { what: "the font's missing tool" });
    assert.equal(err.code, "TOOL_MISSING");
    assert.match(err.text, /fc-query is not installed: install the Debian package fontconfig/);
    await selectRow(s, "scan.tif");
    const t = await s.waitFor(() => {
      const e = document.querySelector(".no-photo-preview");
      const camera = document.querySelector(".photo-details dd");
      return e && camera && { code: e.dataset.code, text: e.textContent, camera: camera.textContent };
    }, { what: "no preview, and the details" });
    assert.equal(t.code, "TOOL_MISSING");
    assert.match(t.text, /^No preview for this format: .*vips is not installed: install the Debian package libvips-tools/);
    assert.equal(t.camera, "Canopy Scanner");
    await saveScreenshot(s, "media-tiff-missing-tool");
  });
});
