// Benchmark, in the real app: time inside the page from asking for a folder
// (performance.now()) to the frame after its first rows render, for a
// 100-entry and a 200,000-entry folder, and the rows then in the DOM; in the
// same run, the wall time of `canopy-list --depth 2 --json --limit 500` on
// the 200,000-entry folder. Then folder sizes (issue 19): the time inside the
// page from "Sizes" on the bench folder (holding both) to the frame after the
// first counted figure shows in a row, and to the whole answer on screen,
// against the wall time of `canopy-list --sizes` on the same folder, in the
// same run. Prints figures; asserts nothing.
//
//   node tests/e2e/run.mjs tests/e2e/bench-ui.mjs

import { test } from "node:test";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO, launch } from "./harness.mjs";

const RUNS = 7;
const DIR = path.join(os.tmpdir(), "canopy-ui-bench");
const LIST = path.join(REPO, "target/debug/canopy-list");

function ensure() {
  const done = path.join(DIR, ".complete");
  if (fs.existsSync(done)) return;
  fs.rmSync(DIR, { recursive: true, force: true });
  for (const [name, n] of [["small", 100], ["huge", 200_000]]) {
    fs.mkdirSync(path.join(DIR, name), { recursive: true });
    for (let i = 0; i < n; i++) fs.closeSync(fs.openSync(path.join(DIR, name, `f${String(i).padStart(6, "0")}`), "w"));
  }
  fs.writeFileSync(done, "");
}

const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

test("time to first rows", async () => {
  ensure();
  const small = path.join(DIR, "small");
  const huge = path.join(DIR, "huge");
  const s = await launch([DIR]);
  try {
    const ui = { small: [], huge: [] };
    const rows = { small: 0, huge: 0 };
    const cli = [];
    const measure = (p) => s.execAsync((q) => window.canopyMeasureOpen(q), p);
    await measure(huge); // warm the caches once
    spawnSync(LIST, [huge, "--depth", "2", "--json", "--limit", "500"], { stdio: "ignore" });
    for (let i = 0; i < RUNS; i++) {
      for (const [key, p] of [["small", small], ["huge", huge]]) {
        const r = await measure(p);
        if (!r.ok) throw new Error(`could not open ${p}`);
        ui[key].push(r.ms);
        rows[key] = Math.max(rows[key], r.rows);
      }
      const t0 = process.hrtime.bigint();
      spawnSync(LIST, [huge, "--depth", "2", "--json", "--limit", "500"], { stdio: "ignore" });
      cli.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const mSmall = median(ui.small);
    const mHuge = median(ui.huge);
    const mCli = median(cli);
    console.log(`100-entry folder:     ${mSmall.toFixed(1)} ms to first rows, ${rows.small} rows in the DOM`);
    console.log(`200,000-entry folder: ${mHuge.toFixed(1)} ms to first rows, ${rows.huge} rows in the DOM`);
    console.log(`canopy-list --depth 2 --json --limit 500 on it: ${mCli.toFixed(1)} ms`);
    console.log(`ratio app / canopy-list: ${(mHuge / mCli).toFixed(2)} (target <= 2); median of ${RUNS}`);
  } finally {
    await s.quit();
  }
});

test("time to first size", async () => {
  ensure();
  const s = await launch([DIR]);
  try {
    const first = [];
    const all = [];
    const cli = [];
    const measure = () => s.execAsync((q) => window.canopyMeasureSizes(q), DIR);
    await measure(); // warm the caches once
    spawnSync(LIST, [DIR, "--sizes"], { stdio: "ignore" });
    for (let i = 0; i < RUNS; i++) {
      const r = await measure();
      if (!r.ok || r.first < 0) throw new Error(`no size shown for ${DIR}: ${JSON.stringify(r)}`);
      first.push(r.first);
      all.push(r.all);
      const t0 = process.hrtime.bigint();
      const out = spawnSync(LIST, [DIR, "--sizes"], { stdio: ["ignore", "ignore", "pipe"] });
      if (out.status !== 0) throw new Error(`canopy-list --sizes failed: ${out.stderr}`);
      cli.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const [mFirst, mAll, mCli] = [median(first), median(all), median(cli)];
    console.log(`Sizes on the bench folder (200,100 files): first figure on screen ${mFirst.toFixed(1)} ms, all ${mAll.toFixed(1)} ms`);
    console.log(`canopy-list --sizes on it: ${mCli.toFixed(1)} ms`);
    console.log(`ratio first size / canopy-list: ${(mFirst / mCli).toFixed(2)} (target <= 1.2); all / canopy-list: ${(mAll / mCli).toFixed(2)}; median of ${RUNS}`);
  } finally {
    await s.quit();
  }
});
