// "Where the space goes" in the preview pane, for a folder whose size was
// counted: its largest children (files or folders, as many as the engine
// named, in its order) as horizontal bars with their size, share and item
// count, the rest as "N others"; a click on one (or Enter) selects it in the
// tree. While the folder is being counted it says how much at least, so
// far. Names are text only; every figure and the order are the engine's.

import type { ChildSize } from "../sizes-wire";
import { isLowerBound, measured, shareOf, type SizeMeasure, type SizeRecord } from "../sizes-state";
import { el } from "./dom";
import { formatSize, plural } from "./format";
import { icon } from "./icons";
import { plainName, renderName } from "./name";
import { AT_LEAST, measureName, shareText, sizeText, sizeTitle } from "./size-words";

/** `pick(handle)`: select that child in the tree. */
export function spaceView(rec: SizeRecord, measure: SizeMeasure, pick: (handle: string) => void): HTMLElement {
  const r = rec.report;
  const whole = measured(r.sizes, measure);
  const head = el("h3", { class: "space-title" }, "Where the space goes");
  const total = el("p", { class: "space-total", title: sizeTitle(rec, measure) }, `${sizeText(rec, measure)} ${measureName(measure)} · ${plural(r.sizes.files, "file", "files")}, ${plural(r.sizes.folders, "folder", "folders")}`);
  const out = el("section", { class: "space", "aria-label": "Where the space goes", "data-handle": r.handle }, head, total);
  if (rec.stale) out.append(el("p", { class: "space-note" }, "Something in or below this folder changed since it was counted: Sizes to count it anew."));
  if (!r.done) {
    out.append(el("p", { class: "space-note muted" }, rec.stopped ? "Counting was stopped before this folder was done: these figures are at least what they say." : "Counting… the figures grow until this folder is done."));
    return out;
  }
  if (rec.byApparent !== (measure === "apparent")) {
    out.append(el("p", { class: "space-note muted" }, `Largest by ${measureName(rec.byApparent ? "apparent" : "diskUsage")}, as counted; Sizes again to order them by ${measureName(measure)}.`));
  }
  const largest = r.largest ?? [];
  if (largest.length === 0 && !r.others) {
    out.append(el("p", { class: "muted" }, "It holds nothing."));
    return out;
  }
  const list = el("ol", { class: "space-list" });
  for (const c of largest) list.append(el("li", {}, childBar(c, whole, measure, pick)));
  if (r.others && r.others.count > 0) {
    const size = measured(r.others, measure);
    const share = shareOf(size, whole);
    const bar = el("span", { class: "space-bar", "aria-hidden": "true" });
    bar.style.width = `${(share * 100).toFixed(2)}%`;
    list.append(
      el(
        "li",
        {},
        el(
          "div",
          { class: "space-item space-others" },
          bar,
          el("span", { class: "space-name" }, plural(r.others.count, "other", "others")),
          el("span", { class: "space-size" }, formatSize(size)),
          el("span", { class: "space-share" }, shareText(share)),
          el("span", { class: "space-items" }, ""),
        ),
      ),
    );
  }
  out.append(list);
  if (isLowerBound(rec)) out.append(el("p", { class: "space-note muted" }, `${AT_LEAST}: something below could not be counted in full; hover the total for why.`));
  return out;
}

function childBar(c: ChildSize, whole: number, measure: SizeMeasure, pick: (handle: string) => void): HTMLElement {
  const size = measured(c, measure);
  const share = shareOf(size, whole);
  const bar = el("span", { class: "space-bar", "aria-hidden": "true" });
  bar.style.width = `${(share * 100).toFixed(2)}%`;
  // The button's name is what it shows (name, size, share, items): the icon is decoration.
  const kind = icon(c.kind === "folder" ? "folder" : c.kind === "file" ? "file" : c.kind === "symlink" ? "symlink" : "special");
  // A mount point is not entered: its zero is "not counted", not "empty".
  const items = c.otherDisk ? "another disk" : c.kind === "folder" ? plural(c.items, "item", "items") : "";
  const b = el(
    "button",
    { type: "button", class: "space-item", "data-handle": c.handle, "data-kind": c.kind },
    bar,
    el("span", { class: "space-name" }, kind, renderName(c.name, c.nameParts, "space-label")),
    el("span", { class: "space-size" }, `${c.isLowerBound ? AT_LEAST : ""}${formatSize(size)}`),
    el("span", { class: "space-share" }, shareText(share)),
    el("span", { class: "space-items" }, items),
  );
  b.title = c.otherDisk
    ? `Another disk is mounted at ${plainName(c.name, c.nameParts)}: not entered nor counted (as du -x). Select it in the tree`
    : `Select ${plainName(c.name, c.nameParts)} in the tree`;
  b.addEventListener("click", () => pick(c.handle));
  return b;
}
