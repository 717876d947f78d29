// Type-ahead: letters typed in the tree jump to the first entry of the
// cursor's folder whose name starts with them, under the folder's current
// order, filter and settings. The engine finds the position (`locate`, the
// same order a listing has: no rule is restated here); this module gathers
// the keys, loads the page that holds the position, and drops an answer
// that a later key made stale.

import type { DirectoryController } from "./directory-controller";
import { TYPEAHEAD_RESET_MS } from "./limits";
import { findFolder, isComplete } from "./tree-state";

/** Where a typed prefix leads: a position in a folder's order, now loaded. */
export interface TypeAheadHit {
  folder: string;
  index: number;
}

export class TypeAhead {
  private typed = "";
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly controller: DirectoryController) {}

  /** The prefix typed so far. */
  get prefix(): string {
    return this.typed;
  }

  /**
   * A key typed while the cursor is in `folderHandle`: the first entry whose
   * name starts with everything typed so far, once its row is loaded; null
   * when nothing matches or a later key superseded this one.
   */
  async key(ch: string, folderHandle: string): Promise<TypeAheadHit | null> {
    clearTimeout(this.timer);
    this.typed += ch;
    this.timer = setTimeout(() => (this.typed = ""), TYPEAHEAD_RESET_MS);
    const wanted = this.typed;
    const hit = await this.controller.locate(folderHandle, wanted);
    if (!hit || !hit.matched || wanted !== this.typed) return null;
    const t = this.controller.state;
    const f = t && findFolder(t, folderHandle);
    if (!t || !f) return null;
    // A nested folder shows only its first page: make every position reachable first.
    if (!f.showAll && !isComplete(f) && folderHandle !== t.root.handle) await this.controller.showAll(folderHandle);
    await this.controller.ensureLoaded(folderHandle, hit.index, hit.index + 1);
    return wanted === this.typed ? { folder: folderHandle, index: hit.index } : null;
  }
}
