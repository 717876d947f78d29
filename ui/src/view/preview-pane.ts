// The preview pane (`role="region"`, label "Preview"): a bounded, inert view
// of the selection. Text and code with line numbers and highlighting, images
// through blob: URLs, binary as hex, markdown rendered from tokens. Every
// read is a chunk ("Load more" appends the next); contents reach the DOM as
// text nodes and elements created one by one.
//
// Text shows plain at once; colouring and markdown are worked out by the
// colour worker (`Highlighter`), never on the window's thread, each chunk
// within a time budget: past it the text stays plain and the pane says
// "highlighting stopped: this file is too slow to colour". Selecting another
// file abandons the work. Markdown renders each chunk's new blocks only.

import type { PreviewBackend } from "../backend";
import { toBackendError } from "../backend";
import type { ControllerSnapshot } from "../directory-controller";
import type { PreviewChunk } from "../bindings/PreviewChunk";
import type { ImageFormat } from "../bindings/ImageFormat";
import type { CanopyError } from "../bindings/CanopyError";
import { describeError } from "../errors";
import { copiedSentence } from "../file-actions";
import { HIGHLIGHT_LIMIT, PREVIEW_CHUNK } from "../limits";
import { findNode, hiddenKinds, loadedCount, type TreeNode } from "../tree-state";
import { languageFor } from "../highlight/languages";
import type { Highlighter } from "../highlight/highlighter";
import { renderLines } from "./code";
import { button, el } from "./dom";
import { formatCount, formatSize, formatTime, plural } from "./format";
import { decodeBase64, hexLines } from "./hex";
import { renderMarkdownBlocks } from "./markdown";
import { plainName, renderName } from "./name";

const MIME: Record<ImageFormat, string> = {
  png: "image/png",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  bmp: "image/bmp",
  ico: "image/x-icon",
  svg: "image/svg+xml",
};

function isMarkdown(name: string): boolean {
  return /\.(md|markdown|mdown|mkd)$/i.test(name);
}

function kindLabel(kind: string): string {
  return kind === "charDevice" ? "character device" : kind === "blockDevice" ? "block device" : kind;
}

/** The note shown when a chunk overran the colour budget. */
export const COLOUR_STOPPED = "highlighting stopped: this file is too slow to colour";
/** The note shown when even uncoloured markdown overran it. */
export const RENDER_STOPPED = "rendering stopped: this file is too slow to render; the rest is shown as text";

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

/** State of the file being shown. */
interface Shown {
  node: TreeNode;
  token: number;
  nextOffset: number;
  size: number;
  more: boolean;
  mode: "text" | "binary" | "image" | "none";
  language: string | null;
  highlighted: number;
  /** A colour request overran its budget: nothing more is coloured. */
  colourStopped: boolean;
  /** Colour requests for the code view not answered yet. */
  colourPending: number;
  markdown: MarkdownState | null;
  /** Text after the last newline, waiting for the rest of its line. */
  tail: string;
  typeLabel: string;
}

export class PreviewPane {
  readonly element: HTMLElement;
  private readonly head: HTMLElement;
  private readonly body: HTMLElement;
  private readonly status: HTMLElement;
  private shown: Shown | null = null;
  private token = 0;
  private imageUrl: string | null = null;
  private wrap = false;
  private findBar: HTMLElement | null = null;

  constructor(
    private readonly backend: PreviewBackend,
    /** The colour worker's page side (its budget can be set by the e2e build's hooks). */
    readonly highlighter: Highlighter,
  ) {
    this.head = el("div", { class: "preview-top" });
    this.body = el("div", { class: "preview-body" });
    this.status = el("div", { class: "preview-status", role: "status", "aria-live": "polite" });
    this.element = el("section", { role: "region", "aria-label": "Preview", class: "preview-pane" }, this.head, this.body, this.status);
    this.element.addEventListener("keydown", (e) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "f") {
        e.preventDefault();
        this.openFind();
      }
    });
    this.showEmpty();
  }

  private showEmpty(): void {
    this.head.replaceChildren();
    this.body.replaceChildren(el("p", { class: "muted center" }, "Select a file to preview it."));
  }

  update(s: ControllerSnapshot): void {
    const t = s.tree;
    const hit = t && t.selected ? findNode(t, t.selected) : null;
    if (!hit) {
      if (this.shown) this.showEmpty();
      this.shown = null;
      this.token++;
      this.highlighter.cancel();
      return;
    }
    if (this.shown && hit.node === this.shown.node) return;
    const shown = this.shown;
    if (shown && hit.node.entry.handle === shown.node.entry.handle && hit.node.entry.kind === shown.node.entry.kind) {
      // The same entry re-listed (a change on disk, a page of its folder...).
      const before = shown.node.entry;
      const after = hit.node.entry;
      shown.node = hit.node;
      if (hit.node.folder || after.kind === "folder") {
        // A folder's summary: its counts may have changed.
        this.body.replaceChildren(this.folderSummary(hit.node));
        return;
      }
      if (before.size === after.size && before.modified === after.modified) return;
      if (shown.mode === "none" || before.error || after.error) {
        this.show(hit.node);
        return;
      }
      // The file changed on disk: read its first chunk again, and say so.
      this.show(hit.node);
      this.status.textContent = "The file changed on disk: its first part was read again.";
      return;
    }
    this.show(hit.node);
  }

  /** Ctrl+F from anywhere while a text preview is shown. */
  openFind(): void {
    if (!this.shown || this.shown.mode !== "text") return;
    if (!this.findBar) this.findBar = this.buildFindBar();
    this.findBar.hidden = false;
    this.findBar.querySelector("input")?.focus();
  }

  private show(node: TreeNode): void {
    const token = ++this.token;
    // Whatever was being coloured belongs to the file left behind.
    this.highlighter.cancel();
    if (this.imageUrl) URL.revokeObjectURL(this.imageUrl);
    this.imageUrl = null;
    this.findBar = null;
    const e = node.entry;
    this.shown = {
      node,
      token,
      nextOffset: 0,
      size: e.size ?? 0,
      more: false,
      mode: "none",
      language: null,
      highlighted: 0,
      colourStopped: false,
      colourPending: 0,
      markdown: null,
      tail: "",
      typeLabel: kindLabel(e.kind),
    };
    this.status.textContent = "";
    this.renderHead(node);
    const previewable = e.kind === "file" || (e.kind === "symlink" && e.link?.pointsTo === "file");
    if (node.folder || e.kind === "folder") {
      this.body.replaceChildren(this.folderSummary(node));
    } else if (e.kind === "symlink" && e.link?.pointsTo === "folder") {
      this.body.replaceChildren(el("p", { class: "muted" }, "A link to a folder: expand it in the tree to see what it holds."));
    } else if (!previewable) {
      const what = e.kind === "symlink" ? `link (${e.link?.pointsTo ?? "unknown"})` : kindLabel(e.kind);
      this.body.replaceChildren(el("p", { class: "special-note" }, `special file: not previewed (${what})`));
    } else {
      this.body.replaceChildren(el("p", { class: "muted" }, "Loading…"));
      void this.loadChunk(token, 0);
    }
  }

  private renderHead(node: TreeNode): void {
    const e = node.entry;
    const facts: string[] = [kindLabel(e.kind)];
    if (e.kind === "file" && e.size !== undefined) facts.push(formatSize(e.size));
    if (e.modified !== undefined) facts.push(formatTime(e.modified));
    const actions = el("div", { class: "preview-actions" });
    const copy = button("Copy path", { "data-action": "copy-path" });
    copy.addEventListener("click", () => void this.act(async () => copiedSentence(await this.backend.copyPath(e.handle))));
    const reveal = button("Reveal", { "data-action": "reveal", title: "Show in the system file manager" });
    reveal.addEventListener("click", () =>
      void this.act(async () => {
        await this.backend.reveal(e.handle);
        return "Shown in the file manager.";
      }),
    );
    actions.append(copy, reveal);
    if (e.kind === "file" || (e.kind === "symlink" && e.link?.pointsTo === "file")) {
      const open = button("Open…", { "data-action": "open-default", title: "Open with the default application" });
      open.addEventListener("click", () => this.confirmOpen(node));
      actions.append(open);
    }
    this.head.replaceChildren(
      el("div", { class: "preview-title" }, renderName(e.name, e.nameParts, "preview-name")),
      el("div", { class: "preview-facts muted" }, facts.join(" · ")),
      actions,
    );
    if (e.error) this.head.append(this.errorBox(e.error));
  }

  /** Runs a file action and shows its sentence, or its error. */
  private async act(run: () => Promise<string>): Promise<void> {
    try {
      this.status.textContent = await run();
    } catch (err) {
      const e = toBackendError(err);
      this.status.textContent = describeError(e.code) + ` (${e.message})`;
    }
  }

  private confirmOpen(node: TreeNode): void {
    const e = node.entry;
    const label = this.shown?.node === node ? this.shown.typeLabel : kindLabel(e.kind);
    const name = plainName(e.name, e.nameParts);
    const cancel = button("Cancel", { "data-action": "cancel" });
    const ok = button("Open", { "data-action": "confirm-open", class: "primary" });
    const question = el("p", {}, "Open ", el("strong", { class: "confirm-name" }, name), ` (${label}${e.size !== undefined ? `, ${formatSize(e.size)}` : ""}) with the default application?`);
    const box = el("div", { class: "confirm", role: "alertdialog", "aria-modal": "true", "aria-label": "Open with the default application" }, question, el("div", { class: "confirm-buttons" }, cancel, ok));
    const backdrop = el("div", { class: "backdrop" }, box);
    const closeBox = () => backdrop.remove();
    cancel.addEventListener("click", closeBox);
    ok.addEventListener("click", () => {
      closeBox();
      void this.act(async () => {
        await this.backend.openDefault(e.handle);
        return "Opened with the default application.";
      });
    });
    backdrop.addEventListener("keydown", (ev) => {
      if (ev.key === "Escape") closeBox();
    });
    document.body.append(backdrop);
    cancel.focus();
  }

  private errorBox(err: CanopyError): HTMLElement {
    return el("p", { class: "preview-error", role: "alert", "data-code": err.code }, describeError(err.code), el("span", { class: "error-detail" }, ` (${err.message})`));
  }

  private folderSummary(node: TreeNode): HTMLElement {
    const f = node.folder;
    const facts = el("dl", { class: "facts" });
    const fact = (k: string, v: string) => facts.append(el("dt", {}, k), el("dd", {}, v));
    if (!f || f.total === null) {
      fact("Contents", node.entry.error ? "could not be read" : "not read yet: expand it to list it");
      return facts;
    }
    const k = f.kindTotals;
    fact("Contains", `${f.lowerBound ? "at least " : ""}${plural(f.total, "entry", "entries")}`);
    fact("By kind", `${plural(k.folders, "folder", "folders")}, ${plural(k.files, "file", "files")}, ${plural(k.other, "other", "others")}`);
    const h = hiddenKinds(f);
    const hidden = h.folders + h.files + h.other;
    fact("Shown", `${formatCount(loadedCount(f))} of ${f.lowerBound ? "at least " : ""}${formatCount(f.total)}${hidden ? "" : " (all)"}`);
    if (f.dotfilesHidden) fact("Dotfiles hidden", formatCount(f.dotfilesHidden));
    return facts;
  }

  private async loadChunk(token: number, offset: number): Promise<void> {
    const shown = this.shown;
    if (!shown) return;
    let chunk: PreviewChunk;
    try {
      chunk = await this.backend.readPreview({ handle: shown.node.entry.handle, offset, length: PREVIEW_CHUNK });
    } catch (err) {
      if (token !== this.token) return;
      const e = toBackendError(err);
      if (offset === 0) this.body.replaceChildren(this.errorBox(e.toWire()));
      else this.body.append(this.errorBox(e.toWire()));
      return;
    }
    if (token !== this.token) return;
    shown.size = chunk.size;
    shown.more = chunk.more;
    shown.nextOffset = chunk.offset + chunk.length;
    if (offset === 0) {
      if (chunk.image) {
        shown.mode = "image";
        shown.typeLabel = `${chunk.image.toUpperCase()} image`;
        await this.showImage(token, chunk.image);
        return;
      }
      this.body.replaceChildren();
      if (chunk.content.type === "text") {
        shown.mode = "text";
        shown.language = languageFor(shown.node.entry.name);
        shown.typeLabel = `${shown.language ?? "text"} file (${chunk.content.encoding})`;
        this.startText(chunk);
      } else {
        shown.mode = "binary";
        shown.typeLabel = "binary file";
        this.startBinary();
      }
    }
    if (chunk.content.type === "text") {
      if (shown.mode === "binary") this.appendHex(chunk);
      else this.appendText(chunk);
    } else {
      if (shown.mode === "text") {
        // A NUL turned the rest binary: continue as hex below the text.
        this.finishText();
        shown.mode = "binary";
        this.startBinary();
      }
      this.appendHex(chunk);
    }
    this.updateMore();
  }

  private startText(chunk: PreviewChunk): void {
    const shown = this.shown!;
    const tools = el("div", { class: "preview-tools" });
    const wrapToggle = el("input", { type: "checkbox", "data-action": "wrap" });
    wrapToggle.checked = this.wrap;
    wrapToggle.addEventListener("change", () => {
      this.wrap = wrapToggle.checked;
      this.body.querySelector(".code")?.classList.toggle("wrap", this.wrap);
    });
    tools.append(el("label", {}, wrapToggle, " Wrap lines"));
    if (chunk.content.type === "text" && chunk.content.lossy) tools.append(el("span", { class: "badge" }, `${chunk.content.encoding}, some bytes not decodable`));
    else if (chunk.content.type === "text" && chunk.content.encoding !== "utf-8") tools.append(el("span", { class: "badge" }, chunk.content.encoding));
    const code = el("pre", { class: "code", tabindex: "0", "aria-label": "File contents", "data-colour": shown.language ? "pending" : "none" });
    code.classList.toggle("wrap", this.wrap);
    const codeInner = el("code", {});
    code.append(codeInner);
    if (isMarkdown(shown.node.entry.name)) {
      const view = el("div", { class: "markdown" });
      const rendered = el("div", { class: "markdown-view", "data-render": "pending" }, view);
      shown.markdown = { view, carry: "", references: {}, provisional: [], chain: Promise.resolve(), pending: 0, plain: false };
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

  private appendText(chunk: PreviewChunk): void {
    const shown = this.shown!;
    if (chunk.content.type !== "text") return;
    const code = this.body.querySelector("pre.code code");
    if (!code) return;
    let text = shown.tail + chunk.content.text;
    const cut = text.lastIndexOf("\n");
    if (chunk.more && cut >= 0) {
      shown.tail = text.slice(cut + 1);
      text = text.slice(0, cut + 1);
    } else if (chunk.more) {
      shown.tail = text;
      text = "";
    } else {
      shown.tail = "";
    }
    const lines = renderLines(text);
    code.append(...lines);
    // The rendered view first: it is what shows.
    if (shown.markdown) this.queueMarkdown(shown, shown.markdown, text, !chunk.more);
    if (shown.language && shown.highlighted < HIGHLIGHT_LIMIT && text) {
      shown.highlighted += text.length;
      void this.colourLines(shown, text, lines);
    }
    this.markColour(shown);
  }

  /** Colours lines already shown plain, once the worker answers within budget. */
  private async colourLines(shown: Shown, text: string, lines: HTMLElement[]): Promise<void> {
    if (shown.colourStopped || !shown.language) return;
    shown.colourPending++;
    const r = await this.highlighter.code(text, shown.language);
    if (shown !== this.shown || r.status === "cancelled") return;
    shown.colourPending--;
    if (r.status === "stopped") this.stopColour(shown);
    else if (r.value) {
      const coloured = renderLines(text, r.value);
      // The tree is of this very text, so it splits into as many lines.
      if (coloured.length === lines.length) lines.forEach((line, i) => line.replaceChildren(...coloured[i]!.childNodes));
    }
    this.markColour(shown);
  }

  /** `data-colour` on the code view: pending, done, stopped or none (no language). */
  private markColour(shown: Shown): void {
    const code = this.body.querySelector<HTMLElement>("pre.code");
    if (!code || shown !== this.shown) return;
    code.dataset.colour = shown.colourStopped ? "stopped" : shown.colourPending > 0 ? "pending" : shown.language ? "done" : "none";
  }

  private stopColour(shown: Shown): void {
    if (shown.colourStopped) return;
    shown.colourStopped = true;
    this.body.querySelector(".preview-tools")?.append(el("span", { class: "badge badge-more colour-stopped", role: "note" }, COLOUR_STOPPED));
    this.markColour(shown);
  }

  private queueMarkdown(shown: Shown, m: MarkdownState, text: string, final: boolean): void {
    m.pending++;
    m.chain = m.chain.then(() => this.renderMarkdownPiece(shown, m, text, final));
  }

  /** Renders the new blocks of one piece of markdown; see `highlight/markdown-blocks.ts`. */
  private async renderMarkdownPiece(shown: Shown, m: MarkdownState, text: string, final: boolean): Promise<void> {
    if (shown !== this.shown) return;
    const source = m.carry + text;
    const ask = () => this.highlighter.markdown({ source, references: m.references, final, highlight: !shown.colourStopped });
    let r = m.plain ? null : await ask();
    if (r?.status === "stopped" && !shown.colourStopped) {
      // Too slow to colour: render it again uncoloured, within a fresh budget.
      this.stopColour(shown);
      r = await ask();
    }
    if (shown !== this.shown || r?.status === "cancelled") return;
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

  private finishText(): void {
    const shown = this.shown!;
    const code = this.body.querySelector("pre.code code");
    if (shown.tail && code) code.append(...renderLines(shown.tail, null));
    shown.tail = "";
  }

  private startBinary(): void {
    this.body.append(el("pre", { class: "hex", tabindex: "0", "aria-label": "Hex view" }));
  }

  private appendHex(chunk: PreviewChunk): void {
    const hex = this.body.querySelector("pre.hex");
    if (!hex || chunk.content.type !== "binary") return;
    const bytes = decodeBase64(chunk.content.base64);
    hex.append(document.createTextNode(hexLines(bytes, chunk.offset).join("\n") + "\n"));
  }

  private updateMore(): void {
    const shown = this.shown!;
    this.body.querySelector(".load-more-bar")?.remove();
    if (!shown.more) return;
    const loaded = shown.nextOffset;
    const of = shown.size > 0 ? ` of ${formatSize(shown.size)}` : " (size unknown)";
    const badge = el("span", { class: "badge badge-more" }, `showing first ${formatSize(loaded)}${of}`);
    const more = button("Load more", { "data-action": "load-more" });
    more.addEventListener("click", () => {
      more.disabled = true;
      void this.loadChunk(shown.token, shown.nextOffset);
    });
    this.body.append(el("div", { class: "load-more-bar" }, badge, more));
  }

  private async showImage(token: number, format: ImageFormat): Promise<void> {
    const shown = this.shown!;
    let bytes: ArrayBuffer;
    try {
      bytes = await this.backend.readImage(shown.node.entry.handle);
    } catch (err) {
      if (token !== this.token) return;
      const e = toBackendError(err);
      if (e.code === "TOO_LARGE") {
        this.body.replaceChildren(el("p", {}, el("span", { class: "badge badge-more" }, `image too large to preview (${formatSize(shown.size)})`)));
      } else {
        this.body.replaceChildren(this.errorBox(e.toWire()));
      }
      return;
    }
    if (token !== this.token) return;
    const url = URL.createObjectURL(new Blob([bytes], { type: MIME[format] }));
    this.imageUrl = url;
    // An SVG shown through <img> runs no script.
    const img = el("img", { class: "preview-image", alt: plainName(shown.node.entry.name, shown.node.entry.nameParts) });
    const info = el("p", { class: "muted image-info" }, `${format.toUpperCase()} · ${formatSize(bytes.byteLength)}`);
    img.addEventListener("load", () => {
      info.textContent = `${format.toUpperCase()} · ${img.naturalWidth} × ${img.naturalHeight} px · ${formatSize(bytes.byteLength)}`;
    });
    img.addEventListener("error", () => {
      info.textContent = `${format.toUpperCase()} · ${formatSize(bytes.byteLength)} · could not be decoded`;
    });
    img.src = url;
    this.body.replaceChildren(el("div", { class: "image-frame" }, img), info);
  }

  // ---- find -------------------------------------------------------------

  private buildFindBar(): HTMLElement {
    const input = el("input", { type: "search", "aria-label": "Find in preview", placeholder: "Find" });
    const count = el("span", { class: "muted find-count" });
    const prev = button("Previous match", { class: "icon-only" }, "↑");
    const next = button("Next match", { class: "icon-only" }, "↓");
    const close = button("Close find", { class: "icon-only" }, "×");
    const bar = el("div", { class: "find-bar", role: "search" }, input, count, prev, next, close);
    let hits: { line: HTMLElement; index: number }[] = [];
    let at = -1;
    const search = () => {
      hits = [];
      at = -1;
      const q = input.value.toLocaleLowerCase();
      if (q) {
        for (const line of this.body.querySelectorAll<HTMLElement>("pre.code .line")) {
          const text = (line.textContent ?? "").toLocaleLowerCase();
          for (let i = text.indexOf(q); i >= 0; i = text.indexOf(q, i + q.length)) hits.push({ line, index: i });
        }
      }
      go(1);
    };
    const go = (step: number) => {
      if (hits.length === 0) {
        count.textContent = input.value ? "no matches" : "";
        return;
      }
      at = (at + step + hits.length) % hits.length;
      count.textContent = `${at + 1} of ${hits.length}`;
      const hit = hits[at]!;
      selectInLine(hit.line, hit.index, input.value.length);
      // Scroll the text only, never the window.
      const box = this.body.getBoundingClientRect();
      const lineBox = hit.line.getBoundingClientRect();
      this.body.scrollTop += lineBox.top - box.top - box.height / 2;
    };
    // Search once typing pauses: a long file is not rescanned per keystroke.
    let timer: ReturnType<typeof setTimeout> | undefined;
    input.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(search, 150);
    });
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") go(e.shiftKey ? -1 : 1);
      else if (e.key === "Escape") bar.hidden = true;
      else return;
      e.preventDefault();
    });
    prev.addEventListener("click", () => go(-1));
    next.addEventListener("click", () => go(1));
    close.addEventListener("click", () => (bar.hidden = true));
    // In the pane's fixed header, so it never scrolls away with the text.
    this.head.append(bar);
    return bar;
  }
}

/**
 * Marks `length` characters from `index` within a line (a span around them,
 * or the whole line when the match crosses highlight tokens). The document
 * selection is left alone so focus stays in the find field.
 */
function selectInLine(line: HTMLElement, index: number, length: number): void {
  for (const old of document.querySelectorAll(".find-match")) {
    const parent = old.parentNode;
    old.replaceWith(...Array.from(old.childNodes));
    parent?.normalize();
  }
  document.querySelectorAll(".line.find-hit").forEach((l) => l.classList.remove("find-hit"));
  line.classList.add("find-hit");
  const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  let pos = 0;
  let started = false;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const len = n.textContent?.length ?? 0;
    if (!started && index < pos + len) {
      range.setStart(n, index - pos);
      started = true;
    }
    if (started && index + length <= pos + len) {
      range.setEnd(n, index + length - pos);
      const mark = document.createElement("mark");
      mark.className = "find-match";
      try {
        range.surroundContents(mark);
      } catch {
        // The match spans several highlight tokens: the line's mark shows it.
      }
      return;
    }
    pos += len;
  }
}
