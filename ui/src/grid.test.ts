import { describe, expect, it } from "vitest";
import { gridMove } from "./grid-state";
import { Thumbs } from "./thumbs";
import { THUMB_REQUESTS, THUMBS_KEPT } from "./limits";
import type { Thumbnail } from "./bindings/Thumbnail";

describe("the grid's keys", () => {
  it("move by one across, by a row down and up, and stop at the ends", () => {
    expect(gridMove("ArrowRight", 0, 4, 10, 2)).toBe(1);
    expect(gridMove("ArrowDown", 1, 4, 10, 2)).toBe(5);
    expect(gridMove("ArrowDown", 7, 4, 10, 2)).toBe(7); // no cell below in the last, short row
    expect(gridMove("ArrowUp", 2, 4, 10, 2)).toBe(2);
    expect(gridMove("PageDown", 0, 4, 10, 2)).toBe(8);
    expect(gridMove("End", 0, 4, 10, 2)).toBe(9);
    expect(gridMove("ArrowLeft", 0, 4, 10, 2)).toBe(0);
    expect(gridMove("a", 0, 4, 10, 2)).toBeNull();
  });
});

class HeldThumbs {
  readonly asked: string[] = [];
  private readonly waiting: ((t: Thumbnail) => void)[] = [];
  thumbnail(handle: string): Promise<Thumbnail> {
    this.asked.push(handle);
    return new Promise((ok) => this.waiting.push(ok));
  }
  answerAll(): void {
    for (const ok of this.waiting.splice(0)) ok({ mime: "image/png", data: "", reused: false });
  }
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("thumbnails in memory", () => {
  it("are asked a few at a time, only while still wanted, and kept within the bound", async () => {
    const b = new HeldThumbs();
    let urls = 0;
    const dropped: string[] = [];
    const t = new Thumbs(b, () => undefined, () => `blob:${urls++}`, (u) => dropped.push(u));
    for (let i = 0; i < 10; i++) t.get(`h${i}`);
    expect(b.asked.length).toBe(THUMB_REQUESTS);
    // Scrolled away: the ones not sent yet are dropped.
    t.keepOnly(new Set(["h0", "h1"]));
    b.answerAll();
    await tick();
    expect(b.asked.length).toBe(THUMB_REQUESTS);
    for (let i = 0; i < THUMBS_KEPT + 50; i++) {
      t.get(`k${i}`);
      b.answerAll();
      await tick();
    }
    expect(t.drawn).toBeLessThanOrEqual(THUMBS_KEPT);
    expect(dropped.length).toBeGreaterThan(0);
  });
});
