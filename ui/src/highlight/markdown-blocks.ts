// Markdown parsed in pieces, so that "Load more" renders only what is new.
//
// markdown-it parses the text not settled yet; every top-level block but the
// last is settled (a later line cannot change a block once another has
// started), and the last one is provisional: it is shown, and parsed again
// with the next text. Link reference definitions travel along, so a link
// still finds a definition made in an earlier piece. Runs in the colour
// worker (fences are coloured here too).

import MarkdownIt from "markdown-it";
import type Token from "markdown-it/lib/token.mjs";
import { colourCode, lowlight } from "./colour";
import { languageFor } from "./languages";
import type { MarkdownBlocks, MarkdownRequest, MdToken } from "./protocol";

// Raw HTML off: markdown-it then keeps it as text.
const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

/** What markdown-it does to its input first, so line numbers and offsets agree. */
function normalize(source: string): string {
  return source.replace(/\r\n?/g, "\n").replace(/\0/g, "\uFFFD");
}

/** Offset of the start of line `line` (0-based) in `text`. */
function lineOffset(text: string, line: number): number {
  let at = 0;
  for (let i = 0; i < line; i++) {
    const nl = text.indexOf("\n", at);
    if (nl < 0) return text.length;
    at = nl + 1;
  }
  return at;
}

/** A fence's language: its info word as a grammar name or alias (`rust`, `js`), else as an extension (`rs`). */
function fenceLanguage(info: string): string | null {
  const word = info.trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  if (!word) return null;
  return lowlight.registered(word) ? word : languageFor(`x.${word}`);
}

function slim(t: Token, highlight: boolean): MdToken {
  const out: MdToken = {
    type: t.type,
    tag: t.tag,
    nesting: t.nesting,
    level: t.level,
    content: t.content,
    info: t.info,
    attrs: t.attrs ? t.attrs.map(([k, v]) => [k, v] as [string, string]) : null,
    children: t.children ? t.children.map((c) => slim(c, false)) : null,
  };
  if (t.type === "fence" || t.type === "code_block") {
    const language = fenceLanguage(t.info);
    out.tree = highlight && language ? colourCode(t.content, language) : null;
  }
  return out;
}

/** Parses the unsettled source; see the module comment. */
export function renderMarkdownBlocks(req: MarkdownRequest): MarkdownBlocks {
  const source = normalize(req.source);
  const env: { references: Record<string, unknown> } = { references: { ...req.references } };
  const tokens = md.parse(source, env);
  let split = tokens.length;
  let carry = "";
  if (!req.final) {
    // The last top-level block starts at the last level-0 token that opens
    // a block or is one (closing tokens have nesting -1).
    for (let i = tokens.length - 1; i >= 0; i--) {
      const t = tokens[i]!;
      if (t.level === 0 && t.nesting >= 0 && t.map) {
        split = i;
        carry = source.slice(lineOffset(source, t.map[0]));
        break;
      }
    }
  }
  return {
    settled: tokens.slice(0, split).map((t) => slim(t, req.highlight)),
    provisional: tokens.slice(split).map((t) => slim(t, req.highlight)),
    carry,
    references: env.references,
  };
}
