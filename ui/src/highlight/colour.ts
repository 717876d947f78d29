// Syntax colouring with lowlight (highlight.js) into a hast tree. Runs in the
// colour worker only: highlight.js can take far more than linear time on
// hostile text, and there it cannot hold up the window.

import { common, createLowlight } from "lowlight";
import type { Root } from "hast";

export const lowlight = createLowlight(common);

/** `text` coloured as `language`; null when the language is unknown or the grammar fails. */
export function colourCode(text: string, language: string): Root | null {
  if (!lowlight.registered(language)) return null;
  try {
    return lowlight.highlight(language, text);
  } catch {
    return null;
  }
}
