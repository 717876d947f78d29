// The directory-controller: owns every listing call, keeps the tree state,
// and merges each targeted sub-query's reply into the tree in place.
//
// Promises:
// - the open folder is listed at the view's depth D; a folder at level L is
//   paged or expanded by a sub-query for that folder alone, at depth
//   max(1, D - L) (or D for a folder first opened at the depth limit);
// - every request carries a requestId; a reply superseded by a newer request
//   for the same folder (or by opening another folder) is dropped, and the
//   older request is cancelled with cancel_listing;
// - a change of a folder's total between pages reloads its loaded pages and
//   marks it changed;
// - merging never touches other folders' expansion, the selection or scroll;
// - live refresh: the expanded folders are watched; a folder that changed on
//   disk is re-read by a sub-query of that folder alone (depth 1, the range
//   that was loaded), with at most one re-read in flight per folder and at
//   most LIVE_RENDERS_PER_SECOND re-renders a second from changes on disk;
//   the selection stays on its entry, or moves to its nearest neighbour when
//   the entry went away;
// - restore: a remembered view is re-listed like any other (cap, page and
//   budget; never "Show all"), each remembered folder by its own sub-query, so
//   a slow one delays nothing else; folders that vanished are dropped.

import type { Backend } from "./backend";
import { BackendError, toBackendError } from "./backend";
import type { RootSpec } from "./bindings/RootSpec";
import type { CanopyError } from "./bindings/CanopyError";
import type { Listing } from "./bindings/Listing";
import type { SavedView } from "./bindings/SavedView";
import type { ShellEvent } from "./bindings/ShellEvent";
import type { WatchShortfall } from "./bindings/WatchShortfall";
import {
  DEFAULT_DEPTH,
  LIVE_CONCURRENCY,
  LIVE_REFRESH_MAX_ENTRIES,
  LIVE_RENDERS_PER_SECOND,
  MAX_UI_DEPTH,
  NESTED_CAP,
  PAGE,
  SAVED_EXPANDED_MAX,
} from "./limits";
import {
  attachChildren,
  collapseExcept,
  expandedFolders,
  loadedRanges,
  refreshFolder,
  contiguousEnd,
  findFolder,
  findNode,
  mergePage,
  select,
  setExpanded,
  setLoading,
  setNodeError,
  setShowAll,
  treeFromListing,
  type FolderState,
  type TreeState,
} from "./tree-state";

export interface ControllerSnapshot {
  readonly tree: TreeState | null;
  /** Why the last attempt to open a folder failed (the tree stays as it was). */
  readonly openError: CanopyError | null;
  /** A folder is being opened. */
  readonly opening: boolean;
  readonly canBack: boolean;
  readonly canForward: boolean;
  readonly depth: number;
  readonly showDotfiles: boolean;
  /** Set when the tree changed in a way the view should announce. */
  readonly notice: string | null;
  /** Why some open folders do not refresh live (they refresh on focus), if so. */
  readonly liveShortfall: WatchShortfall | null;
  /** Open folders not watched; they refresh when the window regains focus. */
  readonly unwatchedCount: number;
  /** Bumped when the view should scroll the selection into view (after a restore). */
  readonly revealSelection: number;
}

interface Pending {
  requestId: number;
  generation: number;
}

export interface OpenOptions {
  /** Handle of an entry to select once open. */
  select?: string | null;
  /** How history changes: a new step (default), none (back/forward/refresh). */
  history?: "push" | "none";
}

export class DirectoryController {
  private tree: TreeState | null = null;
  private openError: CanopyError | null = null;
  private opening = false;
  private notice: string | null = null;
  private depth = DEFAULT_DEPTH;
  private showDotfiles = true;
  private nextId = 1;
  /** Open requests in flight, by key ("open" or "<folder handle>@<offset>"). */
  private readonly pending = new Map<string, Pending>();
  /** Bumped when another folder is opened: replies for the old tree are dropped. */
  private generation = 0;
  private back: RootSpec[] = [];
  private forward: RootSpec[] = [];
  private current: RootSpec | null = null;
  private readonly listeners = new Set<(s: ControllerSnapshot) => void>();

  constructor(private readonly backend: Backend) {}

  subscribe(fn: (s: ControllerSnapshot) => void): () => void {
    this.listeners.add(fn);
    fn(this.snapshot());
    return () => this.listeners.delete(fn);
  }

  snapshot(): ControllerSnapshot {
    return {
      tree: this.tree,
      openError: this.openError,
      opening: this.opening,
      canBack: this.back.length > 0,
      canForward: this.forward.length > 0,
      depth: this.depth,
      showDotfiles: this.showDotfiles,
      notice: this.notice,
      liveShortfall: this.liveShortfall,
      unwatchedCount: this.unwatched.length,
      revealSelection: this.revealToken,
    };
  }

  get state(): TreeState | null {
    return this.tree;
  }

  private emitting = false;
  private emitAgain = false;

  /**
   * Tells every listener the latest state. A listener that changes the state
   * (e.g. selecting a row once its page arrived) causes one more full pass,
   * so no listener is left holding an older snapshot.
   */
  private emit(): void {
    if (this.emitting) {
      this.emitAgain = true;
      return;
    }
    this.emitting = true;
    try {
      do {
        this.emitAgain = false;
        const s = this.snapshot();
        for (const fn of this.listeners) fn(s);
      } while (this.emitAgain);
    } finally {
      this.emitting = false;
    }
    this.followTree();
  }

  private setTree(next: TreeState | null): void {
    if (next === this.tree) return;
    this.tree = next;
    this.emit();
  }

  /** Starts a request under `key`, cancelling the one it supersedes. */
  private begin(key: string): Pending {
    const old = this.pending.get(key);
    if (old) void this.backend.cancelListing(old.requestId).catch(() => undefined);
    const p = { requestId: this.nextId++, generation: this.generation };
    this.pending.set(key, p);
    return p;
  }

  /** True when `p` is still the newest request for `key` in the current tree. */
  private finish(key: string, p: Pending): boolean {
    if (this.pending.get(key) !== p) return false;
    this.pending.delete(key);
    return p.generation === this.generation;
  }

  private cancelAll(): void {
    for (const p of this.pending.values()) void this.backend.cancelListing(p.requestId).catch(() => undefined);
    this.pending.clear();
  }

  // ---- opening folders ---------------------------------------------------

  /** Opens a folder as the view's root. On failure the tree stays as it was. */
  async open(spec: RootSpec, opts: OpenOptions = {}): Promise<boolean> {
    const key = "open";
    const p = this.begin(key);
    this.opening = true;
    this.emit();
    try {
      const listing = await this.backend.listDirectory({
        root: spec,
        depth: this.depth,
        offset: 0,
        limit: PAGE,
        showDotfiles: this.showDotfiles,
        requestId: p.requestId,
      });
      if (!this.finish(key, p)) return false;
      // Replies still in flight belong to the tree being replaced.
      this.generation++;
      this.cancelAll();
      this.dirty.clear();
      this.inView.clear();
      if ((opts.history ?? "push") === "push" && this.current) {
        this.back.push(this.current);
        this.forward = [];
      }
      this.current = { handle: listing.root.handle };
      this.openError = null;
      this.opening = false;
      this.notice = null;
      this.tree = treeFromListing(listing, opts.select ?? null);
      this.emit();
      return true;
    } catch (err) {
      if (!this.finish(key, p)) return false;
      const e = toBackendError(err);
      if (e.code === "CANCELLED") return false;
      this.openError = e.toWire();
      this.opening = false;
      this.emit();
      return false;
    }
  }

  async goBack(): Promise<void> {
    await this.travel(this.back, this.forward);
  }

  async goForward(): Promise<void> {
    await this.travel(this.forward, this.back);
  }

  /** Opens the last folder of `from`, remembering where we were in `to`. */
  private async travel(from: RootSpec[], to: RootSpec[]): Promise<void> {
    const target = from.pop();
    if (!target) return;
    const here = this.current;
    const ok = await this.open(target, { history: "none" });
    if (ok && here) to.push(here);
    else if (!ok) from.push(target);
    this.emit();
  }

  /** Opens the parent folder, selecting the folder we came from. */
  async goUp(): Promise<void> {
    const t = this.tree;
    if (!t || t.crumbs.length < 2) return;
    const parent = t.crumbs[t.crumbs.length - 2]!;
    await this.open({ handle: parent.handle }, { select: t.rootEntry.handle });
  }

  async refresh(): Promise<void> {
    const t = this.tree;
    if (!this.current) return;
    await this.open(this.current, { history: "none", select: t?.selected ?? null });
  }

  async setDepth(depth: number): Promise<void> {
    if (depth === this.depth) return;
    this.depth = depth;
    await this.refresh();
  }

  async setShowDotfiles(show: boolean): Promise<void> {
    if (show === this.showDotfiles) return;
    this.showDotfiles = show;
    await this.refresh();
  }

  // ---- targeted sub-queries ------------------------------------------------

  /** Depth for a sub-query of a folder whose entries are at `level`. */
  private subDepth(level: number): number {
    return Math.max(1, this.depth - (level - 1));
  }

  /** The level of a folder's entries (the root's entries are 1). */
  private levelOf(folderHandle: string): number {
    const t = this.tree;
    if (!t || t.root.handle === folderHandle) return 1;
    const hit = findNode(t, folderHandle);
    return hit ? hit.level + 1 : 1;
  }

  /**
   * Fetches `limit` entries of a folder from position `offset`; with `after`
   * (the engine's cursor for that position), as the entries after it.
   */
  private async fetchPage(folderHandle: string, offset: number, limit: number, after?: string): Promise<void> {
    const t = this.tree;
    if (!t || !findFolder(t, folderHandle)) return;
    const key = `${folderHandle}@${offset}`;
    const p = this.begin(key);
    this.setTree(setLoading(t, folderHandle, true));
    try {
      const listing = await this.backend.listDirectory({
        root: { handle: folderHandle },
        depth: this.subDepth(this.levelOf(folderHandle)),
        offset: after ? 0 : offset,
        ...(after ? { after } : {}),
        limit,
        showDotfiles: this.showDotfiles,
        requestId: p.requestId,
      });
      if (!this.finish(key, p) || !this.tree) return;
      const merged = mergePage(this.tree, folderHandle, listing);
      this.setTree(merged.state);
      if (merged.totalChanged) await this.reloadChanged(folderHandle, offset, limit);
    } catch (err) {
      if (!this.finish(key, p) || !this.tree) return;
      const e = toBackendError(err);
      if (e.code === "CANCELLED") return;
      this.setTree(setLoading(this.tree, folderHandle, false));
      // A cursor the engine no longer accepts: the same page by position.
      if (after && e.code === "INVALID_ARGUMENT") return this.fetchPage(folderHandle, offset, limit);
      this.reportFolderError(folderHandle, e);
    }
  }

  private reportFolderError(folderHandle: string, e: BackendError): void {
    if (!this.tree) return;
    if (this.tree.root.handle === folderHandle) {
      this.notice = `${e.code}: ${e.message}`;
      this.emit();
    } else {
      this.setTree(setNodeError(this.tree, folderHandle, e.toWire()));
    }
  }

  /** After a total changed: reload the range that had been loaded, page by page. */
  private async reloadChanged(folderHandle: string, doneOffset: number, doneLimit: number): Promise<void> {
    this.notice = "A folder changed while it was being read; its entries were reloaded.";
    this.emit();
    const f = this.tree && findFolder(this.tree, folderHandle);
    if (!f || f.total === null) return;
    const step = f.showAll ? PAGE : NESTED_CAP;
    // Reload from the start up to where the user had loaded, skipping the page just merged.
    for (let offset = 0; offset < Math.min(f.total, doneOffset + doneLimit); offset += step) {
      if (offset === doneOffset) continue;
      await this.fetchPage(folderHandle, offset, step);
    }
  }

  /**
   * Expands a folder: shows what is loaded, or lists it if it was never read
   * (at the depth limit, or left unread by the request budget: BUDGET).
   */
  async expand(handle: string): Promise<void> {
    const t = this.tree;
    if (!t) return;
    const hit = findNode(t, handle);
    if (!hit) return;
    const { node } = hit;
    const expandable =
      node.entry.kind === "folder" || (node.entry.kind === "symlink" && node.entry.link?.pointsTo === "folder");
    if (!expandable) return;
    if (node.folder) {
      this.setTree(setExpanded(t, handle, true));
      return;
    }
    // A folder at the depth limit (or a symlink to one) is listed at depth D,
    // so every drill-down looks like the first view.
    const key = `${handle}@expand`;
    const p = this.begin(key);
    this.loadingNodes.add(handle);
    this.emit();
    try {
      const listing = await this.backend.listDirectory({
        root: { handle },
        depth: this.depth,
        offset: 0,
        limit: NESTED_CAP,
        showDotfiles: this.showDotfiles,
        requestId: p.requestId,
      });
      if (!this.finish(key, p) || !this.tree) return;
      this.setTree(attachChildren(this.tree, handle, listing));
    } catch (err) {
      if (!this.finish(key, p) || !this.tree) return;
      const e = toBackendError(err);
      if (e.code === "CANCELLED") return;
      this.setTree(setNodeError(this.tree, handle, e.toWire()));
    } finally {
      // The spinner goes with the last request for this node, whatever became of it.
      if (!this.pending.has(key) && this.loadingNodes.delete(handle)) this.emit();
    }
  }

  /** Handles of nodes being expanded for the first time (spinner on their row). */
  readonly loadingNodes = new Set<string>();

  collapse(handle: string): void {
    if (this.tree) this.setTree(setExpanded(this.tree, handle, false));
  }

  async toggle(handle: string): Promise<void> {
    const hit = this.tree && findNode(this.tree, handle);
    if (!hit) return;
    if (hit.node.expanded) this.collapse(handle);
    else await this.expand(handle);
  }

  /**
   * "Show next 100": the next page of one folder, appended. It continues
   * from the engine's cursor when it has one for that position (one pass
   * over the folder, whatever the depth); arbitrary jumps use offsets.
   */
  async showNext(folderHandle: string): Promise<void> {
    const f = this.tree && findFolder(this.tree, folderHandle);
    if (!f) return;
    const end = contiguousEnd(f);
    const after = f.cursor && f.cursor.at === end ? f.cursor.after : undefined;
    await this.fetchPage(folderHandle, end, NESTED_CAP, after);
  }

  /** "Show all": the folder becomes paged and virtualized like the root. */
  async showAll(folderHandle: string): Promise<void> {
    if (!this.tree) return;
    this.setTree(setShowAll(this.tree, folderHandle));
    const f = findFolder(this.tree, folderHandle);
    if (f) await this.ensureLoaded(folderHandle, contiguousEnd(f), Math.min(f.total ?? 0, contiguousEnd(f) + PAGE));
  }

  /** Fetches the pages of a folder that cover positions [from, to). */
  async ensureLoaded(folderHandle: string, from: number, to: number): Promise<void> {
    const f = this.tree && findFolder(this.tree, folderHandle);
    if (!f || f.total === null) return;
    const jobs: Promise<void>[] = [];
    const end = Math.min(to, f.total);
    for (let pos = from; pos < end; ) {
      if (isLoadedAt(f, pos)) {
        pos++;
        continue;
      }
      // Page from the first missing position, up to the next loaded chunk.
      const limit = Math.min(PAGE, nextLoadedAfter(f, pos) - pos);
      if (!this.pending.has(`${folderHandle}@${pos}`)) jobs.push(this.fetchPage(folderHandle, pos, limit));
      pos += limit;
    }
    await Promise.all(jobs);
  }

  /** Opens a folder of the tree as the view's root (Back returns). */
  async openAsRoot(handle: string): Promise<void> {
    await this.open({ handle });
  }

  select(handle: string | null): void {
    if (this.tree) this.setTree(select(this.tree, handle));
  }

  /** Position of the first entry starting with `prefix` in a folder's order. */
  async locate(folderHandle: string, prefix: string): Promise<{ index: number; matched: boolean } | null> {
    try {
      const r = await this.backend.locate({ folder: folderHandle, prefix, showDotfiles: this.showDotfiles });
      return { index: r.index, matched: r.matched };
    } catch {
      return null;
    }
  }

  /** Shows a message in the status bar until the next folder opens. */
  say(message: string): void {
    this.notice = message;
    this.emit();
  }

  clearNotice(): void {
    if (this.notice) {
      this.notice = null;
      this.emit();
    }
  }


  // ---- live refresh ----------------------------------------------------------

  private liveShortfall: WatchShortfall | null = null;
  private unwatched: string[] = [];
  private watchedKey: string | null = null;
  private watchSeq = 0;
  private followedRoot: FolderState | null = null;
  private followedView = "";
  private followScheduled = false;
  /** Folders waiting to be re-read, and those being re-read. */
  private readonly dirty = new Set<string>();
  private readonly rereading = new Set<string>();
  private lastLiveRender = -Infinity;
  private liveRenderTimer: ReturnType<typeof setTimeout> | null = null;
  /** The rows on show per folder (from the view), so a re-read covers them. */
  private readonly inView = new Map<string, { from: number; to: number }>();
  private revealToken = 0;

  /** After each change: keep the watches and the remembered view in step with the tree (at most once per turn). */
  private followTree(): void {
    if (this.followScheduled) return;
    this.followScheduled = true;
    queueMicrotask(() => {
      this.followScheduled = false;
      const t = this.tree;
      if (!t) return;
      let expanded: string[] | null = null;
      if (t.root !== this.followedRoot) {
        this.followedRoot = t.root;
        expanded = expandedFolders(t);
        const folders = [t.root.handle, ...expanded];
        const key = folders.join("\n");
        if (key !== this.watchedKey) {
          this.watchedKey = key;
          void this.watch(folders);
        }
      }
      const viewKey = `${t.root.handle}\n${this.depth}\n${this.showDotfiles}\n${t.selected ?? ""}`;
      if (expanded || viewKey !== this.followedView) {
        this.followedView = viewKey;
        const view: SavedView = {
          folder: t.root.handle,
          depth: this.depth,
          showDotfiles: this.showDotfiles,
          expanded: (expanded ?? expandedFolders(t)).slice(0, SAVED_EXPANDED_MAX),
          selected: t.selected,
        };
        void this.backend.rememberView(view).catch(() => undefined);
      }
    });
  }

  private async watch(folders: string[]): Promise<void> {
    const seq = ++this.watchSeq;
    try {
      const status = await this.backend.watchFolders(folders);
      if (seq !== this.watchSeq) return;
      const before = this.liveShortfall?.kind ?? null;
      this.liveShortfall = status.shortfall;
      this.unwatched = status.unwatched;
      if ((status.shortfall?.kind ?? null) !== before || status.unwatched.length) this.emit();
    } catch (err) {
      if (seq !== this.watchSeq) return;
      const e = toBackendError(err);
      this.liveShortfall = { kind: "unavailable", message: `${e.code}: ${e.message}` };
      this.unwatched = folders;
      this.emit();
    }
  }

  /** What the app pushed: folders that changed, a path from a second instance, a notice. */
  onShellEvent(event: ShellEvent): void {
    if (event.type === "foldersChanged") this.changed(event.folders);
    else if (event.type === "open") void this.open(event.startup.folder, { select: event.startup.select });
    else {
      this.notice = event.message;
      this.emit();
    }
  }

  /** Re-reads these folders (those still in the tree). */
  changed(folders: readonly string[]): void {
    const t = this.tree;
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
    const t = this.tree;
    const f = t && findFolder(t, handle);
    if (!t || !f) return;
    const generation = this.generation;
    const pages: Listing[] = [];
    try {
      let total = Infinity;
      for (const [from, to] of this.rereadRanges(f)) {
        if (from > 0 && from >= total) break;
        const listing = await this.backend.listDirectory({
          root: { handle },
          depth: 1,
          offset: from,
          limit: to - from,
          showDotfiles: this.showDotfiles,
          requestId: this.nextId++,
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
        if (generation === this.generation && e.code !== "CANCELLED") this.reportFolderError(handle, e);
        return;
      }
    }
    if (generation !== this.generation || !this.tree || pages.length === 0) return;
    const before = this.tree;
    let next = refreshFolder(before, handle, pages);
    next = keepSelection(before, next, handle);
    this.tree = next;
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
      this.emit();
    };
    if (wait <= 0) render();
    else this.liveRenderTimer = setTimeout(render, wait);
  }

  // ---- restore -----------------------------------------------------------------

  /**
   * Opens a remembered view: its folder at its depth, then each remembered
   * folder by its own sub-query as soon as its parent is there. Returns
   * false when the folder itself cannot be opened (the caller opens another).
   */
  async restore(view: SavedView): Promise<boolean> {
    this.depth = Math.min(MAX_UI_DEPTH, Math.max(1, view.depth));
    this.showDotfiles = view.showDotfiles;
    const ok = await this.open({ handle: view.folder }, { select: view.selected, history: "none" });
    if (!ok || !this.tree) return false;
    const keep = new Set(view.expanded);
    this.setTree(collapseExcept(this.tree, keep));
    const tried = new Set<string>();
    const generation = this.generation;
    const round = async (): Promise<void> => {
      const t = this.tree;
      if (!t || generation !== this.generation) return;
      const ready = view.expanded.filter((h) => {
        if (tried.has(h)) return false;
        const hit = findNode(t, h);
        return hit !== null && !hit.node.expanded;
      });
      for (const h of ready) tried.add(h);
      await Promise.all(
        ready.map(async (h) => {
          await this.expand(h);
          if (this.tree && generation === this.generation) this.setTree(collapseExcept(this.tree, keep, h));
          await round();
        }),
      );
    };
    await round();
    if (generation === this.generation && this.tree?.selected && findNode(this.tree, this.tree.selected)) {
      this.revealToken++;
      this.emit();
    }
    return true;
  }

  /** For tests: requests in flight. */
  get inFlight(): number {
    return this.pending.size;
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

function isLoadedAt(f: FolderState, pos: number): boolean {
  return f.chunks.some((c) => pos >= c.offset && pos < c.offset + c.nodes.length);
}

function nextLoadedAfter(f: FolderState, pos: number): number {
  let next = f.total ?? pos;
  for (const c of f.chunks) if (c.offset > pos && c.offset < next) next = c.offset;
  return next;
}

