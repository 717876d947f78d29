import { describe, expect, it } from "vitest";
import { openController } from "./controller-fixture";
import { FakeBackend, settle, type FakeNode } from "./fake-backend";
import { arrangeBySize, emptySizes, isLowerBound, markStale, startRun, applyProgress, finishRun, stopRun } from "./sizes-state";
import { SIZES_REMEMBERED_MAX } from "./limits";
import { ancestorsOf, findFolder, flatten, shownFoldersBelow } from "./tree-state";
import { rowSize, sizeText, sizeTitle, shareText } from "./view/size-words";

const KiB = 1024;

function tree(): FakeNode {
  return {
    name: "r",
    kind: "folder",
    children: [
      {
        name: "big",
        kind: "folder",
        children: [
          { name: "sub", kind: "folder", children: [{ name: "deep.bin", kind: "file", size: 600 * KiB, disk: 604 * KiB }] },
          { name: "a.iso", kind: "file", size: 300 * KiB },
        ],
      },
      { name: "small", kind: "folder", children: [{ name: "one", kind: "file", size: 10 * KiB }] },
      { name: "empty", kind: "folder", children: [] },
      { name: "sparse.img", kind: "file", size: 2048 * KiB, disk: 4 * KiB },
      { name: "notes.txt", kind: "file", size: 50 * KiB },
    ],
  };
}

const opened = () => openController(new FakeBackend(tree()));

describe("folder sizes", () => {
  it("counts the open folder, naming the folders shown, and every shown folder gets its figure", async () => {
    const { c, fake } = await opened();
    await c.computeSizes();
    expect(fake.sizesCalls).toEqual([{ requestId: expect.any(Number), root: { handle: "/r" }, folders: ["/r/big", "/r/big/sub", "/r/small", "/r/empty"], byApparent: false }]);
    const records = c.snapshot().sizes.records;
    expect([...records.keys()].sort()).toEqual(["/r", "/r/big", "/r/big/sub", "/r/empty", "/r/small"]);
    // Disk usage by default: the sparse file counts its blocks, not its length.
    expect(records.get("/r")!.report.sizes.diskUsage).toBe((604 + 300 + 10 + 4 + 50) * KiB);
    expect(records.get("/r")!.report.sizes.apparent).toBe((600 + 300 + 10 + 2048 + 50) * KiB);
    expect(c.snapshot().sizes.run).toBeNull();
  });

  it("a collapsed folder shows no folders below it; an expanded one names those it shows, at most as many as asked", async () => {
    const { c, state } = await opened();
    expect(shownFoldersBelow(state(), "/r", 100)).toEqual(["/r/big", "/r/big/sub", "/r/small", "/r/empty"]);
    expect(shownFoldersBelow(state(), "/r/big", 100)).toEqual(["/r/big/sub"]);
    c.collapse("/r/big");
    expect(shownFoldersBelow(state(), "/r", 100)).toEqual(["/r/big", "/r/small", "/r/empty"]);
    expect(shownFoldersBelow(state(), "/r", 2)).toEqual(["/r/big", "/r/small"]);
  });

  it("a folder's context menu counts that folder, at least one level down", async () => {
    const { c, fake } = await opened();
    c.collapse("/r/big");
    await c.computeSizes("/r/big");
    expect(fake.sizesCalls.at(-1)).toMatchObject({ root: { handle: "/r/big" }, folders: ["/r/big/sub"] });
    expect(c.snapshot().sizes.records.has("/r/big/sub")).toBe(true);
  });

  it("partial figures stream in as lower bounds, then the exact figure; a late partial one never replaces it", async () => {
    const fake = new FakeBackend(tree());
    const { c } = await openController(fake);
    fake.holdSizes = true;
    const running = c.computeSizes();
    await settle();
    const id = fake.sizesCalls[0]!.requestId;
    const big = fake.sizesOf("/r/big");
    const partial = { ...big, done: false, largest: undefined, sizes: { ...big.sizes, diskUsage: 100 * KiB, isLowerBound: true } };
    expect(fake.sizesProgress(id, [partial], 7)).toBe(true);
    let s = c.snapshot().sizes;
    expect(s.run?.entries).toBe(7);
    const rec = s.records.get("/r/big")!;
    expect(isLowerBound(rec)).toBe(true);
    expect(sizeText(rec, "diskUsage")).toBe("≥ 100 KiB");
    expect(rowSize(s, "/r/big", true, "/r")!.counting).toBe(true);
    fake.sizesProgress(id, [big]);
    fake.sizesProgress(id, [partial]);
    s = c.snapshot().sizes;
    expect(s.records.get("/r/big")!.report.done, "the finished figure stays").toBe(true);
    expect(sizeText(s.records.get("/r/big")!, "diskUsage")).toBe("904 KiB");
    fake.releaseSizes();
    await running;
    expect(c.snapshot().sizes.run).toBeNull();
  });

  it("stopping (Esc) cancels the request at once and keeps what was counted, marked as stopped", async () => {
    const fake = new FakeBackend(tree());
    const { c } = await openController(fake);
    fake.holdSizes = true;
    const running = c.computeSizes();
    await settle();
    const id = fake.sizesCalls[0]!.requestId;
    fake.sizesProgress(id, [{ ...fake.sizesOf("/r"), done: false, largest: undefined }]);
    expect(c.cancelSizes()).toBe(true);
    expect(fake.cancelled).toContain(id);
    const s = c.snapshot().sizes;
    expect(s.run).toBeNull();
    const root = s.records.get("/r")!;
    expect(root.stopped).toBe(true);
    expect(sizeTitle(root, "diskUsage")).toMatch(/counting was stopped/);
    expect(fake.sizesProgress(id, [fake.sizesOf("/r")])).toBe(true);
    expect(c.snapshot().sizes.records.get("/r")!.stopped, "a report after the stop is dropped").toBe(true);
    fake.releaseSizes();
    await running;
    expect(c.snapshot().notice, "a stop is not an error").toBeNull();
    expect(c.cancelSizes(), "nothing left to stop").toBe(false);
  });

  it("a stopped recount gives back each unfinished folder's earlier figure", async () => {
    const fake = new FakeBackend(tree());
    const { c } = await openController(fake);
    await c.computeSizes();
    const before = c.snapshot().sizes.records.get("/r/big")!;
    fake.holdSizes = true;
    void c.computeSizes();
    await settle();
    const id = fake.sizesCalls[1]!.requestId;
    const big = fake.sizesOf("/r/big");
    fake.sizesProgress(id, [{ ...big, done: false, largest: undefined, sizes: { ...big.sizes, diskUsage: 1 } }, fake.sizesOf("/r/small")]);
    expect(sizeText(c.snapshot().sizes.records.get("/r/big")!, "diskUsage"), "counting anew").toBe("≥ 1 B");
    c.cancelSizes();
    const after = c.snapshot().sizes.records;
    expect(after.get("/r/big"), "the earlier finished figure is back").toBe(before);
    expect(after.get("/r/small")!.requestId, "a folder the recount finished keeps the new figure").toBe(id);
  });

  it("leaving the folder stops the count; refreshing it does not", async () => {
    const fake = new FakeBackend(tree());
    const { c } = await openController(fake);
    fake.holdSizes = true;
    void c.computeSizes();
    await settle();
    await c.refresh();
    expect(c.snapshot().sizes.run, "a refresh stays in the folder").not.toBeNull();
    await c.openAsRoot("/r/small");
    expect(c.snapshot().sizes.run).toBeNull();
    expect(fake.cancelled).toContain(fake.sizesCalls[0]!.requestId);
  });

  it("a newer count supersedes an older one, whose reports are dropped", async () => {
    const fake = new FakeBackend(tree());
    const { c } = await openController(fake);
    fake.holdSizes = true;
    void c.computeSizes();
    await settle();
    void c.computeSizes("/r/big");
    await settle();
    const [first, second] = fake.sizesCalls.map((r) => r.requestId);
    expect(fake.cancelled).toContain(first);
    fake.sizesProgress(first!, [fake.sizesOf("/r")]);
    expect(c.snapshot().sizes.records.has("/r")).toBe(false);
    fake.sizesProgress(second!, [fake.sizesOf("/r/big")]);
    expect(c.snapshot().sizes.records.has("/r/big")).toBe(true);
  });

  it("sizes are remembered per folder across folders opened, and a change seen live makes the folder and every folder above stale", async () => {
    const fake = new FakeBackend(tree());
    const { c, state } = await openController(fake);
    await c.computeSizes();
    await c.openAsRoot("/r/big");
    expect(c.snapshot().sizes.records.get("/r/big/sub")?.stale).toBe(false);
    expect(ancestorsOf(state(), "/r/big/sub")).toEqual(["/", "/r", "/r/big", "/r/big/sub"]);
    fake.push({ type: "foldersChanged", folders: ["/r/big/sub"], overflow: false });
    const r = c.snapshot().sizes.records;
    expect(["/r", "/r/big", "/r/big/sub"].map((h) => r.get(h)!.stale)).toEqual([true, true, true]);
    expect(r.get("/r/small")!.stale, "a sibling did not change").toBe(false);
    expect(sizeTitle(r.get("/r/big")!, "diskUsage")).toMatch(/changed since it was counted/);
    await c.computeSizes();
    expect(c.snapshot().sizes.records.get("/r/big")!.stale, "counted anew").toBe(false);
  });

  it("an unreadable folder makes every folder above a lower bound, with the reason on hover", async () => {
    const fake = new FakeBackend(tree());
    fake.unreadable.set("/r/big/sub", "DENIED");
    const { c } = await openController(fake);
    await c.computeSizes();
    const r = c.snapshot().sizes.records;
    for (const h of ["/r", "/r/big", "/r/big/sub"]) expect(isLowerBound(r.get(h)!), h).toBe(true);
    expect(isLowerBound(r.get("/r/small")!)).toBe(false);
    expect(sizeText(r.get("/r")!, "diskUsage")).toMatch(/^≥ /);
    expect(sizeTitle(r.get("/r")!, "diskUsage")).toMatch(/1 folder not counted in full: you do not have permission.*\[DENIED\] \(e\.g\. big\/sub\)/);
  });

  it("a failure is said; the figures counted stay", async () => {
    const fake = new FakeBackend(tree());
    const { c } = await openController(fake);
    await c.computeSizes("/r/gone");
    expect(c.snapshot().notice).toMatch(/^Sizes could not be counted: NOT_FOUND/);
    expect(c.snapshot().sizes.run).toBeNull();
  });

  it("a row shows its share of its folder, in the measure chosen; a file its folder's figure for it", async () => {
    const { c } = await opened();
    await c.computeSizes();
    let s = c.snapshot().sizes;
    const big = rowSize(s, "/r/big", true, "/r")!;
    expect(big.share).toBeCloseTo(904 / 968);
    expect(big.text).toBe("904 KiB");
    const sparse = rowSize(s, "/r/sparse.img", false, "/r")!;
    expect(sparse.text, "a file's cell keeps its length").toBeNull();
    expect(sparse.title).toMatch(/^4\.0 KiB \(4,096 bytes\) disk usage/);
    expect(sparse.share).toBeCloseTo(4 / 968);
    c.setSizeMeasure("apparent");
    s = c.snapshot().sizes;
    expect(rowSize(s, "/r/sparse.img", false, "/r")!.share).toBeCloseTo(2048 / 3008);
    expect(rowSize(s, "/r/big", true, "/r")!.share).toBeCloseTo(900 / 3008);
    expect(rowSize(s, "/r/nothing", false, "/r")).toBeNull();
    expect(shareText(0.3733)).toBe("37%");
    expect(shareText(0.0123)).toBe("1.2%");
    expect(shareText(0.0000001)).toBe("<0.1%");
  });

  it("folders by size: under the size order, counted folders sort among files by their figure", async () => {
    const { c, state } = await opened();
    await c.sortBy("size");
    await c.sortBy("size"); // reversed: largest first
    await c.computeSizes();
    const names = (arrange: boolean) => {
      const s = c.snapshot();
      const flat = flatten(state(), arrange ? arrangeBySize(s.sizes, s.settings.reverse) : undefined);
      const out: string[] = [];
      for (let i = 0; i < flat.length; i++) {
        const row = flat.at(i)!;
        if (row.kind === "entry" && row.level === 1) out.push(row.node.entry.name);
      }
      return out;
    };
    expect(names(false).slice(0, 3).sort(), "the engine's order: folders first").toEqual(["big", "empty", "small"]);
    expect(names(true)).toEqual(["big", "notes.txt", "small", "sparse.img", "empty"]);
    // The engine's positions are kept for type-ahead.
    const s = c.snapshot();
    const flat = flatten(state(), arrangeBySize(s.sizes, true));
    const root = findFolder(state(), "/r")!;
    const firstFile = root.chunks[0]!.nodes.findIndex((n) => n.entry.kind === "file");
    const row = flat.at(flat.indexOfPosition("/r", firstFile))!;
    expect(row.kind === "entry" && row.node.entry.name).toBe(root.chunks[0]!.nodes[firstFile]!.entry.name);
  });

  it("picking a child in 'where the space goes' selects it in the tree, opening its folder", async () => {
    const { c, state } = await opened();
    c.collapse("/r/big");
    await c.revealEntry("/r/big/a.iso", "/r/big");
    expect(state().selected).toBe("/r/big/a.iso");
    expect(c.snapshot().revealSelection).toBe(1);
    await c.revealEntry("/r/big/elsewhere", "/r/big");
    expect(c.snapshot().notice).toMatch(/not among the ones loaded/);
  });
});

describe("sizes state", () => {
  it("drops reports of another request, and marks only what it holds stale", () => {
    let s = startRun(emptySizes(), 5, "/r", false);
    const rep = { handle: "/r", path: "", depth: 0, sizes: { diskUsage: 1, apparent: 1, files: 1, folders: 0, isLowerBound: false }, done: true };
    expect(applyProgress(s, { requestId: 4, folders: [rep], entries: 1 })).toBe(s);
    s = finishRun(s, { requestId: 5, root: rep, folders: [], entries: 1, elapsedMs: 0 });
    expect(s.records.get("/r")!.report).toBe(rep);
    expect(stopRun(s, 5)).toBe(s);
    expect(markStale(s, ["/elsewhere"])).toBe(s);
    expect(markStale(s, ["/r"]).records.get("/r")!.stale).toBe(true);
    const many = Array.from({ length: SIZES_REMEMBERED_MAX + 5 }, (_, i) => ({ ...rep, handle: `/r/${i}` }));
    const full = applyProgress(startRun(s, 7, "/r", false), { requestId: 7, folders: many, entries: 0 });
    expect(full.records.size, "bounded").toBe(SIZES_REMEMBERED_MAX);
    expect(full.records.has("/r"), "the oldest figure is forgotten first").toBe(false);
    expect(full.records.has(`/r/${SIZES_REMEMBERED_MAX + 4}`)).toBe(true);
    const cut = finishRun(startRun(s, 6, "/r", false), { requestId: 6, root: rep, folders: [], entries: 1, elapsedMs: 0, budgetCut: "BUDGET" });
    expect(cut.lastCut).toEqual({ root: "/r", code: "BUDGET" });
  });
});
