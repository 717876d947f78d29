// The .deb that scripts/package builds: what it holds, and the installed
// /usr/bin/canopy opening a folder through the real window. Installing needs
// root, and must not replace a canopy package this test did not install:
// in either case the install test is skipped, saying why.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { REPO, file, launch, removeTree, saveScreenshot, tempTree } from "../harness.mjs";

const DEB_DIR = path.join(REPO, "target/release/bundle/deb");

function theDeb() {
  const debs = fs.existsSync(DEB_DIR) ? fs.readdirSync(DEB_DIR).filter((f) => f.endsWith(".deb")) : [];
  assert.equal(debs.length, 1, `one package in ${DEB_DIR} (scripts/test builds it with scripts/package)`);
  return path.join(DEB_DIR, debs[0]);
}

const dpkgDeb = (...args) => execFileSync("dpkg-deb", args, { encoding: "utf8", maxBuffer: 64 << 20 });

describe("the .deb", () => {
  test("holds canopy, canopy-list, icons and a desktop entry that opens folders; depends on runtime libraries, xdg-utils and file only", () => {
    const deb = theDeb();
    const contents = dpkgDeb("-c", deb).split("\n").map((l) => l.split(/\s+/).slice(5).join(" ").replace(/^\.\//, ""));
    for (const want of ["usr/bin/canopy", "usr/bin/canopy-list", "usr/share/applications/Canopy.desktop", "usr/share/icons/hicolor/128x128/apps/canopy.png"]) {
      assert.ok(contents.includes(want), `${want} is in the package`);
    }
    if (fs.existsSync(path.join(REPO, "target/release/canopy-mcp"))) assert.ok(contents.includes("usr/bin/canopy-mcp"), "canopy-mcp, when built, is in the package");
    const depends = dpkgDeb("-f", deb, "Depends").trim();
    assert.ok(depends.length > 0 && !/-dev\b/.test(depends), `runtime libraries only: ${depends}`);
    // Open… vets the application through xdg-mime (which types files with `file`), and refuses without it.
    for (const tool of ["xdg-utils", "file"]) assert.match(depends, new RegExp(`(^|, )${tool}(,|$| )`), `depends on ${tool}: ${depends}`);
    // The sandboxed renderer's PDF tools: recommended, so a minimal install still works.
    const recommends = dpkgDeb("-f", deb, "Recommends").trim();
    // ... and its video tools: ffmpegthumbnailer for poster frames, ffmpeg for ffprobe.
    for (const tool of ["poppler-utils", "ffmpegthumbnailer", "ffmpeg", "fontconfig", "libharfbuzz-bin", "libvips-tools"]) assert.match(recommends, new RegExp(`(^|, )${tool}(,|$| )`), `recommends ${tool}: ${recommends}`);
    const desktop = execFileSync("sh", ["-c", 'dpkg-deb --fsys-tarfile "$1" | tar -xO usr/share/applications/Canopy.desktop', "sh", deb], { encoding: "utf8" });
    assert.match(desktop, /^Exec=canopy %f$/m, "a file manager passes the folder");
    assert.match(desktop, /^MimeType=inode\/directory;$/m, "offered for folders");
  });

  describe("installed", () => {
    let root;
    let skip = false;
    let installed = false;
    before(() => {
      if (process.getuid?.() !== 0) skip = "installing a package needs root";
      else {
        let status = "";
        try {
          status = execFileSync("dpkg-query", ["-W", "-f=${Status}", "canopy"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
        } catch {
          /* not installed */
        }
        if (status.includes("installed") && !status.includes("not-installed")) skip = "a canopy package that this test did not install is present";
      }
      if (skip) console.log(`skipped: ${skip}`);
      root = tempTree();
      file(path.join(root, "installed-ok.txt"), "");
    });
    after(() => {
      if (installed) execFileSync("apt-get", ["remove", "-y", "-qq", "-o", "DPkg::Lock::Timeout=600", "canopy"], { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
      removeTree(root);
    });

    test("apt-get installs it; /usr/bin/canopy opens a folder; it is removed again", async (t) => {
      if (skip) return t.skip(skip);
      const deb = theDeb();
      execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "-o", "DPkg::Lock::Timeout=600", deb], { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
      installed = true;
      assert.ok(fs.existsSync("/usr/bin/canopy-list"));
      const s = await launch([root], { app: "/usr/bin/canopy" });
      try {
        const names = await s.exec(() => Array.from(document.querySelectorAll('[role="treeitem"] .name'), (n) => n.textContent));
        assert.deepEqual(names, ["installed-ok.txt"]);
        await saveScreenshot(s, "package-installed");
      } finally {
        await s.quit();
      }
      execFileSync("apt-get", ["remove", "-y", "-qq", "-o", "DPkg::Lock::Timeout=600", "canopy"], { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
      installed = false;
      assert.ok(!fs.existsSync("/usr/bin/canopy"), "removed");
    });
  });
});
