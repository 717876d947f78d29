// Back, Forward, Up, Open folder…, Connect to server… (connect-dialog.ts), depth (1–5), dotfiles, Hide ignored, Refresh,
// and while a folder opens, a spinner with how far it got (progress-note.ts);
// then the folder-sizes controls (sizes-controls.ts).

import type { Backend } from "../backend";
import { toBackendError } from "../backend";
import type { ControllerSnapshot, DirectoryController } from "../directory-controller";
import { MAX_UI_DEPTH } from "../limits";
import { connectDialog } from "./connect-dialog";
import { button, el } from "./dom";
import { icon } from "./icons";
import { ProgressNote } from "./progress-note";
import { SizesControls } from "./sizes-controls";

export class Toolbar {
  readonly element: HTMLElement;
  private readonly back: HTMLButtonElement;
  private readonly forward: HTMLButtonElement;
  private readonly up: HTMLButtonElement;
  private readonly depth: HTMLSelectElement;
  private readonly dotfiles: HTMLInputElement;
  private readonly hideIgnored: HTMLInputElement;
  private readonly progress: HTMLElement;
  private readonly progressNote: ProgressNote;
  readonly sizes: SizesControls;

  constructor(
    private readonly controller: DirectoryController,
    private readonly backend: Backend,
  ) {
    this.back = button("Back (Alt+Left)", { class: "icon-only" }, icon("back"));
    this.forward = button("Forward (Alt+Right)", { class: "icon-only" }, icon("forward"));
    this.up = button("Up (Alt+Up)", { class: "icon-only" }, icon("up"));
    const refresh = button("Refresh (F5)", { class: "icon-only" }, icon("refresh"));
    const openFolder = button("Open folder…", { class: "with-icon" }, icon("open"), "Open folder…");
    const connect = button("Connect to server…", { "data-action": "connect-server", title: "Open a server's folder over SFTP (ssh)" });
    this.depth = el("select", { "aria-label": "Depth", title: "Levels listed at once" });
    for (let d = 1; d <= MAX_UI_DEPTH; d++) this.depth.append(el("option", { value: String(d) }, String(d)));
    this.dotfiles = el("input", { type: "checkbox" });
    this.hideIgnored = el("input", { type: "checkbox", "data-action": "hide-ignored" });
    this.progress = el("span", { class: "spinner", role: "progressbar", "aria-label": "Opening folder", hidden: "" });
    this.progressNote = new ProgressNote(this.progress);
    this.sizes = new SizesControls(controller);

    this.back.addEventListener("click", () => void controller.goBack());
    this.forward.addEventListener("click", () => void controller.goForward());
    this.up.addEventListener("click", () => void controller.goUp());
    refresh.addEventListener("click", () => void controller.refresh());
    openFolder.addEventListener("click", () => void this.pickFolder());
    connect.addEventListener("click", () => connectDialog(controller, () => connect.focus()));
    this.depth.addEventListener("change", () => void controller.setDepth(Number(this.depth.value)));
    this.dotfiles.addEventListener("change", () => void controller.setShowDotfiles(this.dotfiles.checked));
    this.hideIgnored.addEventListener("change", () => void controller.setHideIgnored(this.hideIgnored.checked));

    this.element = el(
      "div",
      { class: "toolbar", role: "toolbar", "aria-label": "Navigation" },
      this.back,
      this.forward,
      this.up,
      refresh,
      openFolder,
      connect,
      el("label", { class: "field" }, "Depth ", this.depth),
      el("label", { class: "field" }, this.dotfiles, " Dotfiles"),
      el("label", { class: "field", title: "Leave out what git would ignore (.gitignore, .git/info/exclude, ~/.config/git/ignore)" }, this.hideIgnored, " Hide ignored"),
      el("span", { class: "toolbar-gap" }),
      ...this.sizes.elements,
      this.progress,
      this.progressNote.element,
      this.progressNote.said,
    );
  }

  /** The native folder picker (shown by the app, so the page needs no plugin permission). */
  async pickFolder(): Promise<void> {
    try {
      const handle = await this.backend.pickFolder();
      if (handle) await this.controller.open({ handle });
    } catch (err) {
      const e = toBackendError(err);
      console.warn(`folder picker: ${e.code}: ${e.message}`);
    }
  }

  update(s: ControllerSnapshot): void {
    this.back.disabled = !s.canBack;
    this.forward.disabled = !s.canForward;
    this.up.disabled = !s.tree || s.tree.crumbs.length < 2;
    this.depth.value = String(s.settings.depth);
    this.dotfiles.checked = s.settings.showDotfiles;
    this.hideIgnored.checked = s.settings.hideIgnored;
    this.progress.hidden = !s.opening;
    this.progressNote.update(s.progress);
    this.sizes.update(s);
  }
}
