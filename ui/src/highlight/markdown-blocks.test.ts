import { describe, expect, it } from "vitest";
import { renderMarkdownBlocks } from "./markdown-blocks";
import type { MdToken } from "./protocol";

/** Renders `source` cut at each of `cuts` (at line ends), piece by piece, as the preview does. */
function inPieces(source: string, cuts: number[]) {
  const settled: MdToken[][] = [];
  let carry = "";
  let references: Record<string, unknown> = {};
  let last: MdToken[] = [];
  const ends = [...cuts, source.length];
  let from = 0;
  for (const [i, end] of ends.entries()) {
    const r = renderMarkdownBlocks({ source: carry + source.slice(from, end), references, final: i === ends.length - 1, highlight: true });
    settled.push(r.settled);
    last = r.provisional;
    carry = r.carry;
    references = r.references;
    from = end;
  }
  return { all: [...settled.flat(), ...last], settled };
}

const whole = (source: string) => renderMarkdownBlocks({ source, references: {}, final: true, highlight: true }).settled;

const DOC = [
  "# Title",
  "",
  "A paragraph that goes on",
  "over two lines.",
  "",
  "- one",
  "- two",
  "",
  "- three, same list",
  "",
  "```rust",
  "fn main() {}",
  "",
  "let x = 1;",
  "```",
  "",
  "Setext",
  "======",
  "",
  "> quoted",
  "continued lazily",
  "",
  "[a link][ref] and text",
  "",
  "[ref]: https://example.com",
  "",
].join("\n");

/** Offsets just after each newline of `s`: every place a chunk can end. */
function lineEnds(s: string): number[] {
  const out: number[] = [];
  for (let i = s.indexOf("\n"); i >= 0; i = s.indexOf("\n", i + 1)) out.push(i + 1);
  return out;
}

describe("markdown in pieces", () => {
  it("renders the same blocks as the whole text, wherever the text is cut", () => {
    const expected = whole(DOC);
    for (const cut of lineEnds(DOC)) {
      expect(inPieces(DOC, [cut]).all, `cut at ${cut}`).toEqual(expected);
    }
    for (const a of lineEnds(DOC)) for (const b of lineEnds(DOC)) if (a < b) expect(inPieces(DOC, [a, b]).all, `cuts at ${a}, ${b}`).toEqual(expected);
  });

  it("settles each block once: a later piece re-parses only the last block", () => {
    const blocks = Array.from({ length: 200 }, (_, i) => `## Section ${i}\n\nText of section ${i}.\n`).join("\n");
    const half = blocks.indexOf("## Section 100");
    const first = renderMarkdownBlocks({ source: blocks.slice(0, half), references: {}, final: false, highlight: true });
    // Everything but the last block is settled; the carry is that block alone.
    expect(first.carry).toBe("Text of section 99.\n\n");
    const headings = first.settled.filter((t) => t.type === "heading_open").length;
    expect(headings).toBe(100);
    const second = renderMarkdownBlocks({ source: first.carry + blocks.slice(half), references: first.references, final: true, highlight: true });
    expect(second.settled.filter((t) => t.type === "heading_open").length).toBe(100);
  });

  it("a link finds a definition made in an earlier piece", () => {
    const src = "[ref]: https://example.com\n\nFirst.\n\nSee [it][ref].\n";
    const cut = src.indexOf("See");
    const { all } = inPieces(src, [cut]);
    const link = all.flatMap((t) => t.children ?? []).find((t) => t.type === "link_open");
    expect(link?.attrs).toEqual([["href", "https://example.com"]]);
  });

  it("colours a fence of a known language, and not when told not to", () => {
    const src = "```rust\nfn main() {}\n```\n";
    const coloured = renderMarkdownBlocks({ source: src, references: {}, final: true, highlight: true }).settled[0]!;
    expect(coloured.type).toBe("fence");
    expect(JSON.stringify(coloured.tree)).toContain("hljs-keyword");
    const plain = renderMarkdownBlocks({ source: src, references: {}, final: true, highlight: false }).settled[0]!;
    expect(plain.tree).toBeNull();
    expect(plain.content).toBe("fn main() {}\n");
  });

  it("raw HTML stays text", () => {
    const blocks = whole("<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n");
    const types = blocks.flatMap((t) => [t.type, ...(t.children ?? []).map((c) => c.type)]);
    expect(types).not.toContain("html_block");
    expect(types).not.toContain("html_inline");
  });
});
