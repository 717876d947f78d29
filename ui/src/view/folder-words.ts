// Sentences about a folder's counts, as the badge's tooltip, the folder's
// summary and the status bar say them. The numbers and groups are the
// engine's; only the words are the UI's.

import type { RestGroup } from "../bindings/RestGroup";
import { hiddenCount, type FolderState } from "../tree-state";
import { formatCount, plural } from "./format";

/** "440 .jpg", "3 folders", "2 without extension", "5 other". */
export function groupWords(g: RestGroup): string {
  switch (g.group) {
    case "folders":
      return plural(g.count, "folder", "folders");
    case "extension":
      return `${formatCount(g.count)} .${g.extension}`;
    case "noExtension":
      return `${formatCount(g.count)} without extension`;
    case "other":
      return `${formatCount(g.count)} other`;
  }
}

/** "452 more: 440 .jpg, 12 .json" (the groups of what follows the loaded entries). */
export function restSentence(f: FolderState): string {
  const hidden = hiddenCount(f);
  const more = `${f.lowerBound ? "at least " : ""}${formatCount(hidden)} more`;
  return f.rest.length ? `${more}: ${f.rest.map(groupWords).join(", ")}` : more;
}

/** "order is partial: 120 of 3,000 checked", or null when the order is whole. */
export function partialOrderSentence(f: FolderState): string | null {
  if (!f.partialOrder || f.checked === null || f.total === null || f.checked >= f.total) return null;
  return `order is partial: ${formatCount(f.checked)} of ${formatCount(f.total)} checked`;
}

/** "12 of 3,000 match", for a filtered folder. */
export function matchSentence(f: FolderState): string | null {
  if (!f.filter || f.total === null) return null;
  return `${formatCount(f.total)} of ${formatCount(f.unfilteredTotal ?? f.total)} match`;
}
