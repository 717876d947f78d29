// The preview pane (`role="region"`, label "Preview"): a bounded, inert view
// of the selection. It chooses the view and reads the chunks: text and code
// (text-view.ts, coloured off the window's thread), images through blob:
// URLs (the engine names the MIME type), binary as hex, a folder's summary
// (folder-summary.ts) under where its space goes once its size was counted
// (space-view.ts), an archive's summary (archive-summary.ts), a PDF's
// pages (pdf-view.ts), a photo's details (photo-details.ts), an audio
// file's tags (audio-details.ts), a video's poster, facts and player
// (video-view.ts), a photo the window cannot decode (photo-render.ts) and a
// font's facts and sample (font-view.ts). Every read
// is a chunk ("Load more" appends the next); contents reach the DOM as text
// nodes and elements created one by one. The confirm dialog and the find bar
// are confirm-open.ts and find-bar.ts.
//
// An entry inside an archive has no file of its own on disk: its file
// actions act on the archive file holding it, and say so ("Open archive…").

import type { Capabilities } from "../bindings/Capabilities";
import type { PreviewBackend } from "../backend";
import { toBackendError } from "../backend";
import type { ControllerSnapshot } from "../directory-controller";
import type { PreviewChunk } from "../bindings/PreviewChunk";
import type { CanopyError } from "../bindings/CanopyError";
import { describeError, sentenceAlone } from "../errors";
import { copiedSentence } from "../file-actions";
import { PREVIEW_CHUNK } from "../limits";
import { findNode, type TreeNode } from "../tree-state";
import { archiveHolding, type ArchiveRef } from "../archives";
import type { Entry } from "../bindings/Entry";
import { archiveLabel, archiveSummary } from "./archive-summary";
import type { Highlighter } from "../highlight/highlighter";
import { confirmOpen } from "./confirm-open";
import { button, el } from "./dom";
import { buildFindBar } from "./find-bar";
import { folderSummary } from "./folder-summary";
import { emptySizes, type SizeMeasure, type SizeRecord, type SizesState } from "../sizes-state";
import { spaceView } from "./space-view";
import { formatSize, formatTime } from "./format";
import { decodeBase64, hexLines } from "./hex";
import { plainName, renderName } from "./name";
import { PdfView } from "./pdf-view";
import { VideoView } from "./video-view";
import { FontView } from "./font-view";
import { PhotoRenderView } from "./photo-render";
import { photoDetailsBlock } from "./photo-details";
import { audioDetailsBlock } from "./audio-details";
import { fetchStream } from "../media-fetch";
import { TextView, type WrapSetting } from "./text-view";

export { COLOUR_STOPPED, RENDER_STOPPED } from "./text-view";

function kindLabel(kind: string): string {
  return kind === "charDevice" ? "character device" : kind === "blockDevice" ? "block device" : kind;
}

/** What the facts line calls an entry: its kind, or the archive it is. */
function entryLabel(e: Entry): string {
  return e.archive ? archiveLabel(e.archive) : kindLabel(e.kind);
}

/** State of the file being shown. */
interface Shown {
  node: TreeNode;
  token: number;
  nextOffset: number;
  size: number;
  more: boolean;
  mode: "text" | "binary" | "image" | "archive" | "pdf" | "audio" | "video" | "font" | "none";
  text: TextView | null;
  typeLabel: string;
}

export class PreviewPane {
  readonly element: HTMLElement;
  private readonly head: HTMLElement;
  private readonly body: HTMLElement;
  private readonly status: HTMLElement;
  private shown: Shown | null = null;
  /** The tree is a server's folder: Reveal and Open… are not offered. */
  /** What the open folder's place allows (from its listing); null before one is open. */
  private capabilities: Capabilities | null = null;
  private token = 0;
  private imageUrl: string | null = null;
  private readonly wrap: WrapSetting = { wrap: false };
  private findBar: HTMLElement | null = null;
  private sizes: SizesState = emptySizes();
  /** The counted size a folder's view shows (undefined: none), and in which measure. */
  private spaceShown: { rec: SizeRecord | undefined; measure: SizeMeasure } | null = null;
  /** The PDF being shown, whose render jobs stop when the selection moves on. */
  private pdf: PdfView | null = null;
  /** The video being shown: its render jobs, stream and player stop when the selection moves on. */
  private video: VideoView | null = null;
  /** The font or undecoded photo being drawn by the renderer, whose job stops when the selection moves on. */
  private drawn: FontView | PhotoRenderView | null = null;
  /** The audio playing from the app's stream, stopped when the selection moves on. */
  private player: HTMLAudioElement | null = null;
  private playerUrl: string | null = null;

  constructor(
    private readonly backend: PreviewBackend,
    /** The colour worker's page side (its budget can be set by the e2e build's hooks). */
    readonly highlighter: Highlighter,
    /** Selects an entry in the tree (a child picked in "where the space goes"). */
    private readonly pick: (handle: string, folderHandle: string) => void = () => undefined,
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
    this.sizes = s.sizes;
    const t = s.tree;
    this.capabilities = t?.capabilities ?? null;
    const hit = t && t.selected ? findNode(t, t.selected) : null;
    if (!t || !hit) {
      if (this.shown) this.showEmpty();
      this.shown?.text?.dispose();
      this.dropPdf();
      this.shown = null;
      this.token++;
      this.highlighter.cancel();
      return;
    }
    if (this.shown && hit.node === this.shown.node) {
      this.followSizes();
      return;
    }
    const shown = this.shown;
    const holder = archiveHolding(t, hit.node.entry.handle, s.rootArchive);
    if (shown && hit.node.entry.handle === shown.node.entry.handle && hit.node.entry.kind === shown.node.entry.kind) {
      // The same entry re-listed (a change on disk, a page of its folder...).
      const before = shown.node.entry;
      const after = hit.node.entry;
      shown.node = hit.node;
      if (after.archive) {
        // Expanding an archive re-lists its entry: its summary stands until the file changes.
        if (before.size !== after.size || before.modified !== after.modified) this.show(hit.node, holder);
        return;
      }
      if (hit.node.folder || after.kind === "folder") {
        // A folder's summary: its counts may have changed.
        this.showFolder(hit.node);
        return;
      }
      if (before.size === after.size && before.modified === after.modified) return;
      if (shown.mode === "none" || before.error || after.error) {
        this.show(hit.node, holder);
        return;
      }
      // The file changed on disk: read its first chunk again, and say so.
      this.show(hit.node, holder);
      this.status.textContent = "The file changed on disk: its first part was read again.";
      return;
    }
    this.show(hit.node, holder);
  }

  /** Ctrl+F from anywhere while a text preview is shown. */
  openFind(): void {
    if (!this.shown || (this.shown.mode !== "text" && this.shown.mode !== "pdf")) return;
    if (!this.findBar) this.findBar = buildFindBar(this.head, this.body);
    this.findBar.hidden = false;
    this.findBar.querySelector("input")?.focus();
  }

  private show(node: TreeNode, holder: ArchiveRef | null): void {
    const token = ++this.token;
    this.spaceShown = null;
    // Whatever was being coloured belongs to the file left behind.
    this.shown?.text?.dispose();
    this.dropPdf();
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
      text: null,
      typeLabel: entryLabel(e),
    };
    this.status.textContent = "";
    this.status.classList.remove("is-error");
    this.renderHead(node, holder);
    if (e.archive) {
      this.shown.mode = "archive";
      this.body.replaceChildren(el("p", { class: "muted" }, "Reading the archive's index…"));
      void this.loadSummary(token, e.handle);
    } else if (node.folder || e.kind === "folder") {
      this.showFolder(node);
    } else if (e.canExpand) {
      this.body.replaceChildren(el("p", { class: "muted" }, "A link to a folder: expand it in the tree to see what it holds."));
    } else if (!e.canPreview && e.error) {
      // Its error, above, says why (an unsafe name inside an archive, ...).
      this.body.replaceChildren(el("p", { class: "muted" }, "Not previewed."));
    } else if (!e.canPreview) {
      const what = e.kind === "symlink" ? `link (${e.link?.pointsTo ?? "unknown"})` : kindLabel(e.kind);
      this.body.replaceChildren(el("p", { class: "special-note" }, `special file: not previewed (${what})`));
    } else {
      this.body.replaceChildren(el("p", { class: "muted" }, "Loading…"));
      void this.loadChunk(token, 0);
    }
  }

  /** A folder: where its space goes (once counted), then its summary. */
  private showFolder(node: TreeNode): void {
    const rec = this.sizes.records.get(node.entry.handle);
    const measure = this.sizes.measure;
    this.spaceShown = { rec, measure };
    const folderHandle = node.folder?.handle ?? node.entry.handle;
    const space = rec ? [spaceView(rec, measure, (h) => this.pick(h, folderHandle))] : [];
    this.body.replaceChildren(...space, folderSummary(node));
  }

  /** The folder shown got a new figure (counting, done, stale) or another measure: show it. */
  private followSizes(): void {
    const shown = this.shown;
    const was = this.spaceShown;
    if (!shown || !was || shown.mode !== "none" || shown.node.entry.kind !== "folder") return;
    const rec = this.sizes.records.get(shown.node.entry.handle);
    if (rec !== was.rec || this.sizes.measure !== was.measure) this.showFolder(shown.node);
  }

  private renderHead(node: TreeNode, holder: ArchiveRef | null): void {
    const e = node.entry;
    const facts: string[] = [entryLabel(e)];
    if (e.kind === "file" && e.size !== undefined) facts.push(formatSize(e.size));
    if (e.modified !== undefined) facts.push(formatTime(e.modified));
    if (holder) facts.push(`inside ${plainName(holder.name, holder.nameParts)}`);
    const actions = el("div", { class: "preview-actions" });
    // Inside an archive the actions act on the archive file: their words say so.
    const target = holder?.handle ?? e.handle;
    const onArchive = holder ? ` (${plainName(holder.name, holder.nameParts)}): an entry inside an archive has no path of its own` : "";
    const copy = button(holder ? "Copy archive path" : "Copy path", { "data-action": "copy-path", ...(holder ? { title: `Copy the archive's path${onArchive}` } : {}) });
    copy.addEventListener("click", () => void this.act(async () => copiedSentence(await this.backend.copyPath(target))));
    const reveal = button(holder ? "Reveal archive" : "Reveal", { "data-action": "reveal", title: holder ? `Show the archive in the system file manager${onArchive}` : "Show in the system file manager" });
    reveal.addEventListener("click", () =>
      void this.act(async () => {
        await this.backend.reveal(target);
        return holder ? "The archive is shown in the file manager." : "Shown in the file manager.";
      }),
    );
    actions.append(copy, reveal);
    const noReveal = this.capabilities?.reveal ?? null;
    const noOpen = this.capabilities?.openWithDesktop ?? null;
    if (noReveal !== null) {
      // Shown, not offered, with the engine's reason (a server's file has no place on this desktop).
      reveal.disabled = true;
      reveal.title = `Reveal: ${noReveal}`;
    }
    if (noOpen !== null) {
      const open = button("Open…", { "data-action": "open-default", title: `Open…: ${noOpen}` });
      open.disabled = true;
      actions.append(open);
    } else if (holder) {
      const open = button("Open archive…", { "data-action": "open-default", title: `Open the archive with the default application${onArchive}` });
      open.addEventListener("click", () => this.confirmOpenArchive(holder));
      actions.append(open);
    } else if (e.canPreview) {
      const open = button("Open…", { "data-action": "open-default", title: "Open with the default application" });
      open.addEventListener("click", () => this.confirmOpen(node));
      actions.append(open);
    }
    // What an action answers sits right under its buttons, where it is seen
    // without scrolling whatever the preview below holds.
    this.head.replaceChildren(
      el("div", { class: "preview-title" }, renderName(e.name, e.nameParts, "preview-name")),
      el("div", { class: "preview-facts muted" }, facts.join(" · ")),
      actions,
      this.status,
    );
    if (e.error) this.head.append(this.errorBox(e.error));
  }

  /** Runs a file action and shows its sentence, or its error: the sentence first, then the engine's reason, the code last and small. */
  private async act(run: () => Promise<string>): Promise<void> {
    this.status.classList.remove("is-error");
    try {
      this.status.textContent = await run();
    } catch (err) {
      const e = toBackendError(err);
      this.status.classList.add("is-error");
      this.status.replaceChildren(
        el("span", { class: "status-sentence" }, sentenceAlone(e.code)),
        " ",
        el("span", { class: "status-reason" }, `(${e.message})`),
        " ",
        el("code", { class: "error-code" }, e.code),
      );
    }
  }

  private confirmOpen(node: TreeNode): void {
    const e = node.entry;
    const label = this.shown?.node === node ? this.shown.typeLabel : kindLabel(e.kind);
    confirmOpen({
      name: plainName(e.name, e.nameParts),
      what: `${label}${e.size !== undefined ? `, ${formatSize(e.size)}` : ""}`,
      onOpen: () =>
        void this.act(async () => {
          await this.backend.openDefault(e.handle);
          return "Opened with the default application.";
        }),
    });
  }

  /** "Open archive…" from an entry inside it: the archive file is what opens. */
  private confirmOpenArchive(holder: ArchiveRef): void {
    confirmOpen({
      name: plainName(holder.name, holder.nameParts),
      what: "the archive holding this entry",
      onOpen: () =>
        void this.act(async () => {
          await this.backend.openDefault(holder.handle);
          return "Opened the archive with the default application.";
        }),
    });
  }

  /** An archive's summary, once the engine has read its index. */
  private async loadSummary(token: number, handle: string): Promise<void> {
    try {
      const summary = await this.backend.archiveSummary(handle);
      if (token !== this.token) return;
      this.body.replaceChildren(archiveSummary(summary));
    } catch (err) {
      if (token !== this.token) return;
      this.body.replaceChildren(this.errorBox(toBackendError(err).toWire()));
    }
  }

  private errorBox(err: CanopyError): HTMLElement {
    return el("p", { class: "preview-error", role: "alert", "data-code": err.code }, describeError(err.code), el("span", { class: "error-detail" }, ` (${err.message})`));
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
      if (chunk.media === "pdf") {
        shown.mode = "pdf";
        shown.typeLabel = "PDF document";
        this.pdf = new PdfView(this.backend, shown.node.entry.handle, () => this.body.clientWidth);
        this.body.replaceChildren(this.pdf.element);
        void this.pdf.start();
        return;
      }
      if (chunk.media === "video") {
        shown.mode = "video";
        shown.typeLabel = "video";
        this.video = new VideoView(this.backend, shown.node.entry.handle, () => this.body.clientWidth);
        this.body.replaceChildren(this.video.element);
        void this.video.start();
        return;
      }
      if (chunk.media === "font") {
        shown.mode = "font";
        shown.typeLabel = "font";
        const view = new FontView(this.backend, shown.node.entry.handle, () => this.body.clientWidth);
        this.drawn = view;
        this.body.replaceChildren(view.element);
        void view.start();
        return;
      }
      if (chunk.media === "audio") {
        shown.mode = "audio";
        shown.typeLabel = "audio file";
        this.body.replaceChildren(el("p", { class: "muted" }, "Reading the audio file's tags…"));
        await this.showAudioDetails(token);
        return;
      }
      if (chunk.image && chunk.imageMime) {
        shown.mode = "image";
        shown.typeLabel = `${chunk.image.toUpperCase()} image`;
        await this.showImage(token, chunk.image.toUpperCase(), chunk.imageMime);
        if (chunk.media === "photo") await this.showPhotoDetails(token);
        return;
      }
      if (chunk.media === "photo") {
        // A photo format the window cannot decode (TIFF, HEIF, AVIF): drawn
        // by the sandboxed renderer, or "No preview for this format"; its details either way.
        shown.mode = "image";
        shown.typeLabel = "photo";
        const view = new PhotoRenderView(this.backend, shown.node.entry.handle, () => this.body.clientWidth, plainName(shown.node.entry.name, shown.node.entry.nameParts));
        this.drawn = view;
        this.body.replaceChildren(view.element);
        await Promise.all([view.start(), this.showPhotoDetails(token)]);
        return;
      }
      this.body.replaceChildren();
      if (chunk.content.type === "text") {
        shown.mode = "text";
        shown.text = new TextView(this.body, this.highlighter, shown.node.entry.name, this.wrap);
        shown.typeLabel = `${shown.text.language ?? "text"} file (${chunk.content.encoding})`;
        shown.text.start(chunk);
      } else {
        shown.mode = "binary";
        shown.typeLabel = "binary file";
        this.startBinary();
      }
    }
    if (chunk.content.type === "text") {
      if (shown.mode === "binary") this.appendHex(chunk);
      else shown.text?.append(chunk);
    } else {
      if (shown.mode === "text") {
        // A NUL turned the rest binary: continue as hex below the text.
        shown.text?.finish();
        shown.mode = "binary";
        this.startBinary();
      }
      this.appendHex(chunk);
    }
    this.updateMore();
  }

  /** Stops the PDF and video views' render jobs (their children are killed), and any player. */
  private dropPdf(): void {
    this.pdf?.dispose();
    this.pdf = null;
    this.video?.dispose();
    this.video = null;
    this.drawn?.dispose();
    this.drawn = null;
    if (this.player) {
      this.player.pause();
      this.player.removeAttribute("src");
      this.player.load();
      this.player = null;
      void this.backend.closeMediaStream().catch(() => undefined);
    }
    if (this.playerUrl) URL.revokeObjectURL(this.playerUrl);
    this.playerUrl = null;
  }

  /** Shows an audio file's tags, properties and cover art. */
  private async showAudioDetails(token: number): Promise<void> {
    const shown = this.shown;
    if (!shown) return;
    try {
      const details = await this.backend.audioDetails(shown.node.entry.handle);
      if (token !== this.token) return;
      const block = audioDetailsBlock(details);
      // The cover's URL is revoked with the image's when the pane moves on.
      this.imageUrl = block.url;
      this.body.replaceChildren(block.element);
      try {
        const stream = await this.backend.openMediaStream(shown.node.entry.handle);
        if (token !== this.token) return;
        this.player = block.player;
        // Which stream the player is fed from (the e2e suite checks it is refused once closed).
        block.player.dataset.stream = stream.url;
        const blob = await fetchStream(stream.url, () => token === this.token);
        if (!blob || token !== this.token) return;
        this.playerUrl = URL.createObjectURL(blob);
        block.player.src = this.playerUrl;
      } catch (err) {
        if (token !== this.token) return;
        block.player.remove();
        this.body.append(this.errorBox(toBackendError(err).toWire()));
      }
    } catch (err) {
      if (token !== this.token) return;
      this.body.replaceChildren(this.errorBox(toBackendError(err).toWire()));
    }
  }

  /** Appends the photo's EXIF details under its preview. */
  private async showPhotoDetails(token: number): Promise<void> {
    const shown = this.shown;
    if (!shown) return;
    try {
      const details = await this.backend.photoDetails(shown.node.entry.handle);
      if (token !== this.token) return;
      this.body.append(photoDetailsBlock(details));
    } catch (err) {
      if (token !== this.token) return;
      this.body.append(this.errorBox(toBackendError(err).toWire()));
    }
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

  /** Shows an image whose format (`format`, for people) and MIME type the engine named. */
  private async showImage(token: number, format: string, mime: string): Promise<void> {
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
    const url = URL.createObjectURL(new Blob([bytes], { type: mime }));
    this.imageUrl = url;
    // An SVG shown through <img> runs no script.
    const img = el("img", { class: "preview-image", alt: plainName(shown.node.entry.name, shown.node.entry.nameParts) });
    const info = el("p", { class: "muted image-info" }, `${format} · ${formatSize(bytes.byteLength)}`);
    img.addEventListener("load", () => {
      info.textContent = `${format} · ${img.naturalWidth} × ${img.naturalHeight} px · ${formatSize(bytes.byteLength)}`;
    });
    img.addEventListener("error", () => {
      info.textContent = `${format} · ${formatSize(bytes.byteLength)} · could not be decoded`;
    });
    img.src = url;
    this.body.replaceChildren(el("div", { class: "image-frame" }, img), info);
  }
}
