// Nothing test-only in what users run. scripts/test builds the release once
// per run (`cargo build --release --locked`, what scripts/run runs); here
// `strings` reads its binaries, and no test hook's name may be in them: not
// the CANOPY_TEST_* variables (action log, folder picker, slowed folder),
// not the action log's own message, not the page hooks of the test UI. The
// release embeds ui/dist uncompressed (Tauri's "compression" is off), so its
// page code is readable here too.
//
// The check proves it can see: every name must be found in the e2e build's
// binaries (target/debug, built with `--features e2e`), and the release's
// embedded page must be today's ui/dist.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { REPO } from "../harness.mjs";

const RELEASE = path.join(REPO, "target/release");
const DEBUG = path.join(REPO, "target/debug");
/** The release binaries: the app, the script tool, and the MCP server once it exists. */
const BINARIES = ["canopy", "canopy-list", "canopy-mcp"];
const REQUIRED = new Set(["canopy", "canopy-list"]);

/** Every test hook's name, as it would appear in a binary. */
export const HOOKS = [
  "CANOPY_TEST_",
  "CANOPY_TEST_ACTION_LOG",
  "CANOPY_TEST_PICK_FOLDER",
  "CANOPY_TEST_REMEMBER_LOG",
  "CANOPY_TEST_SLOW_FOLDER",
  "CANOPY_TEST_SLOW_DELAY_MS",
  "CANOPY_TEST_SLOW_STAT_MS",
  "cannot record the action",
  "canopyMeasureOpen",
  "canopySetColourBudget",
];

function strings(file) {
  return execFileSync("strings", ["-a", "-n", "6", file], { maxBuffer: 1 << 30, encoding: "latin1" });
}

function present(dir) {
  return BINARIES.filter((b) => {
    const exists = fs.existsSync(path.join(dir, b));
    if (!exists && REQUIRED.has(b)) assert.fail(`${path.join(dir, b)} is missing: scripts/test builds it (cargo build ${dir === RELEASE ? "--release" : "--features e2e"} --locked)`);
    return exists;
  });
}

test("the e2e build has every hook, so the check below can see them", () => {
  const all = present(DEBUG).map((b) => strings(path.join(DEBUG, b))).join("\n");
  const missing = HOOKS.filter((h) => !all.includes(h));
  assert.deepEqual(missing, [], "a hook the e2e build does not have cannot prove the release lacks it");
});

test("the release binaries hold no test hook", () => {
  for (const b of present(RELEASE)) {
    const out = strings(path.join(RELEASE, b));
    const found = HOOKS.filter((h) => out.includes(h));
    assert.deepEqual(found, [], `${b} (release) must hold no test hook`);
    console.log(`${b}: ${(fs.statSync(path.join(RELEASE, b)).size / 1024 / 1024).toFixed(1)} MiB, none of ${HOOKS.length} hook names`);
  }
});

test("the release embeds today's ui/dist, readable, and not the test UI", () => {
  const html = fs.readFileSync(path.join(REPO, "ui/dist/index.html"), "utf8");
  const script = /src="\/assets\/([^"]+\.js)"/.exec(html)?.[1];
  assert.ok(script, "ui/dist/index.html names its script");
  const app = strings(path.join(RELEASE, "canopy"));
  assert.ok(app.includes(script), `the release's page is ui/dist's (${script})`);
  assert.ok(app.includes("Select a file to preview it."), "the embedded page code is readable to strings");
  const e2eScript = /src="\/assets\/([^"]+\.js)"/.exec(fs.readFileSync(path.join(REPO, "ui/dist-e2e/index.html"), "utf8"))?.[1];
  assert.ok(e2eScript && e2eScript !== script, "the test UI's bundle differs from the release's");
  assert.ok(!app.includes(e2eScript), "the test UI is not in the release");
  assert.ok(strings(path.join(DEBUG, "canopy")).includes(e2eScript), "the e2e build embeds the test UI");
});
