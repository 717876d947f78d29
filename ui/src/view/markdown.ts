// Markdown rendered from markdown-it's token stream (parsed in the colour
// worker), element by element. Raw HTML is off (markdown-it then treats it
// as text), images are shown as their alt text (nothing is fetched), and
// links are not followed inside the app: they show their address on hover.

import type { MdToken } from "../highlight/protocol";
import { renderLines } from "./code";

const TAGS = new Set([
  "a", "p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "table", "thead", "tbody", "tr", "th", "td",
  "em", "strong", "s", "dl", "dt", "dd", "sup", "sub",
]);

function attr(t: MdToken, name: string): string | null {
  return t.attrs?.find(([k]) => k === name)?.[1] ?? null;
}

/**
 * The elements of a run of whole top-level blocks (each opening token closed
 * within the run), in order. Appending them to a `.markdown` container shows
 * them; they can be removed again one by one.
 */
export function renderMarkdownBlocks(tokens: MdToken[]): Node[] {
  const root = document.createElement("div");
  const stack: HTMLElement[] = [root];
  const top = () => stack[stack.length - 1]!;
  const open = (tag: string) => {
    const el = document.createElement(TAGS.has(tag) ? tag : "div");
    top().append(el);
    stack.push(el);
    return el;
  };
  const close = () => {
    if (stack.length > 1) stack.pop();
  };
  const inline = (tokens: MdToken[]) => {
    for (const t of tokens) {
      switch (t.type) {
        case "text":
          top().append(document.createTextNode(t.content));
          break;
        case "code_inline": {
          const c = document.createElement("code");
          c.textContent = t.content;
          top().append(c);
          break;
        }
        case "softbreak":
          top().append(document.createTextNode("\n"));
          break;
        case "hardbreak":
          top().append(document.createElement("br"));
          break;
        case "image": {
          const alt = document.createElement("span");
          alt.className = "md-image";
          alt.textContent = `[image: ${t.content || attr(t, "src") || ""}]`;
          alt.title = attr(t, "src") ?? "";
          top().append(alt);
          break;
        }
        case "link_open": {
          // An <a> without href: shown as a link, never followed.
          const a = open("a");
          a.className = "md-link";
          a.title = attr(t, "href") ?? "";
          break;
        }
        case "link_close":
          close();
          break;
        case "html_inline":
          top().append(document.createTextNode(t.content));
          break;
        default:
          if (t.nesting === 1) open(t.tag);
          else if (t.nesting === -1) close();
      }
    }
  };
  for (const t of tokens) {
    if (t.type === "inline") inline(t.children ?? []);
    else if (t.type === "fence" || t.type === "code_block") {
      const pre = document.createElement("pre");
      pre.className = "md-code";
      const code = document.createElement("code");
      code.append(...renderLines(t.content, t.tree ?? null));
      pre.append(code);
      top().append(pre);
    } else if (t.type === "hr") top().append(document.createElement("hr"));
    else if (t.type === "html_block") {
      const p = document.createElement("pre");
      p.textContent = t.content;
      top().append(p);
    } else if (t.nesting === 1) open(t.tag);
    else if (t.nesting === -1) close();
  }
  return Array.from(root.childNodes);
}
