// Dragging rows out of the window, and Ctrl+C on the selected row: other
// applications are offered the entries as the engine says (`text/uri-list`;
// the clipboard also as `x-special/gnome-copied-files`), never a URI the
// page made itself. A drag hands its data over synchronously, so the
// row's offer is asked when the pointer goes down on it: by the time the
// pointer has moved far enough to start a drag, the answer is there (a
// drag that starts before it, or of an entry that has no file to hand
// over, is not started).

import type { TransferBackend } from "../backend";
import { toBackendError } from "../backend";
import type { TransferOffer } from "../bindings/TransferOffer";

/** Offers kept, newest last (a row pressed again is asked again after this many others). */
const OFFERS_KEPT = 64;

export class DragOut {
  private readonly offers = new Map<string, TransferOffer | null>();

  constructor(
    tree: HTMLElement,
    private readonly backend: TransferBackend,
    private readonly say: (message: string) => void,
  ) {
    tree.addEventListener("pointerdown", (e) => {
      const handle = rowHandle(e.target);
      if (handle && e.button === 0) void this.prepare(handle);
    });
    tree.addEventListener("dragstart", (e) => this.start(e));
  }

  /** Asks the engine what dragging the entry offers (once; kept for the next drag). */
  async prepare(handle: string): Promise<void> {
    if (this.offers.has(handle)) return;
    let offer: TransferOffer | null;
    try {
      offer = await this.backend.transferOffer([handle]);
    } catch {
      offer = null;
    }
    this.offers.set(handle, offer);
    if (this.offers.size > OFFERS_KEPT) this.offers.delete(this.offers.keys().next().value!);
  }

  private start(e: DragEvent): void {
    const handle = rowHandle(e.target);
    const offer = handle ? this.offers.get(handle) : undefined;
    if (!offer || !e.dataTransfer) {
      e.preventDefault();
      return;
    }
    e.dataTransfer.effectAllowed = "copy";
    e.dataTransfer.setData("text/uri-list", offer.uriList);
    e.dataTransfer.setData("text/plain", offer.uris.join("\n"));
  }

  /** Ctrl+C: the entries on the clipboard as a file manager puts them there. */
  async copy(handles: string[]): Promise<void> {
    try {
      const offer = await this.backend.copyFiles(handles);
      const n = offer.uris.length;
      this.say(`Copied ${n === 1 ? "1 item" : `${n} items`}: Paste in a file manager copies ${n === 1 ? "it" : "them"} there.`);
    } catch (err) {
      const e = toBackendError(err);
      this.say(`Could not copy: ${e.code}: ${e.message}`);
    }
  }
}

function rowHandle(target: EventTarget | null): string | null {
  const row = (target as Element | null)?.closest?.(".row[data-handle]") as HTMLElement | null;
  return row?.dataset.handle ?? null;
}
