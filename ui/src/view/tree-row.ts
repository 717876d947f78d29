// One row of the tree: a `treeitem` element built from a flattened row, with
// its name (as text only), kind icon, badges (errors, "N more" with what the
// rest is made of, "N ignored", a partial order, a filter) and row actions.
// The row reads what the engine decided (can it expand, counts, groups);
// it decides nothing itself.

import { sentenceFor } from "../errors";
import { NESTED_CAP } from "../limits";
import { hiddenCount, isComplete, loadedCount, type FolderState, type Row, type TreeNode } from "../tree-state";
import { button, el } from "./dom";
import { formatCount, formatSize, formatTime, plural } from "./format";
import { icon } from "./icons";
import { plainName, renderName } from "./name";
import { partialOrderSentence, restSentence } from "./folder-words";

export function rowKey(r: Row): string {
  return r.kind === "entry" ? `e:${r.node.entry.handle}` : `p:${r.parent.handle}:${r.posinset}`;
}

export function rowId(r: Row): string {
  // Handles are base64url: safe in an id.
  return r.kind === "entry" ? `row-${r.node.entry.handle}` : `ph-${r.parent.handle}-${r.posinset}`;
}

function kindIcon(node: TreeNode): HTMLElement {
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

function errorBadge(code: string, message: string, sentence: string): HTMLElement {
  const b = el("span", { class: "badge badge-error", "data-code": code }, code);
  b.title = `${sentence} (${message})`;
  return b;
}

/** The inline badge and the "Show next" / "Show all" / "Filter…" actions of a cut folder. */
function appendTruncation(extras: HTMLElement, folder: FolderState): void {
  const hidden = hiddenCount(folder);
  if (folder.showAll || (hidden === 0 && !folder.lowerBound) || isComplete(folder)) return;
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

/** Builds the element of one row. */
export function renderRow(row: Row, selected: boolean, loading: boolean): HTMLElement {
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
  const expandable = e.canExpand === true;
  if (expandable) item.setAttribute("aria-expanded", node.expanded ? "true" : "false");

  const twisty = el("span", { class: "twisty", "aria-hidden": "true" });
  if (expandable) twisty.append(icon("chevron"));
  // Badges and actions sit after the name and give way first when space is short.
  const extras = el("span", { class: "row-extras" });
  const main = el("span", { class: "cell-name" }, el("span", { class: "indent" }), twisty, kindIcon(node), renderName(e.name, e.nameParts), extras);

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
  if (expandable) {
    extras.append(button("Open as root", { class: "row-action icon-only", "data-action": "open-root", tabindex: selected ? "0" : "-1" }, icon("root")));
  }

  let sizeText = "";
  if (folder && folder.total !== null) sizeText = `${folder.lowerBound ? "at least " : ""}${plural(folder.total, "item", "items")}`;
  else if (e.kind === "file" && e.size !== undefined) sizeText = formatSize(e.size);
  const size = el("span", { class: "cell-size" }, sizeText);
  const time = el("span", { class: "cell-time" }, e.modified !== undefined ? formatTime(e.modified) : "");
  item.append(main, size, time);
  return item;
}
