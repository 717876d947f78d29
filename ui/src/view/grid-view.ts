// The grid: the open folder's entries as cells (a thumbnail or an icon, the
// name under it), a listbox whose options are only the rows of cells in
// view plus GRID_OVERSCAN_ROWS above and below: the DOM stays bounded
// whatever the folder's size, and only those cells' thumbnails are asked
// (thumbs.ts). Selection follows the keyboard cursor as in the list:
// arrows, Page Up/Down, Home/End; Enter or a double-click opens a folder.
// Unloaded positions are fetched as they scroll into view. Names reach the
// DOM as text only; a thumbnail is an <img> of a blob URL (an SVG there
// runs no script).

import { Virtualizer, elementScroll, observeElementOffset, observeElementRect } from "@tanstack/virtual-core";
import type { ControllerSnapshot, DirectoryController } from "../directory-controller";
import { gridMove, nodeAtPosition } from "../grid-state";
import { GRID_OVERSCAN_ROWS } from "../limits";
import type { Thumbs } from "../thumbs";
import type { TreeState } from "../tree-state";
import { el } from "./dom";
import { icon } from "./icons";
import { plainName, renderName } from "./name";

const CELL_W = 140;
const CELL_H = 164;

export class GridView {
  readonly element: HTMLElement;
  private readonly scroller: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly list: HTMLElement;
  private readonly virtualizer: Virtualizer<HTMLElement, HTMLElement>;
  private state: TreeState | null = null;
  private cols = 1;
  private cursor = 0;
  private rootHandle: string | null = null;
  /** A position moved to before its page was loaded: selected once it is. */
  private pendingSelect: number | null = null;

  constructor(
    private readonly controller: DirectoryController,
    private readonly thumbs: Thumbs,
  ) {
    this.list = el("div", { role: "listbox", "aria-label": "Folder contents", tabindex: "0", class: "grid" });
    this.spacer = el("div", { class: "grid-spacer" }, this.list);
    this.scroller = el("div", { class: "grid-scroller" }, this.spacer);
    this.element = el("div", { class: "grid-pane" }, this.scroller);
    this.virtualizer = new Virtualizer<HTMLElement, HTMLElement>({
      count: 0,
      getScrollElement: () => this.scroller,
      estimateSize: () => CELL_H,
      overscan: GRID_OVERSCAN_ROWS,
      observeElementRect,
      observeElementOffset,
      scrollToFn: elementScroll,
      initialRect: { width: 800, height: 600 },
      // A resize may change the columns: lay out again; a scroll only paints.
      onChange: () => (this.columnsFor() !== this.cols ? this.layout() : this.paint()),
    });
    this.virtualizer._didMount();
    this.list.addEventListener("keydown", (e) => this.onKey(e));
    this.list.addEventListener("click", (e) => this.onClick(e, false));
    this.list.addEventListener("dblclick", (e) => this.onClick(e, true));
  }

  focus(): void {
    this.list.focus();
  }

  /** The element cells live in (dragging cells out listens there). */
  get cellsElement(): HTMLElement {
    return this.list;
  }

  update(s: ControllerSnapshot): void {
    this.state = s.tree;
    const root = s.tree?.root ?? null;
    if (root?.handle !== this.rootHandle) {
      this.rootHandle = root?.handle ?? null;
      this.cursor = 0;
      this.pendingSelect = null;
      this.scroller.scrollTop = 0;
    }
    if (this.pendingSelect !== null && root) {
      const node = nodeAtPosition(root, this.pendingSelect);
      if (node) {
        this.cursor = this.pendingSelect;
        this.pendingSelect = null;
        this.controller.select(node.entry.handle);
        return;
      }
    } else if (s.tree?.selected && root) {
      const at = this.positionOf(s.tree.selected);
      if (at >= 0) this.cursor = at;
    }
    this.layout();
  }

  /** Columns from the pane's width; rows from the folder's total. */
  private layout(): void {
    if (this.element.hidden) return;
    this.cols = this.columnsFor();
    const total = this.state?.root.total ?? 0;
    const rows = Math.ceil(total / this.cols);
    if (this.virtualizer.options.count !== rows) this.virtualizer.setOptions({ ...this.virtualizer.options, count: rows });
    this.virtualizer._willUpdate();
    this.paint();
  }

  private columnsFor(): number {
    return Math.max(1, Math.floor((this.scroller.clientWidth || 800) / CELL_W));
  }

  /** Shown or hidden (the Grid / List switch). */
  setShown(shown: boolean): void {
    this.element.hidden = !shown;
    if (shown) this.layout();
  }

  private positionOf(handle: string): number {
    const f = this.state?.root;
    if (!f) return -1;
    for (const c of f.chunks) {
      const i = c.nodes.findIndex((n) => n.entry.handle === handle);
      if (i >= 0) return c.offset + i;
    }
    return -1;
  }

  private paint(): void {
    const f = this.state?.root;
    this.spacer.style.height = `${this.virtualizer.getTotalSize()}px`;
    if (!f || this.element.hidden) {
      this.list.replaceChildren();
      return;
    }
    const total = f.total ?? 0;
    const cells: HTMLElement[] = [];
    const wanted = new Set<string>();
    let missingFrom = -1;
    let missingTo = -1;
    for (const row of this.virtualizer.getVirtualItems()) {
      for (let c = 0; c < this.cols; c++) {
        const pos = row.index * this.cols + c;
        if (pos >= total) break;
        const node = nodeAtPosition(f, pos);
        if (!node) {
          if (missingFrom < 0) missingFrom = pos;
          missingTo = pos + 1;
        }
        cells.push(this.cell(pos, total, node, row.start, c, wanted));
      }
    }
    this.list.replaceChildren(...cells);
    this.thumbs.keepOnly(wanted);
    const active = this.list.querySelector<HTMLElement>(".cell.active");
    if (active) this.list.setAttribute("aria-activedescendant", active.id);
    else this.list.removeAttribute("aria-activedescendant");
    if (missingFrom >= 0) void this.controller.ensureLoaded(f.handle, missingFrom, missingTo);
  }

  private cell(pos: number, total: number, node: ReturnType<typeof nodeAtPosition>, top: number, col: number, wanted: Set<string>): HTMLElement {
    const selected = node !== null && this.state?.selected === node.entry.handle;
    const cell = el("div", {
      role: "option",
      class: `cell${pos === this.cursor ? " active" : ""}`,
      id: `cell-${pos}`,
      "aria-selected": selected ? "true" : "false",
      "aria-setsize": String(total),
      "aria-posinset": String(pos + 1),
    });
    cell.style.transform = `translate(${col * CELL_W}px, ${top}px)`;
    if (!node) {
      cell.append(el("div", { class: "thumb" }), el("span", { class: "grid-name muted" }, "Loading…"));
      return cell;
    }
    const e = node.entry;
    cell.dataset.handle = e.handle;
    cell.dataset.kind = e.kind;
    cell.draggable = true;
    const frame = el("div", { class: "thumb" });
    if (e.kind === "file") {
      wanted.add(e.handle);
      const t = this.thumbs.get(e.handle);
      if (t.kind === "drawn") {
        const img = el("img", { src: t.url, alt: "", draggable: "false" });
        if (t.reused) img.dataset.reused = "true";
        frame.append(img);
      } else if (t.kind === "none") frame.append(icon("file"));
      frame.dataset.thumb = t.kind;
    } else frame.append(icon(e.kind === "folder" ? "folder" : e.kind === "symlink" ? "symlink" : "special"));
    const name = renderName(e.name, e.nameParts, "grid-name");
    cell.title = plainName(e.name, e.nameParts);
    cell.append(frame, name);
    return cell;
  }

  private onClick(e: MouseEvent, twice: boolean): void {
    const cell = (e.target as Element).closest?.(".cell[data-handle]") as HTMLElement | null;
    if (!cell) return;
    const handle = cell.dataset.handle!;
    this.cursor = Number(cell.getAttribute("aria-posinset")) - 1;
    this.controller.select(handle);
    if (twice && cell.dataset.kind === "folder") void this.controller.openAsRoot(handle);
    this.list.focus();
  }

  private onKey(e: KeyboardEvent): void {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const f = this.state?.root;
    if (!f) return;
    const total = f.total ?? 0;
    if (e.key === "Enter") {
      const node = nodeAtPosition(f, this.cursor);
      if (node?.entry.canExpand) void this.controller.openAsRoot(node.entry.handle);
      e.preventDefault();
      return;
    }
    const pageRows = Math.max(1, Math.floor(this.scroller.clientHeight / CELL_H));
    const to = gridMove(e.key, this.cursor, this.cols, total, pageRows);
    if (to === null) return;
    e.preventDefault();
    this.cursor = to;
    this.virtualizer.scrollToIndex(Math.floor(to / this.cols), { align: "auto" });
    const node = nodeAtPosition(f, to);
    this.pendingSelect = node ? null : to;
    if (node) this.controller.select(node.entry.handle);
    else this.paint();
  }
}
