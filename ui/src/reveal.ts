// Revealing an entry below the open folder in the tree (a Find hit): the
// engine says, for each folder on the way, where in its order the next
// step lies (`reveal_path`); each folder is expanded (read by its own
// sub-query when it was not), the page holding the step is loaded by a
// targeted sub-query even past the folder's cap (the folder then shows
// all its entries, as "Show all" does, so the step sits at its place),
// and the entry is selected and scrolled into view, which previews it.
//
// Nothing here derives a handle or a position: both are the engine's.

import type { RevealRequest } from "./bindings/RevealRequest";
import type { Revealed } from "./bindings/Revealed";
import { toBackendError } from "./backend";
import type { DirectoryController } from "./directory-controller";
import { findFolder, findNode } from "./tree-state";

export interface RevealBackend {
  revealPath(request: RevealRequest): Promise<Revealed>;
}

/**
 * Reveals `target` (a handle below the open folder). Resolves to null once
 * it is selected, or to what stopped it, for the status bar (another
 * folder was opened meanwhile: silently, null).
 */
export async function revealEntry(backend: RevealBackend, directory: DirectoryController, target: string): Promise<string | null> {
  const t = directory.state;
  if (!t) return null;
  const generation = directory.generation;
  const moved = () => directory.generation !== generation;
  let way: Revealed;
  try {
    way = await backend.revealPath({ root: t.root.handle, target, settings: directory.settings });
  } catch (err) {
    const e = toBackendError(err);
    return `It cannot be shown in the tree: ${e.code}: ${e.message}`;
  }
  for (const step of way.steps) {
    if (moved()) return null;
    const tree = directory.state!;
    if (step.folder !== tree.root.handle) {
      const node = findNode(tree, step.folder)?.node;
      if (!node) return "It cannot be shown in the tree: a folder on the way changed.";
      if (!node.expanded || !node.folder) await directory.expand(step.folder);
      if (moved()) return null;
    }
    // A folder's own filter may hide the step: the folder comes back whole.
    if (findFolder(directory.state!, step.folder)?.filter) await directory.setFilter(step.folder, null);
    await directory.loadAt(step.folder, step.index);
    if (moved()) return null;
    if (!findNode(directory.state!, step.entry)) return "It cannot be shown in the tree: its folder changed while it was being read; find again.";
  }
  directory.selectAndReveal(target);
  return null;
}
