// An in-memory Backend for unit tests: folders as lists of names, listed with
// the engine's shape (depth, nested cap, root page, unread folders at the
// last level). Calls can be held and released one by one to test ordering.

import type { Backend } from "./backend";
import { BackendError } from "./backend";
import type { Entry } from "./bindings/Entry";
import type { ErrorCode } from "./bindings/ErrorCode";
import type { Folder } from "./bindings/Folder";
import type { ListRequest } from "./bindings/ListRequest";
import type { Listing } from "./bindings/Listing";
import type { LocateRequest } from "./bindings/LocateRequest";
import type { Located } from "./bindings/Located";
import type { Launch } from "./bindings/Launch";
import type { SavedView } from "./bindings/SavedView";
import type { ShellEvent } from "./bindings/ShellEvent";
import type { WatchStatus } from "./bindings/WatchStatus";
import { NESTED_CAP } from "./limits";

export interface FakeNode {
  name: string;
  kind: Entry["kind"];
  children?: FakeNode[];
  size?: number;
  modified?: number;
}

interface Held {
  request: ListRequest;
  resolve: () => void;
}

export class FakeBackend implements Backend {
  readonly calls: ListRequest[] = [];
  readonly cancelled: number[] = [];
  /** path -> error code to fail with */
  readonly failures = new Map<string, ErrorCode>();
  /** Nested folders the request budget leaves unread (BUDGET); listed alone they read fine. */
  readonly budgetCut = new Set<string>();
  hold = false;
  /** Whether a cancelled call answers CANCELLED (a real one may finish first). */
  honorCancel = true;
  readonly held: Held[] = [];

  constructor(public root: FakeNode, public rootPath = "/r") {}

  /** The node at `path` ("/r", "/r/a", ...). */
  nodeAt(path: string): FakeNode | null {
    if (path === this.rootPath) return this.root;
    if (!path.startsWith(this.rootPath + "/")) return null;
    let n: FakeNode | undefined = this.root;
    for (const part of path.slice(this.rootPath.length + 1).split("/")) {
      n = n?.children?.find((c) => c.name === part);
      if (!n) return null;
    }
    return n;
  }

  private entry(node: FakeNode, path: string, level: number, depth: number): Entry {
    const e: Entry = { name: node.name, handle: path, kind: node.kind };
    if (node.size !== undefined) e.size = node.size;
    if (node.modified !== undefined) e.modified = node.modified;
    if (node.kind === "folder") {
      const failure = this.failures.get(path);
      if (failure) {
        e.error = { code: failure, message: `fake ${failure}` };
        e.folder = unread();
      } else if (this.budgetCut.has(path) && level < depth) {
        e.error = { code: "BUDGET", message: "not read: fake budget" };
        e.folder = unread();
      } else if (level < depth) {
        e.folder = this.folder(node, path, level + 1, depth, 0, NESTED_CAP);
      } else {
        e.folder = unread();
      }
    }
    return e;
  }

  private folder(node: FakeNode, path: string, level: number, depth: number, offset: number, limit: number): Folder {
    const kids = node.children ?? [];
    const page = kids.slice(offset, offset + limit);
    const unlisted = { folders: 0, files: 0, other: 0 };
    kids.forEach((k, i) => {
      if (i >= offset && i < offset + limit) return;
      if (k.kind === "folder") unlisted.folders++;
      else if (k.kind === "file") unlisted.files++;
      else unlisted.other++;
    });
    return {
      total: kids.length,
      childrenLoaded: true,
      offset,
      entries: page.map((k) => this.entry(k, `${path}/${k.name}`, level, depth)),
      unlisted,
      dotfilesHidden: 0,
      countIsLowerBound: false,
      partialOrder: false,
    };
  }

  async listDirectory(request: ListRequest): Promise<Listing> {
    this.calls.push(request);
    if (this.hold) await new Promise<void>((resolve) => this.held.push({ request, resolve }));
    if (this.honorCancel && this.cancelled.includes(request.requestId)) throw new BackendError("CANCELLED", "cancelled");
    const path = "handle" in request.root ? request.root.handle : request.root.text;
    const failure = this.failures.get(path);
    if (failure) throw new BackendError(failure, `fake ${failure}`);
    const node = this.nodeAt(path);
    if (!node) throw new BackendError("NOT_FOUND", `no such folder ${path}`);
    if (node.kind !== "folder") throw new BackendError("NOT_A_DIRECTORY", "not a folder");
    // Every ancestor, as the engine gives them: "/", "/r", "/r/small".
    const parts = path.split("/").filter(Boolean);
    const crumbs = [{ name: "/", handle: "/" }, ...parts.map((name, i) => ({ name, handle: "/" + parts.slice(0, i + 1).join("/") }))];
    // The fake's cursors are "<path>#<position after the page>"; opaque to the controller.
    const offset = request.after ? Number(request.after.split("#")[1]) : request.offset;
    const end = offset + request.limit;
    const more = end < (node.children?.length ?? 0);
    return {
      requestId: request.requestId,
      path,
      crumbs,
      depth: request.depth,
      showDotfiles: request.showDotfiles,
      root: {
        name: node.name,
        handle: path,
        kind: "folder",
        folder: this.folder(node, path, 1, request.depth, offset, request.limit),
      },
      ...(more ? { nextCursor: `${path}#${end}` } : {}),
    };
  }

  /** Lets the oldest held call (or the one for `offset`) proceed. */
  release(match?: (r: ListRequest) => boolean): ListRequest {
    const i = match ? this.held.findIndex((h) => match(h.request)) : 0;
    const [h] = this.held.splice(i, 1);
    if (!h) throw new Error("nothing held");
    h.resolve();
    return h.request;
  }

  async cancelListing(requestId: number): Promise<void> {
    this.cancelled.push(requestId);
  }

  async locate(request: LocateRequest): Promise<Located> {
    const node = this.nodeAt(request.folder);
    const kids = node?.children ?? [];
    const i = kids.findIndex((k) => k.name.toLowerCase().startsWith(request.prefix.toLowerCase()));
    return { index: Math.max(0, i), matched: i >= 0, total: kids.length };
  }

  async pickFolder(): Promise<string | null> {
    return null;
  }

  launch: Launch | null = null;

  async startupTarget(): Promise<Launch> {
    return this.launch ?? { startup: { folder: { handle: this.rootPath }, select: null }, restore: null, notice: null };
  }

  /** Every watchFolders call's folders, in order. */
  readonly watchCalls: string[][] = [];
  /** What watchFolders answers (default: everything watched). */
  watchAnswer: (folders: string[]) => WatchStatus = (folders) => ({ watched: folders.length, unwatched: [], shortfall: null });

  async watchFolders(folders: string[]): Promise<WatchStatus> {
    this.watchCalls.push(folders);
    return this.watchAnswer(folders);
  }

  /** The folders watched now (the last watchFolders call). */
  get watching(): string[] {
    return this.watchCalls[this.watchCalls.length - 1] ?? [];
  }

  private shell: ((e: ShellEvent) => void) | null = null;

  async listenShell(onEvent: (event: ShellEvent) => void): Promise<void> {
    this.shell = onEvent;
  }

  /** Pushes an event as the app would. */
  push(event: ShellEvent): void {
    if (!this.shell) throw new Error("nobody listens");
    this.shell(event);
  }

  readonly remembered: SavedView[] = [];

  async rememberView(view: SavedView): Promise<void> {
    this.remembered.push(view);
  }
}

function unread(): Folder {
  return {
    total: null,
    childrenLoaded: false,
    offset: 0,
    entries: [],
    unlisted: { folders: 0, files: 0, other: 0 },
    dotfilesHidden: 0,
    countIsLowerBound: false,
    partialOrder: false,
  };
}

export function fileNodes(prefix: string, n: number): FakeNode[] {
  return Array.from({ length: n }, (_, i) => ({ name: `${prefix}${String(i + 1).padStart(4, "0")}`, kind: "file" as const }));
}

/** Lets queued promise callbacks run. */
export const settle = () => new Promise((r) => setTimeout(r, 0));
