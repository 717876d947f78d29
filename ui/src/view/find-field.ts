// The toolbar's Find field (Ctrl+F): what is typed is found below the open
// folder, in names and (with "Contents") in files' lines, by the engine's
// search (find-controller.ts); the hits show in the Find results region
// (find-results.ts).
//
// Typing searches after a short pause (each new search stops the one
// before); Enter searches at once, or goes to the results when they are
// for what is typed; ArrowDown goes to the results; Esc stops a running
// search, then clears the field and closes the results, then gives focus
// back to the tree.

import type { FindController } from "../find-controller";
import { FILTER_DEBOUNCE_MS } from "../limits";
import { el } from "./dom";
import { icon } from "./icons";

export class FindField {
  readonly element: HTMLElement;
  private readonly input: HTMLInputElement;
  private readonly contents: HTMLInputElement;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly find: FindController,
    /** Moves focus into the results (false when there are none). */
    private readonly toResults: () => boolean,
    /** Gives focus back to the tree. */
    private readonly done: () => void,
  ) {
    this.input = el("input", { type: "search", class: "find-input", "aria-label": "Find", placeholder: "Find below this folder (Ctrl+F)", title: "Names (text, or a glob like *.rs) and, with Contents, lines of files" });
    this.contents = el("input", { type: "checkbox", "data-action": "find-contents" });
    this.contents.checked = true;
    this.element = el(
      "span",
      { class: "find-field", role: "search" },
      icon("find"),
      this.input,
      el("label", { class: "field", title: "Find the text in files' lines too, not only in names" }, this.contents, " Contents"),
    );
    this.input.addEventListener("input", () => this.later());
    this.contents.addEventListener("change", () => this.now());
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        const s = this.find.snapshot;
        if (!this.timer && s.open && s.text === this.input.value && s.contents === this.contents.checked && this.toResults()) {
          /* the results are for what is typed: go there */
        } else this.now();
      } else if (e.key === "ArrowDown") {
        if (!this.toResults()) return;
      } else if (e.key === "Escape") this.escape();
      else return;
      e.preventDefault();
      // Esc here is the field's: the window's Esc (stopping sizes) must not see it too.
      e.stopPropagation();
    });
  }

  /** Ctrl+F: the field, its text selected. */
  focus(): void {
    this.input.focus();
    this.input.select();
  }

  private later(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.now(), FILTER_DEBOUNCE_MS);
  }

  private now(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const text = this.input.value;
    if (text.trim() === "") this.find.close();
    else void this.find.find(text, this.contents.checked);
  }

  private escape(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.find.stop()) return;
    if (this.input.value !== "" || this.find.snapshot.open) {
      this.input.value = "";
      this.find.close();
      return;
    }
    this.done();
  }
}
