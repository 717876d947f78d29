// The tree's column headers: Name, Size and Modified are `columnheader`s,
// reachable with Tab; a click, Enter or Space sorts every folder by that
// column, and choosing it again reverses the order. The active one carries
// `aria-sort`. The order itself is the engine's (the controller re-lists).
//
// A `columnheader` lives in a `row`, and a `row` in a table, grid or
// treegrid. The tree below is a `tree` of `treeitem`s (its keyboard is the
// tree pattern's), so the header row stands outside it, in a one-row
// `table` of its own: the headers are the sort control, not cells of the
// tree's rows.

import type { SortBy } from "../bindings/SortBy";
import type { ControllerSnapshot, DirectoryController } from "../directory-controller";
import { el } from "./dom";

const COLUMNS: ReadonlyArray<{ by: SortBy; label: string; cls: string }> = [
  { by: "name", label: "Name", cls: "col-name" },
  { by: "size", label: "Size", cls: "col-size" },
  { by: "modified", label: "Modified", cls: "col-time" },
];

export class ColumnHeaders {
  readonly element: HTMLElement;
  private readonly cells = new Map<SortBy, HTMLElement>();

  constructor(controller: DirectoryController) {
    const row = el("div", { class: "tree-header", role: "row" });
    this.element = el("div", { class: "tree-columns", role: "table", "aria-label": "Sort by" }, row);
    for (const c of COLUMNS) {
      const cell = el(
        "span",
        { class: `${c.cls} column-header`, role: "columnheader", tabindex: "0", "data-sort": c.by, title: `Sort by ${c.label.toLowerCase()} (again to reverse)` },
        c.label,
        el("span", { class: "sort-arrow", "aria-hidden": "true" }),
      );
      const choose = () => void controller.sortBy(c.by);
      cell.addEventListener("click", choose);
      cell.addEventListener("keydown", (e) => {
        if (e.key !== "Enter" && e.key !== " ") return;
        e.preventDefault();
        choose();
      });
      this.cells.set(c.by, cell);
      row.append(cell);
    }
  }

  update(s: ControllerSnapshot): void {
    for (const [by, cell] of this.cells) {
      if (by === s.settings.sort) {
        cell.setAttribute("aria-sort", s.settings.reverse ? "descending" : "ascending");
        cell.classList.add("sorted");
      } else {
        cell.removeAttribute("aria-sort");
        cell.classList.remove("sorted");
      }
    }
  }
}
