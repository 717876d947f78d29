// A photo the window cannot decode (TIFF, HEIF, AVIF) in the preview pane:
// drawn by vips in the engine's sandbox and encoded again by the engine at
// the pane's width, so the window decodes only Canopy's own PNG. When it
// cannot be drawn (no decoder here, a damaged file, the tool missing) the
// pane says "No preview for this format" and why; the photo's details
// follow either way (the preview pane appends them). The job is cancelled
// (its child killed) when the selection moves on.

import type { PreviewBackend } from "../backend";
import { toBackendError } from "../backend";
import type { PhotoRender } from "../bindings/PhotoRender";
import { noPhotoPreviewLine } from "../media-words";
import { decodeBase64 } from "./hex";
import { el } from "./dom";
import { deviceRatio, renderWidth } from "./render-width";

let nextRequestId = 3_000_000;


export class PhotoRenderView {
  readonly element: HTMLElement = el("div", { class: "photo-render" }, el("p", { class: "muted" }, "Drawing the photo…"));
  private url: string | null = null;
  private inFlight: number | null = null;
  private disposed = false;

  constructor(
    private readonly backend: PreviewBackend,
    private readonly handle: string,
    /** The pane's width in CSS pixels. */
    private readonly paneWidth: () => number,
    /** The name shown as the picture's text alternative. */
    private readonly name: string,
  ) {}

  async start(): Promise<void> {
    const ratio = deviceRatio();
    const width = renderWidth(this.paneWidth());
    const requestId = nextRequestId++;
    this.inFlight = requestId;
    let r: PhotoRender;
    try {
      r = await this.backend.photoRender({ handle: this.handle, page: 1, width, requestId });
    } catch (err) {
      if (this.disposed) return;
      const e = toBackendError(err).toWire();
      this.element.replaceChildren(
        el("p", { class: "preview-error no-photo-preview", role: "status", "data-code": e.code }, noPhotoPreviewLine(null, e), el("span", { class: "error-detail" }, ` (${e.message})`)),
      );
      return;
    } finally {
      this.inFlight = null;
    }
    if (this.disposed) return;
    this.url = URL.createObjectURL(new Blob([decodeBase64(r.pngBase64) as BlobPart], { type: "image/png" }));
    const img = el("img", {
      class: "preview-image rendered-photo",
      alt: this.name,
      width: String(Math.round(r.width / ratio)),
      height: String(Math.round(r.height / ratio)),
    });
    img.src = this.url;
    this.element.replaceChildren(
      el("div", { class: "image-frame" }, img),
      el("p", { class: "muted image-info" }, `${r.format} · drawn by the sandboxed renderer at ${r.width} × ${r.height} px`),
    );
  }

  dispose(): void {
    this.disposed = true;
    if (this.inFlight !== null) void this.backend.cancelRender(this.inFlight).catch(() => undefined);
    this.inFlight = null;
    if (this.url) URL.revokeObjectURL(this.url);
    this.url = null;
  }
}
