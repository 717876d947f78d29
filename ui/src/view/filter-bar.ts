// The filter field: filters one folder (the root, or any folder, opened from
// its badge, its context menu or `/`) over all of its entries, on the
// engine. A plain text matches anywhere in a name; `*`, `?` and `[...]` make
// a whole-name glob. It shows how many entries match; Escape or "Clear"
// brings the folder back as it was.

import type { ControllerSnapshot, DirectoryController } from "../directory-controller";
import { FILTER_DEBOUNCE_MS } from "../limits";
import { findFolder, findNode } from "../tree-state";
import { button, el } from "./dom";
import { matchSentence } from "./folder-words";

export class FilterBar {
  readonly element: HTMLElement;
  private readonly input: HTMLInputElement;
  private readonly target: HTMLElement;
  private readonly count: HTMLElement;
  private folder: string | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly controller: DirectoryController,
    /** Gives focus back to the tree. */
    private readonly done: () => void,
  ) {
    this.input = el("input", { type: "search", class: "filter-input", "aria-label": "Filter", placeholder: "text, or a glob like *.jpg" });
    this.target = el("span", { class: "filter-target" });
    this.count = el("span", { class: "muted filter-count", role: "status", "aria-live": "polite" });
    const clear = button("Clear filter", { class: "icon-only", "data-action": "clear-filter-bar" }, "×");
    this.element = el("div", { class: "filter-bar", role: "search", hidden: "" }, el("label", { class: "filter-label" }, "Filter ", this.target, " ", this.input), this.count, clear);
    this.input.addEventListener("input", () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.apply(), FILTER_DEBOUNCE_MS);
    });
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        clearTimeout(this.timer);
        this.apply();
        this.done();
      } else if (e.key === "Escape") this.clear();
      else return;
      e.preventDefault();
    });
    clear.addEventListener("click", () => this.clear());
  }

  /** Opens the field for a folder (its current filter in the field). */
  open(folderHandle: string): void {
    const t = this.controller.state;
    const f = t && findFolder(t, folderHandle);
    if (!t || !f) return;
    this.folder = folderHandle;
    const name = folderHandle === t.root.handle ? t.rootEntry.name : (findNode(t, folderHandle)?.node.entry.name ?? "");
    this.target.textContent = name;
    this.input.value = f.filter ?? "";
    this.element.hidden = false;
    this.element.dataset.folder = folderHandle;
    this.showCount();
    this.input.focus();
    this.input.select();
  }

  /** The folder whose filter the field edits, when open. */
  get folderHandle(): string | null {
    return this.folder;
  }

  private apply(): void {
    if (this.folder) void this.controller.setFilter(this.folder, this.input.value || null);
  }

  private clear(): void {
    clearTimeout(this.timer);
    if (this.folder) void this.controller.setFilter(this.folder, null);
    this.close();
    this.done();
  }

  close(): void {
    this.folder = null;
    this.element.hidden = true;
    delete this.element.dataset.folder;
  }

  private showCount(): void {
    const t = this.controller.state;
    const f = this.folder && t ? findFolder(t, this.folder) : null;
    this.count.textContent = f ? (f.loading ? "filtering…" : (matchSentence(f) ?? "")) : "";
  }

  update(s: ControllerSnapshot): void {
    if (!this.folder) return;
    if (!s.tree || !findFolder(s.tree, this.folder)) {
      this.close();
      return;
    }
    this.showCount();
  }
}
