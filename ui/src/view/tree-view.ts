// The tree pane: a virtualized, flattened list of visible rows.
//
// At most a screenful plus overscan of `treeitem` rows exist in the DOM,
// kept in on-screen order; the scrollbar covers every row of the flat view,
// including entries not loaded yet (placeholders), which are fetched as they
// scroll into view. Selection follows the keyboard cursor. Names reach the DOM
// as text only.

import {
  Virtualizer,
  elementScroll,
  observeElementOffset,
  observeElementRect,
} from "@tanstack/virtual-core";
import type { DirectoryController, ControllerSnapshot } from "../directory-controller";
import { sentenceFor } from "../errors";
import { NESTED_CAP } from "../limits";
import {
  flatten,
  hiddenCount,
  hiddenKinds,
  isComplete,
  loadedCount,
  type FlatView,
  type FolderState,
  type Row,
  type TreeNode,
  type TreeState,
} from "../tree-state";
import { button, el } from "./dom";
import { formatCount, formatSize, formatTime, plural } from "./format";
import { icon } from "./icons";
import { plainName, renderName } from "./name";

export const ROW_HEIGHT = 28;
const OVERSCAN = 12;
const TYPEAHEAD_RESET_MS = 800;

interface Painted {
  el: HTMLElement;
  row: Row;
  node: TreeNode | null;
  folder: FolderState | null;
  selected: boolean;
  loading: boolean;
}

function rowKey(r: Row): string {
  return r.kind === "entry" ? `e:${r.node.entry.handle}` : `p:${r.parent.handle}:${r.posinset}`;
}

function rowId(r: Row): string {
  // Handles are base64url: safe in an id.
  return r.kind === "entry" ? `row-${r.node.entry.handle}` : `ph-${r.parent.handle}-${r.posinset}`;
}

function isExpandable(n: TreeNode): boolean {
  return n.entry.kind === "folder" || (n.entry.kind === "symlink" && n.entry.link?.pointsTo === "folder");
}

export class TreeView {
  readonly element: HTMLElement;
  private readonly scroller: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly tree: HTMLElement;
  private readonly virtualizer: Virtualizer<HTMLElement, HTMLElement>;
  private flat: FlatView | null = null;
  private state: TreeState | null = null;
  private cursor = 0;
  private painted = new Map<string, Painted>();
  private typeahead = "";
  private typeaheadTimer: ReturnType<typeof setTimeout> | undefined;
  private pendingSelect: number | null = null;
  private revealed = 0;
  private lastRootHandle: string | null = null;
  private menu: HTMLElement | null = null;

  constructor(private readonly controller: DirectoryController) {
    this.tree = el("div", {
      role: "tree",
      "aria-label": "Folder contents",
      tabindex: "0",
      class: "tree",
    });
    this.spacer = el("div", { class: "tree-spacer" }, this.tree);
    this.scroller = el("div", { class: "tree-scroller" }, this.spacer);
    this.element = el(
      "div",
      { class: "tree-pane" },
      el(
        "div",
        { class: "tree-header", "aria-hidden": "true" },
        el("span", { class: "col-name" }, "Name"),
        el("span", { class: "col-size" }, "Size"),
        el("span", { class: "col-time" }, "Modified"),
      ),
      this.scroller,
    );
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
    this.tree.addEventListener("keydown", (e) => this.onKey(e));
    this.tree.addEventListener("click", (e) => this.onClick(e));
    this.tree.addEventListener("dblclick", (e) => this.onDoubleClick(e));
    this.tree.addEventListener("contextmenu", (e) => this.onContextMenu(e));
    document.addEventListener("click", (e) => {
      if (this.menu && !this.menu.contains(e.target as Node)) this.closeMenu();
    });
  }

  focus(): void {
    this.tree.focus();
  }

  update(s: ControllerSnapshot): void {
    const prevState = this.state;
    this.state = s.tree;
    if (!s.tree) {
      this.flat = null;
      this.setCount(0);
      this.paint();
      return;
    }
    const rootChanged = s.tree.root.handle !== this.lastRootHandle;
    // Rows change only when the folders do; a selection change just repaints.
    if (!this.flat || !prevState || prevState.root !== s.tree.root) {
      const anchor = rootChanged ? null : this.topAnchor();
      this.flat = flatten(s.tree);
      this.setCount(this.flat.length);
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

  /** Renders the rows in view; fetches pages for placeholders among them. */
  private paint(): void {
    const flat = this.flat;
    const state = this.state;
    this.spacer.style.height = `${this.virtualizer.getTotalSize()}px`;
    if (!flat || !state) {
      this.tree.replaceChildren();
      this.painted.clear();
      return;
    }
    const items = this.virtualizer.getVirtualItems();
    const next = new Map<string, Painted>();
    const order: HTMLElement[] = [];
    const gaps = new Map<FolderState, { from: number; to: number }>();
    const shown = new Map<string, { from: number; to: number }>();
    for (const item of items) {
      const row = flat.at(item.index);
      if (!row) continue;
      const key = rowKey(row);
      const selected = row.kind === "entry" && state.selected === row.node.entry.handle;
      const node = row.kind === "entry" ? row.node : null;
      const folder = node?.folder ?? null;
      const loading = node ? this.controller.loadingNodes.has(node.entry.handle) || (folder?.loading ?? false) : true;
      let p = this.painted.get(key);
      if (!p || p.row.level !== row.level || p.node !== node || p.folder !== folder || p.selected !== selected || p.loading !== loading || p.row.posinset !== row.posinset || p.row.setsize !== row.setsize) {
        p = { el: this.renderRow(row, selected, loading), row, node, folder, selected, loading };
      }
      p.el.style.transform = `translateY(${item.start}px)`;
      p.el.classList.toggle("active", item.index === this.cursor);
      next.set(key, p);
      order.push(p.el);
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
    this.painted = next;
    this.placeInOrder(order);
    const active = flat.at(this.cursor);
    if (active) this.tree.setAttribute("aria-activedescendant", rowId(active));
    else this.tree.removeAttribute("aria-activedescendant");
    for (const [handle, range] of shown) this.controller.noteInView(handle, range.from, range.to);
    for (const [folder, g] of gaps) void this.controller.ensureLoaded(folder.handle, g.from, g.to);
  }

  /**
   * Puts the row elements in on-screen order with the fewest DOM changes:
   * rows that stayed are neither removed nor re-inserted (WebKitGTK keeps
   * memory for every element that goes in and out of a document).
   */
  private placeInOrder(order: HTMLElement[]): void {
    const wanted = new Set(order);
    for (const child of Array.from(this.tree.children)) if (!wanted.has(child as HTMLElement)) child.remove();
    let next = this.tree.firstElementChild;
    for (const el of order) {
      if (el === next) {
        next = next.nextElementSibling;
        continue;
      }
      this.tree.insertBefore(el, next);
    }
  }

  private renderRow(row: Row, selected: boolean, loading: boolean): HTMLElement {
    const item = el("div", {
      role: "treeitem",
      id: rowId(row),
      class: "row",
      "aria-level": String(row.level),
      "aria-setsize": String(row.setsize),
      "aria-posinset": String(row.posinset),
      "aria-selected": selected ? "true" : "false",
    });
    item.style.setProperty("--level", String(row.level));
    if (row.kind === "placeholder") {
      item.classList.add("placeholder");
      item.append(el("span", { class: "indent" }), el("span", { class: "name muted" }, "Loading…"));
      return item;
    }
    const { node } = row;
    const e = node.entry;
    item.dataset.handle = e.handle;
    item.dataset.kind = e.kind;
    const expandable = isExpandable(node);
    if (expandable) item.setAttribute("aria-expanded", node.expanded ? "true" : "false");

    const twisty = el("span", { class: "twisty", "aria-hidden": "true" });
    if (expandable) twisty.append(icon("chevron"));
    const kindIcon = this.kindIcon(node);
    // Badges and actions sit after the name and give way first when space is short.
    const extras = el("span", { class: "row-extras" });
    const main = el("span", { class: "cell-name" }, el("span", { class: "indent" }), twisty, kindIcon, renderName(e.name, e.nameParts), extras);

    if (e.link) {
      const target = el("span", { class: "link-target" });
      target.append(" → ", renderName(e.link.target, e.link.targetParts, "target"));
      if (e.link.pointsTo === "dangling" || e.link.pointsTo === "loop") {
        target.append(el("span", { class: `badge badge-${e.link.pointsTo}` }, e.link.pointsTo));
      }
      extras.append(target);
      item.title = `link to ${plainName(e.link.target, e.link.targetParts)} (${e.link.pointsTo})`;
    }
    if (e.error) {
      const b = el("span", { class: "badge badge-error", "data-code": e.error.code }, e.error.code);
      b.title = `${sentenceFor(e.error.code)} (${e.error.message})`;
      extras.append(b);
      // Left unread by the request's budget: the same action as a cut folder,
      // a sub-query for this folder alone.
      if (e.error.code === "BUDGET" && !node.folder) {
        extras.append(button("Read this folder", { class: "row-action", "data-action": "read-folder", tabindex: "-1" }));
      }
    }
    const folder = node.folder;
    if (folder?.error && folder.error.code !== e.error?.code) {
      const b = el("span", { class: "badge badge-error", "data-code": folder.error.code }, folder.error.code);
      b.title = `${sentenceFor(folder.error.code)} (${folder.error.message})`;
      extras.append(b);
    }
    if (folder?.changed) extras.append(el("span", { class: "badge badge-changed", title: "this folder changed while it was read; reloaded" }, "changed"));
    if (loading) extras.append(el("span", { class: "spinner", role: "progressbar", "aria-label": "Loading" }));
    if (folder) this.appendTruncation(extras, folder);
    if (e.kind === "folder" || e.link?.pointsTo === "folder") {
      const openRoot = button("Open as root", { class: "row-action icon-only", "data-action": "open-root", tabindex: selected ? "0" : "-1" }, icon("root"));
      extras.append(openRoot);
    }

    let sizeText = "";
    if (folder && folder.total !== null) sizeText = `${folder.lowerBound ? "at least " : ""}${plural(folder.total, "item", "items")}`;
    else if (e.kind === "file" && e.size !== undefined) sizeText = formatSize(e.size);
    const size = el("span", { class: "cell-size" }, sizeText);
    const time = el("span", { class: "cell-time" }, e.modified !== undefined ? formatTime(e.modified) : "");
    item.append(main, size, time);
    return item;
  }

  private kindIcon(node: TreeNode): HTMLElement {
    const e = node.entry;
    switch (e.kind) {
      case "folder":
        return icon("folder", "folder");
      case "file":
        return icon("file", "file");
      case "symlink":
        return icon("symlink", `symlink to ${e.link?.pointsTo ?? "unknown"}`);
      default:
        return icon("special", `special file (${e.kind})`);
    }
  }

  /** The inline badge and the "Show next" / "Show all" buttons of a cut folder. */
  private appendTruncation(main: HTMLElement, folder: FolderState): void {
    const hidden = hiddenCount(folder);
    if (folder.showAll || (hidden === 0 && !folder.lowerBound) || isComplete(folder)) return;
    const shown = loadedCount(folder);
    const total = folder.total ?? 0;
    const kinds = hiddenKinds(folder);
    const parts: string[] = [];
    if (kinds.folders) parts.push(plural(kinds.folders, "folder", "folders"));
    if (kinds.files) parts.push(plural(kinds.files, "file", "files"));
    if (kinds.other) parts.push(plural(kinds.other, "other entry", "other entries"));
    const of = folder.lowerBound ? "at least " : "";
    const badge = el("span", { class: "badge badge-more", "data-hidden": String(hidden) }, `${folder.lowerBound ? "at least " : ""}${formatCount(hidden)} more`);
    badge.title = `showing ${formatCount(shown)} of ${of}${formatCount(total)}: ${parts.join(" and ") || "entries"} not shown`;
    main.append(badge);
    const next = Math.min(NESTED_CAP, hidden);
    const tab = "-1";
    main.append(
      button(hidden <= NESTED_CAP ? `Show the remaining ${formatCount(hidden)}` : `Show next ${NESTED_CAP}`, {
        class: "row-action",
        "data-action": "show-next",
        "data-count": String(next),
        tabindex: tab,
      }),
      button("Show all", { class: "row-action", "data-action": "show-all", tabindex: tab }),
    );
  }

  // ---- interaction --------------------------------------------------------

  private rowOf(target: EventTarget | null): { el: HTMLElement; row: Row; index: number } | null {
    const rowEl = (target as Element | null)?.closest?.(".row") as HTMLElement | null;
    if (!rowEl || !this.flat) return null;
    for (const [, p] of this.painted) {
      if (p.el === rowEl) {
        const index = p.row.kind === "entry" ? this.flat.indexOf(p.row.node.entry.handle) : -1;
        return { el: rowEl, row: p.row, index };
      }
    }
    return null;
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
    if (isExpandable(hit.row.node)) void this.controller.toggle(hit.row.node.entry.handle);
  }

  private onContextMenu(e: MouseEvent): void {
    const hit = this.rowOf(e.target);
    if (!hit || hit.row.kind !== "entry") return;
    e.preventDefault();
    this.cursor = hit.index;
    this.controller.select(hit.row.node.entry.handle);
    this.openMenu(hit.row.node, e.clientX, e.clientY);
  }

  private openMenu(node: TreeNode, x: number, y: number): void {
    this.closeMenu();
    const items: HTMLElement[] = [];
    const add = (label: string, run: () => void) => {
      const b = button(label, { role: "menuitem", class: "menu-item" });
      b.addEventListener("click", () => {
        this.closeMenu();
        run();
      });
      items.push(b);
    };
    const handle = node.entry.handle;
    if (isExpandable(node)) {
      add(node.expanded ? "Collapse" : "Expand", () => void this.controller.toggle(handle));
      add("Open as root", () => void this.controller.openAsRoot(handle));
      const f = node.folder;
      if (f && !isComplete(f) && !f.showAll) {
        add("Show next 100", () => void this.controller.showNext(f.handle));
        add("Show all", () => void this.controller.showAll(f.handle));
      }
    }
    if (items.length === 0) return;
    const menu = el("div", { role: "menu", class: "context-menu", "aria-label": "Entry actions" }, ...items);
    menu.style.left = `${x}px`;
    menu.style.top = `${y}px`;
    menu.addEventListener("keydown", (e) => {
      const list = items;
      const i = list.indexOf(document.activeElement as HTMLElement);
      if (e.key === "Escape") {
        this.closeMenu();
        this.tree.focus();
      } else if (e.key === "ArrowDown") list[(i + 1) % list.length]?.focus();
      else if (e.key === "ArrowUp") list[(i - 1 + list.length) % list.length]?.focus();
      else return;
      e.preventDefault();
    });
    document.body.append(menu);
    this.menu = menu;
    items[0]?.focus();
  }

  private closeMenu(): void {
    this.menu?.remove();
    this.menu = null;
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

  private onKey(e: KeyboardEvent): void {
    const flat = this.flat;
    if (!flat || e.altKey || e.ctrlKey || e.metaKey) return;
    const row = flat.at(this.cursor);
    let handled = true;
    switch (e.key) {
      case "ArrowDown":
        this.moveTo(this.cursor + 1);
        break;
      case "ArrowUp":
        this.moveTo(this.cursor - 1);
        break;
      case "PageDown":
        this.moveTo(this.cursor + this.visibleRows());
        break;
      case "PageUp":
        this.moveTo(this.cursor - this.visibleRows());
        break;
      case "Home":
        this.moveTo(0);
        break;
      case "End":
        this.moveTo(flat.length - 1);
        break;
      case "ArrowRight":
        if (row?.kind === "entry" && isExpandable(row.node)) {
          if (!row.node.expanded) void this.controller.expand(row.node.entry.handle);
          else this.moveTo(this.cursor + 1);
        }
        break;
      case "ArrowLeft":
        if (row?.kind === "entry" && row.node.expanded) this.controller.collapse(row.node.entry.handle);
        else if (row) {
          const p = this.parentRowIndex(row);
          if (p >= 0) this.moveTo(p);
        }
        break;
      case "Enter":
        if (row?.kind === "entry") {
          if (isExpandable(row.node)) void this.controller.toggle(row.node.entry.handle);
          else this.controller.select(row.node.entry.handle);
        }
        break;
      case "ContextMenu":
        if (row?.kind === "entry") {
          const r = document.getElementById(rowId(row))?.getBoundingClientRect();
          this.openMenu(row.node, r ? r.left + 40 : 40, r ? r.bottom : 40);
        }
        break;
      default:
        handled = e.key.length === 1 && e.key !== " " ? (this.typeAhead(e.key), true) : false;
    }
    if (handled) e.preventDefault();
  }

  /** Typing a name jumps to it: loaded rows of a complete folder directly, `locate` otherwise. */
  private typeAhead(ch: string): void {
    clearTimeout(this.typeaheadTimer);
    this.typeahead += ch;
    this.typeaheadTimer = setTimeout(() => (this.typeahead = ""), TYPEAHEAD_RESET_MS);
    const flat = this.flat;
    const state = this.state;
    if (!flat || !state) return;
    const parent = flat.at(this.cursor)?.parent ?? state.root;
    const prefix = this.typeahead.toLocaleLowerCase();
    if (isComplete(parent)) {
      for (let i = 0; i < flat.length; i++) {
        const r = flat.at(i);
        if (r?.kind === "entry" && r.parent === parent && r.node.entry.name.toLocaleLowerCase().startsWith(prefix)) {
          this.moveTo(i);
          return;
        }
      }
      return;
    }
    const wanted = this.typeahead;
    void this.controller.locate(parent.handle, wanted).then(async (hit) => {
      if (!hit || wanted !== this.typeahead) return;
      this.pendingPosition = { folder: parent.handle, index: hit.index };
      if (!parent.showAll && parent.handle !== state.root.handle) await this.controller.showAll(parent.handle);
      await this.controller.ensureLoaded(parent.handle, hit.index, hit.index + 1);
      this.resolvePendingPosition();
    });
  }

  private pendingPosition: { folder: string; index: number } | null = null;

  private resolvePendingPosition(): void {
    const pp = this.pendingPosition;
    if (!pp || !this.flat) return;
    const index = this.flat.indexOfPosition(pp.folder, pp.index);
    if (index >= 0) {
      this.pendingPosition = null;
      this.moveTo(index);
    }
  }
}
