import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Highlighter, type WorkerLike } from "./highlighter";
import type { ColourReply, ColourRequest } from "./protocol";

/** A worker that answers only when told to, and remembers being terminated. */
class FakeWorker implements WorkerLike {
  readonly received: ColourRequest[] = [];
  terminated = false;
  onmessage: ((e: MessageEvent<ColourReply>) => void) | null = null;
  onerror: ((e: ErrorEvent) => void) | null = null;
  postMessage(request: ColourRequest): void {
    this.received.push(request);
  }
  terminate(): void {
    this.terminated = true;
  }
  answer(id: number): void {
    if (this.terminated) return;
    this.onmessage?.({ data: { id, kind: "code", tree: { type: "root", children: [] } } } as unknown as MessageEvent<ColourReply>);
  }
}

function setup(budget = 1000) {
  const workers: FakeWorker[] = [];
  const h = new Highlighter(() => {
    const w = new FakeWorker();
    workers.push(w);
    return w;
  });
  h.budgetMs = budget;
  return { h, workers };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("the colour worker's page side", () => {
  it("answers what the worker answers within budget", async () => {
    const { h, workers } = setup();
    const r = h.code("fn x() {}", "rust");
    expect(workers[0]!.received).toMatchObject([{ kind: "code", text: "fn x() {}", language: "rust" }]);
    workers[0]!.answer(workers[0]!.received[0]!.id);
    await expect(r).resolves.toEqual({ status: "done", value: { type: "root", children: [] } });
    expect(workers[0]!.terminated).toBe(false);
  });

  it("stops a request that overruns its budget by terminating the worker, and starts a fresh one for the next", async () => {
    const { h, workers } = setup(1000);
    const slow = h.code("r#\"".repeat(10), "rust");
    const next = h.code("let a = 1;", "rust");
    expect(workers[0]!.received).toHaveLength(1);
    vi.advanceTimersByTime(999);
    expect(workers[0]!.terminated).toBe(false);
    vi.advanceTimersByTime(1);
    await expect(slow).resolves.toEqual({ status: "stopped" });
    expect(workers[0]!.terminated).toBe(true);
    // The queued request goes to a new worker, with a budget of its own.
    expect(workers).toHaveLength(2);
    workers[1]!.answer(workers[1]!.received[0]!.id);
    await expect(next).resolves.toMatchObject({ status: "done" });
  });

  it("sends one request at a time; the budget counts from sending", async () => {
    const { h, workers } = setup(1000);
    const a = h.code("a", "rust");
    const b = h.code("b", "rust");
    vi.advanceTimersByTime(900);
    workers[0]!.answer(workers[0]!.received[0]!.id);
    await a;
    expect(workers[0]!.received).toHaveLength(2);
    vi.advanceTimersByTime(900);
    workers[0]!.answer(workers[0]!.received[1]!.id);
    await expect(b).resolves.toMatchObject({ status: "done" });
    expect(workers).toHaveLength(1);
  });

  it("cancel abandons the work in flight and queued: the worker is terminated at once", async () => {
    const { h, workers } = setup(60_000);
    const inFlight = h.code("slow", "rust");
    const queued = h.code("queued", "rust");
    h.cancel();
    expect(workers[0]!.terminated).toBe(true);
    await expect(inFlight).resolves.toEqual({ status: "cancelled" });
    await expect(queued).resolves.toEqual({ status: "cancelled" });
    expect(h.busy).toBe(false);
    // What is asked next is answered at once by a fresh worker, not after the old budget.
    const after = h.code("x", "rust");
    expect(workers).toHaveLength(2);
    workers[1]!.answer(workers[1]!.received[0]!.id);
    await expect(after).resolves.toMatchObject({ status: "done" });
  });

  it("a late answer to an abandoned request is ignored", async () => {
    const { h, workers } = setup(1000);
    const first = h.code("a", "rust");
    const firstId = workers[0]!.received[0]!.id;
    vi.advanceTimersByTime(1000);
    await expect(first).resolves.toEqual({ status: "stopped" });
    const second = h.code("b", "rust");
    // The terminated worker's answer never counts for the new request.
    workers[0]!.terminated = false;
    workers[0]!.answer(firstId);
    expect(h.busy).toBe(true);
    workers[1]!.answer(workers[1]!.received[0]!.id);
    await expect(second).resolves.toMatchObject({ status: "done" });
  });

  it("a worker that fails stops its request", async () => {
    const { h, workers } = setup(1000);
    const r = h.code("a", "rust");
    workers[0]!.onerror?.({} as ErrorEvent);
    await expect(r).resolves.toEqual({ status: "stopped" });
    expect(workers[0]!.terminated).toBe(true);
  });
});
