// ssh's password and passphrase prompts (the app's `askSecret` events): a
// small modal dialog naming the server, with ssh's own words and a password
// field. The answer goes back once (`answer_secret`); the field is emptied
// and the dialog removed at once, so the secret stays in the page no longer
// than it takes to send. Cancel or Esc answers `null`. Prompts that arrive
// while one is shown wait their turn; one shown again (the app re-sends the
// open prompts to a reloaded page) is not asked twice; a prompt the app
// withdraws (it waited too long, or its connection ended) is dropped.
//
// The words are ssh's, but a server chooses its keyboard-interactive prompt:
// they are shown as a name is, with the engine's escapes (`promptParts`),
// as text, never markup; the app already cut them.

import type { ShellEvent } from "../bindings/ShellEvent";
import { button, el } from "./dom";
import { renderName } from "./name";

type Ask = Extract<ShellEvent, { type: "askSecret" }>;
type Answer = (id: number, secret: string | null) => Promise<void>;

/** Shows `ask`; `reply` sends the answer and closes it. Returns a close that sends nothing. */
export type ShowPrompt = (ask: Ask, reply: (secret: string | null) => void) => () => void;

export class SecretPrompts {
  private readonly queue: Ask[] = [];
  private shown: { id: number; close: () => void } | null = null;

  constructor(
    private readonly answer: Answer,
    private readonly showPrompt: ShowPrompt = secretDialog,
  ) {}

  /** Handles the app's `askSecret` and `secretWithdrawn`; false for other events. */
  handle(event: ShellEvent): boolean {
    if (event.type === "askSecret") {
      const known = this.shown?.id === event.id || this.queue.some((q) => q.id === event.id);
      if (!known) this.queue.push(event);
      this.next();
      return true;
    }
    if (event.type === "secretWithdrawn") {
      const waiting = this.queue.findIndex((q) => q.id === event.id);
      if (waiting >= 0) this.queue.splice(waiting, 1);
      if (this.shown?.id === event.id) this.shown.close();
      return true;
    }
    return false;
  }

  private next(): void {
    if (this.shown) return;
    const ask = this.queue.shift();
    if (ask) this.show(ask);
  }

  private show(ask: Ask): void {
    let done = false;
    const finish = () => {
      if (done) return false;
      done = true;
      this.shown = null;
      return true;
    };
    const closeDialog = this.showPrompt(ask, (secret) => {
      if (!finish()) return;
      closeDialog();
      // A prompt the app no longer asks refuses the answer: nothing to tell.
      void this.answer(ask.id, secret).catch(() => undefined);
      this.next();
    });
    this.shown = {
      id: ask.id,
      close: () => {
        if (!finish()) return;
        closeDialog();
        this.next();
      },
    };
  }
}

/** The dialog: a password field, Cancel and Log in; Esc cancels. */
function secretDialog(ask: Ask, reply: (secret: string | null) => void): () => void {
  const input = el("input", {
    type: "password",
    name: "secret",
    autocomplete: "off",
    spellcheck: "false",
    "data-field": "secret",
    "aria-label": "Password or passphrase",
  });
  const cancel = button("Cancel", { "data-action": "cancel-secret" });
  const send = button("Log in", { "data-action": "send-secret", class: "primary" });
  send.type = "submit";
  const form = el(
    "form",
    { class: "confirm secret", role: "dialog", "aria-modal": "true", "aria-label": `Log in to ${ask.server}` },
    el("h2", {}, "Log in to ", el("span", { class: "confirm-name", "data-secret-server": "" }, ask.server)),
    el("p", { class: "secret-prompt", "data-secret-prompt": "" }, renderName(ask.prompt, ask.promptParts, "confirm-name")),
    input,
    el("p", { class: "muted" }, "Asked by ssh. Canopy passes it to ssh once and keeps it nowhere."),
    el("div", { class: "confirm-buttons" }, cancel, send),
  );
  const backdrop = el("div", { class: "backdrop", "data-secret-dialog": String(ask.id) }, form);
  const previousFocus = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const close = () => {
    input.value = "";
    if (!backdrop.isConnected) return;
    backdrop.remove();
    previousFocus?.focus();
  };
  const answer = (secret: string | null) => {
    input.value = "";
    reply(secret);
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    answer(input.value);
  });
  cancel.addEventListener("click", () => answer(null));
  backdrop.addEventListener("keydown", (e) => {
    // The dialog keeps its keys: nothing under it acts on them.
    e.stopPropagation();
    if (e.key === "Escape") {
      e.preventDefault();
      answer(null);
    }
  });
  document.body.append(backdrop);
  input.focus();
  return close;
}
