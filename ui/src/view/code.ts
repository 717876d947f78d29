// Text and code as numbered lines, highlighted from lowlight's syntax tree
// (never from an HTML string): each hast element becomes a span with its
// class, each hast text a text node, split at newlines into line elements.

import { common, createLowlight } from "lowlight";
import type { Root, RootContent, Element as HastElement } from "hast";

const lowlight = createLowlight(common);

const BY_EXTENSION: Record<string, string> = {
  rs: "rust", ts: "typescript", tsx: "typescript", js: "javascript", mjs: "javascript", cjs: "javascript", jsx: "javascript",
  py: "python", rb: "ruby", go: "go", c: "c", h: "c", cc: "cpp", cpp: "cpp", hpp: "cpp", cs: "csharp", java: "java",
  kt: "kotlin", swift: "swift", sh: "bash", bash: "bash", zsh: "bash", json: "json", toml: "ini", ini: "ini", yaml: "yaml",
  yml: "yaml", xml: "xml", html: "xml", htm: "xml", svg: "xml", css: "css", scss: "scss", less: "less", sql: "sql",
  md: "markdown", markdown: "markdown", php: "php", pl: "perl", lua: "lua", r: "r", diff: "diff", patch: "diff",
  makefile: "makefile", mk: "makefile", dockerfile: "dockerfile", graphql: "graphql", vb: "vbnet",
};

/** The highlight.js language for a file name, if one is known. */
export function languageFor(name: string): string | null {
  const lower = name.toLowerCase();
  if (lower === "makefile" || lower === "dockerfile") return BY_EXTENSION[lower] ?? null;
  const dot = lower.lastIndexOf(".");
  if (dot < 0) return null;
  const lang = BY_EXTENSION[lower.slice(dot + 1)];
  return lang && lowlight.registered(lang) ? lang : null;
}

/** Splits `text` into line elements, highlighted when `language` is given. */
export function renderLines(text: string, language: string | null): HTMLElement[] {
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
  if (language) {
    let tree: Root;
    try {
      tree = lowlight.highlight(language, text);
    } catch {
      tree = { type: "root", children: [{ type: "text", value: text }] };
    }
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
