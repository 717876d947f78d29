import { describe, expect, it } from "vitest";
import type { Listing } from "./bindings/Listing";
import type { Entry } from "./bindings/Entry";
import { applyFilter, clearFilter, collapseExcept, flatten, hiddenCount, mergePage, setExpanded, treeFromListing, findFolder, findNode, type TreeState } from "./tree-state";

/** A local folder's capabilities: everything available. */
const ON_THIS_MACHINE = { openWithDesktop: null, reveal: null, watch: null, renderMedia: null, readArchives: null, fileFacts: null, copyPath: null };

function file(name: string): Entry {
  return { name, handle: `/r/${name}`, kind: "file" };
}

function listing(total: number, offset: number, names: string[], extra: Partial<Listing> = {}): Listing {
  return {
    requestId: 1,
    path: "/r",
    crumbs: [{ name: "/", handle: "/" }, { name: "r", handle: "/r" }],
    capabilities: ON_THIS_MACHINE,
    server: null,
    settings: { depth: 2, cap: 100, limit: 500, showDotfiles: true, sort: "name", reverse: false, hideIgnored: false },
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
        kinds: { folders: 0, files: total, other: 0 },
        rest: total > offset + names.length ? [{ group: "extension", extension: "txt", count: total - offset - names.length }] : [],
        dotfilesHidden: 0,
        countIsLowerBound: false,
        partialOrder: false,
      },
    },
    ...extra,
  };
}

/** A folder entry read with its children (shown expanded, as the engine gave it). */
function folderEntry(handle: string, children: Entry[]): Entry {
  return {
    name: handle.slice(handle.lastIndexOf("/") + 1),
    handle,
    kind: "folder",
    canExpand: true,
    folder: {
      total: children.length,
      childrenLoaded: true,
      offset: 0,
      entries: children,
      unlisted: { folders: 0, files: 0, other: 0 },
      kinds: { folders: children.length, files: 0, other: 0 },
      dotfilesHidden: 0,
      countIsLowerBound: false,
      partialOrder: false,
    },
  };
}

describe("tree state", () => {
  it("collapseExcept closes the open folders under one folder that are not kept, and nothing else", () => {
    const tree = (): TreeState => {
      const l = listing(2, 0, []);
      l.root.folder!.entries = [folderEntry("/r/A", [folderEntry("/r/A/A1", [file("f")])]), folderEntry("/r/B", [folderEntry("/r/B/B1", [])])];
      return treeFromListing(l);
    };
    const open = (s: TreeState) => ["/r/A", "/r/A/A1", "/r/B", "/r/B/B1"].filter((h) => findNode(s, h)?.node.expanded);
    const s = tree();
    expect(open(s)).toEqual(["/r/A", "/r/A/A1", "/r/B", "/r/B/B1"]);
    expect(collapseExcept(s, new Set(["/r/A/A1"]), "/r/A"), "nothing to close: the same state").toBe(s);
    expect(open(collapseExcept(s, new Set(), "/r/A")), "A itself stays open; B's side is untouched").toEqual(["/r/A", "/r/B", "/r/B/B1"]);
    expect(open(collapseExcept(s, new Set(["/r/B"]))), "anywhere: only the kept stay open").toEqual(["/r/B"]);
  });

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

  it("hidden counts and what the rest is made of come from the engine", () => {
    const s = treeFromListing(listing(552, 0, ["a", "b"]));
    const f = findFolder(s, "/r")!;
    expect(hiddenCount(f)).toBe(550);
    expect(f.kinds).toEqual({ folders: 0, files: 552, other: 0 });
    expect(f.rest).toEqual([{ group: "extension", extension: "txt", count: 550 }]);
    // A page that extends the loaded run brings what follows it; one further on does not.
    const next = mergePage(s, "/r", listing(552, 2, ["c", "d"])).state;
    expect(findFolder(next, "/r")!.rest).toEqual([{ group: "extension", extension: "txt", count: 548 }]);
    const far = mergePage(next, "/r", listing(552, 300, ["x"])).state;
    expect(findFolder(far, "/r")!.rest).toEqual([{ group: "extension", extension: "txt", count: 548 }]);
  });

  it("a filtered folder shows its matches and comes back as it was when cleared", () => {
    const s = treeFromListing(listing(552, 0, ["a", "b"]));
    const filtered = applyFilter(s, "/r", "b", listing(1, 0, ["b"]));
    const f = findFolder(filtered, "/r")!;
    expect([f.filter, f.total, f.chunks[0]!.nodes.map((n) => n.entry.name)]).toEqual(["b", 1, ["b"]]);
    const back = clearFilter(filtered, "/r");
    expect(findFolder(back, "/r")).toEqual({ ...findFolder(s, "/r")!, loading: false });
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
