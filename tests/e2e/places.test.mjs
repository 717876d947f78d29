// Places, the sidebar, through the real window: home and the XDG user
// folders of a home made for the test, the GTK bookmarks (one written by
// Ctrl+D, every other line of the file kept), a tmpfs mounted under /mnt
// with its free space as `df` says it, a mount that comes and goes while
// the window is open, and a dead FUSE mount whose free space is "not
// responding" while the rest of the sidebar works. Needs root (it mounts).
// A fresh app: it sets HOME and mounts before launching.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Key } from "./webdriver.mjs";
import { file, freshConfigHome, launch, mountDead, removeTree, saveScreenshot, tempTree } from "./harness.mjs";

let home;
let config;
let tmpfs;
let late;
let dead;
let deadMount;
const OTHER_LINES = "smb://nas.example/share NAS share\nnot a uri \u00e9\n\nfile:///nonexistent/kept Kept\n";

function df(point) {
  const [avail, size] = execFileSync("df", ["-B1", "--output=avail,size", point], { encoding: "utf8" }).trim().split("\n")[1].trim().split(/\s+/).map(Number);
  return { avail, size };
}

before(async () => {
  home = tempTree("canopy-e2e-home-");
  fs.mkdirSync(path.join(home, "Documents/reports"), { recursive: true });
  fs.mkdirSync(path.join(home, "Pictures"));
  file(path.join(home, "notes.txt"), "x\n");
  config = freshConfigHome();
  // Music is named but missing: a folder that does not exist is no place.
  file(path.join(config, "user-dirs.dirs"), 'XDG_DOCUMENTS_DIR="$HOME/Documents"\nXDG_PICTURES_DIR="$HOME/Pictures"\nXDG_MUSIC_DIR="$HOME/Music"\n');
  file(path.join(config, "gtk-3.0/bookmarks"), OTHER_LINES);
  const stamp = path.basename(home).replace(/[^a-zA-Z0-9]/g, "");
  tmpfs = `/mnt/canopy-places-${stamp}`;
  late = `/mnt/canopy-late-${stamp}`;
  dead = `/mnt/canopy-dead-${stamp}`;
  for (const p of [tmpfs, late, dead]) fs.mkdirSync(p, { recursive: true });
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=64m", "tmpfs", tmpfs]);
  deadMount = await mountDead(dead, { deadRoot: true });
});

after(async () => {
  await deadMount?.stop();
  for (const p of [tmpfs, late]) {
    try {
      execFileSync("umount", [p], { stdio: "ignore" });
    } catch {
      /* not mounted */
    }
  }
  for (const p of [tmpfs, late, dead]) fs.rmSync(p, { recursive: true, force: true });
  removeTree(home);
});

/** The sidebar as a person reads it: each place's group, label, space, and whether it is the current one. */
function sidebar(s) {
  return s.exec(() => {
    const nav = document.querySelector('nav[aria-label="Places"]');
    if (!nav || nav.hidden) return null;
    return Array.from(nav.querySelectorAll("section")).map((sec) => ({
      group: sec.querySelector("h2")?.textContent,
      places: Array.from(sec.querySelectorAll("button.place")).map((b) => ({
        label: b.querySelector(".place-label")?.textContent ?? b.textContent,
        space: b.querySelector(".place-space")?.textContent ?? "",
        current: b.getAttribute("aria-current") === "location",
      })),
    }));
  });
}

async function clickPlace(s, label) {
  const ok = await s.exec((l) => {
    const b = Array.from(document.querySelectorAll('nav[aria-label="Places"] button.place')).find((x) => x.querySelector(".place-label")?.textContent === l);
    b?.setAttribute("data-e2e-target", "1");
    return !!b;
  }, label);
  assert.ok(ok, `a place named ${label}`);
  await s.clickCss('[data-e2e-target="1"]');
  await s.exec(() => document.querySelector('[data-e2e-target="1"]')?.removeAttribute("data-e2e-target"));
}

test("places: home, user folders, bookmarks and mounts with free space; a dead mount holds nothing", async () => {
  const s = await launch([path.join(home, "notes.txt")], { configHome: config, env: { HOME: home, USER: "canopy-e2e" } });
  try {
    // The tmpfs's free space shows while the dead mount has not answered yet.
    const { avail, size } = df(tmpfs);
    assert.equal(size, 64 * 1024 * 1024, "df says the tmpfs is 64 MiB");
    const tmpfsName = path.basename(tmpfs);
    const deadName = path.basename(dead);
    const first = await s.waitFor(
      (n) => {
        const b = Array.from(document.querySelectorAll("button.place")).find((x) => x.querySelector(".place-label")?.textContent === n);
        return b?.querySelector(".place-space")?.textContent || null;
      },
      { what: "the tmpfs's free space", args: [tmpfsName] },
    );
    assert.equal(first, `${Math.round((avail / 2 ** 20) * 10) / 10} MiB free of 64 MiB`, "the free space df reports");
    const groups = await sidebar(s);
    const byGroup = Object.fromEntries(groups.map((g) => [g.group, g.places]));
    assert.deepEqual(byGroup.Folders.map((p) => p.label), ["Home", "Documents", "Pictures"], "Home, then the user folders that exist");
    assert.ok(byGroup.Folders[0].current, "the open folder (home) is marked");
    assert.deepEqual(byGroup.Bookmarks.map((p) => p.label), ["Kept", "Bookmark this folder"], "the file: bookmark with its label; smb: is not Canopy's to open");
    const devices = byGroup.Devices.map((p) => p.label);
    assert.equal(devices[0], "Filesystem root");
    assert.ok(devices.includes(tmpfsName) && devices.includes(deadName), `${devices}`);
    // While the dead mount's statfs hangs, the sidebar works: open Documents.
    await clickPlace(s, "Documents");
    await s.waitFor(() => document.querySelector(".crumb[aria-current]")?.textContent === "Documents", { what: "Documents open" });
    const marked = (await sidebar(s)).flatMap((g) => g.places).filter((p) => p.current).map((p) => p.label);
    assert.deepEqual(marked, ["Documents"], "the current folder's place is marked");
    const deadSpace = await s.waitFor(
      (n) => Array.from(document.querySelectorAll("button.place")).find((x) => x.querySelector(".place-label")?.textContent === n)?.querySelector(".place-space")?.textContent || null,
      { what: "the dead mount's answer", args: [deadName], timeout: 15000 },
    );
    assert.equal(deadSpace, "not responding");
    await saveScreenshot(s, "places-dead-mount");

    // Ctrl+D bookmarks the open folder.
    await s.exec(() => document.querySelector('[role="tree"]').focus());
    await s.keys(["d"], [Key.Control]);
    const bookmarks = path.join(config, "gtk-3.0/bookmarks");
    const line = `file://${path.join(home, "Documents")}\n`;
    await s.waitFor(() => document.querySelector(".status-bar")?.textContent?.startsWith("Bookmarked"), { what: "the bookmark said" });
    assert.equal(fs.readFileSync(bookmarks, "utf8"), OTHER_LINES + line, "every other line kept byte for byte, the new one at the end");
    const marks = (await sidebar(s)).find((g) => g.group === "Bookmarks").places.map((p) => p.label);
    assert.deepEqual(marks, ["Kept", "Documents", "Bookmark this folder"], "the new bookmark shows");

    // Keyboard: from the first place, Down twice and Enter opens Pictures.
    await s.exec(() => document.querySelector('nav[aria-label="Places"] button.place').focus());
    await s.keys([Key.ArrowDown, Key.ArrowDown, Key.Enter]);
    await s.waitFor(() => document.querySelector(".crumb[aria-current]")?.textContent === "Pictures", { what: "Pictures opened by keyboard" });
    // An empty folder says so in the list, as a file browser does.
    const note = await s.waitFor(() => { const n = document.querySelector(".tree-empty"); return n && !n.hidden && n.textContent; }, { what: "the empty folder's note" });
    assert.equal(note, "This folder is empty");

    // Live: a mount that comes shows, and goes.
    const lateName = path.basename(late);
    const has = (n) => s.exec((x) => Array.from(document.querySelectorAll(".place-label")).some((l) => l.textContent === x), n);
    assert.equal(await has(lateName), false);
    const mountedAt = Date.now();
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=8m", "tmpfs", late]);
    await s.waitFor((x) => Array.from(document.querySelectorAll(".place-label")).some((l) => l.textContent === x), { what: "the new mount in Places", args: [lateName], timeout: 5000 });
    const shownIn = Date.now() - mountedAt;
    execFileSync("umount", [late]);
    await s.waitFor((x) => !Array.from(document.querySelectorAll(".place-label")).some((l) => l.textContent === x), { what: "the mount gone from Places", args: [lateName], timeout: 5000 });
    console.log(`a new mount showed in Places after ${shownIn} ms`);

    // Collapsible: the toolbar's Places button, and F9.
    await s.clickCss('button[aria-controls="places"]');
    assert.equal(await sidebar(s), null, "collapsed");
    assert.equal(await s.exec(() => document.querySelector('button[aria-controls="places"]').getAttribute("aria-expanded")), "false");
    await s.keys(["\uE039"]); // F9
    assert.notEqual(await sidebar(s), null, "F9 shows it again");
    await saveScreenshot(s, "places");
  } finally {
    await s.quit();
  }
});
