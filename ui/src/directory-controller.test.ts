import { describe, expect, it } from "vitest";
import { DirectoryController } from "./directory-controller";
import { FakeBackend, fileNodes, settle, type FakeNode } from "./fake-backend";
import { findFolder, findNode, flatten, loadedCount, type TreeState } from "./tree-state";

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

function names(state: TreeState): string[] {
  const flat = flatten(state);
  const out: string[] = [];
  for (let i = 0; i < flat.length; i++) {
    const r = flat.at(i)!;
    out.push(r.kind === "entry" ? `${"  ".repeat(r.level - 1)}${r.node.entry.name}` : `${"  ".repeat(r.level - 1)}…`);
  }
  return out;
}

async function opened(fake = new FakeBackend(tree())) {
  const c = new DirectoryController(fake);
  await c.open({ handle: "/r" });
  return { c, fake, state: () => c.state! };
}

describe("directory-controller", () => {
  it("opens the folder at depth 2 and shows each nested folder's first 100", async () => {
    const { fake, state } = await opened();
    expect(fake.calls[0]).toMatchObject({ settings: { depth: 2, limit: 500 }, offset: 0 });
    const big = findFolder(state(), "/r/big")!;
    expect(big.total).toBe(252);
    expect(loadedCount(big)).toBe(100);
    expect(findNode(state(), "/r/big/sub")!.node.folder).toBeNull();
    expect(names(state()).slice(0, 2)).toEqual(["big", "  sub"]);
  });

  it("merges 'Show next 100' in place: order kept, other folders untouched", async () => {
    const { c, fake, state } = await opened();
    c.collapse("/r/small");
    const selectedBefore = "/r/readme";
    c.select(selectedBefore);
    const smallBefore = findNode(state(), "/r/small")!.node;
    await c.showNext("/r/big");
    const req = fake.calls.at(-1)!;
    expect(req).toMatchObject({ root: { handle: "/r/big" }, offset: 100, settings: { limit: 100, depth: 1 } });
    const big = findFolder(state(), "/r/big")!;
    expect(loadedCount(big)).toBe(200);
    const loaded = big.chunks.flatMap((ch) => ch.nodes.map((n) => n.entry.name));
    expect(loaded[0]).toBe("sub");
    expect(loaded[100]).toBe("f0100");
    expect(loaded[199]).toBe("f0199");
    expect(findNode(state(), "/r/small")!.node).toBe(smallBefore);
    expect(state().selected).toBe(selectedBefore);
  });

  it("asks for the remaining entries when fewer than 100 are left", async () => {
    const { c, state } = await opened();
    await c.showNext("/r/big");
    await c.showNext("/r/big");
    const big = findFolder(state(), "/r/big")!;
    expect(loadedCount(big)).toBe(252);
  });

  it("Show all makes the folder paged: placeholders cover every entry", async () => {
    const { c, state } = await opened();
    c.collapse("/r/small");
    await c.showAll("/r/big");
    const big = findFolder(state(), "/r/big")!;
    expect(big.showAll).toBe(true);
    expect(loadedCount(big)).toBe(252);
    const flat = flatten(state());
    // big + 252 children + small + locked + readme
    expect(flat.length).toBe(1 + 252 + 3);
  });

  it("drops a stale reply and cancels the request it superseded", async () => {
    const fake = new FakeBackend(tree());
    const { c, state } = await opened(fake);
    fake.hold = true;
    fake.honorCancel = false; // the superseded call still answers, with a full reply
    const first = c.showNext("/r/big");
    await settle();
    const second = c.showNext("/r/big");
    await settle();
    expect(fake.cancelled).toContain(fake.held[0]!.request.requestId);
    // The newer reply lands first; the older one (cancelled) must not change anything.
    fake.release((r) => r.requestId === fake.held[1]!.request.requestId);
    await second;
    const after = state();
    fake.release();
    await first;
    expect(state()).toBe(after);
  });

  it("drops replies for a folder that was closed by opening another", async () => {
    const fake = new FakeBackend(tree());
    const { c, state } = await opened(fake);
    fake.hold = true;
    const page = c.showNext("/r/big");
    await settle();
    const reopen = c.open({ handle: "/r/small" });
    await settle();
    fake.release((r) => "handle" in r.root && r.root.handle === "/r/small");
    await reopen;
    fake.release();
    await page;
    expect(state().root.handle).toBe("/r/small");
    expect(findFolder(state(), "/r/big")).toBeNull();
  });

  it("reloads a folder whose total changed between pages and says so", async () => {
    const fake = new FakeBackend(tree());
    const { c, state, } = await opened(fake);
    const big = fake.nodeAt("/r/big")!;
    big.children!.splice(1, 0, { name: "a-new-file", kind: "file" });
    await c.showNext("/r/big");
    await settle();
    const f = findFolder(state(), "/r/big")!;
    expect(f.changed).toBe(true);
    expect(f.total).toBe(253);
    const loaded = f.chunks.flatMap((ch) => ch.nodes.map((n) => n.entry.name));
    expect(loaded.slice(0, 3)).toEqual(["sub", "a-new-file", "f0001"]);
    expect(loaded.length).toBe(200);
    expect(c.snapshot().notice).toMatch(/changed/);
  });

  it("lands an error on the right row", async () => {
    const fake = new FakeBackend(tree());
    fake.failures.set("/r/locked", "DENIED");
    const { c, state } = await opened(fake);
    expect(findNode(state(), "/r/locked")!.node.entry.error?.code).toBe("DENIED");
    expect(findNode(state(), "/r/small")!.node.entry.error).toBeUndefined();
    // Expanding a folder at the depth limit that fails puts the error on it.
    fake.failures.set("/r/big/sub", "LOOP");
    await c.expand("/r/big/sub");
    expect(findNode(state(), "/r/big/sub")!.node.entry.error?.code).toBe("LOOP");
  });

  it("expands a folder at the depth limit by listing it at depth D", async () => {
    const { c, fake, state } = await opened();
    await c.expand("/r/big/sub");
    expect(fake.calls.at(-1)).toMatchObject({ root: { handle: "/r/big/sub" }, settings: { depth: 2, limit: 100 } });
    const sub = findNode(state(), "/r/big/sub")!.node;
    expect(sub.expanded).toBe(true);
    expect(sub.folder!.total).toBe(1);
    // Collapsing and re-expanding uses what is loaded.
    const n = fake.calls.length;
    c.collapse("/r/big/sub");
    await c.expand("/r/big/sub");
    expect(fake.calls.length).toBe(n);
  });

  it("a bad path leaves the tree as it was and reports the code", async () => {
    const { c, state } = await opened();
    const before = state();
    const ok = await c.open({ text: "/nope" });
    expect(ok).toBe(false);
    expect(state()).toBe(before);
    expect(c.snapshot().openError?.code).toBe("NOT_FOUND");
  });

  it("says what is being opened while nothing is open yet, and keeps it when that fails", async () => {
    const fake = new FakeBackend(tree());
    fake.hold = true;
    const c = new DirectoryController(fake);
    const pending = c.open({ text: "sftp://files.example/srv" });
    await settle();
    expect(c.snapshot()).toMatchObject({ opening: true, openTarget: "sftp://files.example/srv" });
    fake.failures.set("sftp://files.example/srv", "AUTH_FAILED");
    fake.hold = false;
    fake.held.splice(0).forEach((h) => h.resolve());
    expect(await pending).toBe(false);
    expect(c.snapshot()).toMatchObject({ opening: false, openTarget: "sftp://files.example/srv", openError: { code: "AUTH_FAILED" } });
    await c.open({ handle: "/r" });
    expect(c.snapshot().openTarget).toBeNull();
    await c.open({ text: "/nope" });
    expect(c.snapshot().openTarget, "a folder is open: the path bar shows it").toBeNull();
  });

  it("history: back returns, forward goes again, up selects where we came from", async () => {
    const { c, state } = await opened();
    await c.openAsRoot("/r/small");
    expect(state().root.handle).toBe("/r/small");
    await c.goBack();
    expect(state().root.handle).toBe("/r");
    expect(c.snapshot().canForward).toBe(true);
    await c.goForward();
    expect(state().root.handle).toBe("/r/small");
    await c.goUp();
    expect(state().root.handle).toBe("/r");
    expect(state().selected).toBe("/r/small");
    // Up is a step of its own: Back returns to where Up started.
    await c.goBack();
    expect(state().root.handle).toBe("/r/small");
  });

  it("a listener that selects during an update leaves every listener with the latest state", async () => {
    const { c } = await opened();
    const seenByLast: (string | null)[] = [];
    // Like the tree view selecting a row once its page arrived.
    c.subscribe((s) => {
      if (s.tree?.selected === "/r/small") c.select("/r/readme");
    });
    c.subscribe((s) => seenByLast.push(s.tree?.selected ?? null));
    c.select("/r/small");
    expect(c.snapshot().tree?.selected).toBe("/r/readme");
    expect(seenByLast.at(-1)).toBe("/r/readme");
  });

  it("sub-queries use depth max(1, D - L)", async () => {
    const { c, fake } = await opened();
    await c.setDepth(4);
    await c.showNext("/r/big");
    expect(fake.calls.at(-1)).toMatchObject({ settings: { depth: 3 }, offset: 100 });
  });

  it("'Show next' continues from the engine's cursor once it has one, in order", async () => {
    const { c, fake, state } = await opened();
    await c.showNext("/r/big");
    // The first page came inside the parent's listing, which carries no cursor for it.
    expect(fake.calls.at(-1)).toMatchObject({ offset: 100 });
    expect(fake.calls.at(-1)!.after).toBeUndefined();
    await c.showNext("/r/big");
    expect(fake.calls.at(-1)).toMatchObject({ offset: 0, after: "/r/big#200", settings: { limit: 100 } });
    const big = findFolder(state(), "/r/big")!;
    expect(loadedCount(big)).toBe(252);
    const loaded = big.chunks.flatMap((ch) => ch.nodes.map((n) => n.entry.name));
    expect(loaded.slice(199, 202)).toEqual(["f0199", "f0200", "f0201"]);
    expect(big.cursor, "the last page leaves no cursor").toBeNull();
  });

  it("a cursor the engine refuses is retried by position", async () => {
    const { c, fake, state } = await opened();
    await c.showNext("/r/big");
    const realList = fake.listDirectory.bind(fake);
    fake.listDirectory = async (r) => {
      if (r.after) throw new (await import("./backend")).BackendError("INVALID_ARGUMENT", "stale cursor");
      return realList(r);
    };
    await c.showNext("/r/big");
    expect(fake.calls.at(-1)).toMatchObject({ offset: 200 });
    expect(loadedCount(findFolder(state(), "/r/big")!)).toBe(252);
  });

  it("a folder the request budget left unread is read by its own sub-query, and loses its BUDGET mark", async () => {
    const fake = new FakeBackend(tree());
    fake.budgetCut.add("/r/small");
    const { c, state } = await opened(fake);
    const before = findNode(state(), "/r/small")!.node;
    expect(before.entry.error?.code).toBe("BUDGET");
    expect(before.folder).toBeNull();
    await c.expand("/r/small");
    expect(fake.calls.at(-1)).toMatchObject({ root: { handle: "/r/small" } });
    const after = findNode(state(), "/r/small")!.node;
    expect(after.entry.error).toBeUndefined();
    expect(after.folder?.total).toBe(2);
    expect(names(state())).toContain("  two");
  });
});
