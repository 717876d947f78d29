import { describe, expect, it } from "vitest";
import type { Listing } from "./bindings/Listing";
import type { Entry } from "./bindings/Entry";
import { flatten, hiddenCount, hiddenKinds, mergePage, setExpanded, treeFromListing, findFolder } from "./tree-state";

function file(name: string): Entry {
  return { name, handle: `/r/${name}`, kind: "file" };
}

function listing(total: number, offset: number, names: string[], extra: Partial<Listing> = {}): Listing {
  return {
    requestId: 1,
    path: "/r",
    crumbs: [{ name: "/", handle: "/" }, { name: "r", handle: "/r" }],
    depth: 2,
    showDotfiles: true,
    root: {
      name: "r",
      handle: "/r",
      kind: "folder",
      folder: {
        total,
        childrenLoaded: true,
        offset,
        entries: names.map(file),
        unlisted: { folders: 0, files: total - names.length, other: 0 },
        dotfilesHidden: 0,
        countIsLowerBound: false,
        partialOrder: false,
      },
    },
    ...extra,
  };
}

describe("tree state", () => {
  it("a 200,000-entry root flattens to its total, with unloaded rows as placeholders", () => {
    const s = treeFromListing(listing(200_000, 0, ["a", "b", "c"]));
    const flat = flatten(s);
    expect(flat.length).toBe(200_000);
    expect(flat.at(0)).toMatchObject({ kind: "entry", posinset: 1, setsize: 200_000 });
    expect(flat.at(3)).toMatchObject({ kind: "placeholder", posinset: 4, setsize: 200_000, level: 1 });
    expect(flat.at(199_999)).toMatchObject({ kind: "placeholder", posinset: 200_000 });
    expect(flat.at(200_000)).toBeNull();
  });

  it("pages merge in order wherever they land, and overlaps are replaced", () => {
    let s = treeFromListing(listing(10, 0, ["a", "b"]));
    s = mergePage(s, "/r", listing(10, 8, ["i", "j"])).state;
    s = mergePage(s, "/r", listing(10, 1, ["B2", "c"])).state;
    const flat = flatten(s);
    const seen = Array.from({ length: flat.length }, (_, i) => {
      const r = flat.at(i)!;
      return r.kind === "entry" ? r.node.entry.name : "_";
    });
    expect(seen).toEqual(["a", "B2", "c", "_", "_", "_", "_", "_", "i", "j"]);
  });

  it("a changed total is reported and resets what was loaded", () => {
    const s = treeFromListing(listing(10, 0, ["a", "b"]));
    const m = mergePage(s, "/r", listing(11, 2, ["c", "d"]));
    expect(m.totalChanged).toBe(true);
    expect(findFolder(m.state, "/r")!.changed).toBe(true);
  });

  it("hidden counts come from the engine's totals by kind", () => {
    const s = treeFromListing(listing(552, 0, ["a", "b"]));
    const f = findFolder(s, "/r")!;
    expect(hiddenCount(f)).toBe(550);
    expect(hiddenKinds(f)).toEqual({ folders: 0, files: 550, other: 0 });
  });

  it("collapsing hides a folder's rows without forgetting them", () => {
    const l = listing(1, 0, []);
    l.root.folder!.entries = [
      {
        name: "sub",
        handle: "/r/sub",
        kind: "folder",
        folder: { ...l.root.folder!, total: 2, entries: [file("x"), file("y")], unlisted: { folders: 0, files: 0, other: 0 } },
      },
    ];
    let s = treeFromListing(l);
    expect(flatten(s).length).toBe(3);
    s = setExpanded(s, "/r/sub", false);
    expect(flatten(s).length).toBe(1);
    s = setExpanded(s, "/r/sub", true);
    expect(flatten(s).length).toBe(3);
    expect(flatten(s).at(1)).toMatchObject({ level: 2, posinset: 1, setsize: 2 });
  });
});
