// How far the folder being opened has got, for the toolbar. The engine
// reports (`ListProgress`) on the one "open" request in flight (opening,
// refresh, back, up, a change of settings; never an expand or a page, which
// show their own row spinners). Promises:
// - nothing shows until the request has run PROGRESS_DELAY_MS, so a fast
//   listing never flickers; from then on its latest counts show (none yet:
//   an empty report);
// - it is gone as soon as that request's reply or failure arrives;
// - a report for another request (an older open, or one arriving after the
//   reply) is dropped.

import type { ListProgress } from "./bindings/ListProgress";
import { PROGRESS_DELAY_MS } from "./limits";

export class OpenProgress {
  private requestId: number | null = null;
  private latest: ListProgress | null = null;
  private due = false;
  private timer: ReturnType<typeof setTimeout> | null = null;

  /** `changed` is called when what `shown` answers changed by itself (the delay passed, a report came). */
  constructor(
    private readonly changed: () => void,
    private readonly delayMs = PROGRESS_DELAY_MS,
  ) {}

  /** What to show: null until the request has run the delay; then its latest counts. */
  get shown(): ListProgress | null {
    if (!this.due || this.requestId === null) return null;
    return this.latest ?? { requestId: this.requestId, folders: 0, names: 0 };
  }

  /**
   * Request `requestId` opens a folder. It supersedes the one before: when
   * that one's progress already showed, this one's shows at once (the
   * window is still busy; hiding it would flicker).
   */
  start(requestId: number): void {
    this.requestId = requestId;
    this.latest = null;
    if (this.due) return;
    this.stopTimer();
    this.timer = setTimeout(() => {
      this.timer = null;
      this.due = true;
      this.changed();
    }, this.delayMs);
  }

  /** A report from the engine. */
  report(progress: ListProgress): void {
    if (progress.requestId !== this.requestId) return;
    this.latest = progress;
    if (this.due) this.changed();
  }

  /**
   * Request `requestId` answered (or failed): its progress goes. The caller
   * shows the new state; nothing is announced from here. A request that was
   * superseded changes nothing.
   */
  finish(requestId: number): void {
    if (requestId !== this.requestId) return;
    this.stopTimer();
    this.requestId = null;
    this.latest = null;
    this.due = false;
  }

  private stopTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
