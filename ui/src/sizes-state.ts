// Folder sizes as the window remembers them: pure functions, state in,
// state out. The engine counts (`folder_sizes`: every figure, whether it is
// a lower bound and why, the largest children and their order); this module
// only remembers what arrived, per folder handle, for the session.
//
// Promises:
// - one computation runs at a time (`run`); a report of another request
//   (an older one, or one arriving after its reply) changes nothing;
// - a folder's partial figure (counting) never replaces its finished one
//   of the same computation;
// - a computation that is stopped (Esc, leaving the folder) keeps what it
//   had counted; a folder it had not finished gets back its earlier
//   finished figure, if any, else keeps its partial one marked `stopped`
//   (a lower bound);
// - a figure is `stale` once live refresh saw a change in or below its
//   folder; a new computation's figure replaces it;
// - the measure (disk usage or apparent size) is a choice of display: every
//   report carries both;
// - at most SIZES_REMEMBERED_MAX folders' figures are kept: the ones counted
//   longest ago are forgotten first.

import type { ErrorCode } from "./bindings/ErrorCode";
import type { ChildSize, FolderSizeReport, SizesProgress, SizesReport } from "./sizes-wire";
import type { Arrange, FolderState, TreeNode } from "./tree-state";
import { SIZES_REMEMBERED_MAX } from "./limits";

/** Which figure is shown: allocated blocks (as `du`), or the sum of file sizes (`du -b`). */
export type SizeMeasure = "diskUsage" | "apparent";

export interface SizeRecord {
  readonly report: FolderSizeReport;
  /** The computation that sent it. */
  readonly requestId: number;
  /** Its `largest` are ordered by apparent size (else by disk usage). */
  readonly byApparent: boolean;
  /** Live refresh saw a change in or below the folder since it was counted. */
  readonly stale: boolean;
  /** Its computation was stopped before this folder was done. */
  readonly stopped: boolean;
  /** While a newer count has not finished the folder: the finished figure of an earlier one, restored if that count is stopped. */
  readonly previous: SizeRecord | null;
}

export interface SizesRun {
  readonly requestId: number;
  /** The folder whose subtree is being counted. */
  readonly root: string;
  readonly byApparent: boolean;
  /** Entries counted so far, as the engine last said. */
  readonly entries: number;
}

export interface SizesState {
  readonly records: ReadonlyMap<string, SizeRecord>;
  readonly measure: SizeMeasure;
  readonly run: SizesRun | null;
  /** Under the size order, folders sort among files by their counted size. */
  readonly foldersBySize: boolean;
  /** How the last computation ended short (BUDGET: the request's budget), if it did. */
  readonly lastCut: { readonly root: string; readonly code: ErrorCode } | null;
}

export function emptySizes(): SizesState {
  return { records: new Map(), measure: "diskUsage", run: null, foldersBySize: false, lastCut: null };
}

/** The figure of `sizes` (a folder's or a child's) under `measure`. */
export function measured(sizes: { diskUsage: number; apparent: number }, measure: SizeMeasure): number {
  return measure === "apparent" ? sizes.apparent : sizes.diskUsage;
}

/** Request `requestId` starts counting below `root`; it supersedes the run before. */
export function startRun(s: SizesState, requestId: number, root: string, byApparent: boolean): SizesState {
  return { ...s, run: { requestId, root, byApparent, entries: 0 }, lastCut: null };
}

function put(records: Map<string, SizeRecord>, run: SizesRun, report: FolderSizeReport): void {
  const old = records.get(report.handle);
  if (old && old.requestId === run.requestId && old.report.done && !report.done) return;
  const earlier = !old ? null : old.requestId !== run.requestId && old.report.done && !old.stopped ? old : old.previous;
  // Last counted, last in the map: the oldest figures are forgotten first.
  records.delete(report.handle);
  records.set(report.handle, { report, requestId: run.requestId, byApparent: run.byApparent, stale: false, stopped: false, previous: report.done ? null : earlier });
}

/** Forgets the figures counted longest ago beyond SIZES_REMEMBERED_MAX folders. */
function trim(records: Map<string, SizeRecord>): Map<string, SizeRecord> {
  for (const h of records.keys()) {
    if (records.size <= SIZES_REMEMBERED_MAX) break;
    records.delete(h);
  }
  return records;
}

/** Partial and finished figures while the run counts. */
export function applyProgress(s: SizesState, p: SizesProgress): SizesState {
  const run = s.run;
  if (!run || p.requestId !== run.requestId) return s;
  const records = new Map(s.records);
  for (const report of p.folders) put(records, run, report);
  return { ...s, records: trim(records), run: { ...run, entries: p.entries } };
}

/** The run's reply: every reported folder's finished figure; the run ends. */
export function finishRun(s: SizesState, r: SizesReport): SizesState {
  const run = s.run;
  if (!run || r.requestId !== run.requestId) return s;
  const records = new Map(s.records);
  for (const report of [r.root, ...r.folders]) put(records, run, report);
  return { ...s, records: trim(records), run: null, lastCut: r.budgetCut ? { root: run.root, code: r.budgetCut } : null };
}

/**
 * The run `requestId` stopped (cancelled or failed): a folder it had not
 * finished gets back the finished figure of an earlier count, if it had
 * one; else its partial figure stays, marked stopped.
 */
export function stopRun(s: SizesState, requestId: number): SizesState {
  if (!s.run || s.run.requestId !== requestId) return s;
  const records = new Map(s.records);
  for (const [h, rec] of records) if (rec.requestId === requestId && !rec.report.done) records.set(h, rec.previous ?? { ...rec, stopped: true });
  return { ...s, records, run: null };
}

/** Live refresh saw a change in these folders (each given with its ancestors): their figures are stale. */
export function markStale(s: SizesState, handles: Iterable<string>): SizesState {
  let records: Map<string, SizeRecord> | null = null;
  for (const h of handles) {
    const rec = (records ?? s.records).get(h);
    if (!rec || rec.stale) continue;
    // A folder the running computation has not finished is being counted now.
    if (s.run && rec.requestId === s.run.requestId && !rec.report.done) continue;
    records ??= new Map(s.records);
    records.set(h, { ...rec, stale: true });
  }
  return records ? { ...s, records } : s;
}

export function setMeasure(s: SizesState, measure: SizeMeasure): SizesState {
  return s.measure === measure ? s : { ...s, measure };
}

export function setFoldersBySize(s: SizesState, on: boolean): SizesState {
  return s.foldersBySize === on ? s : { ...s, foldersBySize: on };
}

/** Whether a figure is at least what it says, not exactly: not finished, stopped, or something below unread. */
export function isLowerBound(rec: SizeRecord): boolean {
  return rec.stopped || !rec.report.done || rec.report.sizes.isLowerBound;
}

/** A child's share of its folder under `measure`, in [0, 1] (0 when the folder counts nothing). */
export function shareOf(part: number, whole: number): number {
  if (!(whole > 0) || !(part > 0)) return 0;
  return Math.min(1, part / whole);
}

/** The figure the parent's finished report gives for its child `handle` (one of its largest), if any. */
export function childFigure(parent: SizeRecord | undefined, handle: string): ChildSize | null {
  return parent?.report.largest?.find((c) => c.handle === handle) ?? null;
}

/**
 * "Folders by size" under the Size order: a folder's entries with its
 * counted folders placed among the files by their figure (the engine's
 * size order keeps folders first, by name: it lists before anything is
 * counted). A file's figure is the one its folder's report names among the
 * largest, else its length; a folder not counted keeps its place at the
 * top. Ties keep the engine's order. Null (the engine's order) when no
 * folder of it is counted.
 */
export function arrangeBySize(s: SizesState, reverse: boolean): Arrange {
  return (f: FolderState) => {
    const parent = s.records.get(f.handle);
    const nodes = f.chunks.flatMap((c) => c.nodes);
    const figure = (n: TreeNode): number | null => {
      if (n.entry.kind === "folder") {
        const rec = s.records.get(n.entry.handle);
        return rec ? measured(rec.report.sizes, s.measure) : null;
      }
      const named = childFigure(parent, n.entry.handle);
      return named ? measured(named, s.measure) : (n.entry.size ?? 0);
    };
    const figures = nodes.map(figure);
    if (!nodes.some((n, i) => n.entry.kind === "folder" && figures[i] !== null)) return null;
    const order = nodes.map((_, i) => i);
    order.sort((a, b) => {
      const fa = figures[a]!;
      const fb = figures[b]!;
      // Folders not counted first, in the engine's order.
      if (fa === null || fb === null) return fa === null && fb === null ? a - b : fa === null ? -1 : 1;
      return (reverse ? fb - fa : fa - fb) || a - b;
    });
    return order.map((i) => nodes[i]!);
  };
}
