// A photo's details under its preview: camera, lens, exposure, when, size,
// orientation, and a line that cannot be missed when the photo carries a
// GPS position (people need to know before they share it). The engine read
// them (EXIF, with a budget); text reaches the DOM as text nodes only.

import type { PhotoDetails } from "../bindings/PhotoDetails";
import { gpsLine, photoFacts } from "../media-words";
import { el } from "./dom";

export function photoDetailsBlock(d: PhotoDetails): HTMLElement {
  const box = el("section", { class: "photo-details", "aria-label": "Photo details" });
  if (d.gps) {
    box.append(el("p", { class: "gps-line", role: "note" }, gpsLine(d.gps)));
  }
  const rows = photoFacts(d);
  if (rows.length > 0) {
    box.append(el("dl", { class: "media-facts" }, ...rows.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])));
  } else if (!d.gps) {
    box.append(el("p", { class: "muted" }, d.hasExif ? "The photo's EXIF says nothing shown here." : "No EXIF details in this photo."));
  }
  return box;
}
