// The width an image Canopy renders for the preview pane is asked at (a PDF
// page, a poster frame, a photo, a font's sample): the pane's width less its
// margins, in device pixels; the image is then shown at CSS pixels (divided
// by the same ratio).

/** The pane's padding and a scroll bar beside a rendered image, in CSS pixels. */
const PANE_MARGIN = 40;
/** The narrowest image asked for (the engine's MIN_RENDER_WIDTH). */
const MIN_RENDER_WIDTH = 64;

/** Device pixels per CSS pixel. */
export function deviceRatio(): number {
  return window.devicePixelRatio || 1;
}

/** The width, in device pixels, to render an image for a pane `paneWidth` CSS pixels wide. */
export function renderWidth(paneWidth: number): number {
  return Math.max(MIN_RENDER_WIDTH, Math.round((paneWidth - PANE_MARGIN) * deviceRatio()));
}
