// An audio file's tags and properties, and its cover art, in the preview
// pane. The engine read them (with a budget) and named the cover's image
// type by its bytes; text reaches the DOM as text nodes only.

import type { AudioDetails } from "../bindings/AudioDetails";
import { audioFacts } from "../media-words";
import { decodeBase64 } from "./hex";
import { el } from "./dom";

/** The details block, and the cover's blob: URL to revoke when the pane moves on. */
export function audioDetailsBlock(d: AudioDetails): { element: HTMLElement; url: string | null; player: HTMLAudioElement } {
  const box = el("section", { class: "audio-details", "aria-label": "Audio details" });
  // Fed by the app's canopy-media: stream of this file once it is open.
  const player = el("audio", { class: "audio-player", controls: "", preload: "metadata", "aria-label": "Play" });
  let url: string | null = null;
  if (d.cover) {
    const bytes = decodeBase64(d.cover.base64);
    url = URL.createObjectURL(new Blob([bytes as BlobPart], { type: d.cover.mime }));
    const img = el("img", { class: "audio-cover", alt: "Cover art" });
    img.src = url;
    box.append(img);
  }
  const rows = audioFacts(d).flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]);
  box.append(el("div", { class: "audio-side" }, el("dl", { class: "media-facts" }, ...rows), player));
  if (d.coverTooLarge) box.append(el("p", { class: "muted" }, "The embedded cover art is too large to show."));
  return { element: box, url, player };
}
