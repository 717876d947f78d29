import { describe, expect, it } from "vitest";
import type { PlacesBackend } from "./backend";
import { BackendError } from "./backend";
import type { Place } from "./bindings/Place";
import type { Places } from "./bindings/Places";
import type { PlaceSpace } from "./bindings/PlaceSpace";
import { currentPlace, PlacesController, type PlacesSnapshot } from "./places";
import { spaceWords } from "./view/places-view";

const place = (kind: Place["kind"], label: string, handle: string, mount = false): Place => ({
  kind,
  label,
  root: { handle },
  shown: `/${label}`,
  ...(mount ? { mount: handle } : {}),
});

const PLACES: Places = {
  folders: [place("home", "Home", "H"), place("documents", "Documents", "HD")],
  bookmarks: [place("bookmark", "Projects", "HP")],
  mounts: [place("root", "Filesystem root", "R", true), place("mount", "usb", "U", true), place("mount", "dead", "D", true)],
};

/** A backend whose space answers are held until released, one mount at a time. */
class FakePlaces implements PlacesBackend {
  lists = 0;
  places: Places = PLACES;
  readonly spaceCalls: string[] = [];
  private readonly waiting = new Map<string, { ok: (s: PlaceSpace) => void; fail: (e: unknown) => void }>();
  readonly bookmarked: string[] = [];

  async listPlaces(): Promise<Places> {
    this.lists++;
    return this.places;
  }
  placeSpace(mount: string): Promise<PlaceSpace> {
    this.spaceCalls.push(mount);
    return new Promise((ok, fail) => this.waiting.set(mount, { ok, fail }));
  }
  async addBookmark(handle: string): Promise<"added" | "alreadyThere"> {
    const again = this.bookmarked.includes(handle);
    this.bookmarked.push(handle);
    return again ? "alreadyThere" : "added";
  }
  answer(mount: string, s: PlaceSpace | BackendError): void {
    const w = this.waiting.get(mount)!;
    this.waiting.delete(mount);
    if (s instanceof BackendError) w.fail(s);
    else w.ok(s);
  }
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("the sidebar's places", () => {
  it("shows the list before any mount answered, then each mount's space as it comes", async () => {
    const b = new FakePlaces();
    const c = new PlacesController(b);
    const seen: PlacesSnapshot[] = [];
    c.subscribe((s) => seen.push(s));
    void c.load();
    await tick();
    expect(c.snapshot().places).toBe(PLACES);
    expect(b.spaceCalls).toEqual(["R", "U", "D"]);
    expect(spaceWords(c.snapshot().spaces.get("D"))).toBe("");
    b.answer("U", { free: 12.3 * 2 ** 30, total: 64 * 2 ** 30 });
    await tick();
    expect(spaceWords(c.snapshot().spaces.get("U"))).toBe("12.3 GiB free of 64 GiB");
    // The dead mount has not answered: the others are shown all the same.
    b.answer("R", { free: 1024, total: 4096 });
    await tick();
    expect(spaceWords(c.snapshot().spaces.get("R"))).toBe("1 KiB free of 4 KiB");
    b.answer("D", new BackendError("TIMEOUT", "not responding: ..."));
    await tick();
    expect(spaceWords(c.snapshot().spaces.get("D"))).toBe("not responding");
  });

  it("a mount's change lists the places again, keeping known figures until new ones come", async () => {
    const b = new FakePlaces();
    const c = new PlacesController(b);
    void c.load();
    await tick();
    b.answer("U", { free: 10, total: 20 });
    await tick();
    expect(c.onShellEvent({ type: "placesChanged" })).toBe(true);
    expect(c.onShellEvent({ type: "notice", message: "x" })).toBe(false);
    await tick();
    expect(b.lists).toBe(2);
    expect(c.snapshot().spaces.get("U")).toEqual({ kind: "known", free: 10, total: 20 });
  });

  it("a list superseded by a newer one is dropped", async () => {
    const b = new FakePlaces();
    const c = new PlacesController(b);
    const first = c.load();
    b.places = { ...PLACES, mounts: [] };
    const second = c.load();
    await Promise.all([first.catch(() => undefined), second]);
    expect(c.snapshot().places?.mounts).toEqual([]);
  });

  it("the open folder's place is its deepest crumb that is a place", () => {
    const crumb = (handle: string) => ({ name: handle, handle });
    expect(currentPlace(PLACES, [crumb("R"), crumb("H"), crumb("HD"), crumb("HDx")])?.label).toBe("Documents");
    expect(currentPlace(PLACES, [crumb("R"), crumb("H")])?.label).toBe("Home");
    expect(currentPlace(PLACES, [crumb("R"), crumb("elsewhere")])?.label).toBe("Filesystem root");
    expect(currentPlace(PLACES, [crumb("nowhere")])).toBeNull();
  });

  it("bookmarking says whether it was new, and lists the places again", async () => {
    const b = new FakePlaces();
    const c = new PlacesController(b);
    expect(await c.bookmark("HX")).toMatch(/^Bookmarked/);
    expect(await c.bookmark("HX")).toBe("This folder is bookmarked already.");
    expect(b.lists).toBe(2);
  });
});
