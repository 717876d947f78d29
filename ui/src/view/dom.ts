// The only way the UI makes DOM: elements created one by one, text set as
// text. Names and file contents never pass through an HTML parser.

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(typeof c === "string" ? document.createTextNode(c) : c);
  return node;
}

export function button(label: string, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLButtonElement {
  const b = el("button", { type: "button", ...attrs }, ...children);
  if (!attrs["aria-label"] && children.length === 0) b.textContent = label;
  else if (!attrs["aria-label"]) b.setAttribute("aria-label", label);
  if (!attrs.title) b.title = label;
  return b;
}
