// What a listing with no rows says in the list itself, as a file browser
// does ("This folder is empty"), so an empty folder never looks like one
// still loading or one that failed. Said only when it is true: a folder not
// read yet, being read, failed, or cut (a lower bound) says nothing here
// (its state is shown where it always is).
import type { FolderState } from "../tree-state";

export const EMPTY_FOLDER = "This folder is empty";

/** The words for a root folder shown with `rows` rows, or null when there is nothing to say. */
export function emptyWords(root: FolderState, rows: number): string | null {
  if (rows > 0 || root.total === null || root.total > 0 || root.loading || root.error || root.lowerBound) return null;
  if (root.filter !== null) return `Nothing here matches the filter (${root.unfilteredTotal ?? 0} entries in all)`;
  const hidden = root.dotfilesHidden + root.ignoredHidden;
  if (hidden > 0) return `Nothing shown: ${hidden} ${hidden === 1 ? "entry is" : "entries are"} hidden (dotfiles or ignored)`;
  return EMPTY_FOLDER;
}
