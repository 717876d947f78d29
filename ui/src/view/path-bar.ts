// The path bar: breadcrumbs for the open folder, editable as text. A path that
// cannot be opened shows its code and a sentence; the tree stays as it was.
// A server's folder shows `host:` before its path, and where the connection
// stands (connecting, connected, reconnecting, lost) beside it; its text is
// the folder's `sftp://` URL.

import type { ControllerSnapshot, DirectoryController } from "../directory-controller";
import { describeError } from "../errors";
import { button, el } from "./dom";
import { icon } from "./icons";
import { plainName, renderName } from "./name";
import type { ServerState } from "../bindings/ServerState";
import { phaseWords } from "../servers";

export class PathBar {
  readonly element: HTMLElement;
  private readonly crumbs: HTMLElement;
  private readonly input: HTMLInputElement;
  private readonly error: HTMLElement;
  private readonly connection: HTMLElement;
  private editing = false;
  private path = "";
  /** What is being opened (or failed to), shown while no folder is open. */
  private shownTarget: string | null = null;

  constructor(private readonly controller: DirectoryController) {
    this.crumbs = el("ol", { class: "crumbs" });
    this.input = el("input", {
      class: "path-input",
      type: "text",
      "aria-label": "Folder path",
      spellcheck: "false",
      autocomplete: "off",
      hidden: "",
    });
    const edit = button("Edit path (Ctrl+L)", { class: "icon-only" }, icon("edit"));
    edit.addEventListener("click", () => this.startEditing());
    this.error = el("div", { class: "open-error", role: "alert", hidden: "" });
    this.connection = el("span", { class: "connection", role: "status", "data-phase": "", hidden: "" });
    this.element = el(
      "div",
      { class: "path-bar" },
      el("nav", { "aria-label": "Path", class: "crumb-nav" }, this.crumbs, this.input),
      this.connection,
      edit,
      this.error,
    );
    this.crumbs.addEventListener("click", (e) => {
      const b = (e.target as Element).closest?.("button[data-handle]");
      if (b) void this.controller.open({ handle: b.getAttribute("data-handle") ?? "" });
      else if (e.target === this.crumbs || (e.target as Element).closest?.("[data-open-target]")) this.startEditing();
    });
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        const text = this.input.value;
        void this.controller.open({ text }).then((ok) => {
          if (ok) this.stopEditing();
        });
      } else if (e.key === "Escape") {
        e.preventDefault();
        this.stopEditing();
      }
    });
    this.input.addEventListener("blur", () => {
      // Keep the field while an error about it is shown.
      if (this.error.hidden) this.stopEditing();
    });
  }

  startEditing(): void {
    this.editing = true;
    this.input.hidden = false;
    this.crumbs.hidden = true;
    this.input.value = this.shownTarget ?? this.path;
    this.input.focus();
    this.input.select();
  }

  private stopEditing(): void {
    this.editing = false;
    this.input.hidden = true;
    this.crumbs.hidden = false;
  }

  update(s: ControllerSnapshot): void {
    if (s.openError) {
      this.error.hidden = false;
      this.error.replaceChildren(
        icon("warning"),
        el("strong", { class: "error-code" }, s.openError.code),
        ` — ${describeError(s.openError.code).slice(s.openError.code.length + 3)}`,
        el("span", { class: "error-detail" }, ` (${s.openError.message})`),
      );
    } else {
      this.error.hidden = true;
      this.error.replaceChildren();
    }
    const t = s.tree;
    if (!t) {
      // Nothing open yet (the first folder is being opened, or failed to):
      // what was asked for, to read or to edit and try again.
      if (s.openTarget !== this.shownTarget) {
        this.shownTarget = s.openTarget;
        const shown = s.openTarget === null ? [] : [el("li", {}, button(`Edit ${s.openTarget}`, { class: "crumb crumb-pending", "data-open-target": "" }, s.openTarget))];
        this.crumbs.replaceChildren(...shown);
      }
      return;
    }
    if (t.path === this.path && this.shownTarget === null) return;
    this.shownTarget = null;
    this.path = t.path;
    const server = t.server;
    this.crumbs.classList.toggle("remote", server !== null);
    if (!server) this.showConnection(null);
    const items = t.crumbs.map((c, i) => {
      const last = i === t.crumbs.length - 1;
      // A server's folder: its first step is the server, `host:`.
      const host = server !== null && i === 0;
      // Escape markers as in the tree: a folder's name never shows raw
      // separators, bidi or invisible characters here either.
      const b = host
        ? button(`${c.name}: the server's top folder`, { "data-handle": c.handle, class: "crumb crumb-server" }, `${c.name}:`)
        : button(plainName(c.name, c.nameParts), { "data-handle": c.handle, class: "crumb" }, renderName(c.name, c.nameParts, "crumb-name"));
      if (last) b.setAttribute("aria-current", "location");
      return el("li", {}, b);
    });
    this.crumbs.replaceChildren(...items);
    if (!this.editing) this.stopEditing();
  }

  /** Where the connection to the open folder's server stands; null: a local folder. */
  showConnection(state: ServerState | null): void {
    if (!state) {
      this.connection.hidden = true;
      this.connection.textContent = "";
      this.connection.dataset.phase = "";
      return;
    }
    const words = phaseWords(state);
    this.connection.hidden = false;
    this.connection.dataset.phase = state.phase;
    this.connection.dataset.tone = words.tone;
    this.connection.title = words.text;
    this.connection.textContent = state.phase === "connected" ? "connected" : state.phase === "lost" ? "connection lost" : `${state.phase}…`;
  }
}
