// The tree's keyboard: arrows, Page Up/Down, Home/End move the cursor
// (selection follows it); Right/Left expand, collapse or go to the parent;
// Enter toggles a folder; the context-menu key opens the row's menu; `/`
// opens the filter for the focused folder; any other printable key is
// type-ahead. The keys act through `TreeKeyTarget`; nothing here touches
// the DOM or the backend.

import type { Row } from "../tree-state";

/** What the keys act on: the tree view. */
export interface TreeKeyTarget {
  /** Index of the cursor's row in the flattened rows. */
  readonly cursor: number;
  row(index: number): Row | null;
  rowCount(): number;
  /** Rows in one page of the view. */
  pageRows(): number;
  moveTo(index: number): void;
  /** Index of the row of `row`'s folder, or -1 at the top level. */
  parentRowIndex(row: Row): number;
  expand(handle: string): void;
  collapse(handle: string): void;
  toggle(handle: string): void;
  select(handle: string): void;
  openMenu(row: Row): void;
  openFilter(row: Row | null): void;
  typeAhead(ch: string): void;
}

/** Handles one key; true when it was the tree's (the caller prevents its default). */
export function onTreeKey(e: KeyboardEvent, t: TreeKeyTarget): boolean {
  if (e.altKey || e.ctrlKey || e.metaKey) return false;
  const row = t.row(t.cursor);
  switch (e.key) {
    case "ArrowDown":
      t.moveTo(t.cursor + 1);
      return true;
    case "ArrowUp":
      t.moveTo(t.cursor - 1);
      return true;
    case "PageDown":
      t.moveTo(t.cursor + t.pageRows());
      return true;
    case "PageUp":
      t.moveTo(t.cursor - t.pageRows());
      return true;
    case "Home":
      t.moveTo(0);
      return true;
    case "End":
      t.moveTo(t.rowCount() - 1);
      return true;
    case "ArrowRight":
      if (row?.kind === "entry" && row.node.entry.canExpand) {
        if (!row.node.expanded) t.expand(row.node.entry.handle);
        else t.moveTo(t.cursor + 1);
      }
      return true;
    case "ArrowLeft":
      if (row?.kind === "entry" && row.node.expanded) t.collapse(row.node.entry.handle);
      else if (row) {
        const p = t.parentRowIndex(row);
        if (p >= 0) t.moveTo(p);
      }
      return true;
    case "Enter":
      if (row?.kind === "entry") {
        if (row.node.entry.canExpand) t.toggle(row.node.entry.handle);
        else t.select(row.node.entry.handle);
      }
      return true;
    case "ContextMenu":
      if (row?.kind === "entry") t.openMenu(row);
      return true;
    case "/":
      t.openFilter(row);
      return true;
    default:
      if (e.key.length === 1 && e.key !== " ") {
        t.typeAhead(e.key);
        return true;
      }
      return false;
  }
}
