// The toolbar's "Reading… 12 folders, 34,512 names" beside its spinner
// while a folder opens (the controller decides when there is any: see
// open-progress.ts). On screen it follows every report; screen readers hear
// it politely, once when it appears and then at most every
// PROGRESS_ANNOUNCE_MS, and the spinner (a progressbar) carries the latest
// text as its aria-valuetext for whoever asks.

import type { ListProgress } from "../bindings/ListProgress";
import { PROGRESS_ANNOUNCE_MS } from "../limits";
import { el } from "./dom";
import { plural } from "./format";

/** "Reading…", then "Reading… 12 folders, 34,512 names". */
export function progressSentence(p: ListProgress): string {
  if (p.folders === 0) return "Reading…";
  return `Reading… ${plural(p.folders, "folder", "folders")}, ${plural(p.names, "name", "names")}`;
}

/** Whether an announcement made at `lastSaid` (ms; null: none yet) may be followed by another at `now`. */
export function mayAnnounce(lastSaid: number | null, now: number): boolean {
  return lastSaid === null || now - lastSaid >= PROGRESS_ANNOUNCE_MS;
}

export class ProgressNote {
  /** The visible text (hidden from screen readers: `said` speaks for it). */
  readonly element: HTMLElement;
  /** The polite live region, visually hidden. */
  readonly said: HTMLElement;
  private lastSaid: number | null = null;

  /** `bar`: the spinner (role progressbar) the text belongs to. */
  constructor(private readonly bar: HTMLElement) {
    this.element = el("span", { class: "progress-text muted", "aria-hidden": "true", hidden: "" });
    this.said = el("span", { class: "visually-hidden", role: "status", "aria-live": "polite" });
  }

  update(progress: ListProgress | null): void {
    if (!progress) {
      if (this.element.hidden) return;
      this.element.hidden = true;
      this.element.textContent = "";
      this.said.textContent = "";
      this.bar.removeAttribute("aria-valuetext");
      this.lastSaid = null;
      return;
    }
    const text = progressSentence(progress);
    this.element.hidden = false;
    this.element.textContent = text;
    this.bar.setAttribute("aria-valuetext", text);
    const now = performance.now();
    if (text !== this.said.textContent && mayAnnounce(this.lastSaid, now)) {
      this.said.textContent = text;
      this.lastSaid = now;
    }
  }
}
