// The messages between the page and the colour worker. Everything crossing
// is plain data (structured clone): syntax trees as hast, markdown as a
// slimmed token stream. The page builds the DOM from them, text as text.

import type { Root } from "hast";

/** One markdown-it token, without its methods and the fields the page does not read. */
export interface MdToken {
  type: string;
  tag: string;
  nesting: number;
  level: number;
  content: string;
  info: string;
  attrs: [string, string][] | null;
  children: MdToken[] | null;
  /** For `fence` and `code_block`: the coloured content, when it was coloured. */
  tree?: Root | null;
}

/**
 * A markdown source rendered in pieces: `source` is the part not settled
 * yet (the previous reply's `carry` followed by the new text). `final` says
 * nothing more will follow.
 */
export interface MarkdownRequest {
  source: string;
  /** Link reference definitions seen so far (markdown-it's `env.references`). */
  references: Record<string, unknown>;
  final: boolean;
  /** Colour fenced code; false once colouring was stopped for this file. */
  highlight: boolean;
}

export interface MarkdownBlocks {
  /** Complete top-level blocks: rendered once, never again. */
  settled: MdToken[];
  /** The last top-level block, which the next text may still extend. */
  provisional: MdToken[];
  /** Source of the provisional block onwards, to prefix to the next text. */
  carry: string;
  references: Record<string, unknown>;
}

export type ColourRequest =
  | { id: number; kind: "code"; text: string; language: string }
  | ({ id: number; kind: "markdown" } & MarkdownRequest);

export type ColourReply =
  | { id: number; kind: "code"; tree: Root | null }
  | ({ id: number; kind: "markdown" } & MarkdownBlocks);
