// Archives in the window, against the in-memory backend: an archive expands
// and pages like a folder, the file actions of what is inside act on the
// archive file, live refresh watches no folder inside one, and the summary
// is put in words.

import { describe, expect, it } from "vitest";
import { archiveHolding, rootArchiveOf, watchableFolders } from "./archives";
import type { ArchiveSummary } from "./bindings/ArchiveSummary";
import { childNames, openController } from "./controller-fixture";
import { FakeBackend, fileNodes, settle, type FakeNode } from "./fake-backend";
import { NESTED_CAP } from "./limits";
import { findFolder, findNode, hiddenCount, loadedCount } from "./tree-state";
import { archiveFacts, archiveLabel, ratioText } from "./view/archive-summary";

function tree(): FakeNode {
  return {
    name: "r",
    kind: "folder",
    children: [
      { name: "docs", kind: "folder", children: [{ name: "a.txt", kind: "file" }] },
      {
        name: "site.zip",
        kind: "file",
        archive: "zip",
        children: [
          { name: "assets", kind: "folder", children: fileNodes("img", 300) },
          { name: "inner.zip", kind: "file", archive: "zip", children: [{ name: "deep.txt", kind: "file" }] },
          { name: "readme.txt", kind: "file" },
        ],
      },
      { name: "notes.txt", kind: "file" },
    ],
  };
}

const ZIP = "/r/site.zip";

/** A controller on the fixture with site.zip expanded. */
async function expandedZip() {
  const opened = await openController(new FakeBackend(tree()));
  await opened.c.expand(ZIP);
  await settle();
  return opened;
}

describe("an archive in the tree", () => {
  it("is an expandable file that is not read within the listing's depth", async () => {
    const { state } = await openController(new FakeBackend(tree()));
    const zip = findNode(state(), ZIP)!.node;
    expect(zip.entry).toMatchObject({ kind: "file", archive: "zip", canExpand: true, canPreview: true });
    expect(zip.folder, "its inside is listed only when it is expanded").toBeNull();
  });

  it("expands by a listing of its own path, merged in place like a folder's", async () => {
    const { c, fake, state } = await expandedZip();
    expect(fake.calls.at(-1)).toMatchObject({ root: { handle: ZIP }, settings: { limit: NESTED_CAP } });
    expect(findNode(state(), ZIP)!.node.expanded).toBe(true);
    expect(childNames(c, ZIP)).toEqual(["assets", "inner.zip", "readme.txt"]);
    expect(childNames(c, "/r/docs"), "other folders are untouched").toEqual(["a.txt"]);
  });

  it("a 300-entry folder inside it is cut at the cap and grows by 'Show next'", async () => {
    const { c, fake, state } = await expandedZip();
    const assets = `${ZIP}/assets`;
    expect(loadedCount(findFolder(state(), assets)!)).toBe(NESTED_CAP);
    expect(hiddenCount(findFolder(state(), assets)!), "the badge's count").toBe(300 - NESTED_CAP);
    await c.showNext(assets);
    expect(fake.calls.at(-1)).toMatchObject({ root: { handle: assets } });
    expect(loadedCount(findFolder(state(), assets)!)).toBe(2 * NESTED_CAP);
    expect(childNames(c, assets)[NESTED_CAP]).toBe("img0101");
  });
});

describe("the archive holding an entry", () => {
  it("is the archive above it, however deep, and none for what is not inside one", async () => {
    const { state } = await expandedZip();
    const zip = { handle: ZIP, name: "site.zip" };
    expect(archiveHolding(state(), `${ZIP}/readme.txt`, null)).toEqual(zip);
    expect(archiveHolding(state(), `${ZIP}/assets/img0001`, null), "below a folder inside it").toEqual(zip);
    expect(archiveHolding(state(), ZIP, null), "the archive itself is a file on disk").toBeNull();
    expect(archiveHolding(state(), "/r/docs/a.txt", null)).toBeNull();
    expect(archiveHolding(state(), "/r/nowhere", null), "an entry not in the tree").toBeNull();
  });

  it("is the outermost archive for an entry of an archive inside an archive: the one file on disk", async () => {
    const { c, state } = await expandedZip();
    await c.expand(`${ZIP}/inner.zip`);
    expect(childNames(c, `${ZIP}/inner.zip`)).toEqual(["deep.txt"]);
    expect(archiveHolding(state(), `${ZIP}/inner.zip/deep.txt`, null)).toEqual({ handle: ZIP, name: "site.zip" });
    expect(archiveHolding(state(), `${ZIP}/inner.zip`, null), "the inner archive itself").toEqual({ handle: ZIP, name: "site.zip" });
  });

  it("is the root's archive for everything when the root is inside one", async () => {
    const { c, state } = await expandedZip();
    await c.openAsRoot(`${ZIP}/assets`);
    const snapshot = c.snapshot();
    expect(snapshot.rootArchive, "known from the tree the archive was opened from").toEqual({ handle: ZIP, name: "site.zip" });
    expect(archiveHolding(state(), `${ZIP}/assets/img0001`, snapshot.rootArchive)).toEqual(snapshot.rootArchive);
    expect(archiveHolding(state(), `${ZIP}/assets`, snapshot.rootArchive), "the root itself").toEqual(snapshot.rootArchive);
  });

  it("is the archive itself when it is opened as the root, and none once back outside", async () => {
    const { c } = await openController(new FakeBackend(tree()));
    await c.openAsRoot(ZIP);
    expect(c.snapshot().rootArchive).toEqual({ handle: ZIP, name: "site.zip" });
    await c.goUp();
    expect(c.snapshot().rootArchive).toBeNull();
    await c.goBack();
    expect(c.snapshot().rootArchive, "an archive once seen is known by its crumb").toEqual({ handle: ZIP, name: "site.zip" });
  });
});

describe("live refresh and archives", () => {
  it("watches no folder inside an archive, expanded or not", async () => {
    const { c, fake, state } = await expandedZip();
    await settle();
    expect(findNode(state(), `${ZIP}/assets`)!.node.expanded).toBe(true);
    expect(fake.watching).toEqual(["/r", "/r/docs"]);
    expect(watchableFolders(state(), null)).toEqual(["/r", "/r/docs"]);
    c.collapse("/r/docs");
    await settle();
    expect(fake.watching).toEqual(["/r"]);
  });

  it("watches nothing while the root is inside an archive", async () => {
    const { c, fake } = await expandedZip();
    await c.openAsRoot(ZIP);
    await settle();
    expect(fake.watching).toEqual([]);
    expect(c.snapshot().liveShortfall, "and says nothing about it").toBeNull();
  });
});

describe("an archive's summary in words", () => {
  const summary: ArchiveSummary = {
    format: "zip",
    entries: 303,
    files: 301,
    folders: 2,
    links: 0,
    size: 200 * 1024 * 1024,
    archiveSize: 204_000,
    encrypted: 3,
    unsafeNames: 1,
    comment: "made by a test",
  };

  it("says the format, the counts, the sizes and the ratio", () => {
    const facts = Object.fromEntries(archiveFacts(summary));
    expect(facts).toMatchObject({
      Format: "ZIP",
      Entries: "303 in its directory",
      Holds: "301 files, 2 folders",
      Uncompressed: "200 MiB in total, as the archive claims",
      "Archive size": "199 KiB",
      Ratio: "1,028 : 1 (uncompressed : archive)",
    });
  });

  it("says what is encrypted and what is unsafely named, and only when there is some", () => {
    const facts = Object.fromEntries(archiveFacts(summary));
    expect(facts.Encrypted).toBe("3 entries: names listed, content encrypted");
    expect(facts["Unsafe names"]).toMatch(/^1 entry whose name would reach outside the archive/);
    const plain = Object.fromEntries(archiveFacts({ ...summary, encrypted: 0, unsafeNames: 0 }));
    expect(plain.Encrypted).toBeUndefined();
    expect(plain["Unsafe names"]).toBeUndefined();
  });

  it("says when the directory claims another count, and what a tar's index read", () => {
    const facts = Object.fromEntries(archiveFacts({ ...summary, format: "tarGz", claimedEntries: 500, readBytes: 4096 }));
    expect(facts.Format).toBe("tar, gzip-compressed");
    expect(facts.Claimed).toBe("its directory's end says 500 entries");
    expect(facts.Read).toBe("4.0 KiB decompressed to index it");
  });

  it("gives a ratio of small numbers one decimal, and none for an empty file", () => {
    expect(ratioText(3400, 1000)).toBe("3.4 : 1");
    expect(ratioText(10, 0)).toBeNull();
  });

  it("names archives for the row and the preview", () => {
    expect(archiveLabel("zip")).toBe("ZIP archive");
    expect(archiveLabel("tarXz")).toBe("tar, xz-compressed archive");
  });

  it("is the crumb the engine marks as the archive file, though the window never saw it (a typed path, a restored view)", () => {
    const crumbs = [
      { name: "/", handle: "Lw" },
      { name: "site.zip", handle: ZIP, archive: "zip" as const },
      { name: "assets", handle: `${ZIP}/assets` },
    ];
    expect(rootArchiveOf(crumbs, new Map())).toEqual({ handle: ZIP, name: "site.zip" });
    expect(rootArchiveOf(crumbs.filter((c) => !("archive" in c)), new Map()), "no crumb marked, none seen").toBeNull();
  });
});
