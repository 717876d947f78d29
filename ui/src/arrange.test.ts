// Order, filter, ignored entries and type-ahead in the directory-controller,
// against the in-memory backend.

import { describe, expect, it } from "vitest";
import { childNames, openController } from "./controller-fixture";
import { FakeBackend, fileNodes, settle, type FakeNode } from "./fake-backend";
import { findFolder, findNode, loadedCount } from "./tree-state";
import { TypeAhead } from "./type-ahead";

function tree(): FakeNode {
  return {
    name: "r",
    kind: "folder",
    children: [
      {
        name: "big",
        kind: "folder",
        children: [
          { name: "sub", kind: "folder", children: [{ name: "deep", kind: "file" }] },
          ...fileNodes("f", 251).map((n, i) => ({ ...n, size: (i * 37) % 251 })),
        ],
      },
      { name: "small", kind: "folder", children: [{ name: "one", kind: "file", size: 5 }, { name: "two.log", kind: "file", size: 9, ignored: true }] },
      { name: "readme", kind: "file", size: 3 },
      { name: "build", kind: "folder", ignored: true, children: [] },
    ],
  };
}

const opened = (fake = new FakeBackend(tree())) => openController(fake);

describe("order", () => {
  it("a header's order goes with every request, again reverses it, and re-lists at the same expansion and selection", async () => {
    const { c, fake, state } = await opened();
    await c.expand("/r/big/sub");
    c.collapse("/r/small");
    c.select("/r/big/sub/deep");
    const before = fake.calls.length;
    await c.sortBy("size");
    expect(fake.calls.slice(before).every((r) => r.settings.sort === "size" && !r.settings.reverse)).toBe(true);
    expect(findNode(state(), "/r/big/sub")!.node.expanded).toBe(true);
    expect(findNode(state(), "/r/small")!.node.expanded).toBe(false);
    expect(state().selected).toBe("/r/big/sub/deep");
    expect(c.snapshot().settings).toMatchObject({ sort: "size", reverse: false });
    const big = childNames(c, "/r/big");
    expect(big.slice(0, 3)).toEqual(["sub", "f0001", "f0096"]);
    await c.sortBy("size");
    expect(c.snapshot().settings).toMatchObject({ sort: "size", reverse: true });
    expect(fake.calls.at(-1)).toMatchObject({ settings: { sort: "size", reverse: true } });
    await c.sortBy("name");
    expect(c.snapshot().settings).toMatchObject({ sort: "name", reverse: false });
  });

  it("'Show next' and expanding carry the order, so pages continue in it", async () => {
    const { c, fake } = await opened();
    await c.sortBy("size");
    await c.showNext("/r/big");
    expect(fake.calls.at(-1)).toMatchObject({ root: { handle: "/r/big" }, settings: { sort: "size" } });
    await c.expand("/r/big/sub");
    expect(fake.calls.at(-1)).toMatchObject({ root: { handle: "/r/big/sub" }, settings: { sort: "size" } });
  });
});

describe("filter", () => {
  it("a nested folder's filter lists its matches over all of it, and clearing brings it back with its expansion", async () => {
    const { c, fake, state } = await opened();
    await c.expand("/r/big/sub");
    const before = childNames(c, "/r/big");
    await c.setFilter("/r/big", "F02");
    expect(fake.calls.at(-1)).toMatchObject({ root: { handle: "/r/big" }, settings: { filter: "F02", limit: 100 } });
    const f = findFolder(state(), "/r/big")!;
    expect([f.filter, f.total, f.unfilteredTotal, loadedCount(f)]).toEqual(["F02", 52, 252, 52]);
    expect(childNames(c, "/r/big")[0]).toBe("f0200");
    expect(findFolder(state(), "/r/small")!.filter).toBeNull();
    await c.setFilter("/r/big", null);
    expect(findFolder(state(), "/r/big")!.filter).toBeNull();
    expect(childNames(c, "/r/big")).toEqual(before);
    expect(findNode(state(), "/r/big/sub")!.node.expanded).toBe(true);
    expect(findFolder(state(), "/r/big/sub")!.total).toBe(1);
  });

  it("pages and live re-reads of a filtered folder keep its filter; other folders carry none", async () => {
    const { c, fake } = await opened();
    await c.setFilter("/r/big", "f");
    await c.showNext("/r/big");
    expect(fake.calls.at(-1)).toMatchObject({ root: { handle: "/r/big" }, settings: { filter: "f" } });
    expect(loadedCount(findFolder(c.state!, "/r/big")!)).toBe(200);
    const before = fake.calls.length;
    fake.push({ type: "foldersChanged", folders: ["/r/big", "/r/small"], overflow: false });
    await settle();
    await settle();
    const rereads = fake.calls.slice(before);
    expect(rereads.filter((r) => "handle" in r.root && r.root.handle === "/r/big").every((r) => r.settings.filter === "f")).toBe(true);
    expect(rereads.find((r) => "handle" in r.root && r.root.handle === "/r/small")!.settings.filter).toBeUndefined();
  });

  it("a filter stays when the order changes", async () => {
    const { c, fake, state } = await opened();
    await c.setFilter("/r/big", "F02");
    await c.sortBy("size");
    expect(fake.calls.at(-1)).toMatchObject({ root: { handle: "/r/big" }, settings: { filter: "F02", sort: "size" } });
    expect(findFolder(state(), "/r/big")!.total).toBe(52);
    await c.setFilter("/r/big", null);
    expect(findFolder(state(), "/r/big")!.total).toBe(252);
  });

  it("typing back to the filter already shown drops the newer filter still on its way", async () => {
    const { c, fake, state } = await opened();
    await c.setFilter("/r/big", "F02");
    fake.hold = true;
    fake.honorCancel = false; // the superseded call still answers, with a full reply
    const typed = c.setFilter("/r/big", "F021");
    await settle();
    const back = c.setFilter("/r/big", "F02");
    await settle();
    fake.release();
    await Promise.all([typed, back]);
    const f = findFolder(state(), "/r/big")!;
    expect([f.filter, f.total, f.loading]).toEqual(["F02", 52, false]);
    expect(childNames(c, "/r/big")).toHaveLength(52);
  });

  it("clearing a filter before its first answer leaves the folder unfiltered", async () => {
    const { c, fake, state } = await opened();
    fake.hold = true;
    fake.honorCancel = false;
    const typed = c.setFilter("/r/big", "F02");
    await settle();
    const cleared = c.setFilter("/r/big", null);
    fake.release();
    await Promise.all([typed, cleared]);
    const f = findFolder(state(), "/r/big")!;
    expect([f.filter, f.total, f.loading]).toEqual([null, 252, false]);
  });

  it("the root can be filtered too", async () => {
    const { c, fake, state } = await opened();
    await c.setFilter("/r", "read");
    expect(fake.calls.at(-1)).toMatchObject({ root: { handle: "/r" }, settings: { filter: "read", depth: 2, limit: 500 } });
    expect(childNames(c, "/r")).toEqual(["readme"]);
    expect(state().root.unfilteredTotal).toBe(4);
  });
});

describe("ignored entries", () => {
  it("'Hide ignored' goes with every request and each folder says how many it hid", async () => {
    const { c, fake, state } = await opened();
    await c.setHideIgnored(true);
    expect(fake.calls.at(-1)).toMatchObject({ settings: { hideIgnored: true } });
    expect(childNames(c, "/r")).toEqual(["big", "small", "readme"]);
    expect(state().root.ignoredHidden).toBe(1);
    expect(findFolder(state(), "/r/small")!.ignoredHidden).toBe(1);
    await c.setHideIgnored(false);
    expect(childNames(c, "/r")).toContain("build");
  });
});

describe("type-ahead", () => {
  it("asks the engine under the view's order and filter, and lands once the row is loaded", async () => {
    const { c, fake } = await opened();
    await c.sortBy("size");
    await c.setFilter("/r/big", "f01");
    const t = new TypeAhead(c);
    const hit = await t.key("f", "/r/big");
    expect(fake.locates.at(-1)).toMatchObject({ folder: "/r/big", prefix: "f", settings: { sort: "size", filter: "f01" } });
    expect(hit).toEqual({ folder: "/r/big", index: 0 });
    const hit2 = await t.key("0", "/r/big");
    expect(fake.locates.at(-1)!.prefix).toBe("f0");
    expect(hit2).not.toBeNull();
  });

  it("a position beyond the loaded page is loaded first; a stale answer is dropped", async () => {
    const { c, fake } = await opened();
    const t = new TypeAhead(c);
    const hit = await t.key("f", "/r/big");
    expect(hit).toEqual({ folder: "/r/big", index: 1 });
    fake.hold = true;
    const first = t.key("z", "/r/big");
    const second = t.key("q", "/r/big");
    fake.hold = false;
    expect(await first).toBeNull();
    expect(await second).toBeNull();
  });
});
