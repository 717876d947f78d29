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
// - the view's settings are one `ListSettings` (the engine's type); every
//   request carries them, with its own depth and page size, and a folder's
//   own filter when it has one (the view's never holds a filter); a
//   change of order or toggle re-lists the view at the same expansion and
//   selection; a filter applies to its folder alone, and clearing it brings
//   the folder back as it was (expansion below kept);
// - type-ahead asks the engine where a prefix falls (`locate`) under the
//   same settings (see type-ahead.ts).
//
// Folder sizes (the "Sizes" action) are counted by the engine on request
// (`folderSizes`, one computation at a time) and remembered for the session
// per folder (sizes-state.ts): Esc or leaving the folder stops the
// computation at once, and a change live refresh sees makes the figures of
// that folder and every folder above it stale.
//
// Live refresh lives in live-refresh.ts, restoring and remembering the view
// in restore.ts; both work on this controller's tree. How far an opening
// got (the toolbar's "Reading…") is kept by open-progress.ts.

import { archiveHolding, archiveRef, rootArchiveOf, type ArchiveRef } from "./archives";
import type { Backend } from "./backend";
import { BackendError, toBackendError } from "./backend";
import type { RootSpec } from "./bindings/RootSpec";
import type { CanopyError } from "./bindings/CanopyError";
import type { ListProgress } from "./bindings/ListProgress";
import type { ListSettings } from "./bindings/ListSettings";
import type { SavedView } from "./bindings/SavedView";
import type { ShellEvent } from "./bindings/ShellEvent";
import type { SortBy } from "./bindings/SortBy";
import type { WatchShortfall } from "./bindings/WatchShortfall";
import { DEFAULT_DEPTH, MAX_UI_DEPTH, NESTED_CAP, PAGE, SIZES_MAX_SHOWN } from "./limits";
import { LiveRefresh } from "./live-refresh";
import { OpenProgress } from "./open-progress";
import { openExpanded, ViewMemory, type RestoreHost } from "./restore";
import {
  applyProgress,
  emptySizes,
  finishRun,
  markStale,
  setFoldersBySize,
  setMeasure,
  startRun,
  stopRun,
  type SizeMeasure,
  type SizesState,
} from "./sizes-state";
import {
  ancestorsOf,
  applyFilter,
  attachChildren,
  clearFilter,
  collapseExcept,
  contiguousEnd,
  expandedFolders,
  filteredFolders,
  findFolder,
  findNode,
  isLoadedAt,
  mergePage,
  nextLoadedAfter,
  select,
  setExpanded,
  setLoading,
  setNodeError,
  setShowAll,
  shownFoldersBelow,
  treeFromListing,
  type TreeState,
} from "./tree-state";

export interface ControllerSnapshot {
  readonly tree: TreeState | null;
  /** Why the last attempt to open a folder failed (the tree stays as it was). */
  readonly openError: CanopyError | null;
  /** A folder is being opened. */
  readonly opening: boolean;
  /**
   * What was typed (a path or URL) for the folder being opened, or whose
   * opening failed, while no folder is open yet (the path bar shows it
   * instead of empty crumbs); null otherwise.
   */
  readonly openTarget: string | null;
  /** How far the opening got, once it has taken PROGRESS_DELAY_MS; null otherwise. */
  readonly progress: ListProgress | null;
  readonly canBack: boolean;
  readonly canForward: boolean;
  /** The settings the view is listed under (depth, dotfiles, order, "Hide ignored"...); never a filter. */
  readonly settings: ListSettings;
  /** Set when the tree changed in a way the view should announce. */
  readonly notice: string | null;
  /** Why some open folders do not refresh live (they refresh on focus), if so. */
  readonly liveShortfall: WatchShortfall | null;
  /** Open folders not watched; they refresh when the window regains focus. */
  readonly unwatchedCount: number;
  /** Bumped when the view should scroll the selection into view (after a restore). */
  readonly revealSelection: number;
  /** The archive file holding the tree's root, when the root lies inside one (see archives.ts). */
  readonly rootArchive: ArchiveRef | null;
  /** Folder sizes counted this session, the measure shown, and the computation running, if any. */
  readonly sizes: SizesState;
}

/** The view's settings until the user or a remembered view changes them: the engine's defaults. */
const DEFAULT_SETTINGS: ListSettings = {
  depth: DEFAULT_DEPTH,
  cap: NESTED_CAP,
  limit: PAGE,
  showDotfiles: true,
  sort: "name",
  reverse: false,
  hideIgnored: false,
};

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
  private openTarget: string | null = null;
  private notice: string | null = null;
  private viewSettings: ListSettings = { ...DEFAULT_SETTINGS };
  private nextId = 1;
  /** Open requests in flight, by key ("open" or "<folder handle>@<offset>"). */
  private readonly pending = new Map<string, Pending>();
  /** Bumped when another folder is opened: replies for the old tree are dropped. */
  private generationCount = 0;
  private back: RootSpec[] = [];
  private forward: RootSpec[] = [];
  private current: RootSpec | null = null;
  private readonly listeners = new Set<(s: ControllerSnapshot) => void>();
  private readonly live: LiveRefresh;
  private readonly memory: ViewMemory;
  private revealToken = 0;
  private followScheduled = false;
  private readonly progress = new OpenProgress(() => this.emit());
  /** The archive holding the root, if known; and every archive file the window opened into, by handle. */
  private rootArchive: ArchiveRef | null = null;
  private readonly archives = new Map<string, ArchiveRef>();
  private sizes: SizesState = emptySizes();

  constructor(private readonly backend: Backend) {
    this.live = new LiveRefresh({
      backend,
      tree: () => this.tree,
      rootArchive: () => this.rootArchive,
      generation: () => this.generationCount,
      nextRequestId: () => this.nextId++,
      listSettings: (h, depth, limit) => this.listSettings(h, depth, limit),
      reportFolderError: (h, e) => this.reportFolderError(h, e),
      replaceTree: (next) => {
        this.tree = next;
      },
      emit: () => this.emit(),
    });
    this.memory = new ViewMemory(backend);
  }

  /** Bumped when another folder is opened: replies for the old tree are dropped. */
  get generation(): number {
    return this.generationCount;
  }

  /** The settings the view is listed under (a copy; never a filter). */
  get settings(): ListSettings {
    return { ...this.viewSettings };
  }

  /**
   * The settings a request for `folderHandle` carries: the view's, at
   * `depth` with a page of `limit` entries, and the folder's own filter when
   * it has one.
   */
  listSettings(folderHandle: string, depth = this.viewSettings.depth, limit = this.viewSettings.limit): ListSettings {
    const f = this.tree && findFolder(this.tree, folderHandle);
    return { ...this.viewSettings, depth, limit, ...(f?.filter ? { filter: f.filter } : {}) };
  }

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
      openTarget: this.tree ? null : this.openTarget,
      progress: this.progress.shown,
      canBack: this.back.length > 0,
      canForward: this.forward.length > 0,
      settings: this.settings,
      notice: this.notice,
      liveShortfall: this.live.liveShortfall,
      unwatchedCount: this.live.unwatched.length,
      revealSelection: this.revealToken,
      rootArchive: this.rootArchive,
      sizes: this.sizes,
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
    const p = { requestId: this.nextId++, generation: this.generationCount };
    this.pending.set(key, p);
    return p;
  }

  /** Cancels and forgets the request pending for `key`; true when there was one. */
  private drop(key: string): boolean {
    const old = this.pending.get(key);
    if (!old) return false;
    void this.backend.cancelListing(old.requestId).catch(() => undefined);
    this.pending.delete(key);
    return true;
  }

  /** True when `p` is still the newest request for `key` in the current tree. */
  private finish(key: string, p: Pending): boolean {
    if (this.pending.get(key) !== p) return false;
    this.pending.delete(key);
    return p.generation === this.generationCount;
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
    this.openTarget = "text" in spec ? spec.text : null;
    this.progress.start(p.requestId);
    this.emit();
    try {
      const listing = await this.backend.listDirectory(
        {
          root: spec,
          settings: { ...this.viewSettings },
          offset: 0,
          requestId: p.requestId,
        },
        (report) => this.progress.report(report),
      );
      this.progress.finish(p.requestId);
      if (!this.finish(key, p)) return false;
      // Replies still in flight belong to the tree being replaced.
      this.generationCount++;
      this.cancelAll();
      // Leaving the folder stops its sizes being counted (a refresh of it does not).
      if (this.tree && listing.root.handle !== this.tree.root.handle) this.cancelSizes();
      this.live.reset();
      if ((opts.history ?? "push") === "push" && this.current) {
        this.back.push(this.current);
        this.forward = [];
      }
      this.current = { handle: listing.root.handle };
      this.openError = null;
      this.opening = false;
      this.notice = null;
      this.noteArchive(listing.root.handle);
      this.rootArchive = rootArchiveOf(listing.crumbs, this.archives);
      this.tree = treeFromListing(listing, opts.select ?? null);
      // A server's folder (the engine says which) opened by its URL: it becomes the most recent server.
      if ("text" in spec && listing.server !== null) this.memory.noteServer(spec.text);
      this.emit();
      return true;
    } catch (err) {
      this.progress.finish(p.requestId);
      if (!this.finish(key, p)) return false;
      const e = toBackendError(err);
      if (e.code === "CANCELLED") return false;
      this.openError = e.toWire();
      this.opening = false;
      this.emit();
      return false;
    }
  }

  /**
   * Before the tree that shows `handle` is replaced: when `handle` is an
   * archive or lies inside one, remember that archive, so the new root's
   * crumbs say which archive it is in.
   */
  private noteArchive(handle: string): void {
    const t = this.tree;
    if (!t) return;
    const hit = findNode(t, handle)?.node.entry;
    const holder = archiveHolding(t, handle, this.rootArchive) ?? (hit?.archive ? archiveRef(hit) : null);
    if (holder) this.archives.set(holder.handle, holder);
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
    if (depth === this.viewSettings.depth) return;
    this.viewSettings = { ...this.viewSettings, depth };
    await this.refresh();
  }

  async setShowDotfiles(show: boolean): Promise<void> {
    if (show === this.viewSettings.showDotfiles) return;
    this.viewSettings = { ...this.viewSettings, showDotfiles: show };
    await this.refresh();
  }

  /**
   * A column header was chosen: sort every folder by it, or, when it is the
   * order already, reverse it. The view is listed again at the same
   * expansion and selection.
   */
  async sortBy(by: SortBy): Promise<void> {
    const s = this.viewSettings;
    this.viewSettings = by === s.sort ? { ...s, reverse: !s.reverse } : { ...s, sort: by, reverse: false };
    await this.relist();
  }

  /** "Hide ignored": leave out what git would ignore, in every folder. */
  async setHideIgnored(hide: boolean): Promise<void> {
    if (hide === this.viewSettings.hideIgnored) return;
    this.viewSettings = { ...this.viewSettings, hideIgnored: hide };
    await this.relist();
  }

  /**
   * Lists the open folder again under the current settings, at the same
   * expansion and selection; folders that were filtered are filtered again.
   */
  private async relist(): Promise<void> {
    const t = this.tree;
    if (!t || !this.current) {
      this.emit();
      return;
    }
    const filters = filteredFolders(t);
    const generation = this.generationCount;
    const ok = await openExpanded(this.restoreHost(), this.current, expandedFolders(t), t.selected, "none");
    if (!ok || generation + 1 !== this.generationCount) return;
    await Promise.all(filters.map(([h, text]) => this.setFilter(h, text)));
  }

  /**
   * Filters one folder (the root or any other) by `text`, over all of its
   * entries; `null` (or empty text) clears the filter and brings the folder
   * back as it was.
   */
  async setFilter(folderHandle: string, text: string | null): Promise<void> {
    const t = this.tree;
    const f = t && findFolder(t, folderHandle);
    if (!t || !f) return;
    const filter = text === null || text === "" ? null : text;
    const key = `${folderHandle}@filter`;
    if (filter === f.filter) {
      // Typed back to what the folder shows: a newer filter still on its way must not land.
      if (this.drop(key)) this.setTree(setLoading(t, folderHandle, false));
      return;
    }
    if (filter === null) {
      this.drop(key);
      this.setTree(clearFilter(t, folderHandle));
      // What changed while it was filtered shows now.
      this.live.changed([folderHandle]);
      return;
    }
    const p = this.begin(key);
    this.setTree(setLoading(t, folderHandle, true));
    const isRoot = folderHandle === t.root.handle;
    try {
      const listing = await this.backend.listDirectory({
        root: { handle: folderHandle },
        settings: {
          ...this.listSettings(folderHandle, isRoot ? this.viewSettings.depth : this.subDepth(this.levelOf(folderHandle)), isRoot || f.showAll ? PAGE : NESTED_CAP),
          filter,
        },
        offset: 0,
        requestId: p.requestId,
      });
      if (!this.finish(key, p) || !this.tree) return;
      this.setTree(applyFilter(this.tree, folderHandle, filter, listing));
    } catch (err) {
      if (!this.finish(key, p) || !this.tree) return;
      const e = toBackendError(err);
      if (e.code === "CANCELLED") return;
      this.setTree(setLoading(this.tree, folderHandle, false));
      this.notice = `The filter could not be applied: ${e.code}: ${e.message}`;
      this.emit();
    }
  }

  // ---- targeted sub-queries ------------------------------------------------

  /** Depth for a sub-query of a folder whose entries are at `level`. */
  private subDepth(level: number): number {
    return Math.max(1, this.viewSettings.depth - (level - 1));
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
        settings: this.listSettings(folderHandle, this.subDepth(this.levelOf(folderHandle)), limit),
        offset: after ? 0 : offset,
        ...(after ? { after } : {}),
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

  reportFolderError(folderHandle: string, e: BackendError): void {
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
    if (!node.entry.canExpand) return;
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
        settings: this.listSettings(handle, this.viewSettings.depth, NESTED_CAP),
        offset: 0,
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

  /**
   * Loads the entry at `index` of a folder by a targeted sub-query, even
   * past its cap: a nested folder then shows all its entries ("Show all"),
   * the ones not loaded as placeholders, so the entry sits at its place.
   */
  async loadAt(folderHandle: string, index: number): Promise<void> {
    const t = this.tree;
    const f = t && findFolder(t, folderHandle);
    if (!t || !f || isLoadedAt(f, index)) return;
    if (!f.showAll) this.setTree(setShowAll(t, folderHandle));
    await this.ensureLoaded(folderHandle, index, index + 1);
  }

  /** Selects an entry in the tree and scrolls it into view. */
  selectAndReveal(handle: string): void {
    if (!this.tree || !findNode(this.tree, handle)) return;
    this.tree = select(this.tree, handle);
    this.revealToken++;
    this.emit();
  }

  /** A request id no other request of this window has (the engine's cancel registry is keyed by it). */
  newRequestId(): number {
    return this.nextId++;
  }

  /** Opens a folder of the tree as the view's root (Back returns). */
  async openAsRoot(handle: string): Promise<void> {
    await this.open({ handle });
  }

  select(handle: string | null): void {
    if (this.tree) this.setTree(select(this.tree, handle));
  }

  /**
   * Selects the entry `handle` of the folder `folderHandle` and scrolls it
   * into view, expanding the folder (reading it, if it was not) to show it.
   * An entry past the folder's loaded ones is said in the status bar.
   */
  async revealEntry(handle: string, folderHandle: string): Promise<void> {
    const t = this.tree;
    if (!t) return;
    if (folderHandle !== t.root.handle) {
      const folder = findNode(t, folderHandle)?.node;
      if (folder && !folder.expanded) await this.expand(folderHandle);
    }
    if (!this.tree || !findNode(this.tree, handle)) {
      this.say("That entry is not among the ones loaded in the tree: Show all in its folder to reach it.");
      return;
    }
    this.setTree(select(this.tree, handle));
    this.revealToken++;
    this.emit();
  }

  /** Position of the first entry starting with `prefix` in a folder's order, under the view's settings. */
  async locate(folderHandle: string, prefix: string): Promise<{ index: number; matched: boolean } | null> {
    try {
      const r = await this.backend.locate({ folder: folderHandle, prefix, settings: this.listSettings(folderHandle) });
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

  // ---- live refresh and the remembered view ----------------------------------

  /** After each change: keep the watches and the remembered view in step with the tree (at most once per turn). */
  private followTree(): void {
    if (this.followScheduled) return;
    this.followScheduled = true;
    queueMicrotask(() => {
      this.followScheduled = false;
      const t = this.tree;
      if (!t) return;
      const expanded = this.live.follow(t);
      this.memory.follow(t, this.settings, expanded);
    });
  }

  /** What the app pushed: folders that changed, a path from a second instance, a notice. */
  onShellEvent(event: ShellEvent): void {
    if (event.type === "foldersChanged") {
      this.sizesChanged(event.folders);
      this.live.changed(event.folders);
    }
    else if (event.type === "open") void this.open(event.startup.folder, { select: event.startup.select });
    else if (event.type === "notice") {
      this.notice = event.message;
      this.emit();
    }
    // ssh's prompts (askSecret, secretWithdrawn) are the secret dialog's (main.ts).
  }

  /** Answers ssh's password or passphrase prompt `id` (`null`: cancel). */
  answerSecret(id: number, secret: string | null): Promise<void> {
    return this.backend.answerSecret(id, secret);
  }

  /** The servers connected to lately (`sftp://` URLs, newest first). */
  get recentServers(): readonly string[] {
    return this.memory.servers;
  }

  /** The recent servers the saved view had (at start). */
  setRecentServers(servers: readonly string[]): void {
    this.memory.setServers(servers);
  }

  /** Re-reads these folders (those still in the tree). */
  changed(folders: readonly string[]): void {
    this.live.changed(folders);
  }

  /** The window regained focus: re-read the folders that are not watched. */
  refreshUnwatched(): void {
    this.live.refreshUnwatched();
  }

  /** The view reports which positions of a folder are on show. */
  noteInView(folderHandle: string, from: number, to: number): void {
    this.live.noteInView(folderHandle, from, to);
  }

  private restoreHost(): RestoreHost {
    return {
      state: () => this.tree,
      generation: () => this.generationCount,
      open: (spec: RootSpec, opts: OpenOptions) => this.open(spec, opts),
      expand: (h: string) => this.expand(h),
      keepExpanded: (keep: ReadonlySet<string>, under: string | null = null) => {
        if (this.tree) this.setTree(collapseExcept(this.tree, keep, under));
      },
      revealSelection: () => {
        this.revealToken++;
        this.emit();
      },
    };
  }

  /**
   * Opens a remembered view: its folder at its depth and settings, then each
   * remembered folder by its own sub-query as soon as its parent is there.
   * Returns false when the folder itself cannot be opened (the caller opens
   * another).
   */
  async restore(view: SavedView): Promise<boolean> {
    // The cap and page size stay the UI's own (its paging is built on them),
    // and a view never restores a filter (a filter belongs to one folder).
    this.viewSettings = {
      ...this.viewSettings,
      depth: Math.min(MAX_UI_DEPTH, Math.max(1, view.depth)),
      showDotfiles: view.showDotfiles,
      sort: view.sort,
      reverse: view.reverse,
      hideIgnored: view.hideIgnored,
    };
    return openExpanded(this.restoreHost(), { handle: view.folder }, view.expanded, view.selected, "none");
  }

  // ---- folder sizes ----------------------------------------------------------

  /**
   * "Sizes": counts the recursive size of `folderHandle` (the open folder by
   * default) and of every folder shown below it, streaming partial figures
   * into the sizes state. It stops the computation before it. Resolves when
   * the engine answered (or the computation was stopped or failed).
   */
  async computeSizes(folderHandle?: string): Promise<void> {
    const t = this.tree;
    if (!t) return;
    const root = folderHandle ?? t.root.handle;
    // Only the folders shown get figures: the engine keeps those alone.
    const folders = shownFoldersBelow(t, root, SIZES_MAX_SHOWN);
    this.cancelSizes();
    const requestId = this.nextId++;
    const byApparent = this.sizes.measure === "apparent";
    this.sizes = startRun(this.sizes, requestId, root, byApparent);
    this.emit();
    try {
      const report = await this.backend.folderSizes({ requestId, root: { handle: root }, folders, byApparent }, (p) => {
        const next = applyProgress(this.sizes, p);
        if (next === this.sizes) return;
        this.sizes = next;
        this.emit();
      });
      const next = finishRun(this.sizes, report);
      if (next === this.sizes) return;
      this.sizes = next;
      if (report.budgetCut && report.budgetCut !== "CANCELLED") this.notice = `Sizes stopped early (${report.budgetCut}): the figures shown are at least what they say.`;
      this.emit();
    } catch (err) {
      const e = toBackendError(err);
      const next = stopRun(this.sizes, requestId);
      if (next === this.sizes) return;
      this.sizes = next;
      if (e.code !== "CANCELLED") this.notice = `Sizes could not be counted: ${e.code}: ${e.message}`;
      this.emit();
    }
  }

  /** Stops the computation of sizes in flight, at once; true when there was one. What it counted stays, as lower bounds. */
  cancelSizes(): boolean {
    const run = this.sizes.run;
    if (!run) return false;
    void this.backend.cancelListing(run.requestId).catch(() => undefined);
    this.sizes = stopRun(this.sizes, run.requestId);
    this.emit();
    return true;
  }

  /** Shows disk usage (as `du`) or apparent sizes (as `du -b`): both were counted. */
  setSizeMeasure(measure: SizeMeasure): void {
    const next = setMeasure(this.sizes, measure);
    if (next === this.sizes) return;
    this.sizes = next;
    this.emit();
  }

  /** Under the Size order, sort folders among files by their counted size. */
  setFoldersBySize(on: boolean): void {
    const next = setFoldersBySize(this.sizes, on);
    if (next === this.sizes) return;
    this.sizes = next;
    this.emit();
  }

  /** Live refresh saw these folders change: their figures, and those of every folder above them, are stale. */
  private sizesChanged(folders: readonly string[]): void {
    const t = this.tree;
    if (!t || this.sizes.records.size === 0) return;
    const next = markStale(this.sizes, folders.flatMap((h) => ancestorsOf(t, h)));
    if (next === this.sizes) return;
    this.sizes = next;
    this.emit();
  }

  /** For tests: requests in flight. */
  get inFlight(): number {
    return this.pending.size;
  }
}

