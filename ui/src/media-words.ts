// What the PDF, photo, video and font views say, and the pages they keep: pure, tested
// in Node (media-words.test.ts). The engine decided what a file is and what
// its details are; this only puts them in words.

import type { GpsPosition } from "./bindings/GpsPosition";
import type { PdfDocument } from "./bindings/PdfDocument";
import type { PhotoDetails } from "./bindings/PhotoDetails";
import type { AudioDetails } from "./bindings/AudioDetails";
import type { VideoDetails } from "./bindings/VideoDetails";
import type { FontPreview } from "./bindings/FontPreview";
import type { CanopyError } from "./bindings/CanopyError";

/** Rendered pages kept at most (the one shown among them). */
export const PDF_PAGES_KEPT = 3;

/** "page 3 of 212". */
export function pageLabel(page: number, pages: number): string {
  return `page ${page.toLocaleString("en-US")} of ${pages.toLocaleString("en-US")}`;
}

/** The page a page field's text asks for, clamped to the document; null when it names none. */
export function pageFromField(text: string, pages: number): number | null {
  const t = text.trim();
  if (!/^\d+$/.test(t)) return null;
  const n = Number(t);
  if (!Number.isSafeInteger(n) || n < 1) return null;
  return Math.min(n, pages);
}

/** Keeps the last few rendered pages, the least recently used dropped first. */
export class PageCache<T> {
  private readonly pages = new Map<number, T>();
  constructor(private readonly kept: number = PDF_PAGES_KEPT) {}
  get(page: number): T | undefined {
    const hit = this.pages.get(page);
    if (hit !== undefined) {
      this.pages.delete(page);
      this.pages.set(page, hit);
    }
    return hit;
  }
  put(page: number, value: T): void {
    this.pages.delete(page);
    this.pages.set(page, value);
    while (this.pages.size > this.kept) {
      const oldest = this.pages.keys().next().value as number;
      this.pages.delete(oldest);
    }
  }
  get size(): number {
    return this.pages.size;
  }
  has(page: number): boolean {
    return this.pages.has(page);
  }
}

/** A PDF's facts as label/value rows, the ones it does not say left out. */
export function pdfFacts(doc: PdfDocument): [string, string][] {
  const rows: [string, string][] = [];
  if (doc.title) rows.push(["Title", doc.title]);
  if (doc.author) rows.push(["Author", doc.author]);
  rows.push(["Pages", doc.pages.toLocaleString("en-US")]);
  if (doc.version) rows.push(["PDF version", doc.version]);
  if (doc.encrypted) rows.push(["Encrypted", "yes"]);
  return rows;
}

/** What the renderer's sandbox could not do here, in a sentence; null when nothing is amiss. */
export function sandboxNote(networkIsolated: boolean): string | null {
  return networkIsolated
    ? null
    : "The renderer ran without a network namespace of its own: this system allows no unprivileged ones, so it was not cut off from the network (its other limits hold).";
}

function degrees(value: number, positive: string, negative: string): string {
  return `${Math.abs(value).toFixed(6)}° ${value < 0 ? negative : positive}`;
}

/** "This photo carries a GPS location: 33.859833° S, 151.208333° E". */
export function gpsLine(gps: GpsPosition): string {
  const at = `${degrees(gps.latitude, "N", "S")}, ${degrees(gps.longitude, "E", "W")}`;
  const height = gps.altitude != null ? `, ${Math.round(gps.altitude)} m` : "";
  return `This photo carries a GPS location: ${at}${height}`;
}

/** A photo's details as label/value rows, the ones it does not say left out. */
export function photoFacts(d: PhotoDetails): [string, string][] {
  const rows: [string, string][] = [];
  if (d.camera) rows.push(["Camera", d.camera]);
  if (d.lens) rows.push(["Lens", d.lens]);
  if (d.exposure) rows.push(["Exposure", d.exposure]);
  if (d.takenAt) rows.push(["Taken", d.takenAt]);
  if (d.width != null && d.height != null) rows.push(["Dimensions", `${d.width} × ${d.height} px`]);
  if (d.orientationLabel) rows.push(["Orientation", `${d.orientationLabel}${d.orientation && d.orientation !== 1 ? " (applied to the preview)" : ""}`]);
  return rows;
}

/** "3:07", "1:02:03". */
export function durationText(ms: number): string {
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** An audio file's tags and properties as label/value rows, the ones it does not say left out. */
export function audioFacts(d: AudioDetails): [string, string][] {
  const rows: [string, string][] = [];
  if (d.title) rows.push(["Title", d.title]);
  if (d.artist) rows.push(["Artist", d.artist]);
  if (d.album) rows.push(["Album", d.album]);
  if (d.track != null) rows.push(["Track", d.trackTotal != null ? `${d.track} of ${d.trackTotal}` : String(d.track)]);
  if (d.durationMs != null) rows.push(["Duration", durationText(d.durationMs)]);
  const format = [d.codec];
  if (d.bitRateKbps != null) format.push(`${d.bitRateKbps} kbit/s`);
  if (d.sampleRate != null) format.push(`${(d.sampleRate / 1000).toLocaleString("en-US")} kHz`);
  if (d.channels != null) format.push(d.channels === 1 ? "mono" : d.channels === 2 ? "stereo" : `${d.channels} channels`);
  rows.push(["Format", format.join(" · ")]);
  return rows;
}

/** A video's facts as label/value rows, the ones it does not say left out. */
export function videoFacts(d: VideoDetails): [string, string][] {
  const rows: [string, string][] = [];
  if (d.durationMs != null) rows.push(["Duration", durationText(d.durationMs)]);
  if (d.width != null && d.height != null) rows.push(["Resolution", `${d.width} × ${d.height} px`]);
  const video = [d.videoCodec ?? "no video stream"];
  if (d.frameRate) video.push(d.frameRate);
  rows.push(["Video", video.join(" · ")]);
  rows.push(["Audio", d.audioCodec ?? "no sound"]);
  const container = [d.container];
  if (d.bitRateKbps != null) container.push(`${d.bitRateKbps.toLocaleString("en-US")} kbit/s`);
  rows.push(["Container", container.join(" · ")]);
  return rows;
}

/**
 * Whether the window's player can play a video, from its answer to
 * `canPlayType(playMime)`: "" is a no; "maybe" and "probably" are tried
 * (the element's error event says no later).
 */
export function playerCanTry(canPlay: string): boolean {
  return canPlay === "probably" || canPlay === "maybe";
}

/** The line shown when the window's player lacks the video's codec. */
export function codecMissingLine(d: VideoDetails): string {
  const codecs = [d.videoCodec, d.audioCodec?.split(" · ")[0]].filter((c): c is string => !!c);
  const named = codecs.length > 0 ? ` (${codecs.join(" with ")})` : "";
  return `This video's codec is not available${named}: the window's media player (GStreamer) cannot play it. The poster frame and details are shown; “Open…” plays it in another application.`;
}

/** "Loading the video to play it… 3 of 12 MiB". */
export function loadingLine(loaded: number, total: number): string {
  const mib = (n: number) => (n / (1024 * 1024)).toLocaleString("en-US", { maximumFractionDigits: n < 10 * 1024 * 1024 ? 1 : 0 });
  return total > 0 && Number.isFinite(total) ? `Loading the video to play it… ${mib(loaded)} of ${mib(total)} MiB` : "Loading the video to play it…";
}

/** The names the OpenType scale gives its weights. */
const WEIGHT_NAMES: [number, string][] = [
  [100, "Thin"],
  [200, "Extra Light"],
  [300, "Light"],
  [350, "Semi Light"],
  [380, "Book"],
  [400, "Regular"],
  [500, "Medium"],
  [600, "Semi Bold"],
  [700, "Bold"],
  [800, "Extra Bold"],
  [900, "Black"],
  [1000, "Extra Black"],
];

/** "700 (Bold)"; a weight between two names is its number alone. */
export function weightText(weight: number): string {
  const name = WEIGHT_NAMES.find(([w]) => w === weight)?.[1];
  return name ? `${weight} (${name})` : String(weight);
}

/** A font's facts as label/value rows, the ones it does not say left out. */
export function fontFacts(f: FontPreview): [string, string][] {
  const rows: [string, string][] = [["Family", f.family || "(no name)"]];
  if (f.style) rows.push(["Style", f.style]);
  if (f.fullName && f.fullName !== `${f.family} ${f.style ?? ""}`.trim()) rows.push(["Full name", f.fullName]);
  if (f.weight != null) {
    rows.push(["Weight", f.weightTo != null ? `${weightText(f.weight)} to ${weightText(f.weightTo)} (variable)` : weightText(f.weight)]);
  }
  if (f.slant) rows.push(["Slant", f.slant]);
  if (f.monospaced) rows.push(["Spacing", "monospaced"]);
  if (f.variable) rows.push(["Variable", f.namedInstances > 0 ? `yes, ${f.namedInstances.toLocaleString("en-US")} named instances` : "yes"]);
  if (f.characters != null) rows.push(["Characters", f.characters.toLocaleString("en-US")]);
  const format = [f.container];
  if (f.faces > 1) format.push(`${f.faces.toLocaleString("en-US")} faces (the first is shown)`);
  rows.push(["Format", format.join(" · ")]);
  if (f.version) rows.push(["Version", f.version]);
  return rows;
}

/** Why a font has no sample, in a sentence (the facts are shown above it). */
export function sampleMissingLine(err: CanopyError): string {
  switch (err.code) {
    case "TOOL_MISSING":
      return "No sample: the tool that draws it is not installed.";
    case "TIMEOUT":
      return "No sample: drawing it took too long; the renderer was stopped and the window is unaffected.";
    case "RENDER_FAILED":
      return "No sample: the renderer failed on this font (it may be damaged or hostile); it was stopped and the window is unaffected.";
    default:
      return "No sample could be drawn for this font.";
  }
}

/** The line shown instead of a photo the renderer could not draw (its details follow). */
export function noPhotoPreviewLine(format: string | null, err: CanopyError): string {
  const what = format ? `this ${format} photo` : "this format";
  if (err.code === "TOOL_MISSING") return `No preview for ${what}: the renderer's decoder is not installed.`;
  if (err.code === "TIMEOUT") return `No preview for ${what}: drawing it took too long; the renderer was stopped.`;
  return `No preview for ${what}: no decoder here could draw it.`;
}
