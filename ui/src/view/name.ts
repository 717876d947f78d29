// A name as a person sees it: direction-isolated, with the characters the
// engine marked (controls, bidi, zero-width, bad bytes) shown as visible
// escape markers. Text nodes only.

import type { NamePart } from "../bindings/NamePart";

export function renderName(name: string, parts: readonly NamePart[] | undefined, className = "name"): HTMLElement {
  // <bdi> isolates the name from its surroundings; the engine already turned
  // bidi controls inside it into markers.
  const bdi = document.createElement("bdi");
  bdi.className = className;
  if (!parts) {
    bdi.textContent = name;
    return bdi;
  }
  for (const part of parts) {
    if ("text" in part) {
      bdi.append(document.createTextNode(part.text));
    } else {
      const mark = document.createElement("span");
      mark.className = "escape";
      mark.textContent = part.escape;
      mark.title = "a character that is not shown as itself";
      bdi.append(mark);
    }
  }
  return bdi;
}

/** The name as plain text with escape markers inline (for titles and type-ahead). */
export function plainName(name: string, parts: readonly NamePart[] | undefined): string {
  if (!parts) return name;
  return parts.map((p) => ("text" in p ? p.text : p.escape)).join("");
}
