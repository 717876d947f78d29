import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ListProgress } from "./bindings/ListProgress";
import { DirectoryController } from "./directory-controller";
import { FakeBackend, type FakeNode } from "./fake-backend";
import { PROGRESS_ANNOUNCE_MS, PROGRESS_DELAY_MS } from "./limits";
import { mayAnnounce, progressSentence } from "./view/progress-note";

function tree(): FakeNode {
  return { name: "r", kind: "folder", children: [{ name: "a", kind: "folder", children: [{ name: "deep", kind: "folder", children: [] }] }, { name: "f", kind: "file" }] };
}

/** A controller on a fake whose calls are held, and every progress its snapshots showed. */
function held() {
  const fake = new FakeBackend(tree());
  fake.hold = true;
  const c = new DirectoryController(fake);
  const seen: (ListProgress | null)[] = [];
  c.subscribe((s) => seen.push(s.progress));
  return { fake, c, seen, now: () => c.snapshot().progress };
}

/** Lets the held call and the replies' promise callbacks run (timers are fake). */
const flush = () => vi.advanceTimersByTimeAsync(0);

describe("the progress of opening a folder", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("shows nothing for a listing that answers within the delay", async () => {
    const { fake, c, seen } = held();
    const opened = c.open({ handle: "/r" });
    await flush();
    const id = fake.held[0]!.request.requestId;
    expect(fake.progress(id, 3, 40), "the open listing asked to hear its progress").toBe(true);
    await vi.advanceTimersByTimeAsync(PROGRESS_DELAY_MS - 1);
    fake.release();
    await opened;
    await vi.advanceTimersByTimeAsync(PROGRESS_DELAY_MS * 2);
    expect(seen.every((p) => p === null), "no snapshot ever showed progress").toBe(true);
  });

  it("shows the latest counts once the delay has passed, and clears them when the reply arrives", async () => {
    const { fake, c, now } = held();
    const opened = c.open({ handle: "/r" });
    await flush();
    const id = fake.held[0]!.request.requestId;
    fake.progress(id, 1, 2);
    await vi.advanceTimersByTimeAsync(PROGRESS_DELAY_MS - 1);
    expect(now(), "not before the delay").toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(now()).toEqual({ requestId: id, folders: 1, names: 2 });
    fake.progress(id, 12, 34_512);
    expect(now(), "each report shows").toEqual({ requestId: id, folders: 12, names: 34_512 });
    expect(c.snapshot().opening).toBe(true);
    fake.release();
    await opened;
    expect(now(), "the reply clears it").toBeNull();
    expect(c.snapshot().opening).toBe(false);
    expect(fake.progress(id, 13, 35_000), "nothing is heard after the reply").toBe(false);
    expect(now()).toBeNull();
  });

  it("shows an empty report once the delay passed before the first report", async () => {
    const { fake, c, now } = held();
    const opened = c.open({ handle: "/r" });
    await vi.advanceTimersByTimeAsync(PROGRESS_DELAY_MS);
    const id = fake.held[0]!.request.requestId;
    expect(now()).toEqual({ requestId: id, folders: 0, names: 0 });
    fake.release();
    await opened;
    expect(now()).toBeNull();
  });

  it("clears it when the listing fails", async () => {
    const { fake, c, now } = held();
    fake.failures.set("/r", "DENIED");
    const opened = c.open({ handle: "/r" });
    await vi.advanceTimersByTimeAsync(PROGRESS_DELAY_MS);
    expect(now()).not.toBeNull();
    fake.release();
    expect(await opened).toBe(false);
    expect(c.snapshot().openError?.code).toBe("DENIED");
    expect(now()).toBeNull();
  });

  it("drops the reports of an open that a newer one superseded", async () => {
    const { fake, c, now } = held();
    const first = c.open({ handle: "/r" });
    await vi.advanceTimersByTimeAsync(PROGRESS_DELAY_MS);
    const second = c.open({ handle: "/r/a" });
    await flush();
    const [old, current] = fake.held.map((h) => h.request.requestId);
    fake.progress(old!, 99, 999);
    expect(now(), "the window is still busy: shown at once, without the old counts").toEqual({ requestId: current, folders: 0, names: 0 });
    fake.progress(current!, 2, 5);
    expect(now()).toEqual({ requestId: current, folders: 2, names: 5 });
    fake.release((r) => r.requestId === old);
    await first;
    expect(now(), "the old reply does not clear the newer open's progress").toEqual({ requestId: current, folders: 2, names: 5 });
    fake.release();
    await second;
    expect(now()).toBeNull();
  });

  it("only opening a folder asks for progress, not an expand or a page", async () => {
    const fake = new FakeBackend(tree());
    const c = new DirectoryController(fake);
    await c.open({ handle: "/r" });
    await c.expand("/r/a/deep");
    await c.refresh();
    expect(fake.calls.length).toBe(3);
    expect(fake.progressAsked, "the open and the refresh").toEqual([fake.calls[0]!.requestId, fake.calls[2]!.requestId]);
  });
});

describe("the progress text", () => {
  it("says how far it got, with thousands separators", () => {
    expect(progressSentence({ requestId: 1, folders: 0, names: 0 })).toBe("Reading…");
    expect(progressSentence({ requestId: 1, folders: 1, names: 1 })).toBe("Reading… 1 folder, 1 name");
    expect(progressSentence({ requestId: 1, folders: 12, names: 34_512 })).toBe("Reading… 12 folders, 34,512 names");
  });

  it("is announced at most every PROGRESS_ANNOUNCE_MS", () => {
    expect(mayAnnounce(null, 5)).toBe(true);
    expect(mayAnnounce(1000, 1000 + PROGRESS_ANNOUNCE_MS - 1)).toBe(false);
    expect(mayAnnounce(1000, 1000 + PROGRESS_ANNOUNCE_MS)).toBe(true);
  });
});
