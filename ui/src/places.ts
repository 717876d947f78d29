// The sidebar's places: the engine's list (home, user folders, GTK
// bookmarks, mounts), each mount's free space, "Bookmark this folder", and
// a fresh list whenever the app says a filesystem came or went.
//
// Promises:
// - the list shows as soon as the engine answers: it never waits on a
//   mount; each mount's free space is asked on its own, so a dead mount's
//   "not responding" holds nothing else up;
// - a reply superseded by a newer load is dropped;
// - which place is the open folder's is read from the listing's crumbs
//   (the engine's ancestors): the deepest crumb that is a place.

import type { PlacesBackend } from "./backend";
import { toBackendError } from "./backend";
import type { CanopyError } from "./bindings/CanopyError";
import type { Crumb } from "./bindings/Crumb";
import type { Place } from "./bindings/Place";
import type { Places } from "./bindings/Places";
import type { ShellEvent } from "./bindings/ShellEvent";

/** A mount's free space as far as it is known. */
export type SpaceState = { kind: "asking" } | { kind: "known"; free: number; total: number } | { kind: "failed"; error: CanopyError };

export interface PlacesSnapshot {
  readonly places: Places | null;
  /** By mount handle (`Place.mount`). */
  readonly spaces: ReadonlyMap<string, SpaceState>;
  /** Why the places could not be listed at all. */
  readonly error: CanopyError | null;
}

export class PlacesController {
  private places: Places | null = null;
  private spaces = new Map<string, SpaceState>();
  private error: CanopyError | null = null;
  private generation = 0;
  private readonly listeners = new Set<(s: PlacesSnapshot) => void>();

  constructor(private readonly backend: PlacesBackend) {}

  subscribe(fn: (s: PlacesSnapshot) => void): () => void {
    this.listeners.add(fn);
    fn(this.snapshot());
    return () => this.listeners.delete(fn);
  }

  snapshot(): PlacesSnapshot {
    return { places: this.places, spaces: this.spaces, error: this.error };
  }

  private emit(): void {
    const s = this.snapshot();
    for (const fn of this.listeners) fn(s);
  }

  /** Lists the places again (resolves once they are shown), then asks each mount's free space on its own. */
  async load(): Promise<void> {
    const generation = ++this.generation;
    let places: Places;
    try {
      places = await this.backend.listPlaces();
    } catch (err) {
      if (generation !== this.generation) return;
      this.error = toBackendError(err).toWire();
      this.emit();
      return;
    }
    if (generation !== this.generation) return;
    this.places = places;
    this.error = null;
    const mounts = places.mounts.flatMap((p) => (p.mount ? [p.mount] : []));
    // Figures already known stay shown until the new ones come.
    this.spaces = new Map(mounts.map((m) => [m, this.spaces.get(m) ?? { kind: "asking" }]));
    this.emit();
    for (const m of mounts) void this.askSpace(m, generation);
  }

  private async askSpace(mount: string, generation: number): Promise<void> {
    let state: SpaceState;
    try {
      const s = await this.backend.placeSpace(mount);
      state = { kind: "known", free: s.free, total: s.total };
    } catch (err) {
      state = { kind: "failed", error: toBackendError(err).toWire() };
    }
    if (generation !== this.generation) return;
    this.spaces = new Map(this.spaces).set(mount, state);
    this.emit();
  }

  /** "Bookmark this folder": what to say about it. Lists the places again. */
  async bookmark(handle: string): Promise<string> {
    try {
      const outcome = await this.backend.addBookmark(handle);
      await this.load();
      return outcome === "added" ? "Bookmarked: it is in Places, and in other file managers' bookmarks." : "This folder is bookmarked already.";
    } catch (err) {
      const e = toBackendError(err);
      return `The folder could not be bookmarked: ${e.code}: ${e.message}`;
    }
  }

  /** What the app pushed: a mount came or went. True when it was the sidebar's. */
  onShellEvent(event: ShellEvent): boolean {
    if (event.type !== "placesChanged") return false;
    void this.load();
    return true;
  }
}

/** Every place of the list, in the sidebar's order. */
export function allPlaces(p: Places): Place[] {
  return [...p.folders, ...p.bookmarks, ...p.mounts];
}

/** The place the open folder is in: the deepest of its crumbs that is a place (null when none). */
export function currentPlace(p: Places, crumbs: readonly Crumb[]): Place | null {
  const places = allPlaces(p);
  for (let i = crumbs.length - 1; i >= 0; i--) {
    const handle = crumbs[i]!.handle;
    const hit = places.find((pl) => "handle" in pl.root && pl.root.handle === handle);
    if (hit) return hit;
  }
  return null;
}
