// Hostile content never freezes the window. A 256 KiB `lib.rs` of `r#"`
// repeated keeps highlight.js busy for minutes (far worse than linear); so
// does a markdown fence of it. Colouring runs in the colour worker: the
// window keeps answering while it works, the text shows plain at once, and
// past the time budget the pane says so. Selecting another file abandons the
// work, and "Load more" renders only the new part of a markdown file.
//
// Responsiveness is compared with a baseline from the same run (the same
// round-trips with a small file selected), never with a fixed time; the
// absolute figures are printed for the record. The colour worker keeps one
// of the machine's cores busy, so the baseline is taken with one core kept
// as busy by a spinning process outside the window: what is compared is
// then the window's main thread alone (a busy machine answered in ~40 ms
// where an idle one took 3.5, and a baseline taken idle failed the test on
// a window that answered).

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { APP, diffManifests, file, launch, manifest, removeTree, saveScreenshot, selectRow, tempTree } from "./harness.mjs";

/** Round-trips measured each time; the issue asks for 20. */
const ROUND_TRIPS = 20;
/**
 * Allowed slow-down against the baseline: the typical round-trip while
 * colouring against the slowest the window gave at rest, and the worst
 * against the worst. A window frozen by colouring answers in minutes, not a
 * few times slower. (The median against the baseline's median, 10x, failed
 * on a window that answered every round-trip within 49 ms: rendering the
 * fence costs the page ~40 ms a round-trip in some runs, baseline 4 ms.)
 */
const MEDIAN_OF_MAX_FACTOR = 2;
const MAX_FACTOR = 20;
const COLOUR_STOPPED = "highlighting stopped: this file is too slow to colour";
/**
 * A liveness bound, not a speed limit: a window that has not answered one
 * round-trip in this long is frozen, and the test says so instead of
 * hanging for as long as the freeze lasts (minutes, with these files).
 */
const FROZEN_S = 60;

const HOSTILE = 'r#"'.repeat(Math.ceil((256 * 1024) / 3)).slice(0, 256 * 1024);
const FENCE = 'r#"'.repeat(Math.ceil((200 * 1024) / 3)).slice(0, 200 * 1024);

let root;
let manifestBefore;

before(() => {
  root = tempTree();
  file(path.join(root, "small.rs"), "fn main() {\n    let answer = 42;\n}\n");
  file(path.join(root, "lib.rs"), HOSTILE);
  file(path.join(root, "hostile.md"), `# Hostile fence\n\n\`\`\`rust\n${FENCE}\n\`\`\`\n\nAfter the fence.\n`);
  const sections = [];
  for (let i = 0; i < 3000; i++) sections.push(`## Section ${i}\n\nText of section ${i}, long enough to fill the chunk: ${"word ".repeat(20)}\n\n\`\`\`rust\nfn section_${i}() {}\n\`\`\`\n`);
  file(path.join(root, "long.md"), sections.join("\n"));
  manifestBefore = manifest(root);
});

after(() => removeTree(root));

const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Stops the frozen app this file started (the one process running APP), so
 * the pending WebDriver calls fail at once and the suite goes on instead of
 * waiting out the freeze.
 */
function stopFrozenApp() {
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] === APP) process.kill(Number(pid), "SIGKILL");
    } catch {
      /* gone, or not ours to read */
    }
  }
}

/** `work`, unless the window stops answering for `FROZEN_S`. */
async function answered(work, what) {
  let timer;
  const frozen = new Promise((_, reject) => {
    timer = setTimeout(() => {
      stopFrozenApp();
      reject(new Error(`the window did not answer ${what} within ${FROZEN_S} s: it is frozen`));
    }, FROZEN_S * 1000);
  });
  try {
    return await Promise.race([work, frozen]);
  } finally {
    clearTimeout(timer);
  }
}

/** `work()` while a process outside the window spins on one core. */
async function withOneCoreBusy(work) {
  const spinner = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
  try {
    await new Promise((resolve, reject) => {
      spinner.once("spawn", resolve);
      spinner.once("error", reject);
    });
    return await work();
  } finally {
    spinner.kill("SIGKILL");
  }
}

/** `ROUND_TRIPS` WebDriver round-trips through the page, each returning `probe()`'s answer. */
async function roundTrips(s, probe) {
  const ms = [];
  const seen = [];
  for (let i = 0; i < ROUND_TRIPS; i++) {
    const t0 = process.hrtime.bigint();
    seen.push(await answered(s.exec(probe), `round-trip ${i + 1}`));
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return { ms, seen, median: median(ms), max: Math.max(...ms) };
}

const fmt = (r) => `median ${r.median.toFixed(1)} ms, max ${r.max.toFixed(1)} ms`;

const codeState = () => document.querySelector('[aria-label="Preview"] pre.code')?.dataset.colour ?? null;
const markdownState = () => document.querySelector('[aria-label="Preview"] .markdown-view')?.dataset.render ?? null;

describe("hostile content", () => {
  let s;
  let baseline;
  before(async () => {
    s = await launch([root]);
    await selectRow(s, "small.rs");
    await s.waitFor(() => document.querySelector('[aria-label="Preview"] pre.code[data-colour="done"] .hljs-keyword'), { what: "small.rs coloured" });
    const idle = await roundTrips(s, codeState);
    baseline = await withOneCoreBusy(() => roundTrips(s, codeState));
    assert.ok([...idle.seen, ...baseline.seen].every((st) => st === "done"), "the baseline is taken with nothing being coloured");
    console.log(`baseline, small file selected, one core busy outside the window: ${fmt(baseline)} over ${ROUND_TRIPS} round-trips (idle: ${fmt(idle)})`);
  });
  after(async () => s?.quit());

  test("a 256 KiB lib.rs of r#\" shows plain at once and the window keeps answering while it is coloured", async () => {
    await selectRow(s, "lib.rs");
    await answered(s.waitFor(() => document.querySelector('[aria-label="Preview"] pre.code[data-colour="pending"] .line'), { what: "lib.rs shown plain, colouring pending" }), "while lib.rs is shown");
    const hostile = await roundTrips(s, codeState);
    console.log(`lib.rs being coloured: ${fmt(hostile)} (baseline ${fmt(baseline)})`);
    assert.ok(hostile.seen.every((st) => st === "pending"), `every round-trip was made while colouring was under way: ${hostile.seen}`);
    assert.ok(hostile.median <= MEDIAN_OF_MAX_FACTOR * baseline.max, `median ${hostile.median.toFixed(1)} ms vs the baseline's slowest ${baseline.max.toFixed(1)} ms`);
    assert.ok(hostile.max <= MAX_FACTOR * baseline.max, `max ${hostile.max.toFixed(1)} ms vs baseline max ${baseline.max.toFixed(1)} ms`);
  });

  test("past the budget the text stays plain and the pane says colouring stopped", async () => {
    const note = await s.waitFor(() => document.querySelector('[aria-label="Preview"] pre.code[data-colour="stopped"]') && document.querySelector(".colour-stopped")?.textContent, { what: "the stopped note" });
    assert.equal(note, COLOUR_STOPPED);
    const shown = await s.exec(() => ({
      text: Array.from(document.querySelectorAll('[aria-label="Preview"] pre.code .line'), (l) => l.textContent).join("\n"),
      coloured: document.querySelectorAll('[aria-label="Preview"] pre.code [class^="hljs"]').length,
    }));
    assert.equal(shown.coloured, 0, "nothing coloured");
    assert.equal(shown.text, HOSTILE, "the whole text, exactly");
    await saveScreenshot(s, "hostile-lib-rs");
  });

  test("a markdown fence of r#\" renders uncoloured while the window keeps answering", async () => {
    await selectRow(s, "hostile.md");
    await answered(s.waitFor(() => document.querySelector('[aria-label="Preview"] .markdown-view[data-render="pending"]'), { what: "hostile.md being rendered" }), "while hostile.md is shown");
    const hostile = await roundTrips(s, markdownState);
    console.log(`hostile.md being rendered: ${fmt(hostile)} (baseline ${fmt(baseline)})`);
    assert.ok(hostile.seen.every((st) => st === "pending"), `every round-trip was made while rendering was under way: ${hostile.seen}`);
    assert.ok(hostile.median <= MEDIAN_OF_MAX_FACTOR * baseline.max, `median ${hostile.median.toFixed(1)} ms vs the baseline's slowest ${baseline.max.toFixed(1)} ms`);
    assert.ok(hostile.max <= MAX_FACTOR * baseline.max, `max ${hostile.max.toFixed(1)} ms vs baseline max ${baseline.max.toFixed(1)} ms`);
    await s.waitFor(() => document.querySelector('[aria-label="Preview"] .markdown-view[data-render="done"]'), { what: "hostile.md rendered" });
    const md = await s.exec(() => {
      const view = document.querySelector('[aria-label="Preview"] .markdown-view');
      return {
        note: document.querySelector(".colour-stopped")?.textContent ?? null,
        h1: view.querySelector("h1")?.textContent ?? null,
        fence: view.querySelector("pre.md-code")?.textContent ?? null,
        coloured: view.querySelectorAll('pre.md-code [class^="hljs"]').length,
        after: Array.from(view.querySelectorAll("p"), (p) => p.textContent).at(-1) ?? null,
      };
    });
    assert.deepEqual(md, { note: COLOUR_STOPPED, h1: "Hostile fence", fence: FENCE, coloured: 0, after: "After the fence." });
    await saveScreenshot(s, "hostile-markdown");
  });

  test("selecting another file abandons the colouring under way", async () => {
    // With a budget far beyond this test, only abandoning the work lets the
    // next file be coloured: otherwise it would wait behind lib.rs.
    await s.exec(() => window.canopySetColourBudget(600_000));
    try {
      await selectRow(s, "lib.rs");
      await s.waitFor(() => document.querySelector('[aria-label="Preview"] pre.code[data-colour="pending"] .line'), { what: "lib.rs being coloured" });
      await selectRow(s, "small.rs");
      const kw = await s.waitFor(() => document.querySelector('[aria-label="Preview"] pre.code[data-colour="done"] .hljs-keyword')?.textContent, { what: "small.rs coloured" });
      assert.equal(kw, "fn");
      assert.equal(await s.exec(() => document.querySelector(".colour-stopped")), null, "nothing was stopped: it was abandoned");
    } finally {
      await s.exec(() => window.canopySetColourBudget(2000));
    }
  });

  test("Load more renders only the new blocks of a markdown file: what was shown stays as it was", async () => {
    await selectRow(s, "long.md");
    await s.waitFor(() => document.querySelector('[aria-label="Preview"] .markdown-view[data-render="done"] h2') && document.querySelector(".load-more-bar"), { what: "long.md's first chunk" });
    const first = await s.exec(() => {
      const view = document.querySelector('[aria-label="Preview"] .markdown');
      window.__firstHeading = view.querySelector("h2");
      window.__firstFence = view.querySelector("pre.md-code");
      return { headings: view.querySelectorAll("h2").length, coloured: view.querySelector("pre.md-code .hljs-keyword")?.textContent ?? null };
    });
    assert.equal(first.coloured, "fn", "fences are coloured");
    await s.clickCss('[data-action="load-more"]');
    const more = await s.waitFor((n) => {
      const view = document.querySelector('[aria-label="Preview"] .markdown');
      const headings = Array.from(view.querySelectorAll("h2"), (h) => h.textContent);
      const done = document.querySelector('[aria-label="Preview"] .markdown-view[data-render="done"]');
      return done && headings.length > n && {
        headings,
        sameHeading: view.querySelector("h2") === window.__firstHeading,
        sameFence: view.querySelector("pre.md-code") === window.__firstFence,
      };
    }, { what: "the second chunk rendered", args: [first.headings] });
    assert.ok(more.sameHeading, "the first heading is the same element: not rendered again");
    assert.ok(more.sameFence, "the first fence is the same element: not coloured again");
    more.headings.forEach((h, i) => assert.equal(h, `Section ${i}`, "no block lost or doubled where the chunks meet"));
    await saveScreenshot(s, "markdown-load-more");
  });
});

test("the hostile files were not changed", () => {
  assert.deepEqual(diffManifests(manifestBefore, manifest(root)), []);
});
