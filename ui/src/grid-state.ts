// The grid's pure parts: which entry sits at a position of the open
// folder's order, and where the arrow keys go in a grid of `cols` columns.

import type { FolderState, TreeNode } from "./tree-state";

/** The loaded entry at position `pos` of the folder's order; null when that page is not loaded yet. */
export function nodeAtPosition(f: FolderState, pos: number): TreeNode | null {
  for (const c of f.chunks) {
    if (pos >= c.offset && pos < c.offset + c.nodes.length) return c.nodes[pos - c.offset] ?? null;
  }
  return null;
}

/** Where a key moves the cursor from `at` in `count` cells laid out `cols` to a row; null when the key is not a move. */
export function gridMove(key: string, at: number, cols: number, count: number, pageRows: number): number | null {
  const last = Math.max(0, count - 1);
  const clamp = (i: number) => Math.max(0, Math.min(last, i));
  switch (key) {
    case "ArrowRight":
      return clamp(at + 1);
    case "ArrowLeft":
      return clamp(at - 1);
    case "ArrowDown":
      return at + cols <= last ? at + cols : at;
    case "ArrowUp":
      return at - cols >= 0 ? at - cols : at;
    case "PageDown":
      return clamp(at + cols * pageRows);
    case "PageUp":
      return clamp(at - cols * pageRows);
    case "Home":
      return 0;
    case "End":
      return last;
    default:
      return null;
  }
}
