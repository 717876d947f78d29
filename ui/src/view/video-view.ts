// A video in the preview pane: its facts (ffprobe in the engine's sandbox),
// a poster frame (ffmpegthumbnailer there, encoded again by the engine at
// the pane's width: the window decodes only Canopy's own PNG), and Play.
// Both are asked at once, each a render job cancelled (its child killed)
// when the selection moves on.
//
// Play fetches the file from the app's one canopy-media: stream, range by
// range, into a blob: the <video> plays (WebKitGTK's player reads no custom
// protocol; never a file:// URL). Before that, the player is asked whether
// it can play the codecs the engine named (canPlayType); when it cannot, or
// its error event says so later, the pane says the codec is not available
// and keeps the poster and details. Text reaches the DOM as text nodes only.

import type { PreviewBackend } from "../backend";
import { toBackendError } from "../backend";
import type { CanopyError } from "../bindings/CanopyError";
import type { VideoDetails } from "../bindings/VideoDetails";
import type { VideoPoster } from "../bindings/VideoPoster";
import { fetchStream } from "../media-fetch";
import { codecMissingLine, loadingLine, playerCanTry, sandboxNote, videoFacts } from "../media-words";
import { decodeBase64 } from "./hex";
import { button, el } from "./dom";
import { renderSentence } from "./pdf-view";
import { deviceRatio, renderWidth } from "./render-width";

let nextRequestId = 1_000_000;


/** What the player's error codes mean here: 3 (decode) and 4 (source not supported) are a missing codec. */
const CODEC_ERRORS = new Set([3, 4]);

export class VideoView {
  readonly element: HTMLElement;
  private readonly facts = el("dl", { class: "media-facts video-facts" });
  private readonly stage = el("div", { class: "video-stage" });
  private readonly controls = el("div", { class: "video-controls" });
  private readonly note = el("p", { class: "video-note muted", role: "status", "aria-live": "polite" });
  private readonly play = button("Play the video", { "data-action": "video-play", class: "video-play" }, "▶ Play");
  private details: VideoDetails | null = null;
  private posterImage: HTMLImageElement | null = null;
  private posterUrl: string | null = null;
  private playerUrl: string | null = null;
  private streamOpen = false;
  private readonly inFlight = new Set<number>();
  private disposed = false;
  /** The <video> playing, when Play was pressed. */
  player: HTMLVideoElement | null = null;

  constructor(
    private readonly backend: PreviewBackend,
    private readonly handle: string,
    /** The pane's width in CSS pixels, asked when the poster is made. */
    private readonly paneWidth: () => number,
  ) {
    this.play.disabled = true;
    this.play.addEventListener("click", () => void this.startPlaying());
    this.controls.append(this.play);
    this.note.hidden = true;
    this.stage.append(el("p", { class: "muted video-poster-wait" }, "Making a poster frame…"));
    this.element = el("div", { class: "video-view" }, this.stage, this.controls, this.note, this.facts);
  }

  /** Asks for the facts and the poster at once. */
  async start(): Promise<void> {
    await Promise.all([this.loadDetails(), this.loadPoster()]);
  }

  /** Stops everything of this view: render jobs, the stream, the player. */
  dispose(): void {
    this.disposed = true;
    for (const id of this.inFlight) void this.backend.cancelRender(id).catch(() => undefined);
    this.inFlight.clear();
    if (this.player) {
      this.player.pause();
      this.player.removeAttribute("src");
      this.player.load();
      this.player = null;
    }
    if (this.streamOpen) void this.backend.closeMediaStream().catch(() => undefined);
    this.streamOpen = false;
    if (this.posterUrl) URL.revokeObjectURL(this.posterUrl);
    if (this.playerUrl) URL.revokeObjectURL(this.playerUrl);
    this.posterUrl = null;
    this.playerUrl = null;
  }

  private async render<T>(ask: (requestId: number) => Promise<T>): Promise<T> {
    const requestId = nextRequestId++;
    this.inFlight.add(requestId);
    try {
      return await ask(requestId);
    } finally {
      this.inFlight.delete(requestId);
    }
  }

  private async loadDetails(): Promise<void> {
    let d: VideoDetails;
    try {
      d = await this.render((requestId) => this.backend.videoDetails({ handle: this.handle, page: 1, width: 0, requestId }));
    } catch (err) {
      if (this.disposed) return;
      this.facts.replaceWith(this.errorBox(toBackendError(err).toWire(), "video-details-error"));
      this.controls.hidden = true;
      return;
    }
    if (this.disposed) return;
    this.details = d;
    this.facts.replaceChildren(...videoFacts(d).flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
    const sandbox = sandboxNote(d.networkIsolated);
    if (sandbox) this.facts.after(el("p", { class: "special-note sandbox-note" }, sandbox));
    const canPlay = document.createElement("video").canPlayType(d.playMime);
    this.element.dataset.canPlay = canPlay || "no";
    if (playerCanTry(canPlay)) this.play.disabled = false;
    else this.codecMissing();
  }

  private async loadPoster(): Promise<void> {
    const width = renderWidth(this.paneWidth());
    let p: VideoPoster;
    try {
      p = await this.render((requestId) => this.backend.videoPoster({ handle: this.handle, page: 1, width, requestId }));
    } catch (err) {
      if (this.disposed) return;
      const e = toBackendError(err).toWire();
      this.stage.replaceChildren(el("p", { class: "preview-error video-poster-error", role: "alert", "data-code": e.code }, `No poster frame: ${renderSentence(e.code, "poster frame")}`, el("span", { class: "error-detail" }, ` (${e.message})`)));
      return;
    }
    if (this.disposed) return;
    const ratio = deviceRatio();
    this.posterUrl = URL.createObjectURL(new Blob([decodeBase64(p.pngBase64) as BlobPart], { type: "image/png" }));
    const img = el("img", {
      class: "video-poster",
      alt: "Poster frame of the video",
      width: String(Math.round(p.width / ratio)),
      height: String(Math.round(p.height / ratio)),
    });
    img.src = this.posterUrl;
    this.posterImage = img;
    if (!this.player) this.stage.replaceChildren(img);
  }

  private codecMissing(): void {
    if (!this.details) return;
    this.play.disabled = true;
    this.controls.hidden = true;
    this.note.hidden = false;
    this.note.className = "video-note special-note codec-missing";
    this.note.textContent = codecMissingLine(this.details);
  }

  private say(text: string): void {
    this.note.hidden = false;
    this.note.className = "video-note muted";
    this.note.textContent = text;
  }

  /** Fetches the stream into a blob: and plays it. */
  private async startPlaying(): Promise<void> {
    if (this.disposed || this.player || !this.details) return;
    this.play.disabled = true;
    this.say(loadingLine(0, 0));
    let blob: Blob | null;
    try {
      const stream = await this.backend.openMediaStream(this.handle);
      if (this.disposed) return;
      this.streamOpen = true;
      this.element.dataset.stream = stream.url;
      blob = await fetchStream(stream.url, () => !this.disposed, (loaded, total) => this.say(loadingLine(loaded, total)));
    } catch (err) {
      if (this.disposed) return;
      this.note.hidden = true;
      this.controls.replaceWith(this.errorBox(toBackendError(err).toWire(), "video-play-error"));
      return;
    }
    if (!blob || this.disposed) return;
    this.playerUrl = URL.createObjectURL(blob);
    const video = el("video", { class: "video-player", controls: "", preload: "auto", "aria-label": "Video" });
    if (this.posterImage) {
      video.width = this.posterImage.width;
      video.height = this.posterImage.height;
      if (this.posterUrl) video.poster = this.posterUrl;
    }
    video.addEventListener("error", () => {
      if (this.disposed || this.player !== video) return;
      const code = video.error?.code ?? 0;
      this.player = null;
      video.remove();
      if (this.posterImage) this.stage.replaceChildren(this.posterImage);
      if (CODEC_ERRORS.has(code)) this.codecMissing();
      else this.say(`The video could not be played (the player's error ${code}).`);
    });
    this.player = video;
    video.src = this.playerUrl;
    this.stage.replaceChildren(video);
    this.note.hidden = true;
    this.controls.hidden = true;
    void video.play().catch(() => undefined);
  }

  private errorBox(err: CanopyError, extra: string): HTMLElement {
    return el("p", { class: `preview-error ${extra}`, role: "alert", "data-code": err.code }, renderSentence(err.code, "video"), el("span", { class: "error-detail" }, ` (${err.message})`));
  }
}
