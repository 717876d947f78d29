// The page's side of the colour worker: one request at a time, each with a
// time budget. A request that overruns it is abandoned by terminating the
// worker (the only way to stop a regular expression that runs for minutes)
// and answers "stopped"; `cancel()` does the same for whatever is in flight
// or queued, answering "cancelled". A fresh worker is started on demand.

import type { Root } from "hast";
import { HIGHLIGHT_BUDGET_MS } from "../limits";
import type { ColourReply, ColourRequest, MarkdownBlocks, MarkdownRequest } from "./protocol";

export type Outcome<T> = { status: "done"; value: T } | { status: "stopped" } | { status: "cancelled" };

/** What the highlighter needs of a Worker (a fake in unit tests). */
export interface WorkerLike {
  postMessage(request: ColourRequest): void;
  terminate(): void;
  onmessage: ((e: MessageEvent<ColourReply>) => void) | null;
  onerror: ((e: ErrorEvent) => void) | null;
}

type RequestBody = { kind: "code"; text: string; language: string } | ({ kind: "markdown" } & MarkdownRequest);

interface Job {
  id: number;
  body: RequestBody;
  settle: (reply: ColourReply | "stopped" | "cancelled") => void;
}

/** Starts the real colour worker (bundled by Vite as its own file, allowed by `worker-src 'self'`). */
export function spawnColourWorker(): WorkerLike {
  return new Worker(new URL("./worker.ts", import.meta.url), { type: "module", name: "colour" }) as unknown as WorkerLike;
}

export class Highlighter {
  /** Milliseconds a request may take from being sent to the worker. */
  budgetMs = HIGHLIGHT_BUDGET_MS;
  private worker: WorkerLike | null = null;
  private current: Job | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly queue: Job[] = [];
  private nextId = 1;

  constructor(private readonly spawn: () => WorkerLike) {}

  /** `text` coloured as `language` (null tree: the language is unknown). */
  async code(text: string, language: string): Promise<Outcome<Root | null>> {
    const r = await this.request({ kind: "code", text, language });
    return typeof r === "string" ? { status: r } : r.kind === "code" ? { status: "done", value: r.tree } : { status: "stopped" };
  }

  /** A piece of markdown parsed into blocks: see `markdown-blocks.ts`. */
  async markdown(req: MarkdownRequest): Promise<Outcome<MarkdownBlocks>> {
    const r = await this.request({ kind: "markdown", ...req });
    if (typeof r === "string") return { status: r };
    if (r.kind !== "markdown") return { status: "stopped" };
    const { settled, provisional, carry, references } = r;
    return { status: "done", value: { settled, provisional, carry, references } };
  }

  /** True while a request is in flight or waiting. */
  get busy(): boolean {
    return this.current !== null || this.queue.length > 0;
  }

  /** Abandons every request: the worker, if working, is terminated. */
  cancel(): void {
    const jobs = [...(this.current ? [this.current] : []), ...this.queue.splice(0)];
    if (this.current) this.stopWorker();
    this.current = null;
    for (const j of jobs) j.settle("cancelled");
  }

  private request(body: RequestBody): Promise<ColourReply | "stopped" | "cancelled"> {
    return new Promise((resolve) => {
      this.queue.push({ id: this.nextId++, body, settle: resolve });
      this.pump();
    });
  }

  private pump(): void {
    if (this.current) return;
    const job = this.queue.shift();
    if (!job) return;
    this.current = job;
    const worker = (this.worker ??= this.startWorker());
    this.timer = setTimeout(() => this.finish(job, "stopped"), this.budgetMs);
    worker.postMessage({ id: job.id, ...job.body } as ColourRequest);
  }

  private startWorker(): WorkerLike {
    const w = this.spawn();
    w.onmessage = (e) => {
      if (this.current && e.data.id === this.current.id) this.finish(this.current, e.data);
    };
    // A worker that failed cannot be trusted with the next request either.
    w.onerror = () => {
      if (this.current) this.finish(this.current, "stopped");
    };
    return w;
  }

  private finish(job: Job, outcome: ColourReply | "stopped"): void {
    if (this.current !== job) return;
    clearTimeout(this.timer);
    if (outcome === "stopped") this.stopWorker();
    this.current = null;
    job.settle(outcome);
    this.pump();
  }

  private stopWorker(): void {
    clearTimeout(this.timer);
    this.worker?.terminate();
    this.worker = null;
  }
}
