// The tree's state and its transitions: pure functions, tree in, tree out.
//
// A folder's children are kept as loaded chunks (offset + nodes) of its order,
// so a 200,000-entry root can be paged in any order and a nested folder can
// grow by "Show next 100" without reloading. The engine decides counts, order,
// kinds, what the rest is made of and what can expand; nothing here
// re-derives them, it only remembers what arrived.

import type { Entry } from "./bindings/Entry";
import type { Folder } from "./bindings/Folder";
import type { KindCounts } from "./bindings/KindCounts";
import type { Listing } from "./bindings/Listing";
import type { ListSettings } from "./bindings/ListSettings";
import type { RestGroup } from "./bindings/RestGroup";
import type { Capabilities } from "./bindings/Capabilities";
import type { Crumb } from "./bindings/Crumb";
import type { CanopyError } from "./bindings/CanopyError";

export interface TreeNode {
  /** The entry as the engine sent it, without its folder contents. */
  readonly entry: Entry;
  /** The node's children, once read (folders, and symlinks to folders once expanded). */
  readonly folder: FolderState | null;
  readonly expanded: boolean;
}

export interface Chunk {
  readonly offset: number;
  readonly nodes: readonly TreeNode[];
}

export interface FolderState {
  readonly handle: string;
  /** Entries in the folder; null when it has not been read. */
  readonly total: number | null;
  readonly lowerBound: boolean;
  readonly partialOrder: boolean;
  /** Under the size or modified order: entries the engine placed by their value (of `total`). */
  readonly checked: number | null;
  /** The folder's entries by kind, as the engine counted them. */
  readonly kinds: KindCounts;
  /** What the entries after the loaded run are, by group, as the engine counted them. */
  readonly rest: readonly RestGroup[];
  readonly dotfilesHidden: number;
  /** Entries the ignore rules hid ("Hide ignored"). */
  readonly ignoredHidden: number;
  /** The filter this folder is listed with; `total` is then the match count. */
  readonly filter: string | null;
  /** With a filter: the folder's own count. */
  readonly unfilteredTotal: number | null;
  /** With a filter: the folder as it was before, restored when the filter is cleared. */
  readonly beforeFilter: FolderState | null;
  /** Loaded entries, sorted by offset, not overlapping. */
  readonly chunks: readonly Chunk[];
  /** All entries are reachable by scrolling (the root always; a folder after "Show all"). */
  readonly showAll: boolean;
  /** Its total changed between two pages; its pages were reloaded. */
  readonly changed: boolean;
  /** A request for this folder is in flight. */
  readonly loading: boolean;
  /** The error on the folder's own read (TIMEOUT, DENIED...), if any. */
  readonly error: CanopyError | null;
  /** The engine's cursor for the entries after position `at` ("Show next"). */
  readonly cursor: { readonly at: number; readonly after: string } | null;
}

export interface TreeState {
  readonly path: string;
  readonly crumbs: readonly Crumb[];
  /** What can be done there besides reading it, as the engine says (each `null` when available, else why not). */
  readonly capabilities: Capabilities;
  /** The server the folder is on (`user@host:port`); null on this machine. */
  readonly server: string | null;
  readonly rootEntry: Entry;
  readonly root: FolderState;
  /** The settings the root was listed under. */
  readonly settings: ListSettings;
  readonly selected: string | null;
}

const NO_COUNTS: KindCounts = { folders: 0, files: 0, other: 0 };

/** What a reply says of its folder's counts, as state. */
function countsOf(f: Folder) {
  return {
    total: f.total,
    lowerBound: f.countIsLowerBound,
    partialOrder: f.partialOrder,
    checked: f.checked ?? null,
    kinds: f.kinds,
    dotfilesHidden: f.dotfilesHidden,
    ignoredHidden: f.ignoredHidden ?? 0,
    unfilteredTotal: f.unfilteredTotal ?? null,
  };
}

function stripFolder(e: Entry): Entry {
  if (e.folder === undefined) return e;
  const { folder: _dropped, ...rest } = e;
  return rest;
}

/** A wire folder (and everything read below it) as state. */
export function folderFromWire(handle: string, f: Folder, error: CanopyError | null, showAll: boolean): FolderState {
  return {
    handle,
    ...countsOf(f),
    rest: f.rest ?? [],
    filter: null,
    beforeFilter: null,
    chunks: f.childrenLoaded && f.entries.length > 0 ? [{ offset: f.offset, nodes: f.entries.map(nodeFromWire) }] : [],
    showAll,
    changed: false,
    loading: false,
    error,
    cursor: null,
  };
}

/** Where a reply's cursor continues from: the end of its page. */
function cursorOf(f: Folder, nextCursor: string | undefined): FolderState["cursor"] {
  return nextCursor ? { at: f.offset + f.entries.length, after: nextCursor } : null;
}

export function nodeFromWire(e: Entry): TreeNode {
  const read = e.folder !== undefined && e.folder.childrenLoaded;
  return {
    entry: stripFolder(e),
    folder: read && e.folder ? folderFromWire(e.handle, e.folder, e.error ?? null, false) : null,
    // Folders the listing read within its depth are shown open, as the engine gave them.
    expanded: read,
  };
}

export function treeFromListing(l: Listing, selected: string | null = null): TreeState {
  const rootFolder = l.root.folder;
  const root: FolderState = rootFolder
    ? { ...folderFromWire(l.root.handle, rootFolder, l.root.error ?? null, true), cursor: cursorOf(rootFolder, l.nextCursor) }
    : emptyFolder(l.root.handle);
  return {
    path: l.path,
    crumbs: l.crumbs,
    capabilities: l.capabilities,
    server: l.server,
    rootEntry: stripFolder(l.root),
    root,
    settings: l.settings,
    selected,
  };
}

function emptyFolder(handle: string): FolderState {
  return {
    handle,
    total: null,
    lowerBound: false,
    partialOrder: false,
    checked: null,
    kinds: NO_COUNTS,
    rest: [],
    dotfilesHidden: 0,
    ignoredHidden: 0,
    filter: null,
    unfilteredTotal: null,
    beforeFilter: null,
    chunks: [],
    showAll: false,
    changed: false,
    loading: false,
    error: null,
    cursor: null,
  };
}

export function loadedCount(f: FolderState): number {
  let n = 0;
  for (const c of f.chunks) n += c.nodes.length;
  return n;
}

/** Entries of a folder that are neither loaded nor reachable: the badge's number. */
export function hiddenCount(f: FolderState): number {
  if (f.total === null) return 0;
  return Math.max(0, f.total - loadedCount(f));
}

/** True when every entry of the folder is loaded. */
export function isComplete(f: FolderState): boolean {
  return f.total !== null && !f.lowerBound && loadedCount(f) >= f.total;
}

/** Offset for "Show next": the end of the leading contiguous run of loaded entries. */
export function contiguousEnd(f: FolderState): number {
  return runEnd(f.chunks);
}

/** The end of the run of loaded entries that starts at 0 (0 when none does). */
function runEnd(chunks: readonly Chunk[]): number {
  let end = 0;
  for (const c of chunks) {
    if (c.offset > end) break;
    end = Math.max(end, c.offset + c.nodes.length);
  }
  return end;
}

/** True when the entry at `pos` of the folder is loaded. */
export function isLoadedAt(f: FolderState, pos: number): boolean {
  return f.chunks.some((c) => pos >= c.offset && pos < c.offset + c.nodes.length);
}

/** The first loaded position after `pos` (the folder's total, or `pos`, when none is). */
export function nextLoadedAfter(f: FolderState, pos: number): number {
  let next = f.total ?? pos;
  for (const c of f.chunks) if (c.offset > pos && c.offset < next) next = c.offset;
  return next;
}

// ---- finding and rebuilding along a path -------------------------------

/** Applies `fn` to the folder with `handle` (root or nested), sharing everything else. */
export function updateFolder(state: TreeState, handle: string, fn: (f: FolderState) => FolderState): TreeState {
  const root = mapFolder(state.root, handle, fn);
  return root === state.root ? state : { ...state, root };
}

/**
 * Applies `fn` to every loaded node of `f`, copying only the chunks (and
 * the folder) where a node changed: `f` itself when none did.
 */
function mapChildren(f: FolderState, fn: (n: TreeNode) => TreeNode): FolderState {
  let changedChunks: Chunk[] | null = null;
  f.chunks.forEach((c, ci) => {
    let nodes: TreeNode[] | null = null;
    c.nodes.forEach((n, ni) => {
      const next = fn(n);
      if (next !== n) {
        nodes ??= c.nodes.slice();
        nodes[ni] = next;
      }
    });
    if (nodes) {
      changedChunks ??= f.chunks.slice();
      changedChunks[ci] = { offset: c.offset, nodes };
    }
  });
  return changedChunks ? { ...f, chunks: changedChunks } : f;
}

/** `n` with its folder replaced by `fn(folder)`; `n` itself when that changed nothing. */
function withFolder(n: TreeNode, fn: (f: FolderState) => FolderState): TreeNode {
  if (!n.folder) return n;
  const nf = fn(n.folder);
  return nf === n.folder ? n : { ...n, folder: nf };
}

function mapFolder(f: FolderState, handle: string, fn: (f: FolderState) => FolderState): FolderState {
  if (f.handle === handle) return fn(f);
  return mapChildren(f, (n) => withFolder(n, (nf) => mapFolder(nf, handle, fn)));
}

/** Applies `fn` to the node with `handle`, wherever it is loaded. */
export function updateNode(state: TreeState, handle: string, fn: (n: TreeNode) => TreeNode): TreeState {
  const root = mapNode(state.root, handle, fn);
  return root === state.root ? state : { ...state, root };
}

function mapNode(f: FolderState, handle: string, fn: (n: TreeNode) => TreeNode): FolderState {
  return mapChildren(f, (n) => (n.entry.handle === handle ? fn(n) : withFolder(n, (nf) => mapNode(nf, handle, fn))));
}

export function findFolder(state: TreeState, handle: string): FolderState | null {
  const visit = (f: FolderState): FolderState | null => {
    if (f.handle === handle) return f;
    for (const c of f.chunks)
      for (const n of c.nodes)
        if (n.folder) {
          const hit = visit(n.folder);
          if (hit) return hit;
        }
    return null;
  };
  return visit(state.root);
}

export interface Located {
  node: TreeNode;
  /** The folder holding the node. */
  parent: FolderState;
  /** The node's position in its parent's order. */
  index: number;
  /** Level of the node (the root's entries are 1). */
  level: number;
}

export function findNode(state: TreeState, handle: string): Located | null {
  const visit = (f: FolderState, level: number): Located | null => {
    for (const c of f.chunks)
      for (let i = 0; i < c.nodes.length; i++) {
        const n = c.nodes[i]!;
        if (n.entry.handle === handle) return { node: n, parent: f, index: c.offset + i, level };
        if (n.folder) {
          const hit = visit(n.folder, level + 1);
          if (hit) return hit;
        }
      }
    return null;
  };
  return visit(state.root, 1);
}

// ---- transitions --------------------------------------------------------

export function select(state: TreeState, handle: string | null): TreeState {
  return state.selected === handle ? state : { ...state, selected: handle };
}

export function setExpanded(state: TreeState, handle: string, expanded: boolean): TreeState {
  return updateNode(state, handle, (n) => (n.expanded === expanded ? n : { ...n, expanded }));
}

export function setLoading(state: TreeState, folderHandle: string, loading: boolean): TreeState {
  return updateFolder(state, folderHandle, (f) => (f.loading === loading ? f : { ...f, loading }));
}

export function setShowAll(state: TreeState, folderHandle: string): TreeState {
  return updateFolder(state, folderHandle, (f) => (f.showAll ? f : { ...f, showAll: true }));
}

/** Gives a node its first read children (a folder at the depth limit, a symlink to a folder). */
export function attachChildren(state: TreeState, nodeHandle: string, l: Listing): TreeState {
  const wire = l.root.folder;
  if (!wire) return state;
  // A folder the request budget left unread is read now: its BUDGET mark goes.
  return updateNode(state, nodeHandle, (n) => ({
    ...n,
    entry: n.entry.error?.code === "BUDGET" ? withoutError(n.entry) : n.entry,
    folder: { ...folderFromWire(n.entry.handle, wire, l.root.error ?? null, false), cursor: cursorOf(wire, l.nextCursor) },
    expanded: true,
  }));
}

function withoutError(e: Entry): Entry {
  const { error: _cleared, ...rest } = e;
  return rest;
}

/** Records an error on a node (e.g. expanding it failed with DENIED). */
export function setNodeError(state: TreeState, nodeHandle: string, error: CanopyError): TreeState {
  return updateNode(state, nodeHandle, (n) => ({ ...n, entry: { ...n.entry, error } }));
}

export interface PageMerge {
  state: TreeState;
  /** The folder's total differs from what an earlier page said: reload its pages. */
  totalChanged: boolean;
}

function insertChunk(chunks: readonly Chunk[], chunk: Chunk): Chunk[] {
  const start = chunk.offset;
  const end = chunk.offset + chunk.nodes.length;
  // Drop or trim what the new chunk covers; keep the rest in order.
  const out: Chunk[] = [];
  for (const c of chunks) {
    const cs = c.offset;
    const ce = c.offset + c.nodes.length;
    if (ce <= start || cs >= end) {
      out.push(c);
      continue;
    }
    if (cs < start) out.push({ offset: cs, nodes: c.nodes.slice(0, start - cs) });
    if (ce > end) out.push({ offset: end, nodes: c.nodes.slice(end - cs) });
  }
  out.push(chunk);
  out.sort((a, b) => a.offset - b.offset);
  return out;
}

/** True when the page `wire` ends the run of loaded entries that starts at 0. */
function endsLoadedRun(chunks: readonly Chunk[], wire: Folder): boolean {
  return runEnd(chunks) === wire.offset + wire.entries.length;
}

function covers(f: Folder, position: number): boolean {
  return position >= f.offset && position <= f.offset + f.entries.length;
}

/** The loaded nodes of a folder by handle (what a re-read keeps of them is up to the caller). */
function nodesByHandle(f: FolderState): Map<string, TreeNode> {
  const out = new Map<string, TreeNode>();
  for (const c of f.chunks) for (const n of c.nodes) out.set(n.entry.handle, n);
  return out;
}

/** Merges one page of a folder (a targeted sub-query's reply) into the tree in place. */
export function mergePage(state: TreeState, folderHandle: string, l: Listing): PageMerge {
  const wire = l.root.folder;
  if (!wire) return { state, totalChanged: false };
  let totalChanged = false;
  const next = updateFolder(state, folderHandle, (f) => {
    if (f.total !== null && wire.total !== f.total && !wire.countIsLowerBound && !f.lowerBound) {
      totalChanged = true;
      // What was loaded no longer lines up with the folder: start over from this page.
      return {
        ...f,
        ...countsOf(wire),
        rest: wire.rest ?? [],
        chunks: [{ offset: wire.offset, nodes: wire.entries.map(nodeFromWire) }],
        changed: true,
        loading: false,
        error: l.root.error ?? null,
        cursor: cursorOf(wire, l.nextCursor),
      };
    }
    // Keep expansions the user made inside nodes that are reloaded.
    const previous = nodesByHandle(f);
    const nodes = wire.entries.map((e: Entry) => {
      const fresh = nodeFromWire(e);
      const old = previous.get(e.handle);
      if (old && old.folder && !fresh.folder) return { ...fresh, folder: old.folder, expanded: old.expanded };
      if (old && fresh.folder) return { ...fresh, expanded: old.expanded };
      return fresh;
    });
    const chunks = insertChunk(f.chunks, { offset: wire.offset, nodes });
    return {
      ...f,
      ...countsOf(wire),
      // What follows the loaded run: the reply that ends it says.
      rest: endsLoadedRun(chunks, wire) ? (wire.rest ?? []) : f.rest,
      chunks,
      loading: false,
      error: l.root.error ?? f.error,
      // A page ending where the old cursor pointed replaces it (or ends the folder).
      cursor: cursorOf(wire, l.nextCursor) ?? (f.cursor && !covers(wire, f.cursor.at) ? f.cursor : null),
    };
  });
  return { state: next, totalChanged };
}

// ---- the flattened, visible rows ----------------------------------------

export type Row =
  | {
      readonly kind: "entry";
      readonly node: TreeNode;
      readonly parent: FolderState;
      readonly level: number;
      /** 1-based position among its folder's rows as shown. */
      readonly posinset: number;
      readonly setsize: number;
      /** 0-based position in the engine's order of its folder (differs from posinset - 1 when the folder is arranged). */
      readonly position: number;
    }
  | {
      readonly kind: "placeholder";
      readonly parent: FolderState;
      readonly level: number;
      readonly posinset: number;
      readonly setsize: number;
    };

interface Segment {
  /** Index of the segment's first row in the flat list. */
  start: number;
  rows: Row[] | null;
  gap: { parent: FolderState; level: number; from: number; count: number; setsize: number } | null;
}

/**
 * The visible rows of a tree as a flat list, without materializing rows for
 * entries not loaded yet: runs of them are gap segments, one object each.
 */
export class FlatView {
  readonly length: number;
  private readonly segments: Segment[];

  constructor(segments: Segment[], length: number) {
    this.segments = segments;
    this.length = length;
  }

  at(index: number): Row | null {
    if (index < 0 || index >= this.length) return null;
    let lo = 0;
    let hi = this.segments.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.segments[mid]!.start <= index) lo = mid;
      else hi = mid - 1;
    }
    const seg = this.segments[lo]!;
    const k = index - seg.start;
    if (seg.rows) return seg.rows[k] ?? null;
    const g = seg.gap!;
    return { kind: "placeholder", parent: g.parent, level: g.level, posinset: g.from + k + 1, setsize: g.setsize };
  }

  /** Index of the loaded row for `handle`, or -1. */
  indexOf(handle: string): number {
    for (const seg of this.segments) {
      if (!seg.rows) continue;
      const k = seg.rows.findIndex((r) => r.kind === "entry" && r.node.entry.handle === handle);
      if (k >= 0) return seg.start + k;
    }
    return -1;
  }

  /** Index of the row at `position` of the folder `parentHandle` (loaded or not), or -1. */
  indexOfPosition(parentHandle: string, position: number): number {
    for (const seg of this.segments) {
      if (seg.gap) {
        const g = seg.gap;
        if (g.parent.handle === parentHandle && position >= g.from && position < g.from + g.count)
          return seg.start + position - g.from;
      } else if (seg.rows) {
        const k = seg.rows.findIndex((r) => r.parent.handle === parentHandle && (r.kind === "entry" ? r.position === position : r.posinset === position + 1));
        if (k >= 0) return seg.start + k;
      }
    }
    return -1;
  }
}

/**
 * A folder's loaded entries in another order than the engine's, or null to
 * keep the engine's (see sizes-state.ts `arrangeBySize`). Only a folder
 * whose entries are all loaded may be arranged.
 */
export type Arrange = (f: FolderState) => readonly TreeNode[] | null;

/**
 * Flattens the tree's visible rows (expanded folders' children, in order).
 * With `arrange`, a folder it arranges shows its entries in that order,
 * each row's position (`posinset`) the shown one and `position` its place
 * in the engine's order.
 */
export function flatten(state: TreeState, arrange?: Arrange): FlatView {
  const segments: Segment[] = [];
  let length = 0;
  let rows: Row[] = [];
  const flushRows = () => {
    if (rows.length) {
      segments.push({ start: length - rows.length, rows, gap: null });
      rows = [];
    }
  };
  const pushGap = (parent: FolderState, level: number, from: number, count: number, setsize: number) => {
    if (count <= 0) return;
    flushRows();
    segments.push({ start: length, rows: null, gap: { parent, level, from, count, setsize } });
    length += count;
  };
  const visit = (f: FolderState, level: number) => {
    const setsize = f.total ?? loadedCount(f);
    const arranged = arrange && isComplete(f) ? arrange(f) : null;
    if (arranged) {
      const position = new Map<TreeNode, number>();
      for (const c of f.chunks) c.nodes.forEach((n, i) => position.set(n, c.offset + i));
      arranged.forEach((node, i) => {
        rows.push({ kind: "entry", node, parent: f, level, posinset: i + 1, setsize, position: position.get(node) ?? i });
        length++;
        if (node.expanded && node.folder) visit(node.folder, level + 1);
      });
      return;
    }
    let pos = 0;
    for (const c of f.chunks) {
      if (f.showAll) pushGap(f, level, pos, c.offset - pos, setsize);
      pos = c.offset;
      for (const node of c.nodes) {
        rows.push({ kind: "entry", node, parent: f, level, posinset: pos + 1, setsize, position: pos });
        length++;
        pos++;
        if (node.expanded && node.folder) visit(node.folder, level + 1);
      }
    }
    if (f.showAll && f.total !== null) pushGap(f, level, pos, f.total - pos, setsize);
  };
  visit(state.root, 1);
  flushRows();
  return new FlatView(segments, length);
}

// ---- live refresh and restore ---------------------------------------------

/** Handles of the expanded, read folders, in tree order (a collapsed folder's expanded children included). */
export function expandedFolders(state: TreeState): string[] {
  const out: string[] = [];
  const visit = (f: FolderState) => {
    for (const c of f.chunks)
      for (const n of c.nodes)
        if (n.folder) {
          if (n.expanded) out.push(n.folder.handle);
          visit(n.folder);
        }
  };
  visit(state.root);
  return out;
}

/**
 * A folder re-read after it changed on disk: its loaded range is replaced by
 * `pages` (replies for this folder alone, at depth 1, in offset order).
 * Entries that were there before keep what was read below them and whether
 * they were expanded; new entries arrive collapsed. Nothing outside the
 * folder changes.
 */
export function refreshFolder(state: TreeState, folderHandle: string, pages: readonly Listing[]): TreeState {
  const last = pages[pages.length - 1]?.root;
  const wire = last?.folder;
  if (!wire) return state;
  return updateFolder(state, folderHandle, (f) => {
    const previous = nodesByHandle(f);
    let chunks: Chunk[] = [];
    for (const page of pages) {
      const pf = page.root.folder;
      if (!pf || pf.entries.length === 0) continue;
      const nodes = pf.entries.map((e: Entry) => {
        const fresh = nodeFromWire(e);
        const old = previous.get(e.handle);
        if (!old) return fresh;
        return { ...fresh, folder: old.folder ?? fresh.folder, expanded: old.expanded };
      });
      chunks = insertChunk(chunks, { offset: pf.offset, nodes });
    }
    let rest = f.rest;
    for (const page of pages) if (page.root.folder && endsLoadedRun(chunks, page.root.folder)) rest = page.root.folder.rest ?? [];
    return {
      ...f,
      ...countsOf(wire),
      rest,
      chunks,
      changed: false,
      loading: false,
      error: last.error ?? null,
    };
  });
}

/** Collapses every expanded folder (under `under`, or anywhere) whose handle is not in `keep`. */
export function collapseExcept(state: TreeState, keep: ReadonlySet<string>, under: string | null = null): TreeState {
  const visit = (f: FolderState, inside: boolean): FolderState =>
    mapChildren(f, (n) => {
      if (!n.folder) return n;
      const here = inside || n.entry.handle === under;
      const next = withFolder(n, (nf) => visit(nf, here));
      if (here && n.entry.handle !== under && n.expanded && !keep.has(n.folder.handle)) return { ...next, expanded: false };
      return next;
    });
  const root = visit(state.root, under === null || under === state.root.handle);
  return root === state.root ? state : { ...state, root };
}

/** The loaded ranges of a folder as [offset, end) pairs, merged where they touch. */
export function loadedRanges(f: FolderState): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const c of f.chunks) {
    const end = c.offset + c.nodes.length;
    const prev = out[out.length - 1];
    if (prev && c.offset <= prev[1]) prev[1] = Math.max(prev[1], end);
    else out.push([c.offset, end]);
  }
  return out;
}

// ---- filters ---------------------------------------------------------------

/** The filtered folders of a tree and their filters, in tree order. */
export function filteredFolders(t: TreeState): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const visit = (f: FolderState) => {
    if (f.filter) out.push([f.handle, f.filter]);
    for (const c of f.chunks) for (const n of c.nodes) if (n.folder) visit(n.folder);
  };
  visit(t.root);
  return out;
}

/**
 * A folder listed with a filter: its loaded entries become the reply's
 * matches (entries seen before keep what was read below them and whether
 * they were open), and the folder as it was is kept to come back to.
 */
export function applyFilter(state: TreeState, folderHandle: string, filter: string, l: Listing): TreeState {
  const wire = l.root.folder;
  if (!wire) return state;
  return updateFolder(state, folderHandle, (f) => {
    const before = f.beforeFilter ?? f;
    const previous = nodesByHandle(before);
    const fresh = folderFromWire(f.handle, wire, l.root.error ?? null, f.showAll);
    const chunks = fresh.chunks.map((c) => ({
      offset: c.offset,
      nodes: c.nodes.map((n) => {
        const old = previous.get(n.entry.handle);
        return old ? { ...n, folder: old.folder ?? n.folder, expanded: old.expanded } : n;
      }),
    }));
    return { ...fresh, chunks, filter, beforeFilter: before, cursor: cursorOf(wire, l.nextCursor) };
  });
}

/** Clears a folder's filter: the folder comes back as it was, its expansion below kept. */
export function clearFilter(state: TreeState, folderHandle: string): TreeState {
  return updateFolder(state, folderHandle, (f) => (f.beforeFilter ? { ...f.beforeFilter, loading: false } : f));
}

// ---- folder sizes ------------------------------------------------------------

/**
 * The folder `handle` and every folder above it: the tree's folders down to
 * it, and the root's own ancestors (its crumbs). Empty when it is not in
 * the tree.
 */
export function ancestorsOf(state: TreeState, handle: string): string[] {
  const above = state.crumbs.map((c) => c.handle);
  if (!above.includes(state.root.handle)) above.push(state.root.handle);
  if (handle === state.root.handle) return above;
  const chain: string[] = [];
  const visit = (f: FolderState): boolean => {
    for (const c of f.chunks)
      for (const n of c.nodes) {
        if (!n.folder) continue;
        chain.push(n.folder.handle);
        if (n.folder.handle === handle || visit(n.folder)) return true;
        chain.pop();
      }
    return false;
  };
  return visit(state.root) ? [...above, ...chain] : [];
}

/**
 * The folders shown below the folder `handle` (the root or a read folder),
 * in tree order, at most `max`: its own loaded folders (even while it is
 * collapsed: a count shows them when it is opened), and those of each
 * expanded one below. What a count of sizes names for figures: the engine
 * keeps only those, however many folders lie below.
 */
export function shownFoldersBelow(state: TreeState, handle: string, max: number): string[] {
  const out: string[] = [];
  const visit = (f: FolderState): void => {
    for (const c of f.chunks)
      for (const n of c.nodes) {
        if (out.length >= max) return;
        if (n.entry.kind !== "folder") continue;
        out.push(n.entry.handle);
        if (n.expanded && n.folder) visit(n.folder);
      }
  };
  const f = findFolder(state, handle);
  if (f) visit(f);
  return out;
}

