// A text file in the preview, streamed chunk by chunk: line-numbered code,
// plain at once and coloured by the colour worker when it answers within
// its budget (past it the text stays plain and says "highlighting stopped:
// this file is too slow to colour"); markdown rendered from tokens, each
// chunk's new blocks only. Contents reach the DOM as text nodes and elements
// made one by one. `dispose` abandons everything still in flight.

import type { PreviewChunk } from "../bindings/PreviewChunk";
import type { Highlighter } from "../highlight/highlighter";
import { languageFor } from "../highlight/languages";
import { HIGHLIGHT_LIMIT } from "../limits";
import { renderLines } from "./code";
import { button, el } from "./dom";
import { renderMarkdownBlocks } from "./markdown";

/** The note shown when a chunk overran the colour budget. */
export const COLOUR_STOPPED = "highlighting stopped: this file is too slow to colour";
/** The note shown when even uncoloured markdown overran it. */
export const RENDER_STOPPED = "rendering stopped: this file is too slow to render; the rest is shown as text";

function isMarkdown(name: string): boolean {
  return /\.(md|markdown|mdown|mkd)$/i.test(name);
}

/** The rendered view of a markdown file, built piece by piece. */
interface MarkdownState {
  /** The `.markdown` container. */
  view: HTMLElement;
  /** Source not settled yet: the last block, parsed again with the next text. */
  carry: string;
  references: Record<string, unknown>;
  /** Elements of the last block, replaced when the next text arrives. */
  provisional: ChildNode[];
  /** Pieces render in order, each after the one before. */
  chain: Promise<void>;
  pending: number;
  /** Rendering overran its budget even uncoloured: the rest is plain text. */
  plain: boolean;
}

/** Whether lines wrap: one setting for every file shown. */
export interface WrapSetting {
  wrap: boolean;
}

export class TextView {
  readonly language: string | null;
  private highlighted = 0;
  /** A colour request overran its budget: nothing more is coloured. */
  private colourStopped = false;
  /** Colour requests for the code view not answered yet. */
  private colourPending = 0;
  private markdown: MarkdownState | null = null;
  /** Text after the last newline, waiting for the rest of its line. */
  private tail = "";
  private live = true;

  constructor(
    private readonly body: HTMLElement,
    private readonly highlighter: Highlighter,
    private readonly name: string,
    private readonly wrap: WrapSetting,
  ) {
    this.language = languageFor(name);
  }

  /** Another file is shown: answers still in flight are dropped. */
  dispose(): void {
    this.live = false;
  }

  /** Builds the tools and the code (or markdown) view for the first chunk. */
  start(chunk: PreviewChunk): void {
    const tools = el("div", { class: "preview-tools" });
    const wrapToggle = el("input", { type: "checkbox", "data-action": "wrap" });
    wrapToggle.checked = this.wrap.wrap;
    wrapToggle.addEventListener("change", () => {
      this.wrap.wrap = wrapToggle.checked;
      this.body.querySelector(".code")?.classList.toggle("wrap", this.wrap.wrap);
    });
    tools.append(el("label", {}, wrapToggle, " Wrap lines"));
    if (chunk.content.type === "text" && chunk.content.lossy) tools.append(el("span", { class: "badge" }, `${chunk.content.encoding}, some bytes not decodable`));
    else if (chunk.content.type === "text" && chunk.content.encoding !== "utf-8") tools.append(el("span", { class: "badge" }, chunk.content.encoding));
    const code = el("pre", { class: "code", tabindex: "0", "aria-label": "File contents", "data-colour": this.language ? "pending" : "none" });
    code.classList.toggle("wrap", this.wrap.wrap);
    code.append(el("code", {}));
    if (isMarkdown(this.name)) {
      const view = el("div", { class: "markdown" });
      const rendered = el("div", { class: "markdown-view", "data-render": "pending" }, view);
      this.markdown = { view, carry: "", references: {}, provisional: [], chain: Promise.resolve(), pending: 0, plain: false };
      const toggle = button("Show source", { "data-action": "markdown-source" });
      let source = false;
      toggle.addEventListener("click", () => {
        source = !source;
        rendered.hidden = source;
        code.hidden = !source;
        toggle.textContent = source ? "Show rendered" : "Show source";
      });
      code.hidden = true;
      tools.append(toggle);
      this.body.append(tools, rendered, code);
    } else {
      this.body.append(tools, code);
    }
  }

  /** Appends a chunk's text: whole lines now, the last partial line with the next chunk. */
  append(chunk: PreviewChunk): void {
    if (chunk.content.type !== "text") return;
    const code = this.body.querySelector("pre.code code");
    if (!code) return;
    let text = this.tail + chunk.content.text;
    const cut = text.lastIndexOf("\n");
    if (chunk.more && cut >= 0) {
      this.tail = text.slice(cut + 1);
      text = text.slice(0, cut + 1);
    } else if (chunk.more) {
      this.tail = text;
      text = "";
    } else {
      this.tail = "";
    }
    const lines = renderLines(text);
    code.append(...lines);
    // The rendered view first: it is what shows.
    if (this.markdown) this.queueMarkdown(this.markdown, text, !chunk.more);
    if (this.language && this.highlighted < HIGHLIGHT_LIMIT && text) {
      this.highlighted += text.length;
      void this.colourLines(text, lines);
    }
    this.markColour();
  }

  /** The text ends here (the rest is binary): shows the partial last line. */
  finish(): void {
    const code = this.body.querySelector("pre.code code");
    if (this.tail && code) code.append(...renderLines(this.tail, null));
    this.tail = "";
  }

  /** Colours lines already shown plain, once the worker answers within budget. */
  private async colourLines(text: string, lines: HTMLElement[]): Promise<void> {
    if (this.colourStopped || !this.language) return;
    this.colourPending++;
    const r = await this.highlighter.code(text, this.language);
    if (!this.live || r.status === "cancelled") return;
    this.colourPending--;
    if (r.status === "stopped") this.stopColour();
    else if (r.value) {
      const coloured = renderLines(text, r.value);
      // The tree is of this very text, so it splits into as many lines.
      if (coloured.length === lines.length) lines.forEach((line, i) => line.replaceChildren(...coloured[i]!.childNodes));
    }
    this.markColour();
  }

  /** `data-colour` on the code view: pending, done, stopped or none (no language). */
  private markColour(): void {
    const code = this.body.querySelector<HTMLElement>("pre.code");
    if (!code || !this.live) return;
    code.dataset.colour = this.colourStopped ? "stopped" : this.colourPending > 0 ? "pending" : this.language ? "done" : "none";
  }

  private stopColour(): void {
    if (this.colourStopped) return;
    this.colourStopped = true;
    this.body.querySelector(".preview-tools")?.append(el("span", { class: "badge badge-more colour-stopped", role: "note" }, COLOUR_STOPPED));
    this.markColour();
  }

  private queueMarkdown(m: MarkdownState, text: string, final: boolean): void {
    m.pending++;
    m.chain = m.chain.then(() => this.renderMarkdownPiece(m, text, final));
  }

  /** Renders the new blocks of one piece of markdown; see `highlight/markdown-blocks.ts`. */
  private async renderMarkdownPiece(m: MarkdownState, text: string, final: boolean): Promise<void> {
    if (!this.live) return;
    const source = m.carry + text;
    const ask = () => this.highlighter.markdown({ source, references: m.references, final, highlight: !this.colourStopped });
    let r = m.plain ? null : await ask();
    if (r?.status === "stopped" && !this.colourStopped) {
      // Too slow to colour: render it again uncoloured, within a fresh budget.
      this.stopColour();
      r = await ask();
    }
    if (!this.live || r?.status === "cancelled") return;
    for (const n of m.provisional) n.remove();
    m.provisional = [];
    if (r?.status === "done") {
      m.view.append(...renderMarkdownBlocks(r.value.settled));
      m.provisional = renderMarkdownBlocks(r.value.provisional) as ChildNode[];
      m.view.append(...m.provisional);
      m.carry = r.value.carry;
      m.references = r.value.references;
    } else {
      // Too slow even uncoloured: the rest is shown as the text it is.
      if (!m.plain) m.view.append(el("p", { class: "badge badge-more render-stopped", role: "note" }, RENDER_STOPPED));
      m.plain = true;
      m.view.append(el("pre", { class: "md-plain" }, source));
      m.carry = "";
    }
    m.pending--;
    const view = m.view.parentElement;
    if (view) view.dataset.render = m.plain ? "plain" : m.pending > 0 ? "pending" : "done";
  }
}
