// The "Open with the default application?" dialog (`role="alertdialog"`):
// names the file as text and says what kind it is; Cancel has the focus,
// Escape cancels.

import { button, el } from "./dom";

export interface OpenQuestion {
  /** The file's name as plain text. */
  name: string;
  /** What it is ("PNG image", "text file (utf-8)"...) and its size, when known. */
  what: string;
  onOpen: () => void;
}

export function confirmOpen(q: OpenQuestion): void {
  const cancel = button("Cancel", { "data-action": "cancel" });
  const ok = button("Open", { "data-action": "confirm-open", class: "primary" });
  const question = el("p", {}, "Open ", el("strong", { class: "confirm-name" }, q.name), ` (${q.what}) with the default application?`);
  const box = el("div", { class: "confirm", role: "alertdialog", "aria-modal": "true", "aria-label": "Open with the default application" }, question, el("div", { class: "confirm-buttons" }, cancel, ok));
  const backdrop = el("div", { class: "backdrop" }, box);
  const closeBox = () => backdrop.remove();
  cancel.addEventListener("click", closeBox);
  ok.addEventListener("click", () => {
    closeBox();
    q.onOpen();
  });
  backdrop.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") closeBox();
  });
  document.body.append(backdrop);
  cancel.focus();
}
