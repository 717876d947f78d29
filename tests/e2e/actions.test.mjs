// The file actions through the real window. "Open…" hands the default
// application documents only, and exactly the file that was checked (the
// suite's stand-in xdg-open records the bytes it is handed); Copy path gives
// text that pastes back into bash as exactly the path and runs nothing.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import {
  ACTION_LOG,
  OPEN_LOG,
  REPO,
  diffManifests,
  file,
  launch,
  manifest,
  removeTree,
  saveScreenshot,
  selectRow,
  tempTree,
} from "./harness.mjs";

const bytes = (...parts) => Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p))));
const PDF = "%PDF-1.4\n%\u00e2\u00e3\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n";
const LNK = Buffer.from([0x4c, 0, 0, 0, 1, 0x14, 2, 0, 0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0x46, 0x9b, 0, 8, 0]);
const HOSTILE_COPY = "report\n;touch pwned;.txt";

let root;
let manifestBefore;
let badName; // report\xff.pdf, as bytes
let sibling; // report\u{fffd}.pdf: what a lossy conversion of badName names

before(() => {
  root = tempTree();
  file(path.join(root, "notes.txt"), "hello\n");
  // Text to the name check; `file` (what xdg-mime asks) reads a PostScript program.
  file(path.join(root, "printout.txt"), "%!PS-Adobe-3.0\n/Times-Roman findfont 12 scalefont setfont\nshowpage\n");
  badName = bytes(root, "/report", [0xff], ".pdf");
  sibling = bytes(root, "/report\ufffd.pdf");
  fs.writeFileSync(badName, PDF);
  fs.writeFileSync(sibling, PDF);
  file(path.join(root, "photo.jpg"), LNK);
  fs.copyFileSync(path.join(REPO, "src-tauri/icons/icon.png"), path.join(root, "icon.png"));
  file(path.join(root, "script.sh"), "#!/bin/sh\necho hi\n");
  fs.chmodSync(path.join(root, "script.sh"), 0o755);
  file(path.join(root, HOSTILE_COPY), "plain text\n");
  manifestBefore = manifest(root);
});

after(() => removeTree(root));

/** What the stand-in opener was handed, one path (as bytes) per call. */
function opened() {
  if (!fs.existsSync(OPEN_LOG)) return [];
  return fs
    .readFileSync(OPEN_LOG, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => Buffer.from(l.replace(/^open /, ""), "hex"));
}

/** The action log's lines for `action`, as text after the action's name. */
function logged(action) {
  if (!fs.existsSync(ACTION_LOG)) return [];
  return fs
    .readFileSync(ACTION_LOG)
    .toString("utf8")
    .split("\n")
    .filter((l) => l.startsWith(`${action} `))
    .map((l) => l.slice(action.length + 1));
}

describe("file actions", () => {
  let s;
  before(async () => {
    s = await launch([root]);
  });
  after(async () => s?.quit());

  /** Selects `name` and waits until the preview's header shows it. */
  async function select(name) {
    await selectRow(s, name);
    await s.waitFor((n) => document.querySelector(".preview-name")?.textContent === n, { what: `${name} in the preview header`, args: [name] });
  }

  /** Clicks a header action and returns the status sentence it leaves. */
  async function act(action, confirm = false) {
    await s.exec(() => {
      document.querySelector(".preview-status").textContent = "";
    });
    await s.clickCss(`[data-action="${action}"]`);
    if (confirm) {
      await s.waitFor(() => document.querySelector('[role="alertdialog"]') !== null, { what: "the confirmation" });
      await s.clickCss('[data-action="confirm-open"]');
    }
    return s.waitFor(() => document.querySelector(".preview-status")?.textContent || null, { what: `${action} to answer` });
  }

  /** The refusal's parts as shown: the sentence, the code, and whether all of it is in view. */
  const refusal = () =>
    s.exec(() => {
      const status = document.querySelector(".preview-status");
      const code = status.querySelector(".error-code");
      const box = status.getBoundingClientRect();
      const pane = document.querySelector(".preview-pane").getBoundingClientRect();
      const size = (n) => parseFloat(getComputedStyle(n).fontSize);
      return {
        text: status.textContent,
        code: code?.textContent ?? null,
        codeSmaller: code !== null && size(code) < size(status.querySelector(".status-sentence")),
        inView: box.top >= pane.top && box.bottom <= pane.bottom && box.bottom <= window.innerHeight && status.scrollHeight <= status.clientHeight + 1,
      };
    });

  test("Open hands the opener the exact bytes of the file that was checked, not its lossy twin", async () => {
    fs.rmSync(OPEN_LOG, { force: true });
    await select("report\\xff.pdf");
    assert.equal(await act("open-default", true), "Opened with the default application.");
    await select("notes.txt");
    assert.equal(await act("open-default", true), "Opened with the default application.");
    const got = opened();
    assert.equal(got.length, 2, "one opener call each");
    assert.ok(got[0].equals(badName), `the non-UTF-8 name itself, not ${got[0].toString("hex")}`);
    assert.ok(!got[0].equals(sibling), "never the sibling named with U+FFFD");
    assert.ok(got[1].equals(Buffer.from(path.join(root, "notes.txt"))));
  });

  test("a Windows shortcut named photo.jpg is not opened, and the window says why in its own words", async () => {
    fs.rmSync(OPEN_LOG, { force: true });
    await select("photo.jpg");
    await act("open-default", true);
    const shown = await refusal();
    assert.match(shown.text, /^Canopy opens only documents it has checked/, "the sentence comes first");
    assert.match(shown.text, /Windows shortcut/);
    assert.equal(shown.code, "NOT_OPENABLE");
    await saveScreenshot(s, "actions-not-openable");
    assert.deepEqual(opened(), [], "the opener was never called");
  });

  test("an executable script is not opened", async () => {
    fs.rmSync(OPEN_LOG, { force: true });
    await select("script.sh");
    await act("open-default", true);
    assert.equal((await refusal()).code, "NOT_OPENABLE");
    assert.deepEqual(opened(), [], "the opener was never called");
  });

  test("a .txt the system reads as PostScript is not opened; the refusal is a sentence, fully in view, its code small", async () => {
    fs.rmSync(OPEN_LOG, { force: true });
    await select("printout.txt");
    await act("open-default", true);
    const shown = await refusal();
    assert.match(shown.text, /^Canopy opens only documents/, "the sentence first, not the code");
    assert.match(shown.text, /application\/postscript/, "the reason: what the system reads it as");
    assert.equal(shown.code, "NOT_OPENABLE");
    assert.ok(shown.codeSmaller, "the code is small");
    assert.ok(shown.inView, "all of it is in view without scrolling, at the default window size");
    await saveScreenshot(s, "actions-not-openable-postscript");
    assert.deepEqual(opened(), [], "the opener was never called");
  });

  test("a real image whose default application is Wine is not opened", async () => {
    fs.rmSync(OPEN_LOG, { force: true });
    await select("icon.png");
    const status = await act("open-default", true);
    assert.equal((await refusal()).code, "NOT_OPENABLE");
    assert.match(status, /wine-extension-png\.desktop/);
    assert.deepEqual(opened(), [], "the opener was never called");
  });

  test("Copy path quotes a name with a newline and a semicolon, says so, and the text pastes back exactly", async () => {
    fs.rmSync(ACTION_LOG, { force: true });
    await select("report\\n;touch pwned;.txt");
    const status = await act("copy-path");
    assert.match(status, /^Copied the path, quoted as \$'…'/);
    await saveScreenshot(s, "actions-copy-quoted");
    const [text] = logged("copy");
    assert.ok(text?.startsWith("$'"), `quoted: ${text}`);
    // Paste it into bash, in the fixture folder: one word, the exact bytes, nothing run.
    const out = execFileSync("bash", ["-c", 'eval "set -- $1"; printf "%s:" "$#"; printf %s "$1"', "paste", text], { cwd: root });
    const colon = out.indexOf(":");
    assert.equal(out.subarray(0, colon).toString(), "1", "one word");
    assert.ok(out.subarray(colon + 1).equals(Buffer.from(path.join(root, HOSTILE_COPY))), "the exact path");
    assert.equal(fs.existsSync(path.join(root, "pwned")), false, "nothing ran");
  });

  test("Copy path leaves a plain path as it is, and Reveal is called with the file's path", async () => {
    fs.rmSync(ACTION_LOG, { force: true });
    await select("notes.txt");
    assert.equal(await act("copy-path"), "Copied the path.");
    assert.equal(await act("reveal"), "Shown in the file manager.");
    const p = path.join(root, "notes.txt");
    assert.deepEqual([logged("copy"), logged("reveal")], [[p], [p]]);
  });
});

test("the file actions changed nothing in the fixture", () => {
  assert.deepEqual(diffManifests(manifestBefore, manifest(root)), []);
});
