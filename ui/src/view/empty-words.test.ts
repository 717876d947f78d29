import { describe, expect, it } from "vitest";
import type { FolderState } from "../tree-state";
import { EMPTY_FOLDER, emptyWords } from "./empty-words";

const read: FolderState = {
  handle: "h",
  total: 0,
  lowerBound: false,
  partialOrder: false,
  checked: null,
  kinds: { folders: 0, files: 0, other: 0 },
  rest: [],
  dotfilesHidden: 0,
  ignoredHidden: 0,
  filter: null,
  unfilteredTotal: null,
  beforeFilter: null,
  chunks: [],
  showAll: true,
  changed: false,
  loading: false,
  error: null,
  cursor: null,
};

describe("what an empty listing says", () => {
  it("a folder read whole with nothing in it is empty", () => {
    expect(emptyWords(read, 0)).toBe(EMPTY_FOLDER);
  });

  it("says nothing while there are rows, before the read, during it, after a failure or a cut read", () => {
    expect(emptyWords(read, 1)).toBeNull();
    expect(emptyWords({ ...read, total: null }, 0)).toBeNull();
    expect(emptyWords({ ...read, loading: true }, 0)).toBeNull();
    expect(emptyWords({ ...read, error: { code: "DENIED", message: "no" } }, 0)).toBeNull();
    expect(emptyWords({ ...read, lowerBound: true }, 0)).toBeNull();
  });

  it("a filter that matches nothing is not an empty folder", () => {
    expect(emptyWords({ ...read, filter: "zz", unfilteredTotal: 12 }, 0)).toBe("Nothing here matches the filter (12 entries in all)");
  });

  it("hidden dotfiles or ignored entries are counted, not called empty", () => {
    expect(emptyWords({ ...read, dotfilesHidden: 1 }, 0)).toBe("Nothing shown: 1 entry is hidden (dotfiles or ignored)");
    expect(emptyWords({ ...read, dotfilesHidden: 2, ignoredHidden: 3 }, 0)).toBe("Nothing shown: 5 entries are hidden (dotfiles or ignored)");
  });
});
