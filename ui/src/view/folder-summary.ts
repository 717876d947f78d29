// A folder's summary in the preview pane: how many entries it holds, by
// kind, how many are shown, what the rest is made of, what is hidden (by
// the dotfile setting and the ignore rules), its filter and a partial
// order. Every number is the engine's.

import { hiddenCount, loadedCount, type TreeNode } from "../tree-state";
import { el } from "./dom";
import { formatCount, plural } from "./format";
import { matchSentence, partialOrderSentence, restSentence } from "./folder-words";

export function folderSummary(node: TreeNode): HTMLElement {
  const f = node.folder;
  const facts = el("dl", { class: "facts" });
  const fact = (k: string, v: string) => facts.append(el("dt", {}, k), el("dd", {}, v));
  if (!f || f.total === null) {
    fact("Contents", node.entry.error ? "could not be read" : "not read yet: expand it to list it");
    return facts;
  }
  const k = f.kinds;
  const least = f.lowerBound ? "at least " : "";
  fact(f.filter ? "Matches" : "Contains", `${least}${plural(f.total, "entry", "entries")}`);
  if (f.filter) fact("Filter", `${f.filter} (${matchSentence(f) ?? ""})`);
  fact("By kind", `${plural(k.folders, "folder", "folders")}, ${plural(k.files, "file", "files")}, ${plural(k.other, "other", "others")}`);
  const hidden = hiddenCount(f);
  fact("Shown", `${formatCount(loadedCount(f))} of ${least}${formatCount(f.total)}${hidden ? "" : " (all)"}`);
  if (hidden > 0) fact("Not shown", restSentence(f));
  const partial = partialOrderSentence(f);
  if (partial) fact("Order", partial);
  if (f.ignoredHidden) fact("Ignored", `${formatCount(f.ignoredHidden)} ignored: hidden by ignore rules`);
  if (f.dotfilesHidden) fact("Dotfiles hidden", formatCount(f.dotfilesHidden));
  return facts;
}
