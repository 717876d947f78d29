// The preview pane (`role="region"`, label "Preview"). It shows what the
// selection is; file contents arrive with the preview engine.

import type { ControllerSnapshot } from "../directory-controller";
import { describeError } from "../errors";
import { findNode, hiddenKinds, loadedCount, type TreeNode } from "../tree-state";
import { el } from "./dom";
import { formatCount, formatSize, formatTime, plural } from "./format";
import { renderName } from "./name";

export class PreviewPane {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;
  private shown: TreeNode | null = null;

  constructor() {
    this.body = el("div", { class: "preview-body" });
    this.element = el("section", { role: "region", "aria-label": "Preview", class: "preview-pane" }, this.body);
    this.showEmpty();
  }

  private showEmpty(): void {
    this.body.replaceChildren(el("p", { class: "muted center" }, "Select a file to preview it."));
  }

  update(s: ControllerSnapshot): void {
    const t = s.tree;
    const hit = t && t.selected ? findNode(t, t.selected) : null;
    if (!hit) {
      if (this.shown) this.showEmpty();
      this.shown = null;
      return;
    }
    if (hit.node === this.shown) return;
    this.shown = hit.node;
    this.render(hit.node);
  }

  private render(node: TreeNode): void {
    const e = node.entry;
    const head = el("header", { class: "preview-head" }, renderName(e.name, e.nameParts, "preview-name"));
    const facts = el("dl", { class: "facts" });
    const fact = (k: string, v: string) => facts.append(el("dt", {}, k), el("dd", {}, v));
    fact("Kind", e.kind === "charDevice" ? "character device" : e.kind === "blockDevice" ? "block device" : e.kind);
    if (e.size !== undefined && e.kind === "file") fact("Size", `${formatSize(e.size)} (${formatCount(e.size)} bytes)`);
    if (e.modified !== undefined) fact("Modified", formatTime(e.modified));
    if (e.link) fact("Points to", `${e.link.target} (${e.link.pointsTo})`);
    const f = node.folder;
    if (f && f.total !== null) {
      const k = f.kindTotals;
      fact("Contains", `${f.lowerBound ? "at least " : ""}${plural(f.total, "entry", "entries")}`);
      fact("By kind", `${plural(k.folders, "folder", "folders")}, ${plural(k.files, "file", "files")}, ${plural(k.other, "other", "other")}`);
      const h = hiddenKinds(f);
      fact("Shown", `${formatCount(loadedCount(f))} of ${formatCount(f.total)}${h.folders + h.files + h.other ? "" : " (all)"}`);
      if (f.dotfilesHidden) fact("Dotfiles hidden", formatCount(f.dotfilesHidden));
    }
    const parts: HTMLElement[] = [head, facts];
    if (e.error) parts.push(el("p", { class: "preview-error", role: "status" }, describeError(e.error.code)));
    if (e.kind !== "file" && e.kind !== "folder" && e.kind !== "symlink") parts.push(el("p", { class: "muted" }, "special file: not previewed"));
    this.body.replaceChildren(...parts);
  }
}
