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
  bdi.append(...nameParts(parts));
  return bdi;
}

/** A marked name's nodes: its text, and a visible marker for each escaped character. */
export function nameParts(parts: readonly NamePart[]): Node[] {
  return parts.map((part) => {
    if ("text" in part) return document.createTextNode(part.text);
    const mark = document.createElement("span");
    mark.className = "escape";
    mark.textContent = part.escape;
    mark.title = "a character that is not shown as itself";
    return mark;
  });
}

/** The name as plain text with escape markers inline (for titles and type-ahead). */
export function plainName(name: string, parts: readonly NamePart[] | undefined): string {
  if (!parts) return name;
  return parts.map((p) => ("text" in p ? p.text : p.escape)).join("");
}
