// The tree pane: a virtualized, flattened list of visible rows, under the
// column headers and the filter field.
//
// At most a screenful plus overscan of `treeitem` rows exist in the DOM,
// kept in on-screen order; the scrollbar covers every row of the flat view,
// including entries not loaded yet (placeholders), which are fetched as they
// scroll into view. Selection follows the keyboard cursor. Rows are built by
// tree-row.ts, keys read by tree-keys.ts, the menu is context-menu.ts and
// type-ahead is the controller's (type-ahead.ts). Names reach the DOM as
// text only.

import {
  Virtualizer,
  elementScroll,
  observeElementOffset,
  observeElementRect,
} from "@tanstack/virtual-core";
import type { DirectoryController, ControllerSnapshot } from "../directory-controller";
import { ARCHIVE_STOPS } from "../errors";
import { NESTED_CAP } from "../limits";
import { TypeAhead } from "../type-ahead";
import { flatten, isComplete, type FlatView, type FolderState, type Row, type TreeNode, type TreeState } from "../tree-state";
import { ColumnHeaders } from "./column-headers";
import { ContextMenu, type MenuItem } from "./context-menu";
import { el } from "./dom";
import { emptyWords } from "./empty-words";
import { FilterBar } from "./filter-bar";
import { onTreeKey, type TreeKeyTarget } from "./tree-keys";
import { RowSlot, rowId } from "./tree-row";
import { rowSize } from "./size-words";
import { arrangeBySize, emptySizes, type SizesState } from "../sizes-state";

export const ROW_HEIGHT = 28;
const OVERSCAN = 12;

export class TreeView {
  readonly element: HTMLElement;
  private readonly scroller: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly tree: HTMLElement;
  /** What a listing with no rows says ("This folder is empty"), over the empty list. */
  private readonly emptyNote: HTMLElement;
  private readonly virtualizer: Virtualizer<HTMLElement, HTMLElement>;
  private flat: FlatView | null = null;
  private state: TreeState | null = null;
  private sizes: SizesState = emptySizes();
  /** The sizes the rows were last arranged by ("Folders by size"), or null. */
  private arrangedBy: SizesState | null = null;
  private cursor = 0;
  /** Row elements, reused: the first `shownSlots` show the rows in view, in order; the rest are parked. */
  private readonly slots: RowSlot[] = [];
  private shownSlots = 0;
  private pendingSelect: number | null = null;
  private revealed = 0;
  private lastRootHandle: string | null = null;
  private readonly menu = new ContextMenu("Entry actions");
  private readonly headers: ColumnHeaders;
  private readonly filterBar: FilterBar;
  private readonly typeAhead: TypeAhead;

  constructor(private readonly controller: DirectoryController) {
    this.typeAhead = new TypeAhead(controller);
    this.headers = new ColumnHeaders(controller);
    this.filterBar = new FilterBar(controller, () => this.focus());
    this.tree = el("div", {
      role: "tree",
      "aria-label": "Folder contents",
      tabindex: "0",
      class: "tree",
    });
    this.spacer = el("div", { class: "tree-spacer" }, this.tree);
    this.emptyNote = el("p", { class: "tree-empty", role: "note" });
    this.emptyNote.hidden = true;
    this.scroller = el("div", { class: "tree-scroller" }, this.emptyNote, this.spacer);
    this.element = el("div", { class: "tree-pane" }, this.headers.element, this.filterBar.element, this.scroller);
    this.virtualizer = new Virtualizer<HTMLElement, HTMLElement>({
      count: 0,
      getScrollElement: () => this.scroller,
      estimateSize: () => ROW_HEIGHT,
      overscan: OVERSCAN,
      observeElementRect,
      observeElementOffset,
      scrollToFn: elementScroll,
      initialRect: { width: 800, height: 600 },
      onChange: () => this.paint(),
    });
    this.virtualizer._didMount();
    this.tree.addEventListener("keydown", (e) => {
      if (onTreeKey(e, this.keyTarget())) e.preventDefault();
    });
    this.tree.addEventListener("click", (e) => this.onClick(e));
    this.tree.addEventListener("dblclick", (e) => this.onDoubleClick(e));
    this.tree.addEventListener("contextmenu", (e) => this.onContextMenu(e));
  }

  focus(): void {
    this.tree.focus();
  }

  /** The element rows live in (dragging rows out listens there). */
  get rowsElement(): HTMLElement {
    return this.tree;
  }

  update(s: ControllerSnapshot): void {
    this.headers.update(s);
    this.filterBar.update(s);
    const prevState = this.state;
    this.state = s.tree;
    this.sizes = s.sizes;
    if (!s.tree) {
      this.flat = null;
      this.showEmpty(null);
      this.setCount(0);
      this.paint();
      return;
    }
    const rootChanged = s.tree.root.handle !== this.lastRootHandle;
    // Rows change only when the folders (or, with folders by size, the sizes) do; a selection change just repaints.
    const arrange = s.sizes.foldersBySize && s.settings.sort === "size" ? arrangeBySize(s.sizes, s.settings.reverse) : undefined;
    const arrangedBy = arrange ? s.sizes : null;
    if (!this.flat || !prevState || prevState.root !== s.tree.root || arrangedBy !== this.arrangedBy) {
      this.arrangedBy = arrangedBy;
      const anchor = rootChanged ? null : this.topAnchor();
      this.flat = flatten(s.tree, arrange);
      this.setCount(this.flat.length);
      this.showEmpty(emptyWords(s.tree.root, this.flat.length));
      if (anchor) this.keepAnchor(anchor);
    }
    if (rootChanged) {
      this.lastRootHandle = s.tree.root.handle;
      const sel = s.tree.selected ? this.flat.indexOf(s.tree.selected) : -1;
      this.cursor = sel >= 0 ? sel : 0;
      this.scroller.scrollTop = 0;
      if (sel >= 0) this.virtualizer.scrollToIndex(sel, { align: "center" });
    } else if (s.tree.selected) {
      const sel = this.flat.indexOf(s.tree.selected);
      if (sel >= 0) this.cursor = sel;
    }
    if (s.revealSelection !== this.revealed) {
      this.revealed = s.revealSelection;
      const sel = s.tree.selected ? this.flat.indexOf(s.tree.selected) : -1;
      if (sel >= 0) {
        this.cursor = sel;
        this.virtualizer.scrollToIndex(sel, { align: "center" });
      }
    }
    if (this.pendingSelect !== null) {
      const r = this.flat.at(this.pendingSelect);
      if (r && r.kind === "entry") {
        this.cursor = this.pendingSelect;
        this.pendingSelect = null;
        this.controller.select(r.node.entry.handle);
        return;
      }
    }
    this.cursor = Math.min(this.cursor, Math.max(0, this.flat.length - 1));
    this.paint();
  }

  /**
   * The first entry row at the top of the view, and where it is. Rows added
   * or removed above it (a change on disk) must not move it: see keepAnchor.
   * At the very top nothing is anchored, so new first entries show.
   */
  private topAnchor(): { handle: string; index: number } | null {
    const flat = this.flat;
    const top = this.scroller.scrollTop;
    if (!flat || top <= 0) return null;
    const first = Math.floor(top / ROW_HEIGHT);
    const last = Math.min(flat.length, first + Math.ceil(this.scroller.clientHeight / ROW_HEIGHT) + 1);
    for (let i = first; i < last; i++) {
      const r = flat.at(i);
      if (r?.kind === "entry") return { handle: r.node.entry.handle, index: i };
    }
    return null;
  }

  /** Scrolls by as many rows as the anchor moved, so the same rows stay in view. */
  private keepAnchor(anchor: { handle: string; index: number }): void {
    const now = this.flat?.indexOf(anchor.handle) ?? -1;
    if (now < 0 || now === anchor.index) return;
    this.scroller.scrollTop += (now - anchor.index) * ROW_HEIGHT;
    this.virtualizer.scrollToOffset(this.scroller.scrollTop);
  }

  private setCount(count: number): void {
    if (this.virtualizer.options.count !== count) {
      this.virtualizer.setOptions({ ...this.virtualizer.options, count });
    }
    this.virtualizer._willUpdate();
    this.spacer.style.height = `${this.virtualizer.getTotalSize()}px`;
  }

  private showEmpty(words: string | null): void {
    this.emptyNote.hidden = words === null;
    if (this.emptyNote.textContent !== (words ?? "")) this.emptyNote.textContent = words ?? "";
  }

  /** Renders the rows in view; fetches pages for placeholders among them. */
  private paint(): void {
    const flat = this.flat;
    const state = this.state;
    this.spacer.style.height = `${this.virtualizer.getTotalSize()}px`;
    if (!flat || !state) {
      this.placeRows(0);
      return;
    }
    const items = this.virtualizer.getVirtualItems();
    const gaps = new Map<FolderState, { from: number; to: number }>();
    const shown = new Map<string, { from: number; to: number }>();
    let n = 0;
    for (const item of items) {
      const row = flat.at(item.index);
      if (!row) continue;
      const selected = row.kind === "entry" && state.selected === row.node.entry.handle;
      const node = row.kind === "entry" ? row.node : null;
      const folder = node?.folder ?? null;
      const loading = node ? this.controller.loadingNodes.has(node.entry.handle) || (folder?.loading ?? false) : true;
      const slot = this.slotAt(n++);
      const size = node ? rowSize(this.sizes, node.entry.handle, node.entry.kind === "folder", row.parent.handle) : null;
      slot.show(row, selected, loading, size);
      const transform = `translateY(${item.start}px)`;
      if (slot.el.style.transform !== transform) slot.el.style.transform = transform;
      slot.el.classList.toggle("active", item.index === this.cursor);
      const seen = shown.get(row.parent.handle);
      if (seen) seen.to = Math.max(seen.to, row.posinset);
      else shown.set(row.parent.handle, { from: row.posinset - 1, to: row.posinset });
      if (row.kind === "placeholder") {
        const g = gaps.get(row.parent) ?? { from: row.posinset - 1, to: row.posinset };
        g.from = Math.min(g.from, row.posinset - 1);
        g.to = Math.max(g.to, row.posinset);
        gaps.set(row.parent, g);
      }
    }
    this.placeRows(n);
    // The active descendant must be in the document: the cursor's row may
    // have scrolled out of the rendered ones (a key brings it back).
    const active = flat.at(this.cursor);
    const activeEl = active ? document.getElementById(rowId(active)) : null;
    if (activeEl && this.tree.contains(activeEl)) this.tree.setAttribute("aria-activedescendant", activeEl.id);
    else this.tree.removeAttribute("aria-activedescendant");
    for (const [handle, range] of shown) this.controller.noteInView(handle, range.from, range.to);
    for (const [folder, g] of gaps) void this.controller.ensureLoaded(folder.handle, g.from, g.to);
  }

  /**
   * The slot for the `i`th row in view. Slots stay in the document in
   * on-screen order; a new one is made only when more rows are in view than
   * ever before (a screenful plus overscan).
   */
  private slotAt(i: number): RowSlot {
    let slot = this.slots[i];
    if (!slot) {
      slot = new RowSlot();
      this.slots.push(slot);
      this.tree.append(slot.el);
    }
    return slot;
  }

  /** Parks the slots past the first `n` (hidden, still in the document). */
  private placeRows(n: number): void {
    for (let i = n; i < this.shownSlots; i++) this.slots[i]?.park();
    this.shownSlots = n;
  }

  // ---- interaction --------------------------------------------------------

  private rowOf(target: EventTarget | null): { el: HTMLElement; row: Row; index: number } | null {
    const rowEl = (target as Element | null)?.closest?.(".row") as HTMLElement | null;
    if (!rowEl || !this.flat) return null;
    const row = this.slots.find((slot) => slot.el === rowEl)?.row;
    if (!row) return null;
    const index = row.kind === "entry" ? this.flat.indexOf(row.node.entry.handle) : -1;
    return { el: rowEl, row, index };
  }

  private onClick(e: MouseEvent): void {
    const hit = this.rowOf(e.target);
    if (!hit || hit.row.kind !== "entry") return;
    const handle = hit.row.node.entry.handle;
    const action = (e.target as Element).closest?.("[data-action]")?.getAttribute("data-action");
    const folderHandle = hit.row.node.folder?.handle ?? handle;
    if (action === "show-next") {
      void this.controller.showNext(folderHandle);
    } else if (action === "show-all") {
      void this.controller.showAll(folderHandle);
    } else if (action === "filter") {
      this.filterBar.open(folderHandle);
      return;
    } else if (action === "clear-filter") {
      void this.controller.setFilter(folderHandle, null);
    } else if (action === "read-folder") {
      void this.controller.expand(handle);
    } else if (action === "open-root") {
      void this.controller.openAsRoot(handle);
      return;
    } else if ((e.target as Element).closest?.(".twisty")) {
      void this.controller.toggle(handle);
    }
    this.cursor = hit.index;
    this.controller.select(handle);
    if (!action) this.tree.focus();
  }

  private onDoubleClick(e: MouseEvent): void {
    const hit = this.rowOf(e.target);
    if (!hit || hit.row.kind !== "entry" || (e.target as Element).closest?.("[data-action]")) return;
    if (hit.row.node.entry.canExpand) void this.controller.toggle(hit.row.node.entry.handle);
  }

  private onContextMenu(e: MouseEvent): void {
    const hit = this.rowOf(e.target);
    if (!hit || hit.row.kind !== "entry") return;
    e.preventDefault();
    this.cursor = hit.index;
    this.controller.select(hit.row.node.entry.handle);
    this.openMenu(hit.row.node, e.clientX, e.clientY);
  }

  /** The menu of an entry's row: expand, open as root, show more, filter. */
  private openMenu(node: TreeNode, x: number, y: number): void {
    const items: MenuItem[] = [];
    const add = (label: string, run: () => void) => items.push({ label, run });
    const handle = node.entry.handle;
    if (node.entry.canExpand) {
      add(node.expanded ? "Collapse" : "Expand", () => void this.controller.toggle(handle));
      add("Open as root", () => void this.controller.openAsRoot(handle));
      const f = node.folder;
      if (f && !isComplete(f) && !f.showAll && !(f.error && ARCHIVE_STOPS.has(f.error.code))) {
        add(`Show next ${NESTED_CAP}`, () => void this.controller.showNext(f.handle));
        add("Show all", () => void this.controller.showAll(f.handle));
      }
      if (f) add(f.filter ? "Change filter…" : "Filter…", () => this.filterBar.open(f.handle));
      if (f?.filter) add("Clear filter", () => void this.controller.setFilter(f.handle, null));
    }
    // Counted below a real folder only: sizes never follow a link, nor enter an archive.
    if (node.entry.kind === "folder") add("Sizes: what is big in here", () => void this.controller.computeSizes(handle));
    // What the place does not allow (a server's entry) is shown, with the engine's reason.
    const caps = this.state?.capabilities;
    if (caps) {
      for (const [action, why] of [
        ["Open…", caps.openWithDesktop],
        ["Reveal", caps.reveal],
        ["Live refresh", caps.watch],
      ] as const) {
        if (why !== null) items.push({ label: action, run: () => undefined, disabled: why });
      }
    }
    this.menu.open(items, x, y, () => this.tree.focus());
  }

  /** The folder `/` filters: the focused row's, if it is a read folder; else the folder it is in. */
  private filterTarget(row: Row | null): string | null {
    if (!this.state) return null;
    if (row?.kind === "entry" && row.node.folder) return row.node.folder.handle;
    return row ? row.parent.handle : this.state.root.handle;
  }

  private keyTarget(): TreeKeyTarget {
    return {
      cursor: this.cursor,
      row: (i) => this.flat?.at(i) ?? null,
      rowCount: () => this.flat?.length ?? 0,
      pageRows: () => this.visibleRows(),
      moveTo: (i) => this.moveTo(i),
      parentRowIndex: (r) => this.parentRowIndex(r),
      expand: (h) => void this.controller.expand(h),
      collapse: (h) => this.controller.collapse(h),
      toggle: (h) => void this.controller.toggle(h),
      select: (h) => this.controller.select(h),
      openMenu: (row) => {
        const r = document.getElementById(rowId(row))?.getBoundingClientRect();
        if (row.kind === "entry") this.openMenu(row.node, r ? r.left + 40 : 40, r ? r.bottom : 40);
      },
      openFilter: (row) => {
        const target = this.filterTarget(row);
        if (target) this.filterBar.open(target);
      },
      typeAhead: (ch) => this.typeAheadKey(ch),
    };
  }

  /** A letter typed: the controller finds the entry; the cursor goes there once its row is loaded. */
  private typeAheadKey(ch: string): void {
    const flat = this.flat;
    const state = this.state;
    if (!flat || !state) return;
    const parent = flat.at(this.cursor)?.parent ?? state.root;
    void this.typeAhead.key(ch, parent.handle).then((hit) => {
      if (!hit || !this.flat) return;
      const index = this.flat.indexOfPosition(hit.folder, hit.index);
      if (index >= 0) this.moveTo(index);
    });
  }

  private moveTo(index: number): void {
    const flat = this.flat;
    if (!flat || flat.length === 0) return;
    const i = Math.max(0, Math.min(flat.length - 1, index));
    this.cursor = i;
    this.virtualizer.scrollToIndex(i, { align: "auto" });
    const row = flat.at(i);
    if (row?.kind === "entry") {
      this.pendingSelect = null;
      this.controller.select(row.node.entry.handle);
    } else {
      // Not loaded yet: select it when its page arrives.
      this.pendingSelect = i;
      this.paint();
    }
  }

  private visibleRows(): number {
    return Math.max(1, Math.floor(this.scroller.clientHeight / ROW_HEIGHT) - 1);
  }

  private parentRowIndex(row: Row): number {
    if (!this.flat || !this.state || row.parent.handle === this.state.root.handle) return -1;
    return this.flat.indexOf(row.parent.handle);
  }
}
