// Servers' folders in the window: the URL the "Connect to server…" dialog
// makes, the recent servers remembered (URLs only: a URL never holds a
// password, the engine refuses one), and the words for where a connection
// stands. The engine decides everything else: a listing says which server
// its folder is on (`server`) and what its place allows (`capabilities`),
// and its handles say which server they are on; no URL is parsed here.

import type { ConnectionPhase } from "./bindings/ConnectionPhase";
import type { ServerState } from "./bindings/ServerState";

/** What the dialog asks for. */
export interface ServerForm {
  host: string;
  user: string;
  port: string;
  path: string;
}

/** Every byte but letters, digits and `-._~/` percent-encoded (as the engine's `url_of`). */
function encodePath(text: string): string {
  let out = "";
  for (const b of new TextEncoder().encode(text)) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-._~/]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/**
 * The `sftp://` URL of what the dialog says, or why it cannot be one. An
 * empty path is the login's home folder; a path not starting with `/` is
 * below it (`/~/path`).
 */
export function serverUrl(form: ServerForm): { url: string } | { error: string } {
  const host = form.host.trim();
  const user = form.user.trim();
  const port = form.port.trim();
  const path = form.path.trim();
  if (host === "") return { error: "Give the server's name or address." };
  if (host.startsWith("-") || !/^[A-Za-z0-9._:-]+$/.test(host))
    return { error: "The server's name holds a character it cannot have (letters, digits, '.', '-', ':' only)." };
  if (user.startsWith("-") || /[\s:@/]/.test(user) || /\p{Cc}/u.test(user))
    return { error: "The user name holds a character it cannot have (no spaces, ':', '@' or '/'; a password is never given here)." };
  if (port !== "" && !(/^\d+$/.test(port) && Number(port) >= 1 && Number(port) <= 65535))
    return { error: "The port is a number from 1 to 65535." };
  if (/\p{Cc}/u.test(path)) return { error: "The path holds a control character." };
  const hostPart = host.includes(":") ? `[${host}]` : host;
  const userPart = user === "" ? "" : `${encodePath(user)}@`;
  const portPart = port === "" ? "" : `:${Number(port)}`;
  const pathPart = path === "" ? "" : path.startsWith("/") ? encodePath(path) : `/~/${encodePath(path)}`;
  return { url: `sftp://${userPart}${hostPart}${portPart}${pathPart}` };
}

/** The recent servers with `url` first (once), at most `max`. */
export function rememberServer(recent: readonly string[], url: string, max: number): string[] {
  return [url, ...recent.filter((u) => u !== url)].slice(0, max);
}

/** How a connection's phase reads, and how it is shown (its tone). */
export function phaseWords(state: ServerState): { text: string; tone: "busy" | "ok" | "lost" | "idle" } {
  const server = state.server;
  const phase: ConnectionPhase = state.phase;
  switch (phase) {
    case "idle":
      return { text: `Not connected to ${server}`, tone: "idle" };
    case "connecting":
      return { text: `Connecting to ${server}…`, tone: "busy" };
    case "connected":
      return {
        text: state.reconnects > 0 ? `Connected to ${server} (reconnected ${state.reconnects}×)` : `Connected to ${server}`,
        tone: "ok",
      };
    case "reconnecting":
      return { text: `Reconnecting to ${server}…`, tone: "busy" };
    case "lost":
      return { text: `Connection to ${server} lost${state.message ? `: ${state.message}` : ""}. The next action reconnects.`, tone: "lost" };
  }
}

/** What a server's folder does not offer, said once in the status bar. */
export const REMOTE_LIMITS = "On a server: Open…, Reveal and live refresh are not available (refresh with F5).";

