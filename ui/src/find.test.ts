import { describe, expect, it } from "vitest";
import type { FindCounts } from "./bindings/FindCounts";
import type { FindHit } from "./bindings/FindHit";
import { addProgress, closedFind, failFind, finishFind, startFind, stopFind } from "./find-state";
import { findSummary } from "./view/find-words";

const counts = (c: Partial<FindCounts> = {}): FindCounts => ({ names: 0, files: 0, lines: 0, searchedFiles: 0, folders: 0, bytes: 0, binary: 0, ignored: 0, failed: 0, ...c });
const hit = (name: string): FindHit => ({ name, folder: "", handle: `h:${name}`, kind: "file" });

describe("find state", () => {
  it("appends the running search's hits in the order they came", () => {
    let s = startFind("x", true, 5);
    s = addProgress(s, { requestId: 5, hits: [hit("a"), hit("b")], counts: counts({ names: 2 }) });
    s = addProgress(s, { requestId: 5, hits: [hit("c")], counts: counts({ names: 3 }) });
    expect(s.hits.map((h) => h.name)).toEqual(["a", "b", "c"]);
    expect(s.counts?.names).toBe(3);
  });

  it("drops what a superseded or stopped search still sends", () => {
    const first = startFind("x", true, 5);
    let s = startFind("xy", true, 6);
    s = addProgress(s, { requestId: 5, hits: [hit("stale")], counts: counts({ names: 9 }) });
    expect(s.hits).toEqual([]);
    expect(finishFind(s, 5, { counts: counts({ names: 9 }), more: false, problems: [] })).toBe(s);
    let stopped = stopFind(addProgress(first, { requestId: 5, hits: [hit("kept")], counts: counts({ names: 1 }) }));
    stopped = addProgress(stopped, { requestId: 5, hits: [hit("late")], counts: counts({ names: 2 }) });
    expect(stopped.hits.map((h) => h.name)).toEqual(["kept"]);
    expect(stopped.stopped && stopped.running === null).toBe(true);
  });

  it("a new search starts with no hits and a new id", () => {
    const a = addProgress(startFind("x", false, 1), { requestId: 1, hits: [hit("a")], counts: counts() });
    const b = startFind("y", false, 2);
    expect(b.hits).toEqual([]);
    expect(b.search).not.toBe(a.search);
  });

  it("a failed search says its code", () => {
    const s = failFind(startFind("x", true, 3), 3, { code: "NOT_FOUND", message: "gone" });
    expect(findSummary(s)).toBe("Find failed: NOT_FOUND: gone");
  });
});

describe("find words", () => {
  it("says files and lines found, files searched and what Hide ignored hid, with the engine's figures", () => {
    let s = startFind("needle", true, 1);
    s = finishFind(s, 1, { counts: counts({ names: 2, files: 38, lines: 112, searchedFiles: 4210, ignored: 30 }), more: false, problems: [] });
    expect(findSummary(s)).toBe("2 names · 38 files, 112 lines; 4,210 files searched · 30 hidden by Hide ignored");
  });

  it("says while it runs, and when it was stopped or cut", () => {
    let s = startFind("needle", false, 1);
    expect(findSummary(s)).toBe("Finding…");
    s = addProgress(s, { requestId: 1, hits: [], counts: counts({ searchedFiles: 10 }) });
    expect(findSummary(s)).toBe("Finding… nothing yet; 10 files searched");
    expect(findSummary(stopFind(s))).toBe("Stopped: nothing found; 10 files searched");
    const cut = finishFind(s, 1, { counts: counts({ names: 1, searchedFiles: 10 }), more: true, cut: "the budget was spent", problems: [] });
    expect(findSummary(cut)).toContain("stopped early: the budget was spent");
  });

  it("closed is quiet", () => {
    expect(findSummary(closedFind)).toBe("");
  });
});
