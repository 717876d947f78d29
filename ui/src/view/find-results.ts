// The Find results region (`role="region"`, "Find results"): what the
// engine's search found below the open folder, as it streams in. Name hits
// show the entry and its folder; content hits the matching line, cut
// around the match, the match marked (`<mark>`), escapes shown as they are
// in names. Every name and line reaches the DOM as text nodes only.
//
// A summary says what was found, what was searched and what Hide ignored
// hid (find-words.ts); a spinner and Stop while it runs. The hits are a
// list box: ArrowUp/Down, Home/End move, Enter or a double-click reveals
// the hit in the tree, Esc stops a running search or goes back to the
// field. Rows are appended as hits arrive, never rebuilt, and only as far
// as the list is scrolled (`FIND_ROWS_AHEAD` past it): the DOM grows with
// what a person looks through, not with the hits (at most `FIND_HITS`,
// where the engine stops and says so).

import type { FindHit } from "../bindings/FindHit";
import type { FindLine } from "../bindings/FindLine";
import type { FindController } from "../find-controller";
import type { FindState } from "../find-state";
import { button, el } from "./dom";
import { findSummary } from "./find-words";
import { icon, type IconName } from "./icons";
import { renderName } from "./name";

/** Rows made ahead of what is scrolled to (and at first). */
const FIND_ROWS_AHEAD = 200;

const KIND_ICON: Record<string, IconName> = { folder: "folder", file: "file", symlink: "symlink", archive: "archive" };

export class FindResults {
  readonly element: HTMLElement;
  private readonly summary: HTMLElement;
  private readonly spinner: HTMLElement;
  private readonly stopButton: HTMLButtonElement;
  private readonly list: HTMLElement;
  /** The search whose rows are shown, and how many of its hits. */
  private search = 0;
  private rendered = 0;
  private active = -1;
  /** Rows to have made (grows as the list is scrolled). */
  private wanted = FIND_ROWS_AHEAD;
  private shown: FindState | null = null;

  constructor(
    private readonly find: FindController,
    /** Gives focus back to the Find field. */
    private readonly back: () => void,
  ) {
    this.summary = el("span", { class: "find-summary", role: "status", "aria-live": "polite" });
    this.spinner = el("span", { class: "spinner", role: "progressbar", "aria-label": "Finding", hidden: "" });
    this.stopButton = button("Stop finding (Esc)", { "data-action": "find-stop" }, "Stop");
    const close = button("Close results", { class: "icon-only", "data-action": "find-close" }, "×");
    this.list = el("div", { class: "find-list", role: "listbox", "aria-label": "Found" });
    this.element = el(
      "section",
      { role: "region", "aria-label": "Find results", class: "find-results", hidden: "" },
      el("div", { class: "find-head" }, this.spinner, this.summary, this.stopButton, close),
      this.list,
    );
    this.stopButton.addEventListener("click", () => this.find.stop());
    close.addEventListener("click", () => {
      this.find.close();
      this.back();
    });
    this.list.addEventListener("keydown", (e) => this.key(e));
    this.list.addEventListener("dblclick", (e) => {
      const row = this.rowOf(e.target);
      if (row) void this.find.reveal(row.dataset.handle!);
    });
    this.list.addEventListener("scroll", () => {
      const l = this.list;
      if (l.scrollTop + l.clientHeight >= l.scrollHeight - l.clientHeight && this.shown && this.rendered < this.shown.hits.length) {
        this.wanted = this.rendered + FIND_ROWS_AHEAD;
        this.renderRows(this.shown);
      }
    });
    this.list.addEventListener("click", (e) => {
      const row = this.rowOf(e.target);
      if (row) this.moveTo(Number(row.dataset.index));
    });
  }

  update(s: FindState): void {
    this.shown = s;
    this.element.hidden = !s.open;
    if (s.search !== this.search) {
      this.search = s.search;
      this.rendered = 0;
      this.active = -1;
      this.wanted = FIND_ROWS_AHEAD;
      this.list.replaceChildren();
    }
    this.renderRows(s);
    this.summary.textContent = findSummary(s);
    this.spinner.hidden = s.running === null;
    this.stopButton.hidden = s.running === null;
  }

  private renderRows(s: FindState): void {
    const end = Math.min(s.hits.length, this.wanted);
    for (; this.rendered < end; this.rendered++) this.list.append(hitRow(s.hits[this.rendered]!, this.rendered));
    this.list.tabIndex = this.rendered > 0 && this.active < 0 ? 0 : -1;
  }

  /** Focus on the current hit (the first when none was); false when there are none. */
  focus(): boolean {
    if (this.element.hidden || this.rendered === 0) return false;
    this.moveTo(Math.max(this.active, 0));
    return true;
  }

  private rowOf(target: EventTarget | null): HTMLElement | null {
    return target instanceof Element ? target.closest<HTMLElement>(".find-result") : null;
  }

  private moveTo(index: number): void {
    if (index >= this.rendered && this.shown) {
      this.wanted = Math.max(this.wanted, index + FIND_ROWS_AHEAD);
      this.renderRows(this.shown);
    }
    const rows = this.list.children;
    if (rows.length === 0) return;
    const i = Math.min(Math.max(index, 0), rows.length - 1);
    const was = rows[this.active] as HTMLElement | undefined;
    if (was) {
      was.tabIndex = -1;
      was.setAttribute("aria-selected", "false");
    }
    const row = rows[i] as HTMLElement;
    row.tabIndex = 0;
    row.setAttribute("aria-selected", "true");
    this.active = i;
    this.list.tabIndex = -1;
    row.focus();
    row.scrollIntoView({ block: "nearest" });
  }

  private key(e: KeyboardEvent): void {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const page = Math.max(1, Math.floor(this.list.clientHeight / 24));
    if (e.key === "ArrowDown") this.moveTo(this.active + 1);
    else if (e.key === "ArrowUp") {
      if (this.active <= 0) this.back();
      else this.moveTo(this.active - 1);
    } else if (e.key === "PageDown") this.moveTo(this.active + page);
    else if (e.key === "PageUp") this.moveTo(this.active - page);
    else if (e.key === "Home") this.moveTo(0);
    else if (e.key === "End") this.moveTo((this.shown?.hits.length ?? 1) - 1);
    else if (e.key === "Enter") {
      const row = this.list.children[Math.max(this.active, 0)] as HTMLElement | undefined;
      if (row) void this.find.reveal(row.dataset.handle!);
    } else if (e.key === "Escape") {
      if (!this.find.stop()) this.back();
    } else return;
    e.preventDefault();
    e.stopPropagation();
  }
}

/** One hit's row: kind icon, name, its folder, and for a content hit its line. */
function hitRow(h: FindHit, index: number): HTMLElement {
  const row = el("div", { class: "find-result", role: "option", "aria-selected": "false", tabindex: "-1" });
  row.dataset.handle = h.handle;
  row.dataset.index = String(index);
  row.dataset.kind = h.kind;
  const where = h.folder === "" ? el("span", { class: "find-folder muted" }) : el("span", { class: "find-folder muted" }, renderName(h.folder, h.folderParts, "name"));
  row.append(icon(KIND_ICON[h.kind] ?? "special", h.kind), renderName(h.name, h.nameParts, "name find-name"), where);
  if (h.line) row.append(lineOf(h.line));
  return row;
}

/** A matching line: its number, then its text, the match in `<mark>`, escapes as markers. */
function lineOf(l: FindLine): HTMLElement {
  const text = el("bdi", { class: "find-text" });
  if (l.cutBefore) text.append("…");
  for (const p of l.parts) {
    let node: Node = document.createTextNode(p.text);
    if (p.escape) {
      const mark = el("span", { class: "escape", title: "a character that is not shown as itself" });
      mark.textContent = p.text;
      node = mark;
    }
    if (p.matched) {
      const m = el("mark", { class: "found-match" });
      m.append(node);
      node = m;
    }
    text.append(node);
  }
  if (l.cutAfter) text.append("…");
  return el("span", { class: "find-line" }, el("span", { class: "find-line-number muted" }, `${l.number}:`), text);
}
