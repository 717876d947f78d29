// Find's controller: owns the `find_below` and `reveal_path` calls.
//
// Promises:
// - one search at a time: a new one (or Stop, Esc, closing, opening
//   another folder) cancels the one before through the engine's cancel
//   registry (`cancel_listing` with its request id), and whatever that one
//   still sends is dropped (find-state.ts);
// - request ids come from the directory-controller's counter, so a search
//   and a listing never share an id in the registry;
// - the search runs below the open folder under the view's dotfile and
//   "Hide ignored" settings, as the tree shows it;
// - activating a hit reveals it in the tree (reveal.ts).

import { toBackendError } from "./backend";
import type { FindProgress } from "./bindings/FindProgress";
import type { FindReport } from "./bindings/FindReport";
import type { FindRequest } from "./bindings/FindRequest";
import type { RevealRequest } from "./bindings/RevealRequest";
import type { Revealed } from "./bindings/Revealed";
import type { DirectoryController } from "./directory-controller";
import { addProgress, closedFind, failFind, finishFind, startFind, stopFind, type FindState } from "./find-state";
import { revealEntry } from "./reveal";

/** Find's calls. */
export interface FindBackend {
  /** Finds names (and contents) below a folder; hears the hits as they are found. Stopped by `cancelListing(requestId)`. */
  findBelow(request: FindRequest, onProgress: (progress: FindProgress) => void): Promise<FindReport>;
  /** Where each folder from the open one down to an entry holds the next step. */
  revealPath(request: RevealRequest): Promise<Revealed>;
  cancelListing(requestId: number): Promise<void>;
}

export class FindController {
  private state: FindState = closedFind;
  private readonly listeners = new Set<(s: FindState) => void>();
  /** The open folder the shown results were found below. */
  private root: string | null = null;

  constructor(
    private readonly backend: FindBackend,
    private readonly directory: DirectoryController,
  ) {}

  get snapshot(): FindState {
    return this.state;
  }

  subscribe(fn: (s: FindState) => void): () => void {
    this.listeners.add(fn);
    fn(this.state);
    return () => this.listeners.delete(fn);
  }

  private set(next: FindState): void {
    if (next === this.state) return;
    this.state = next;
    for (const fn of this.listeners) fn(next);
  }

  /** Finds `text` below the open folder (names; with `contents`, lines of files too). Resolves when it answered. */
  async find(text: string, contents: boolean): Promise<void> {
    const t = this.directory.state;
    this.cancelRunning();
    if (!t || text.trim() === "") {
      this.set(closedFind);
      return;
    }
    const requestId = this.directory.newRequestId();
    const settings = this.directory.settings;
    this.root = t.root.handle;
    this.set(startFind(text, contents, requestId));
    try {
      const report = await this.backend.findBelow(
        { requestId, root: { handle: t.root.handle }, text, contents, showDotfiles: settings.showDotfiles, hideIgnored: settings.hideIgnored },
        (p) => this.set(addProgress(this.state, p)),
      );
      this.set(finishFind(this.state, requestId, report));
    } catch (err) {
      const e = toBackendError(err);
      // A cancelled search was stopped on purpose: stopFind already said so.
      if (e.code !== "CANCELLED") this.set(failFind(this.state, requestId, e.toWire()));
    }
  }

  private cancelRunning(): void {
    const id = this.state.running;
    if (id !== null) void this.backend.cancelListing(id).catch(() => undefined);
  }

  /** Stops the running search (Esc, Stop); what it found stays. True when one was running. */
  stop(): boolean {
    if (this.state.running === null) return false;
    this.cancelRunning();
    this.set(stopFind(this.state));
    return true;
  }

  /** Stops and hides the results. */
  close(): void {
    this.cancelRunning();
    this.set(closedFind);
    this.root = null;
  }

  /** The open folder changed: results found below another folder go. */
  followRoot(rootHandle: string | null): void {
    if (this.state.open && this.root !== null && rootHandle !== this.root) this.close();
  }

  /** Reveals hit `handle` in the tree: its folders expanded and loaded, it selected. */
  async reveal(handle: string): Promise<void> {
    const why = await revealEntry(this.backend, this.directory, handle);
    if (why) this.directory.say(why);
  }
}
