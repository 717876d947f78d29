// Text and code as numbered lines, coloured from a syntax tree (hast, made by
// lowlight in the colour worker; never from an HTML string): each hast
// element becomes a span with its class, each hast text a text node, split at
// newlines into line elements.

import type { Root, RootContent, Element as HastElement } from "hast";

/**
 * Splits `text` into line elements, coloured from `tree` when given (the
 * tree of this very text: its text nodes concatenate to `text`).
 */
export function renderLines(text: string, tree: Root | null = null): HTMLElement[] {
  const lines: HTMLElement[] = [];
  let line = newLine();
  // The stack of open spans on the current line, re-opened on each new line.
  const stack: HTMLElement[] = [];
  const top = () => stack[stack.length - 1] ?? line;
  const breakLine = () => {
    lines.push(line);
    line = newLine();
    let parent: HTMLElement = line;
    for (let i = 0; i < stack.length; i++) {
      const copy = document.createElement("span");
      copy.className = stack[i]!.className;
      parent.append(copy);
      stack[i] = copy;
      parent = copy;
    }
  };
  const emitText = (value: string) => {
    const parts = value.split("\n");
    parts.forEach((part, i) => {
      if (i > 0) breakLine();
      if (part) top().append(document.createTextNode(part));
    });
  };
  const walk = (node: RootContent) => {
    if (node.type === "text") emitText(node.value);
    else if (node.type === "element") {
      const span = document.createElement("span");
      const cls = (node as HastElement).properties?.className;
      if (Array.isArray(cls)) span.className = cls.map(String).join(" ");
      top().append(span);
      stack.push(span);
      for (const c of node.children) walk(c);
      stack.pop();
    }
  };
  if (tree) {
    for (const c of tree.children) walk(c);
  } else {
    emitText(text);
  }
  // A final newline ends the last line rather than starting an empty one.
  if (line.childNodes.length > 0 || !text.endsWith("\n")) lines.push(line);
  return lines;
}

function newLine(): HTMLElement {
  const el = document.createElement("span");
  el.className = "line";
  return el;
}
