// A font in the preview pane: its facts (fc-query in the engine's sandbox)
// and a sample line drawn with it there (hb-view), encoded again by the
// engine at the pane's width. The font itself never reaches the window:
// no @font-face, no FontFace, only Canopy's own PNG of the sample. The job
// is cancelled (its children killed) when the selection moves on. Text
// reaches the DOM as text nodes only.

import type { PreviewBackend } from "../backend";
import { toBackendError } from "../backend";
import type { FontPreview } from "../bindings/FontPreview";
import { fontFacts, sampleMissingLine, sandboxNote } from "../media-words";
import { decodeBase64 } from "./hex";
import { el } from "./dom";
import { renderSentence } from "./pdf-view";
import { deviceRatio, renderWidth } from "./render-width";

let nextRequestId = 2_000_000;


export class FontView {
  readonly element: HTMLElement;
  private readonly stage = el("div", { class: "font-stage" }, el("p", { class: "muted" }, "Drawing a sample of the font…"));
  private sampleUrl: string | null = null;
  private inFlight: number | null = null;
  private disposed = false;

  constructor(
    private readonly backend: PreviewBackend,
    private readonly handle: string,
    /** The pane's width in CSS pixels, asked when the sample is drawn. */
    private readonly paneWidth: () => number,
  ) {
    this.element = el("div", { class: "font-view" }, this.stage);
  }

  async start(): Promise<void> {
    const ratio = deviceRatio();
    const width = renderWidth(this.paneWidth());
    const requestId = nextRequestId++;
    this.inFlight = requestId;
    let f: FontPreview;
    try {
      f = await this.backend.fontPreview({ handle: this.handle, page: 1, width, requestId });
    } catch (err) {
      if (this.disposed) return;
      const e = toBackendError(err).toWire();
      this.stage.replaceChildren(
        el("p", { class: "preview-error font-error", role: "alert", "data-code": e.code }, renderSentence(e.code, "font"), el("span", { class: "error-detail" }, ` (${e.message})`)),
      );
      return;
    } finally {
      this.inFlight = null;
    }
    if (this.disposed) return;
    this.show(f, ratio);
  }

  private show(f: FontPreview, ratio: number): void {
    if (f.sample) {
      this.sampleUrl = URL.createObjectURL(new Blob([decodeBase64(f.sample.pngBase64) as BlobPart], { type: "image/png" }));
      const img = el("img", {
        class: "font-sample",
        alt: `Sample of ${f.family}: ${f.sampleText.replace("\n", " ")}`,
        width: String(Math.round(f.sample.width / ratio)),
        height: String(Math.round(f.sample.height / ratio)),
      });
      img.src = this.sampleUrl;
      this.stage.replaceChildren(img);
    } else if (f.sampleError) {
      const e = f.sampleError;
      this.stage.replaceChildren(
        el("p", { class: "preview-error font-sample-error", role: "alert", "data-code": e.code }, sampleMissingLine(e), el("span", { class: "error-detail" }, ` (${e.message})`)),
      );
    }
    const rows = fontFacts(f);
    this.element.append(el("dl", { class: "media-facts font-facts" }, ...rows.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])));
    const sandbox = sandboxNote(f.networkIsolated);
    if (sandbox) this.element.append(el("p", { class: "special-note sandbox-note" }, sandbox));
  }

  /** Stops the job (its children are killed) and drops the sample's URL. */
  dispose(): void {
    this.disposed = true;
    if (this.inFlight !== null) void this.backend.cancelRender(this.inFlight).catch(() => undefined);
    this.inFlight = null;
    if (this.sampleUrl) URL.revokeObjectURL(this.sampleUrl);
    this.sampleUrl = null;
  }
}
