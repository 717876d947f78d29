// "Connect to server…": a small dialog (`role="dialog"`) asking for the
// server, the user, the port and the folder, with the servers connected to
// lately as one-press buttons. It makes an `sftp://` URL (servers.ts) and
// opens it; the window then says how the connection went (the path bar's
// error, the connection state). No password is asked or kept here: the
// system's ssh logs in with the user's keys or agent, and asks for a
// password or passphrase it needs through the window's own dialog
// (secret-dialog.ts).

import type { DirectoryController } from "../directory-controller";
import { serverUrl } from "../servers";
import { button, el } from "./dom";

export function connectDialog(controller: DirectoryController, onDone: () => void): void {
  const field = (label: string, name: string, attrs: Record<string, string> = {}) => {
    const input = el("input", { type: "text", name, spellcheck: "false", autocomplete: "off", "data-field": name, ...attrs });
    return { input, row: el("label", { class: "connect-field" }, el("span", {}, label), input) };
  };
  const host = field("Server", "host", { placeholder: "files.example.org" });
  const user = field("User", "user", { placeholder: "(from your ssh config)" });
  const port = field("Port", "port", { placeholder: "22", inputmode: "numeric" });
  const path = field("Folder", "path", { placeholder: "/srv/data (empty: your home folder)" });
  const problem = el("p", { class: "connect-problem", role: "alert", hidden: "" });
  const cancel = button("Cancel", { "data-action": "cancel" });
  const connect = button("Connect", { "data-action": "connect", class: "primary" });
  const recent = el("div", { class: "connect-recent" });
  for (const url of controller.recentServers) {
    const b = button(url, { class: "recent-server", "data-action": "recent-server", title: `Open ${url}` });
    b.addEventListener("click", () => void go(url));
    recent.append(b);
  }
  const form = el(
    "form",
    { class: "confirm connect", role: "dialog", "aria-modal": "true", "aria-label": "Connect to server" },
    el("h2", {}, "Connect to server"),
    el("p", { class: "muted" }, "Over SFTP, through your ssh setup (keys, agent, ~/.ssh/config); a password or passphrase ssh needs is asked for. Nothing is written to the server."),
    host.row,
    user.row,
    port.row,
    path.row,
    problem,
    ...(controller.recentServers.length ? [el("h3", {}, "Recent servers"), recent] : []),
    el("div", { class: "confirm-buttons" }, cancel, connect),
  );
  const backdrop = el("div", { class: "backdrop" }, form);
  const close = () => {
    backdrop.remove();
    onDone();
  };
  const go = async (url: string) => {
    connect.disabled = true;
    problem.hidden = true;
    const opened = await controller.open({ text: url });
    connect.disabled = false;
    // Whatever happened, the window says it (the path bar's error, the state).
    if (opened || controller.snapshot().openError) close();
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const made = serverUrl({ host: host.input.value, user: user.input.value, port: port.input.value, path: path.input.value });
    if ("error" in made) {
      problem.textContent = made.error;
      problem.hidden = false;
      return;
    }
    void go(made.url);
  });
  connect.type = "submit";
  cancel.addEventListener("click", close);
  backdrop.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") close();
  });
  document.body.append(backdrop);
  host.input.focus();
}
