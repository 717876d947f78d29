// Thumbnails for the grid: asked of the engine (which reuses and fills the
// freedesktop thumbnail cache) only for cells in view, at most
// THUMB_REQUESTS at a time, and kept in memory as blob URLs, at most
// THUMBS_KEPT of them (the oldest revoked first). An entry the engine
// draws no thumbnail of (not an image, on a server, unreadable) is
// remembered as such, and shows its icon.

import type { Thumbnail } from "./bindings/Thumbnail";
import { THUMB_REQUESTS, THUMBS_KEPT } from "./limits";

export interface ThumbBackend {
  thumbnail(handle: string): Promise<Thumbnail>;
}

export type ThumbState = { kind: "asking" } | { kind: "drawn"; url: string; reused: boolean } | { kind: "none" };

export class Thumbs {
  private readonly kept = new Map<string, ThumbState>();
  private readonly waiting: string[] = [];
  private running = 0;

  constructor(
    private readonly backend: ThumbBackend,
    private readonly changed: () => void,
    private readonly makeUrl: (t: Thumbnail) => string = blobUrl,
    private readonly dropUrl: (url: string) => void = (u) => URL.revokeObjectURL(u),
  ) {}

  /** The thumbnail of `handle`, asked for when not known yet. */
  get(handle: string): ThumbState {
    const k = this.kept.get(handle);
    if (k) return k;
    this.kept.set(handle, { kind: "asking" });
    this.waiting.push(handle);
    this.pump();
    return { kind: "asking" };
  }

  /** Only these are still wanted: requests for the others not yet sent are dropped. */
  keepOnly(wanted: ReadonlySet<string>): void {
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      const h = this.waiting[i]!;
      if (!wanted.has(h)) {
        this.waiting.splice(i, 1);
        this.kept.delete(h);
      }
    }
  }

  /** Blob URLs held now (for tests: the memory cache's bound). */
  get drawn(): number {
    let n = 0;
    for (const s of this.kept.values()) if (s.kind === "drawn") n++;
    return n;
  }

  private pump(): void {
    while (this.running < THUMB_REQUESTS && this.waiting.length) {
      const handle = this.waiting.shift()!;
      this.running++;
      void this.backend
        .thumbnail(handle)
        .then(
          (t) => ({ kind: "drawn", url: this.makeUrl(t), reused: t.reused }) as ThumbState,
          () => ({ kind: "none" }) as ThumbState,
        )
        .then((state) => {
          this.running--;
          if (this.kept.get(handle)?.kind === "asking") this.keep(handle, state);
          else if (state.kind === "drawn") this.dropUrl(state.url);
          this.pump();
          this.changed();
        });
    }
  }

  private keep(handle: string, state: ThumbState): void {
    this.kept.delete(handle);
    this.kept.set(handle, state);
    while (this.kept.size > THUMBS_KEPT) {
      const [oldest, s] = this.kept.entries().next().value!;
      if (s.kind === "asking") break;
      this.kept.delete(oldest);
      if (s.kind === "drawn") this.dropUrl(s.url);
    }
  }
}

function blobUrl(t: Thumbnail): string {
  const bin = atob(t.data);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return URL.createObjectURL(new Blob([bytes], { type: t.mime }));
}
