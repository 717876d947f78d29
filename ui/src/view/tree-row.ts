// One row of the tree: a `treeitem` element built from a flattened row, with
// its name (as text only), kind icon, badges (errors, "N more" with what the
// rest is made of, "N ignored", a partial order, a filter) and row actions.
// The row reads what the engine decided (can it expand, counts, groups);
// it decides nothing itself.

import { ARCHIVE_STOPS, sentenceFor } from "../errors";
import { NESTED_CAP } from "../limits";
import { hiddenCount, isComplete, loadedCount, type FolderState, type Row, type TreeNode } from "../tree-state";
import { button, el } from "./dom";
import { formatCount, formatSize, formatTime, plural } from "./format";
import { icon } from "./icons";
import { archiveLabel } from "./archive-summary";
import type { NamePart } from "../bindings/NamePart";
import { nameParts, plainName, renderName } from "./name";
import { partialOrderSentence, restSentence } from "./folder-words";
import type { RowSize } from "./size-words";

export function rowKey(r: Row): string {
  return r.kind === "entry" ? `e:${r.node.entry.handle}` : `p:${r.parent.handle}:${r.posinset}`;
}

export function rowId(r: Row): string {
  // Handles are base64url: safe in an id.
  return r.kind === "entry" ? `row-${r.node.entry.handle}` : `ph-${r.parent.handle}-${r.posinset}`;
}

function errorBadge(code: string, message: string, sentence: string): HTMLElement {
  const b = el("span", { class: "badge badge-error", "data-code": code }, icon("warning"), code);
  b.title = `${sentence} (${message})`;
  return b;
}

/** The inline badge and the "Show next" / "Show all" / "Filter…" actions of a cut folder. */
function appendTruncation(extras: HTMLElement, folder: FolderState): void {
  const hidden = hiddenCount(folder);
  if (folder.showAll || (hidden === 0 && !folder.lowerBound) || isComplete(folder)) return;
  // An archive whose index stopped (RATIO, CORRUPT...): its error badge says why, and there is no more to read.
  if (folder.error && ARCHIVE_STOPS.has(folder.error.code)) return;
  const shown = loadedCount(folder);
  const total = folder.total ?? 0;
  const of = folder.lowerBound ? "at least " : "";
  const badge = el("span", { class: "badge badge-more", "data-hidden": String(hidden) }, `${of}${formatCount(hidden)} more`);
  badge.title = `${restSentence(folder)} (showing ${formatCount(shown)} of ${of}${formatCount(total)})`;
  extras.append(badge);
  const next = Math.min(NESTED_CAP, hidden);
  const tab = "-1";
  extras.append(
    button(hidden <= NESTED_CAP ? `Show the remaining ${formatCount(hidden)}` : `Show next ${NESTED_CAP}`, {
      class: "row-action",
      "data-action": "show-next",
      "data-count": String(next),
      tabindex: tab,
    }),
    button("Show all", { class: "row-action", "data-action": "show-all", tabindex: tab }),
  );
  if (!folder.filter) extras.append(button("Filter…", { class: "row-action", "data-action": "filter", tabindex: tab, title: "Filter this folder's entries (/)" }));
}

/** Badges that say how a read folder is listed: its filter, what the ignore rules hid, a partial order. */
function appendListingBadges(extras: HTMLElement, folder: FolderState): void {
  if (folder.filter) {
    const of = folder.unfilteredTotal ?? 0;
    const b = el("span", { class: "badge badge-filter", "data-filter": folder.filter }, `filter: ${folder.filter}`);
    b.title = `${formatCount(folder.total ?? 0)} of ${formatCount(of)} entries match`;
    extras.append(b, button("Clear filter", { class: "row-action", "data-action": "clear-filter", tabindex: "-1" }));
  }
  if (folder.ignoredHidden > 0) {
    const b = el("span", { class: "badge badge-ignored", "data-ignored": String(folder.ignoredHidden) }, `${formatCount(folder.ignoredHidden)} ignored`);
    b.title = `${plural(folder.ignoredHidden, "entry is", "entries are")} hidden by ignore rules`;
    extras.append(b);
  }
  const partial = partialOrderSentence(folder);
  if (partial) extras.append(el("span", { class: "badge badge-partial", title: "the size or time of the rest could not be read in time; they sort last" }, partial));
}

/** Indentation per level of the tree. */
const INDENT_PX = 18;

/** What a slot last showed: it is rebuilt only where one of these changed. */
interface Shown {
  key: string;
  row: Row;
  node: TreeNode | null;
  folder: FolderState | null;
  selected: boolean;
  loading: boolean;
  /** The folder-sizes figure shown in the Size cell, if any. */
  size: RowSize | null;
}

/**
 * One row element of the tree, reused for whatever row scrolls into its
 * place. WebKitGTK keeps memory for every element that enters and leaves a
 * document (about 2 KiB each, measured), so a virtualized list that built a
 * row per paint grew under scrolling: a slot is built once and updated in
 * place (attributes, text node data, icon class); only the badges of a row
 * whose folder changed are built anew.
 */
export class RowSlot {
  readonly el: HTMLElement;
  private readonly indent = el("span", { class: "indent" });
  private readonly chevron = icon("chevron");
  private readonly twisty = el("span", { class: "twisty", "aria-hidden": "true" }, this.chevron);
  private readonly kindIcon = icon("file", "file");
  private readonly name = document.createElement("bdi");
  private readonly extras = el("span", { class: "row-extras" });
  /** The row's share of its folder, behind the Size cell's text. */
  private readonly sizeBar = el("span", { class: "size-bar", "aria-hidden": "true" });
  private readonly sizeLabel = el("span", { class: "size-text" }, "");
  private readonly size = el("span", { class: "cell-size" }, this.sizeBar, this.sizeLabel);
  private readonly time = el("span", { class: "cell-time" }, "");
  private shown: Shown | null = null;

  constructor() {
    this.el = el(
      "div",
      { role: "treeitem", class: "row" },
      el("span", { class: "cell-name" }, this.indent, this.twisty, this.kindIcon, this.name, this.extras),
      this.size,
      this.time,
    );
  }

  /** The row this slot shows (null when parked). */
  get row(): Row | null {
    return this.shown?.row ?? null;
  }

  /** Shows `row` (with its folder-sizes figure, if any); does nothing when it already shows it in the same state. */
  show(row: Row, selected: boolean, loading: boolean, size: RowSize | null = null): void {
    const key = rowKey(row);
    const node = row.kind === "entry" ? row.node : null;
    const folder = node?.folder ?? null;
    const was = this.shown;
    const now: Shown = { key, row, node, folder, selected, loading, size };
    if (
      was &&
      sameExtras(was, now) &&
      was.size?.key === size?.key &&
      was.key === key &&
      was.row.level === row.level &&
      was.row.posinset === row.posinset &&
      was.row.setsize === row.setsize
    ) {
      was.row = row;
      return;
    }
    this.shown = now;
    const item = this.el;
    item.hidden = false;
    item.setAttribute("role", "treeitem");
    item.id = rowId(row);
    item.setAttribute("aria-level", String(row.level));
    item.setAttribute("aria-setsize", String(row.setsize));
    item.setAttribute("aria-posinset", String(row.posinset));
    item.setAttribute("aria-selected", selected ? "true" : "false");
    // Indentation as a plain width: WebKitGTK keeps memory for every inline
    // custom property set (a `--level` per row grew the web process by
    // about 0.5 MiB per expand or collapse, measured).
    const indent = `${(row.level - 1) * INDENT_PX}px`;
    if (this.indent.style.width !== indent) this.indent.style.width = indent;
    if (!node) {
      this.showPlaceholder();
      return;
    }
    const e = node.entry;
    item.classList.remove("placeholder");
    item.draggable = true;
    item.dataset.handle = e.handle;
    item.dataset.kind = e.kind;
    const expandable = e.canExpand === true;
    if (expandable) item.setAttribute("aria-expanded", node.expanded ? "true" : "false");
    else item.removeAttribute("aria-expanded");
    this.twisty.hidden = false;
    this.chevron.hidden = !expandable;
    this.kindIcon.hidden = false;
    setKindIcon(this.kindIcon, node);
    this.name.className = "name";
    fillName(this.name, e.name, e.nameParts);
    if (e.link) item.title = `link to ${plainName(e.link.target, e.link.targetParts)} (${e.link.pointsTo})`;
    else item.removeAttribute("title");
    // Badges and actions depend on the entry, its folder, the selection and
    // loading: rebuilt only when one of them changed.
    if (!was || !sameExtras(was, now)) {
      const parts = extrasOf(node, selected, loading);
      if (parts.length > 0 || this.extras.firstChild) this.extras.replaceChildren(...parts);
    }
    let sizeText = "";
    if (folder && folder.total !== null) sizeText = `${folder.lowerBound ? "at least " : ""}${plural(folder.total, "item", "items")}`;
    else if (e.kind === "file" && e.size !== undefined) sizeText = formatSize(e.size);
    this.showSize(size, sizeText);
    setText(this.time, e.modified !== undefined ? formatTime(e.modified) : "");
  }

  /**
   * Takes the slot out of the tree's rows without taking it out of the
   * document: hidden, no role, no id, no name.
   */
  park(): void {
    if (!this.shown && this.el.hidden) return;
    this.shown = null;
    const item = this.el;
    item.hidden = true;
    item.draggable = false;
    for (const a of ["role", "id", "aria-level", "aria-setsize", "aria-posinset", "aria-selected", "aria-expanded", "title", "data-handle", "data-kind"]) item.removeAttribute(a);
    setText(this.name, "");
    this.clearCells();
  }

  /**
   * The Size cell: a counted figure ("≥ 1.2 GiB" while counting), the bar
   * of its share of its folder, and its hover; else `plain` (a folder's
   * item count, a file's size).
   */
  private showSize(size: RowSize | null, plain: string): void {
    const cell = this.size;
    if (!size) {
      setText(this.sizeLabel, plain);
      cell.classList.remove("sized", "counting", "stale");
      cell.removeAttribute("title");
      this.sizeBar.hidden = true;
      return;
    }
    // A folder's item count moves to the hover: the cell now says how big.
    setText(this.sizeLabel, size.text ?? plain);
    cell.classList.toggle("sized", size.text !== null);
    cell.classList.toggle("counting", size.counting);
    cell.classList.toggle("stale", size.stale);
    cell.title = plain ? `${size.title}\n${size.text === null ? "length " : ""}${plain}` : size.title;
    this.sizeBar.hidden = size.share === null;
    const width = `${((size.share ?? 0) * 100).toFixed(2)}%`;
    if (this.sizeBar.style.width !== width) this.sizeBar.style.width = width;
  }

  private showPlaceholder(): void {
    const item = this.el;
    item.classList.add("placeholder");
    item.draggable = false;
    for (const a of ["aria-expanded", "title", "data-handle", "data-kind"]) item.removeAttribute(a);
    this.twisty.hidden = true;
    this.kindIcon.hidden = true;
    this.name.className = "name muted";
    setText(this.name, "Loading…");
    this.clearCells();
  }

  /** Empties what follows the name: badges and actions, size, time. */
  private clearCells(): void {
    if (this.extras.firstChild) this.extras.replaceChildren();
    this.showSize(null, "");
    setText(this.time, "");
  }
}

/** True when a row's badges and actions would come out the same: same entry, folder, selection and loading. */
function sameExtras(a: Shown, b: Shown): boolean {
  return a.node === b.node && a.folder === b.folder && a.selected === b.selected && a.loading === b.loading;
}

/** Sets an element's text through its one text node (no node made when it has one). */
function setText(target: HTMLElement, text: string): void {
  const first = target.firstChild;
  if (first && first === target.lastChild && first.nodeType === Node.TEXT_NODE) {
    const t = first as Text;
    if (t.data !== text) t.data = text;
  } else {
    target.replaceChildren(document.createTextNode(text));
  }
}

/** A name in place: plain names through the one text node, marked ones rebuilt. */
function fillName(bdi: HTMLElement, name: string, parts: readonly NamePart[] | undefined): void {
  if (!parts) setText(bdi, name);
  else bdi.replaceChildren(...nameParts(parts));
}

function setKindIcon(target: HTMLElement, node: TreeNode): void {
  const e = node.entry;
  let name: string;
  let label: string;
  switch (e.kind) {
    case "folder":
      [name, label] = ["folder", "folder"];
      break;
    case "file":
      [name, label] = e.archive ? ["archive", archiveLabel(e.archive)] : ["file", "file"];
      break;
    case "symlink":
      [name, label] = ["symlink", `symlink to ${e.link?.pointsTo ?? "unknown"}`];
      break;
    default:
      [name, label] = ["special", `special file (${e.kind})`];
  }
  const cls = `icon icon-${name}`;
  if (target.className !== cls) target.className = cls;
  if (target.getAttribute("aria-label") !== label) target.setAttribute("aria-label", label);
}

/** The badges and row actions after an entry's name. */
function extrasOf(node: TreeNode, selected: boolean, loading: boolean): HTMLElement[] {
  const e = node.entry;
  const extras = el("span");
  if (e.link) {
    const target = el("span", { class: "link-target" });
    target.append(" → ", renderName(e.link.target, e.link.targetParts, "target"));
    if (e.link.pointsTo === "dangling" || e.link.pointsTo === "loop") {
      target.append(el("span", { class: `badge badge-${e.link.pointsTo}` }, e.link.pointsTo));
    }
    extras.append(target);
  }
  if (e.error) {
    extras.append(errorBadge(e.error.code, e.error.message, sentenceFor(e.error.code)));
    // Left unread by the request's budget: the same action as a cut folder,
    // a sub-query for this folder alone.
    if (e.error.code === "BUDGET" && !node.folder) {
      extras.append(button("Read this folder", { class: "row-action", "data-action": "read-folder", tabindex: "-1" }));
    }
  }
  const folder = node.folder;
  if (folder?.error && folder.error.code !== e.error?.code) extras.append(errorBadge(folder.error.code, folder.error.message, sentenceFor(folder.error.code)));
  if (folder?.changed) extras.append(el("span", { class: "badge badge-changed", title: "this folder changed while it was read; reloaded" }, "changed"));
  if (loading) extras.append(el("span", { class: "spinner", role: "progressbar", "aria-label": "Loading" }));
  if (folder) {
    appendListingBadges(extras, folder);
    appendTruncation(extras, folder);
  }
  if (e.canExpand === true) {
    extras.append(button("Open as root", { class: "row-action icon-only", "data-action": "open-root", tabindex: selected ? "0" : "-1" }, icon("root")));
  }
  return Array.from(extras.children) as HTMLElement[];
}
