// Archives in the tree: which archive file an entry lives in. Pure
// functions over the tree state, tested in Node.
//
// The engine lists a zip or a tar like a folder (an entry with `archive`
// set expands, and its path lists its inside), so the tree merges an
// archive's contents like any folder's. What the engine cannot give an
// entry inside an archive is a file of its own on disk: the file actions
// (Open…, Reveal, Copy path) act on the archive file that holds it, and
// live refresh watches no folder inside an archive (nothing on disk changes
// there; the archive's own folder is watched).

import type { Crumb } from "./bindings/Crumb";
import type { Entry } from "./bindings/Entry";
import type { NamePart } from "./bindings/NamePart";
import type { FolderState, TreeState } from "./tree-state";

/** An archive file on disk, as the file actions name it. */
export interface ArchiveRef {
  readonly handle: string;
  readonly name: string;
  readonly nameParts?: NamePart[];
}

/** The archive file an archive entry is. */
export function archiveRef(e: Entry): ArchiveRef {
  return e.nameParts ? { handle: e.handle, name: e.name, nameParts: e.nameParts } : { handle: e.handle, name: e.name };
}

/**
 * The archive file on disk that holds the entry `handle` (the outermost
 * archive above it: an archive inside an archive is no file on disk
 * either), or null when the entry is not inside one or is not in the tree.
 * `rootArchive` is the archive holding the tree's root, if the root lies
 * inside one (see `rootArchiveOf`).
 */
export function archiveHolding(t: TreeState, handle: string, rootArchive: ArchiveRef | null): ArchiveRef | null {
  let found: ArchiveRef | null | undefined;
  const visit = (f: FolderState, outer: ArchiveRef | null): boolean => {
    for (const c of f.chunks)
      for (const n of c.nodes) {
        if (n.entry.handle === handle) {
          found = outer;
          return true;
        }
        if (n.folder && visit(n.folder, outer ?? (n.entry.archive ? archiveRef(n.entry) : null))) return true;
      }
    return false;
  };
  if (t.rootEntry.handle === handle) return rootArchive;
  visit(t.root, rootArchive);
  return found ?? null;
}

/**
 * The archive holding a listing's root, from its crumbs (the filesystem's
 * root down to the folder itself): the crumb the engine marks as the
 * archive file the root lies in (or is), else the first crumb that is an
 * archive the window has seen.
 */
export function rootArchiveOf(crumbs: readonly Crumb[], known: ReadonlyMap<string, ArchiveRef>): ArchiveRef | null {
  for (const c of crumbs) {
    if (c.archive) return c.nameParts ? { handle: c.handle, name: c.name, nameParts: c.nameParts } : { handle: c.handle, name: c.name };
    const hit = known.get(c.handle);
    if (hit) return hit;
  }
  return null;
}

/**
 * The folders live refresh watches: the root and the expanded, read
 * folders in tree order, leaving out every folder inside an archive (and
 * everything, when the root is inside one).
 */
export function watchableFolders(t: TreeState, rootArchive: ArchiveRef | null): string[] {
  if (rootArchive) return [];
  const out: string[] = [t.root.handle];
  const visit = (f: FolderState) => {
    for (const c of f.chunks)
      for (const n of c.nodes)
        if (n.folder && !n.entry.archive) {
          if (n.expanded) out.push(n.folder.handle);
          visit(n.folder);
        }
  };
  visit(t.root);
  return out;
}
