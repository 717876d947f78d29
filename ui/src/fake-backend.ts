// An in-memory Backend for unit tests: folders as lists of names, listed with
// the engine's shape (depth, nested cap, root page, unread folders at the
// last level, all from the request's settings). Like the engine, it refuses
// a request with a field it does not know (a setting beside `settings`
// rather than in it). Calls can be held and released one by one to test
// ordering, and a held call's progress reported (`progress`) as the engine
// would while it reads.
//
// Orders, filters and ignored entries are imitated just enough to test the
// controller: the name order is the children's order as given, the size and
// modified orders sort by `size` / `modified` (ties keep the given order), a
// filter keeps names holding it (case-insensitive; `*` is any run), and
// "hide ignored" leaves out nodes marked `ignored`. The rest is grouped by
// the text after the last dot. None of this is the engine's rule: the
// engine's own tests cover those.
//
// Folder sizes (`folderSizes`) are counted over the nodes: a file's
// apparent size is its `size`, its disk usage its `disk` (else its size);
// a folder in `unreadable` counts nothing below it and makes every ancestor
// a lower bound with that code. The largest children are ordered by the
// request's measure. Calls can be held (`holdSizes`) and their progress
// reported (`sizesProgress`) as the engine would while it counts.
//
// A file node with `archive` set is an archive: listed as an expandable
// file that is never read within a listing's depth, and listed like a
// folder (its `children`) when asked for by its own path, as the engine does.

import type { Capabilities } from "./bindings/Capabilities";
import type { Backend } from "./backend";
import { BackendError } from "./backend";
import type { ArchiveFormat } from "./bindings/ArchiveFormat";
import type { Entry } from "./bindings/Entry";
import type { ErrorCode } from "./bindings/ErrorCode";
import type { Folder } from "./bindings/Folder";
import type { KindCounts } from "./bindings/KindCounts";
import type { ListRequest } from "./bindings/ListRequest";
import type { ListSettings } from "./bindings/ListSettings";
import type { RestGroup } from "./bindings/RestGroup";
import type { Listing } from "./bindings/Listing";
import type { ListProgress } from "./bindings/ListProgress";
import type { LocateRequest } from "./bindings/LocateRequest";
import type { Located } from "./bindings/Located";
import type { Launch } from "./bindings/Launch";
import type { SavedView } from "./bindings/SavedView";
import type { ServerState } from "./bindings/ServerState";
import type { ShellEvent } from "./bindings/ShellEvent";
import type { WatchStatus } from "./bindings/WatchStatus";
import type { ChildSize, FolderSizeReport, FolderSizes, SizesProgress, SizesReport, SizesRequest } from "./sizes-wire";

export interface FakeNode {
  name: string;
  kind: Entry["kind"];
  children?: FakeNode[];
  size?: number;
  /** Disk usage (allocated bytes) for folder sizes; the size when absent. */
  disk?: number;
  modified?: number;
  /** Git would ignore it ("Hide ignored" leaves it out). */
  ignored?: boolean;
  /** A file that is this archive (its `children` are its inside). */
  archive?: ArchiveFormat;
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

  /** What the engine's registry says of the fake's place: a server's for a URL root, everything available otherwise. */
  private place(): { capabilities: Capabilities; server: string | null } {
    const server = /^sftp:\/\/([^/]+)/.exec(this.rootPath)?.[1] ?? null;
    const no = server === null ? null : "not available for a file on a server";
    return {
      capabilities: { openWithDesktop: no, reveal: no, watch: no, renderMedia: no, readArchives: null, fileFacts: null, copyPath: null },
      server,
    };
  }

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

  private entry(node: FakeNode, path: string, level: number, depth: number, req: ListRequest): Entry {
    const e: Entry = { name: node.name, handle: path, kind: node.kind };
    if (node.kind === "folder") e.canExpand = true;
    if (node.kind === "file") e.canPreview = true;
    if (node.archive) {
      e.archive = node.archive;
      e.canExpand = true;
    }
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
        const { filter: _rootOnly, ...nested } = req.settings;
        e.folder = this.folder(node, path, level + 1, depth, 0, req.settings.cap, { ...req, settings: nested });
      } else {
        e.folder = unread();
      }
    }
    return e;
  }

  /** A folder's children as a request sees them: ignored ones left out, filtered, ordered. */
  arranged(node: FakeNode, req: Pick<ListSettings, "sort" | "reverse" | "filter" | "hideIgnored">): { kids: FakeNode[]; ignored: number; unfiltered: number } {
    let kids = node.children ?? [];
    const before = kids.length;
    if (req.hideIgnored) kids = kids.filter((k) => !k.ignored);
    const ignored = before - kids.length;
    const unfiltered = kids.length;
    if (req.filter) {
      const parts = req.filter.toLowerCase().split("*");
      kids = kids.filter((k) => {
        const n = k.name.toLowerCase();
        if (parts.length === 1) return n.includes(parts[0]!);
        let at = 0;
        for (const p of parts) {
          const i = n.indexOf(p, at);
          if (i < 0) return false;
          at = i + p.length;
        }
        return true;
      });
    }
    const value = (k: FakeNode) => (req.sort === "size" ? k.size : req.sort === "modified" ? k.modified : undefined) ?? 0;
    const rank = (k: FakeNode) => (k.kind === "folder" ? 0 : 1);
    const sorted = kids.slice().sort((a, b) => rank(a) - rank(b) || (req.sort === "name" ? 0 : value(a) - value(b)));
    if (req.reverse) {
      const folders = sorted.filter((k) => k.kind === "folder");
      const others = sorted.filter((k) => k.kind !== "folder");
      kids = req.sort === "name" ? [...folders.reverse(), ...others.reverse()] : [...folders, ...others.reverse()];
    } else kids = sorted;
    return { kids, ignored, unfiltered };
  }

  private folder(node: FakeNode, path: string, level: number, depth: number, offset: number, limit: number, req: ListRequest): Folder {
    const { kids, ignored, unfiltered } = this.arranged(node, req.settings);
    const page = kids.slice(offset, offset + limit);
    const unlisted = { folders: 0, files: 0, other: 0 };
    const kinds: KindCounts = { folders: 0, files: 0, other: 0 };
    const groups = new Map<string, number>();
    kids.forEach((k, i) => {
      const bucket = k.kind === "folder" ? "folders" : k.kind === "file" ? "files" : "other";
      kinds[bucket]++;
      if (i >= offset && i < offset + limit) return;
      unlisted[bucket]++;
      if (i < offset) return;
      const dot = k.name.lastIndexOf(".");
      const g = k.kind === "folder" ? "/folders" : dot > 0 ? k.name.slice(dot + 1).toLowerCase() : "/none";
      groups.set(g, (groups.get(g) ?? 0) + 1);
    });
    const rest: RestGroup[] = [...groups].map(([g, count]) =>
      g === "/folders" ? { group: "folders", count } : g === "/none" ? { group: "noExtension", count } : { group: "extension", extension: g, count },
    );
    rest.sort((a, b) => b.count - a.count);
    return {
      total: kids.length,
      ...(req.settings.filter ? { unfilteredTotal: unfiltered } : {}),
      childrenLoaded: true,
      offset,
      entries: page.map((k) => this.entry(k, `${path}/${k.name}`, level, depth, req)),
      unlisted,
      kinds,
      ...(rest.length ? { rest } : {}),
      dotfilesHidden: 0,
      ...(ignored ? { ignoredHidden: ignored } : {}),
      countIsLowerBound: false,
      partialOrder: false,
    };
  }

  /** Who hears each listing's progress, by request id, while it runs (a call given no listener has none). */
  private readonly listeners = new Map<number, (progress: ListProgress) => void>();

  /** The request ids of the listings that asked to hear their progress, in order. */
  readonly progressAsked: number[] = [];

  /** Reports how far listing `requestId` got, as the engine would while it runs; false when nobody hears it (it answered, or asked for none). */
  progress(requestId: number, folders: number, names: number): boolean {
    const listener = this.listeners.get(requestId);
    listener?.({ requestId, folders, names });
    return listener !== undefined;
  }

  async listDirectory(request: ListRequest, onProgress?: (progress: ListProgress) => void): Promise<Listing> {
    if (!onProgress) return this.answer(request);
    this.progressAsked.push(request.requestId);
    this.listeners.set(request.requestId, onProgress);
    try {
      return await this.answer(request);
    } finally {
      // Like the engine: nothing after the reply.
      this.listeners.delete(request.requestId);
    }
  }

  private async answer(request: ListRequest): Promise<Listing> {
    this.calls.push(request);
    refuseUnknown(request, LIST_REQUEST_FIELDS, "list_directory");
    refuseUnknown(request.settings, SETTINGS_FIELDS, "list_directory's settings");
    if (this.hold) await new Promise<void>((resolve) => this.held.push({ request, resolve }));
    if (this.honorCancel && this.cancelled.includes(request.requestId)) throw new BackendError("CANCELLED", "cancelled");
    const path = "handle" in request.root ? request.root.handle : request.root.text;
    const failure = this.failures.get(path);
    if (failure) throw new BackendError(failure, `fake ${failure}`);
    const node = this.nodeAt(path);
    if (!node) throw new BackendError("NOT_FOUND", `no such folder ${path}`);
    if (node.kind !== "folder" && !node.archive) throw new BackendError("NOT_A_DIRECTORY", "not a folder");
    // Every ancestor, as the engine gives them: "/", "/r", "/r/small".
    const parts = path.split("/").filter(Boolean);
    const crumbs = [{ name: "/", handle: "/" }, ...parts.map((name, i) => ({ name, handle: "/" + parts.slice(0, i + 1).join("/") }))];
    // The fake's cursors are "<path>#<position after the page>"; opaque to the controller.
    const offset = request.after ? Number(request.after.split("#")[1]) : request.offset;
    const { depth, limit } = request.settings;
    const end = offset + limit;
    const more = end < this.arranged(node, request.settings).kids.length;
    return {
      requestId: request.requestId,
      path,
      crumbs,
      // As the engine's registry says of the place: a root given as a URL is a server's.
      ...this.place(),
      settings: { ...request.settings },
      root: {
        name: node.name,
        handle: path,
        kind: "folder",
        canExpand: true,
        folder: this.folder(node, path, 1, depth, offset, limit, request),
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

  readonly locates: LocateRequest[] = [];

  async locate(request: LocateRequest): Promise<Located> {
    this.locates.push(request);
    refuseUnknown(request, LOCATE_REQUEST_FIELDS, "locate");
    refuseUnknown(request.settings, SETTINGS_FIELDS, "locate's settings");
    const node = this.nodeAt(request.folder);
    const kids = node ? this.arranged(node, request.settings).kids : [];
    const i = kids.findIndex((k) => k.name.toLowerCase().startsWith(request.prefix.toLowerCase()));
    return { index: Math.max(0, i), matched: i >= 0, total: kids.length };
  }

  async pickFolder(): Promise<string | null> {
    return null;
  }

  launch: Launch | null = null;

  async startupTarget(): Promise<Launch> {
    return this.launch ?? { startup: { folder: { handle: this.rootPath }, select: null }, restore: null, notice: null, servers: [] };
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

  /** What serverState answers, and the handles it was asked about. */
  serverAnswer: ServerState = { server: "host", phase: "connected", reconnects: 0 };
  readonly serverCalls: string[] = [];

  async serverState(handle: string): Promise<ServerState> {
    this.serverCalls.push(handle);
    return { ...this.serverAnswer };
  }

  /** The answers given to ssh's prompts, in order. */
  readonly secretAnswers: { id: number; secret: string | null }[] = [];

  async answerSecret(id: number, secret: string | null): Promise<void> {
    this.secretAnswers.push({ id, secret });
  }

  async rememberView(view: SavedView): Promise<void> {
    this.remembered.push(view);
  }

  // ---- folder sizes ----------------------------------------------------------

  readonly sizesCalls: SizesRequest[] = [];
  /** Folders that cannot be read when counting (path -> code). */
  readonly unreadable = new Map<string, ErrorCode>();
  /** Hold each folderSizes call until `releaseSizes`. */
  holdSizes = false;
  private readonly sizesHeld: Array<{ request: SizesRequest; resolve: () => void }> = [];
  private readonly sizesListeners = new Map<number, (p: SizesProgress) => void>();

  async folderSizes(request: SizesRequest, onProgress?: (p: SizesProgress) => void): Promise<SizesReport> {
    this.sizesCalls.push(request);
    refuseUnknown(request, SIZES_REQUEST_FIELDS, "folder_sizes");
    if (onProgress) this.sizesListeners.set(request.requestId, onProgress);
    try {
      if (this.holdSizes) await new Promise<void>((resolve) => this.sizesHeld.push({ request, resolve }));
      if (this.honorCancel && this.cancelled.includes(request.requestId)) throw new BackendError("CANCELLED", "cancelled");
      const path = "handle" in request.root ? request.root.handle : request.root.text;
      const node = this.nodeAt(path);
      if (!node) throw new BackendError("NOT_FOUND", `no such folder ${path}`);
      if (node.kind !== "folder") throw new BackendError("NOT_A_DIRECTORY", "not a folder");
      const reports: FolderSizeReport[] = [];
      if (request.depth !== undefined && request.folders !== undefined) throw new BackendError("INVALID_ARGUMENT", "a depth or the folders, not both");
      const named = request.folders ? new Set(request.folders) : null;
      const reported = (handle: string, level: number) => level === 0 || (named ? named.has(handle) : level <= (request.depth ?? 2));
      this.count(node, path, "", 0, reported, request.byApparent ?? false, reports);
      const root = reports.find((r) => r.depth === 0)!;
      return { requestId: request.requestId, root, folders: reports.filter((r) => r !== root), entries: root.sizes.files + root.sizes.folders, elapsedMs: 1 };
    } finally {
      this.sizesListeners.delete(request.requestId);
    }
  }

  /** Reports partial or finished figures of sizes request `requestId` as the engine would; false when nobody hears. */
  sizesProgress(requestId: number, folders: FolderSizeReport[], entries = 0): boolean {
    const listener = this.sizesListeners.get(requestId);
    listener?.({ requestId, folders, entries });
    return listener !== undefined;
  }

  /** Lets the oldest held folderSizes call proceed. */
  releaseSizes(): SizesRequest {
    const h = this.sizesHeld.shift();
    if (!h) throw new Error("no sizes call held");
    h.resolve();
    return h.request;
  }

  /** The finished report the fake gives of the folder at `path` (for tests' expectations and partial reports). */
  sizesOf(path: string, byApparent = false): FolderSizeReport {
    const out: FolderSizeReport[] = [];
    this.count(this.nodeAt(path)!, path, "", 0, (_, level) => level === 0, byApparent, out);
    return out[0]!;
  }

  /** Counts `node`'s subtree; pushes the reports of the folders `reported` names. */
  private count(node: FakeNode, path: string, rel: string, level: number, reported: (handle: string, level: number) => boolean, byApparent: boolean, out: FolderSizeReport[]): FolderSizes {
    const sizes: FolderSizes = { diskUsage: 0, apparent: 0, files: 0, folders: 0, isLowerBound: false };
    const kids: ChildSize[] = [];
    const code = this.unreadable.get(path);
    if (code) {
      sizes.isLowerBound = true;
      sizes.shortfalls = [{ code, count: 1, example: rel || "." }];
    } else {
      for (const k of node.children ?? []) {
        const kp = `${path}/${k.name}`;
        if (k.kind === "folder") {
          const sub = this.count(k, kp, rel ? `${rel}/${k.name}` : k.name, level + 1, reported, byApparent, out);
          sizes.diskUsage += sub.diskUsage;
          sizes.apparent += sub.apparent;
          sizes.files += sub.files;
          sizes.folders += sub.folders + 1;
          if (sub.isLowerBound) {
            sizes.isLowerBound = true;
            sizes.shortfalls = [...(sizes.shortfalls ?? []), ...(sub.shortfalls ?? [])];
          }
          kids.push({ name: k.name, handle: kp, kind: k.kind, diskUsage: sub.diskUsage, apparent: sub.apparent, items: 1 + sub.files + sub.folders, isLowerBound: sub.isLowerBound });
        } else {
          const apparent = k.size ?? 0;
          const disk = k.disk ?? apparent;
          sizes.diskUsage += disk;
          sizes.apparent += apparent;
          sizes.files += 1;
          kids.push({ name: k.name, handle: kp, kind: k.kind, diskUsage: disk, apparent, items: 1, isLowerBound: false });
        }
      }
    }
    if (reported(path, level)) {
      const by = (c: ChildSize) => (byApparent ? c.apparent : c.diskUsage);
      kids.sort((a, b) => by(b) - by(a));
      const largest = kids.slice(0, SIZES_LARGEST);
      const rest = kids.slice(SIZES_LARGEST);
      out.push({
        handle: path,
        path: rel,
        depth: level,
        sizes,
        done: true,
        largest,
        ...(rest.length ? { others: { count: rest.length, diskUsage: rest.reduce((n, c) => n + c.diskUsage, 0), apparent: rest.reduce((n, c) => n + c.apparent, 0) } } : {}),
      });
    }
    return sizes;
  }
}

/** The children a finished report names (the engine's number). */
const SIZES_LARGEST = 10;

// The fields each request may have, as the engine's `deny_unknown_fields` has them.
const LIST_REQUEST_FIELDS: readonly (keyof ListRequest)[] = ["root", "settings", "offset", "after", "requestId"];
const SIZES_REQUEST_FIELDS: readonly (keyof SizesRequest)[] = ["requestId", "root", "depth", "folders", "byApparent"];
const LOCATE_REQUEST_FIELDS: readonly (keyof LocateRequest)[] = ["folder", "prefix", "settings"];
const SETTINGS_FIELDS: readonly (keyof ListSettings)[] = ["depth", "cap", "limit", "showDotfiles", "sort", "reverse", "filter", "hideIgnored"];

/** Refuses `value` with INVALID_ARGUMENT, as the engine does, when it has a field not in `known`. */
function refuseUnknown(value: object, known: readonly string[], what: string): void {
  const unknown = Object.keys(value).filter((k) => !known.includes(k));
  if (unknown.length) throw new BackendError("INVALID_ARGUMENT", `${what}: unknown field ${unknown.join(", ")}`);
}

function unread(): Folder {
  return {
    total: null,
    childrenLoaded: false,
    offset: 0,
    entries: [],
    unlisted: { folders: 0, files: 0, other: 0 },
    kinds: { folders: 0, files: 0, other: 0 },
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
