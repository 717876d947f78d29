// Human words for the engine's error codes. The engine supplies codes and
// technical messages; the UI supplies the sentence a person reads.

import type { ErrorCode } from "./bindings/ErrorCode";

const SENTENCES: Record<ErrorCode, string> = {
  NOT_FOUND: "it no longer exists (it may have been moved or deleted)",
  DENIED: "you do not have permission to read this",
  NOT_A_DIRECTORY: "this is not a folder",
  NOT_A_FILE: "this is not a regular file, so it is not opened",
  LOOP: "a symbolic link here points back into itself",
  NAME_TOO_LONG: "the name or path is longer than the system allows",
  TIMEOUT: "the folder took too long to read; what was read so far is shown",
  INVALID_ARGUMENT: "the request was not valid",
  CANCELLED: "the request was replaced by a newer one",
  TOO_LARGE: "the file is too large to show here",
  NOT_OPENABLE: "Canopy opens only documents it has checked, by name, by content and by the application that would open them; use Reveal to open this one yourself",
  IO: "the system reported an input/output error",
  BUDGET: "not read: this listing already holds as much as one request may; expand this folder to read it",
  UNSAFE_NAME: "this name inside the archive would reach outside it (or is not a plain path), so it is listed as written and never opened",
  CORRUPT: "the archive is damaged (cut short, or its records contradict each other); what could be read is shown",
  ENCRYPTED: "this entry is encrypted: its name is listed, its content cannot be shown",
  RATIO: "decompressing stopped: this expands to far more than its compressed size (a possible zip bomb)",
  UNSUPPORTED: "Canopy does not do this here (an archive's compression or feature it does not read, or an action only a local file allows)",
  TOO_DEEP: "this archive lies inside too many archives to open here",
  DUPLICATE: "another entry of the archive has this same path; both are listed",
  HOST_KEY_UNKNOWN: "this server's identity (its host key) is not known yet, so Canopy did not connect; check the fingerprint and add it with the ssh command shown",
  HOST_KEY_CHANGED: "this server's identity (its host key) is not the one known for it, so Canopy did not connect: someone may be intercepting the connection, or the server was reinstalled",
  AUTH_FAILED: "the server did not accept the login (key, agent or password)",
  TOOL_MISSING: "a program this preview needs is not installed",
  RENDER_FAILED: "the sandboxed renderer could not show this file; the window is unaffected",
};

/**
 * Codes with which an archive's index stops for good: reading the folder
 * again stops at the same place, so a cut folder with one offers no "Show
 * next".
 */
export const ARCHIVE_STOPS: ReadonlySet<ErrorCode> = new Set<ErrorCode>(["CORRUPT", "ENCRYPTED", "RATIO", "UNSUPPORTED", "TOO_DEEP"]);

export function sentenceFor(code: ErrorCode): string {
  return SENTENCES[code] ?? "something went wrong";
}

/** The sentence as a sentence: "You do not have permission to read this." */
export function sentenceAlone(code: ErrorCode): string {
  const s = sentenceFor(code);
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}.`;
}

/** "DENIED — you do not have permission to read this" */
export function describeError(code: ErrorCode): string {
  return `${code} — ${sentenceFor(code)}`;
}
