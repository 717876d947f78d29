// The toolbar's folder-sizes controls: the "Sizes" button (also
// Ctrl+Shift+S, and "Sizes" on a folder's context menu) counts the open
// folder and every folder shown; while it counts, the button stops it (as
// Esc does) and a spinner says how many entries were counted. The measure
// (disk usage, as du; or apparent size, as du -b) and, under the Size
// order, "Folders by size" (folders sort among files by their counted
// size) are choices of display: the engine sent both figures.

import type { ControllerSnapshot, DirectoryController } from "../directory-controller";
import type { SizeMeasure } from "../sizes-state";
import { button, el } from "./dom";
import { icon } from "./icons";
import { runText } from "./size-words";

export const SIZES_KEY = "Ctrl+Shift+S";

export class SizesControls {
  readonly elements: HTMLElement[];
  private readonly run: HTMLButtonElement;
  private readonly label: HTMLElement;
  private readonly measure: HTMLSelectElement;
  private readonly bySize: HTMLInputElement;
  private readonly bySizeField: HTMLElement;
  private readonly spinner: HTMLElement;
  private readonly counted: HTMLElement;

  constructor(private readonly controller: DirectoryController) {
    this.label = el("span", {}, "Sizes");
    this.run = button(`Count folder sizes (${SIZES_KEY})`, { class: "with-icon", "data-action": "sizes", "aria-pressed": "false" }, icon("sizes"), this.label);
    this.run.addEventListener("click", () => this.toggle());
    this.measure = el("select", { "aria-label": "Size shown", title: "Disk usage (allocated blocks, as du) or apparent size (the files' lengths, as du -b)", "data-action": "size-measure" });
    this.measure.append(el("option", { value: "diskUsage" }, "disk usage"), el("option", { value: "apparent" }, "apparent size"));
    this.measure.addEventListener("change", () => controller.setSizeMeasure(this.measure.value as SizeMeasure));
    this.bySize = el("input", { type: "checkbox", "data-action": "folders-by-size" });
    this.bySize.addEventListener("change", () => controller.setFoldersBySize(this.bySize.checked));
    this.bySizeField = el(
      "label",
      { class: "field", title: "Under the Size order, sort folders among the files by their counted size (folders whose size is not counted stay first)" },
      this.bySize,
      " Folders by size",
    );
    this.spinner = el("span", { class: "spinner", role: "progressbar", "aria-label": "Counting folder sizes", hidden: "" });
    this.counted = el("span", { class: "sizes-progress muted", "aria-hidden": "true", hidden: "" });
    this.elements = [this.run, this.measure, this.bySizeField, this.spinner, this.counted];
  }

  /** Counts, or stops the count running. */
  toggle(): void {
    if (!this.controller.cancelSizes()) void this.controller.computeSizes();
  }

  update(s: ControllerSnapshot): void {
    const running = s.sizes.run !== null;
    this.run.disabled = !s.tree;
    this.run.setAttribute("aria-pressed", running ? "true" : "false");
    this.label.textContent = running ? "Stop" : "Sizes";
    this.run.title = running ? "Stop counting (Esc)" : `Count folder sizes (${SIZES_KEY})`;
    this.run.setAttribute("aria-label", this.run.title);
    this.measure.value = s.sizes.measure;
    this.bySize.checked = s.sizes.foldersBySize;
    this.bySizeField.hidden = s.settings.sort !== "size";
    this.spinner.hidden = !running;
    this.counted.hidden = !running;
    const text = running ? runText(s.sizes.run!.entries) : "";
    if (this.counted.textContent !== text) this.counted.textContent = text;
    if (running) this.spinner.setAttribute("aria-valuetext", text);
    else this.spinner.removeAttribute("aria-valuetext");
  }
}
