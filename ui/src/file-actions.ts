// The sentences the file actions (Copy path, Reveal, Open…) answer with.
// The engine decides what happened; these only put it in words.

import type { CopiedPath } from "./bindings/CopiedPath";

/** What Copy path says: whether the path was quoted for a shell, and why. */
export function copiedSentence(copied: CopiedPath): string {
  return copied.quoted
    ? "Copied the path, quoted as $'…' because it holds characters a shell would act on or that do not show: pasting it runs nothing."
    : "Copied the path.";
}
