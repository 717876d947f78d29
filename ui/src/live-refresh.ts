// Live refresh: the expanded folders are watched (none inside an archive:
// see archives.ts); a folder that changed on
// disk is re-read by a sub-query of that folder alone (depth 1, the range
// that was loaded, under the same order, filter and settings), with at most
// one re-read in flight per folder, at most LIVE_CONCURRENCY at once, and at
// most LIVE_RENDERS_PER_SECOND re-renders a second from changes on disk; the
// selection stays on its entry, or moves to its nearest neighbour when the
// entry went away. Folders that cannot be watched refresh when the window
// regains focus.
//
// It works on the directory-controller's tree through `LiveHost`, and owns
// no listing of its own beyond the re-reads.

import { watchableFolders, type ArchiveRef } from "./archives";
import type { Backend } from "./backend";
import { BackendError, toBackendError } from "./backend";
import type { ListSettings } from "./bindings/ListSettings";
import type { Listing } from "./bindings/Listing";
import type { WatchShortfall } from "./bindings/WatchShortfall";
import { LIVE_CONCURRENCY, LIVE_REFRESH_MAX_ENTRIES, LIVE_RENDERS_PER_SECOND, NESTED_CAP, PAGE } from "./limits";
import {
  expandedFolders,
  findFolder,
  findNode,
  loadedRanges,
  refreshFolder,
  select,
  type FolderState,
  type TreeState,
} from "./tree-state";

/** What live refresh needs of the controller. */
export interface LiveHost {
  readonly backend: Backend;
  tree(): TreeState | null;
  /** The archive holding the tree's root, when it lies inside one. */
  rootArchive(): ArchiveRef | null;
  /** Bumped when another folder is opened: re-reads for the old tree are dropped. */
  generation(): number;
  nextRequestId(): number;
  /** The settings a listing of this folder carries: the view's, at `depth` with a page of `limit`, and its filter. */
  listSettings(folderHandle: string, depth: number, limit: number): ListSettings;
  reportFolderError(folderHandle: string, e: BackendError): void;
  /** Puts a re-read tree in place without telling anyone (live refresh decides when to render). */
  replaceTree(next: TreeState): void;
  /** Tells every listener the latest state. */
  emit(): void;
}

export class LiveRefresh {
  liveShortfall: WatchShortfall | null = null;
  unwatched: string[] = [];
  private watchedKey: string | null = null;
  private watchSeq = 0;
  private followedRoot: FolderState | null = null;
  /** Folders waiting to be re-read, and those being re-read. */
  private readonly dirty = new Set<string>();
  private readonly rereading = new Set<string>();
  private lastLiveRender = -Infinity;
  private liveRenderTimer: ReturnType<typeof setTimeout> | null = null;
  /** The rows on show per folder (from the view), so a re-read covers them. */
  private readonly inView = new Map<string, { from: number; to: number }>();

  constructor(private readonly host: LiveHost) {}

  /** Another folder was opened: what was pending belongs to the old tree. */
  reset(): void {
    this.dirty.clear();
    this.inView.clear();
  }

  /** Keeps the watches in step with the tree's expanded folders. Returns them when they were recomputed. */
  follow(t: TreeState): string[] | null {
    if (t.root === this.followedRoot) return null;
    this.followedRoot = t.root;
    const expanded = expandedFolders(t);
    // A place the engine says cannot be watched (a server's: refresh with F5) is not asked to be.
    const folders = t.capabilities.watch !== null ? [] : watchableFolders(t, this.host.rootArchive());
    const key = folders.join("\n");
    if (key !== this.watchedKey) {
      this.watchedKey = key;
      void this.watch(folders);
    }
    return expanded;
  }

  private async watch(folders: string[]): Promise<void> {
    const seq = ++this.watchSeq;
    try {
      const status = await this.host.backend.watchFolders(folders);
      if (seq !== this.watchSeq) return;
      const before = this.liveShortfall?.kind ?? null;
      this.liveShortfall = status.shortfall;
      this.unwatched = status.unwatched;
      if ((status.shortfall?.kind ?? null) !== before || status.unwatched.length) this.host.emit();
    } catch (err) {
      if (seq !== this.watchSeq) return;
      const e = toBackendError(err);
      this.liveShortfall = { kind: "unavailable", message: `${e.code}: ${e.message}` };
      this.unwatched = folders;
      this.host.emit();
    }
  }

  /** Re-reads these folders (those still in the tree). */
  changed(folders: readonly string[]): void {
    const t = this.host.tree();
    if (!t) return;
    for (const h of folders) if (findFolder(t, h)) this.dirty.add(h);
    this.pump();
  }

  /** The window regained focus: re-read the folders that are not watched. */
  refreshUnwatched(): void {
    this.changed(this.unwatched);
  }

  /** The view reports which positions of a folder are on show. */
  noteInView(folderHandle: string, from: number, to: number): void {
    this.inView.set(folderHandle, { from, to });
  }

  private pump(): void {
    for (const h of this.dirty) {
      if (this.rereading.size >= LIVE_CONCURRENCY) return;
      if (this.rereading.has(h)) continue;
      this.dirty.delete(h);
      this.rereading.add(h);
      void this.reread(h).finally(() => {
        this.rereading.delete(h);
        this.pump();
      });
    }
  }

  /** The ranges of a folder to re-read: what was loaded, nearest to what is on show first, bounded. */
  private rereadRanges(f: FolderState): Array<[number, number]> {
    // Loaded ranges, each grown to a whole step, so entries that arrive at the end show too.
    const step = f.showAll ? PAGE : NESTED_CAP;
    const ranges = loadedRanges(f).map(([a, b]): [number, number] => [a, Math.max(step, Math.ceil(b / step) * step)]);
    if (ranges.length === 0) ranges.push([0, step]);
    const pages: Array<[number, number]> = [];
    let covered = 0;
    for (const [from, to] of ranges) {
      for (let o = Math.max(from, covered); o < to; o += PAGE) pages.push([o, Math.min(to, o + PAGE)]);
      covered = Math.max(covered, to);
    }
    // A folder that is not "show all" keeps every loaded row: its rows are what the person asked for.
    if (!f.showAll) return pages;
    const seen = this.inView.get(f.handle) ?? { from: 0, to: 0 };
    const distance = ([a, b]: [number, number]) => (b <= seen.from ? seen.from - b : a >= seen.to ? a - seen.to : 0);
    const kept: Array<[number, number]> = [];
    let budget = LIVE_REFRESH_MAX_ENTRIES;
    for (const p of pages.slice().sort((x, y) => distance(x) - distance(y))) {
      if (budget <= 0) break;
      kept.push(p);
      budget -= p[1] - p[0];
    }
    return kept.sort((x, y) => x[0] - y[0]);
  }

  /** Re-reads one folder that changed on disk and merges it in place. */
  private async reread(handle: string): Promise<void> {
    const t = this.host.tree();
    const f = t && findFolder(t, handle);
    if (!t || !f) return;
    const generation = this.host.generation();
    const pages: Listing[] = [];
    try {
      let total = Infinity;
      for (const [from, to] of this.rereadRanges(f)) {
        if (from > 0 && from >= total) break;
        const listing = await this.host.backend.listDirectory({
          root: { handle },
          settings: this.host.listSettings(handle, 1, to - from),
          offset: from,
          requestId: this.host.nextRequestId(),
        });
        pages.push(listing);
        total = listing.root.folder?.total ?? 0;
      }
    } catch (err) {
      const e = toBackendError(err);
      // The folder shrank below a page that was loaded: what was read is still right.
      if (e.code === "INVALID_ARGUMENT" && pages.length > 0) {
        // fall through to the merge
      } else {
        if (generation === this.host.generation() && e.code !== "CANCELLED") this.host.reportFolderError(handle, e);
        return;
      }
    }
    const before = this.host.tree();
    if (generation !== this.host.generation() || !before || pages.length === 0) return;
    let next = refreshFolder(before, handle, pages);
    next = keepSelection(before, next, handle);
    this.host.replaceTree(next);
    this.liveRender();
  }

  /** Renders a change from disk now, or at the next allowed moment. */
  private liveRender(): void {
    if (this.liveRenderTimer) return;
    const interval = 1000 / LIVE_RENDERS_PER_SECOND;
    const wait = this.lastLiveRender + interval - performance.now();
    const render = () => {
      this.liveRenderTimer = null;
      this.lastLiveRender = performance.now();
      this.host.emit();
    };
    if (wait <= 0) render();
    else this.liveRenderTimer = setTimeout(render, wait);
  }
}

/**
 * After `folderHandle` was re-read: when the selection went away with it (the
 * entry, or a folder holding it, was deleted), select its nearest neighbour
 * in that folder, or the folder itself when it is empty now.
 */
function keepSelection(before: TreeState, after: TreeState, folderHandle: string): TreeState {
  const sel = before.selected;
  if (!sel || findNode(after, sel)) return after;
  // The entry of the re-read folder on the way to the selection.
  let hit = findNode(before, sel);
  while (hit && hit.parent.handle !== folderHandle) hit = findNode(before, hit.parent.handle);
  if (!hit) return after;
  const folder = findFolder(after, folderHandle);
  if (!folder || folder.total === 0 || folder.chunks.length === 0) {
    return select(after, folderHandle === after.root.handle ? null : folderHandle);
  }
  const at = (i: number) => {
    for (const c of folder.chunks) if (i >= c.offset && i < c.offset + c.nodes.length) return c.nodes[i - c.offset]!;
    return null;
  };
  const i = hit.index;
  const near = at(i) ?? at(i - 1) ?? folder.chunks[folder.chunks.length - 1]!.nodes.at(-1) ?? null;
  return select(after, near ? near.entry.handle : null);
}
