// A PDF in the preview pane: its facts, one page at the pane's width (an
// image Canopy's engine rendered in its sandbox and encoded itself), page
// navigation (previous/next, a page field, "page 3 of 212") and the page's
// text below, for find (Ctrl+F) and copy. Pages are rendered on demand; at
// most PDF_PAGES_KEPT are kept. A page that is no longer wanted (another
// page, another file) has its render job cancelled: the engine kills its
// child. Text reaches the DOM as text nodes only.

import type { PreviewBackend } from "../backend";
import { toBackendError } from "../backend";
import type { CanopyError } from "../bindings/CanopyError";
import type { PdfDocument } from "../bindings/PdfDocument";
import type { PdfPage } from "../bindings/PdfPage";
import { describeError } from "../errors";
import { PageCache, pageFromField, pageLabel, pdfFacts, sandboxNote } from "../media-words";
import { decodeBase64 } from "./hex";
import { button, el } from "./dom";
import { deviceRatio, renderWidth } from "./render-width";

let nextRequestId = 1;


export class PdfView {
  readonly element: HTMLElement;
  private readonly facts = el("dl", { class: "media-facts pdf-facts" });
  private readonly nav: HTMLElement;
  private readonly label = el("span", { class: "pdf-page-label", "aria-live": "polite" });
  private readonly field = el("input", { type: "text", inputmode: "numeric", class: "pdf-page-field", "aria-label": "Page number", size: "5" });
  private readonly prev = button("Previous page", { "data-action": "pdf-prev" }, "‹ Previous");
  private readonly next = button("Next page", { "data-action": "pdf-next" }, "Next ›");
  private readonly stage = el("div", { class: "pdf-stage" });
  private readonly pages = new PageCache<PdfPage>();
  private doc: PdfDocument | null = null;
  private page = 1;
  private inFlight: number | null = null;
  private docInFlight: number | null = null;
  private imageUrl: string | null = null;
  private disposed = false;

  constructor(
    private readonly backend: PreviewBackend,
    private readonly handle: string,
    /** The pane's width in CSS pixels, asked when a page is rendered. */
    private readonly paneWidth: () => number,
  ) {
    this.nav = el("div", { class: "pdf-nav", role: "toolbar", "aria-label": "Pages" }, this.prev, this.field, this.label, this.next);
    this.nav.hidden = true;
    this.prev.addEventListener("click", () => this.go(this.page - 1));
    this.next.addEventListener("click", () => this.go(this.page + 1));
    this.field.addEventListener("keydown", (e) => {
      if (e.key !== "Enter") return;
      e.preventDefault();
      const page = this.doc ? pageFromField(this.field.value, this.doc.pages) : null;
      if (page === null) this.field.value = String(this.page);
      else this.go(page);
    });
    this.element = el("div", { class: "pdf-view" }, this.facts, this.nav, this.stage);
    this.stage.append(el("p", { class: "muted" }, "Reading the PDF…"));
  }

  /**
   * Asks for the document's facts and its first page side by side: the page
   * reaches the screen without waiting for the facts. When the facts cannot
   * be read, their error is what the pane says (the page's job is stopped).
   */
  async start(): Promise<void> {
    const requestId = nextRequestId++;
    this.docInFlight = requestId;
    const facts: Promise<CanopyError | null> = this.backend
      .pdfDocument({ handle: this.handle, page: 1, width: 0, requestId })
      .then(
        (doc) => {
          if (this.disposed) return null;
          this.doc = doc;
          this.renderFacts(doc);
          this.nav.hidden = false;
          this.showPosition();
          return null;
        },
        (err) => {
          const wire = toBackendError(err).toWire();
          if (this.disposed) return wire;
          this.cancelInFlight();
          this.stage.replaceChildren(this.errorBox(wire));
          return wire;
        },
      )
      .finally(() => {
        if (this.docInFlight === requestId) this.docInFlight = null;
      });
    await Promise.all([facts, this.go(1, facts)]);
  }

  /** Stops whatever is rendering for this view: the selection moved on. */
  dispose(): void {
    this.disposed = true;
    this.cancelInFlight();
    if (this.docInFlight !== null) void this.backend.cancelRender(this.docInFlight).catch(() => undefined);
    this.docInFlight = null;
    if (this.imageUrl) URL.revokeObjectURL(this.imageUrl);
    this.imageUrl = null;
  }

  /** Rendered pages kept now (at most PDF_PAGES_KEPT). */
  get pagesKept(): number {
    return this.pages.size;
  }

  private cancelInFlight(): void {
    if (this.inFlight !== null) void this.backend.cancelRender(this.inFlight).catch(() => undefined);
    this.inFlight = null;
  }

  private renderFacts(doc: PdfDocument): void {
    const rows = pdfFacts(doc).flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]);
    this.facts.replaceChildren(...rows);
    const note = sandboxNote(doc.networkIsolated);
    if (note) this.facts.after(el("p", { class: "special-note sandbox-note" }, note));
  }

  /** Page, label and buttons as the page number and the facts say. */
  private showPosition(): void {
    const doc = this.doc;
    if (!doc) return;
    this.field.value = String(this.page);
    this.label.textContent = pageLabel(this.page, doc.pages);
    this.prev.disabled = this.page <= 1;
    this.next.disabled = this.page >= doc.pages;
  }

  /**
   * Shows page `page`, rendered on demand. Before the facts are in (the first
   * page only), `facts` says whether they failed: then their error stands
   * and the page's own error is not shown.
   */
  private async go(page: number, facts?: Promise<CanopyError | null>): Promise<void> {
    const doc = this.doc;
    if (this.disposed || (!doc && !facts)) return;
    if (doc) page = Math.max(1, Math.min(page, doc.pages));
    this.page = page;
    this.showPosition();
    const kept = this.pages.get(page);
    if (kept) {
      this.cancelInFlight();
      this.showPage(kept);
      return;
    }
    this.cancelInFlight();
    const requestId = nextRequestId++;
    this.inFlight = requestId;
    this.stage.replaceChildren(el("p", { class: "muted pdf-rendering" }, `Rendering page ${page}…`));
    const width = renderWidth(this.paneWidth());
    let rendered: PdfPage;
    try {
      rendered = await this.backend.pdfPage({ handle: this.handle, page, width, requestId });
    } catch (err) {
      if (this.disposed || this.inFlight !== requestId) return;
      if (facts && (await facts) !== null) return;
      if (this.disposed || this.inFlight !== requestId) return;
      this.inFlight = null;
      this.stage.replaceChildren(this.errorBox(toBackendError(err).toWire()));
      return;
    }
    if (this.disposed || this.inFlight !== requestId) return;
    this.inFlight = null;
    this.pages.put(page, rendered);
    this.showPage(rendered);
  }

  private showPage(p: PdfPage): void {
    if (this.imageUrl) URL.revokeObjectURL(this.imageUrl);
    const bytes = decodeBase64(p.pngBase64);
    this.imageUrl = URL.createObjectURL(new Blob([bytes as BlobPart], { type: "image/png" }));
    const ratio = deviceRatio();
    const img = el("img", {
      class: "pdf-page-image",
      alt: `Page ${p.page}`,
      width: String(Math.round(p.width / ratio)),
      height: String(Math.round(p.height / ratio)),
      "data-page": String(p.page),
    });
    img.src = this.imageUrl;
    const text = el("pre", { class: "code pdf-text", tabindex: "0", "aria-label": `Text of page ${p.page}` });
    const lines = p.text.split("\n");
    for (const line of lines) {
      text.append(el("span", { class: "line" }, line), "\n");
    }
    const parts: Node[] = [el("div", { class: "pdf-page-frame" }, img), el("h3", { class: "pdf-text-title" }, "Text of this page")];
    if (p.text.trim() === "") parts.push(el("p", { class: "muted" }, p.textProblem ? `The text could not be read: ${p.textProblem}` : "This page has no text (it may be a scanned image)."));
    else parts.push(text);
    if (p.textCut) parts.push(el("p", { class: "muted" }, "The page's text is longer: only its first part is shown."));
    this.stage.replaceChildren(...parts);
  }

  private errorBox(err: CanopyError): HTMLElement {
    return el("p", { class: "preview-error", role: "alert", "data-code": err.code }, renderSentence(err.code), el("span", { class: "error-detail" }, ` (${err.message})`));
  }
}

/** What a code means for a render job (the renderer's limits) of `what`, else what it means anywhere. */
export function renderSentence(code: CanopyError["code"], what = "page"): string {
  if (code === "TIMEOUT") return `TIMEOUT — this ${what} took too long to render; the renderer was stopped and the window is unaffected`;
  if (code === "TOO_LARGE") return "TOO_LARGE — the renderer's output passed its limit; it was stopped";
  return describeError(code);
}
