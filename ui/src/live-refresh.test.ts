// Live refresh and restore in the directory-controller, against the in-memory backend.

import { afterEach, describe, expect, it, vi } from "vitest";
import { DirectoryController } from "./directory-controller";
import { childNames, openController } from "./controller-fixture";
import { FakeBackend, fileNodes, settle, type FakeNode } from "./fake-backend";
import { LIVE_RENDERS_PER_SECOND, NESTED_CAP, PAGE } from "./limits";
import { viewOf } from "./restore";
import { findFolder, findNode, loadedCount } from "./tree-state";

function tree(): FakeNode {
  return {
    name: "r",
    kind: "folder",
    children: [
      { name: "big", kind: "folder", children: [{ name: "sub", kind: "folder", children: [{ name: "deep", kind: "file" }] }, ...fileNodes("f", 251)] },
      { name: "small", kind: "folder", children: [{ name: "one", kind: "file" }, { name: "two", kind: "file" }] },
      { name: "locked", kind: "folder", children: [] },
      { name: "readme", kind: "file" },
    ],
  };
}

const opened = (fake = new FakeBackend(tree())) => openController(fake);

function small(fake: FakeBackend): FakeNode[] {
  return fake.nodeAt("/r/small")!.children!;
}

afterEach(() => vi.useRealTimers());

describe("live refresh", () => {
  it("watches the root and every expanded folder, in tree order, and follows collapse and expand", async () => {
    const { c, fake } = await opened();
    expect(fake.watching).toEqual(["/r", "/r/big", "/r/small", "/r/locked"]);
    c.collapse("/r/small");
    await settle();
    expect(fake.watching).toEqual(["/r", "/r/big", "/r/locked"]);
    await c.expand("/r/big/sub");
    await settle();
    expect(fake.watching).toEqual(["/r", "/r/big", "/r/big/sub", "/r/locked"]);
  });

  it("re-reads a changed folder alone, at depth 1, and merges it in place", async () => {
    const { c, fake } = await opened();
    c.collapse("/r/locked");
    small(fake).unshift({ name: "new", kind: "file" });
    const before = fake.calls.length;
    fake.push({ type: "foldersChanged", folders: ["/r/small"], overflow: false });
    await settle();
    expect(fake.calls.slice(before)).toEqual([expect.objectContaining({ root: { handle: "/r/small" }, settings: expect.objectContaining({ depth: 1, limit: NESTED_CAP }), offset: 0 })]);
    expect(childNames(c, "/r/small")).toEqual(["new", "one", "two"]);
    expect(findNode(c.state!, "/r/locked")!.node.expanded).toBe(false);
    expect(loadedCount(findFolder(c.state!, "/r/big")!)).toBe(100);
  });

  it("a folder crossing the cap gains its count of what is not shown", async () => {
    const { c, fake } = await opened();
    const kids = small(fake);
    kids.push(...fileNodes("x", NESTED_CAP - kids.length + 1));
    fake.push({ type: "foldersChanged", folders: ["/r/small"], overflow: false });
    await settle();
    const f = findFolder(c.state!, "/r/small")!;
    expect([f.total, loadedCount(f)]).toEqual([NESTED_CAP + 1, NESTED_CAP]);
  });

  it("keeps what was read below a re-read folder and the pages shown with 'Show next'", async () => {
    const { c, fake } = await opened();
    await c.expand("/r/big/sub");
    await c.showNext("/r/big");
    fake.nodeAt("/r/big")!.children!.push({ name: "zzz", kind: "file" });
    fake.push({ type: "foldersChanged", folders: ["/r/big"], overflow: false });
    await settle();
    const big = findFolder(c.state!, "/r/big")!;
    expect([big.total, loadedCount(big)]).toEqual([253, 200]);
    const sub = findNode(c.state!, "/r/big/sub")!.node;
    expect(sub.expanded && sub.folder?.total).toBe(1);
  });

  it("the selection stays on its entry; a deleted one gives way to its nearest neighbour", async () => {
    const { c, fake } = await opened();
    c.select("/r/small/two");
    small(fake).unshift({ name: "a-new", kind: "file" });
    fake.push({ type: "foldersChanged", folders: ["/r/small"], overflow: false });
    await settle();
    expect(c.state!.selected).toBe("/r/small/two");
    c.select("/r/small/one");
    small(fake).splice(1, 1);
    fake.push({ type: "foldersChanged", folders: ["/r/small"], overflow: false });
    await settle();
    expect(c.state!.selected).toBe("/r/small/two");
    small(fake).splice(0);
    fake.push({ type: "foldersChanged", folders: ["/r/small"], overflow: false });
    await settle();
    expect(c.state!.selected).toBe("/r/small");
  });

  it("a selection inside a deleted folder moves to the folder's neighbour", async () => {
    const { c, fake } = await opened();
    await c.expand("/r/big/sub");
    c.select("/r/big/sub/deep");
    fake.nodeAt("/r/big")!.children!.shift();
    fake.push({ type: "foldersChanged", folders: ["/r/big"], overflow: false });
    await settle();
    expect(c.state!.selected).toBe("/r/big/f0001");
  });

  it("re-reads a folder at most once at a time, and once more for changes during it", async () => {
    const { c, fake } = await opened();
    fake.hold = true;
    const before = fake.calls.length;
    for (let i = 0; i < 5; i++) c.changed(["/r/small"]);
    await settle();
    expect(fake.calls.length - before).toBe(1);
    fake.release();
    await settle();
    expect(fake.calls.length - before).toBe(2);
    fake.release();
    await settle();
    expect(fake.calls.length - before).toBe(2);
    expect(fake.held).toEqual([]);
  });

  it(`renders changes from disk at most ${LIVE_RENDERS_PER_SECOND} times a second`, async () => {
    vi.useFakeTimers();
    const fake = new FakeBackend(tree());
    const c = new DirectoryController(fake);
    await c.open({ handle: "/r" });
    let renders = 0;
    c.subscribe(() => renders++);
    renders = 0;
    for (let i = 0; i < 20; i++) {
      small(fake).push({ name: `n${i}`, kind: "file" });
      c.changed(["/r/small"]);
      await vi.advanceTimersByTimeAsync(25);
    }
    // 500 ms of changes: one render at once, one at each quarter second after.
    expect(renders).toBeLessThanOrEqual(1 + Math.ceil((500 * LIVE_RENDERS_PER_SECOND) / 1000));
    await vi.advanceTimersByTimeAsync(1000);
    expect(childNames(c, "/r/small")).toHaveLength(22);
  });

  it("says why some folders are not watched and re-reads them when the window regains focus", async () => {
    const fake = new FakeBackend(tree());
    fake.watchAnswer = (folders) => ({
      watched: folders.length - 1,
      unwatched: [folders[folders.length - 1]!],
      shortfall: { kind: "cap", message: "too many" },
    });
    const { c } = await opened(fake);
    const snap = c.snapshot();
    expect(snap.liveShortfall?.kind).toBe("cap");
    expect(snap.unwatchedCount).toBe(1);
    const before = fake.calls.length;
    c.refreshUnwatched();
    await settle();
    expect(fake.calls.slice(before).map((r) => r.root)).toEqual([{ handle: "/r/locked" }]);
  });

  it("opens a path handed over by a second instance", async () => {
    const { c, fake } = await opened();
    fake.push({ type: "open", startup: { folder: { handle: "/r/small" }, select: "/r/small/two" } });
    await settle();
    expect(c.state!.root.handle).toBe("/r/small");
    expect(c.state!.selected).toBe("/r/small/two");
    expect(c.snapshot().canBack).toBe(true);
  });
});

describe("restore", () => {
  it("restores folder, depth, dotfiles, expansion and selection; drops what vanished", async () => {
    const fake = new FakeBackend(tree());
    const c = new DirectoryController(fake);
    const ok = await c.restore({
      folder: "/r",
      depth: 2,
      cap: NESTED_CAP,
      limit: PAGE,
      showDotfiles: false,
      expanded: ["/r/big", "/r/big/sub", "/r/gone", "/r/locked"],
      selected: "/r/big/sub/deep",
      sort: "size",
      reverse: true,
      hideIgnored: true,
    });
    expect(ok).toBe(true);
    const s = c.state!;
    expect(findNode(s, "/r/small")!.node.expanded).toBe(false);
    expect(findNode(s, "/r/big/sub")!.node.expanded).toBe(true);
    expect(s.selected).toBe("/r/big/sub/deep");
    expect(c.snapshot().settings.showDotfiles).toBe(false);
    expect(c.snapshot().revealSelection).toBe(1);
    expect(fake.calls.every((r) => r.settings.showDotfiles === false)).toBe(true);
    expect(fake.calls.every((r) => r.settings.sort === "size" && r.settings.reverse && r.settings.hideIgnored)).toBe(true);
    expect(c.snapshot().settings).toMatchObject({ sort: "size", reverse: true, hideIgnored: true });
    expect(fake.calls.filter((r) => "handle" in r.root && r.root.handle === "/r/gone")).toEqual([]);
  });

  it("re-lists with the cap: a folder over it shows its first page", async () => {
    const fake = new FakeBackend(tree());
    const c = new DirectoryController(fake);
    await c.restore({ folder: "/r", depth: 1, cap: NESTED_CAP, limit: PAGE, showDotfiles: true, expanded: ["/r/big"], selected: null, sort: "name", reverse: false, hideIgnored: false });
    const big = findFolder(c.state!, "/r/big")!;
    expect([big.showAll, loadedCount(big), big.total]).toEqual([false, 100, 252]);
  });

  it("each remembered folder is its own sub-query: a slow one delays nothing else", async () => {
    const fake = new FakeBackend(tree());
    const c = new DirectoryController(fake);
    fake.hold = true;
    const done = c.restore({ folder: "/r", depth: 1, cap: NESTED_CAP, limit: PAGE, showDotfiles: true, expanded: ["/r/big", "/r/small"], selected: null, sort: "name", reverse: false, hideIgnored: false });
    await settle();
    fake.release(); // the folder itself
    await settle();
    expect(fake.held.map((h) => h.request.root)).toEqual([{ handle: "/r/big" }, { handle: "/r/small" }]);
    fake.release((r) => "handle" in r.root && r.root.handle === "/r/small");
    await settle();
    expect(findNode(c.state!, "/r/small")!.node.expanded).toBe(true);
    expect(findNode(c.state!, "/r/big")!.node.expanded).toBe(false);
    fake.release();
    await done;
    expect(findNode(c.state!, "/r/big")!.node.expanded).toBe(true);
  });

  it("a folder that cannot be opened any more is reported, not restored", async () => {
    const fake = new FakeBackend(tree());
    const c = new DirectoryController(fake);
    expect(await c.restore({ folder: "/r/gone", depth: 2, cap: NESTED_CAP, limit: PAGE, showDotfiles: true, expanded: [], selected: null, sort: "name", reverse: false, hideIgnored: false })).toBe(false);
  });

  it("a filter is neither remembered nor restored: it belongs to one folder, not the view", async () => {
    const fake = new FakeBackend(tree());
    const c = new DirectoryController(fake);
    const view = { folder: "/r", depth: 2, cap: NESTED_CAP, limit: PAGE, showDotfiles: true, expanded: [], selected: null, sort: "name" as const, reverse: false, filter: "read", hideIgnored: false };
    expect(await c.restore(view)).toBe(true);
    expect(fake.calls.length).toBeGreaterThan(0);
    expect(fake.calls.every((r) => r.settings.filter === undefined), "a restored view opens unfiltered").toBe(true);
    await c.setFilter("/r", "read");
    expect(viewOf(c.state!, { ...c.settings, filter: "read" }, [])).not.toHaveProperty("filter");
  });

  it("remembers the view as it changes", async () => {
    const { c, fake } = await opened();
    c.collapse("/r/small");
    c.select("/r/readme");
    await settle();
    expect(fake.remembered.at(-1)).toEqual({
      folder: "/r",
      depth: 2,
      cap: NESTED_CAP,
      limit: PAGE,
      showDotfiles: true,
      expanded: ["/r/big", "/r/locked"],
      selected: "/r/readme",
      sort: "name",
      reverse: false,
      hideIgnored: false,
    });
    await c.sortBy("modified");
    await settle();
    expect(fake.remembered.at(-1)).toMatchObject({ sort: "modified", reverse: false, expanded: ["/r/big", "/r/locked"] });
    await c.setHideIgnored(true);
    await settle();
    expect(fake.remembered.at(-1)).toMatchObject({ hideIgnored: true });
  });
});
