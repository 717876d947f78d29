// Folder sizes in words: the Size cell's text ("≥ 1.2 GiB" while counting or
// when something below could not be read, then "1.2 GiB"), and why a figure
// is a lower bound, for its hover. Every figure and reason is the engine's
// (`FolderSizes`); the words are here.

import { sentenceFor } from "../errors";
import { childFigure, isLowerBound, measured, shareOf, type SizeMeasure, type SizeRecord, type SizesState } from "../sizes-state";
import { formatCount, formatSize, plural } from "./format";

export const AT_LEAST = "≥ ";

export function measureName(m: SizeMeasure): string {
  return m === "apparent" ? "apparent size" : "disk usage";
}

/** "≥ 1.2 GiB" or "1.2 GiB". */
export function sizeText(rec: SizeRecord, measure: SizeMeasure): string {
  return `${isLowerBound(rec) ? AT_LEAST : ""}${formatSize(measured(rec.report.sizes, measure))}`;
}

/**
 * What a figure is and, for a lower bound, why: "counting…", "counting was
 * stopped", each reason the engine gave ("2 folders could not be read: you
 * do not have permission to read this (e.g. a/locked)"), another disk, stale.
 */
export function sizeTitle(rec: SizeRecord, measure: SizeMeasure): string {
  const s = rec.report.sizes;
  const lines = [`${formatSize(measured(s, measure))} (${formatCount(measured(s, measure))} bytes) ${measureName(measure)}; ${plural(s.files, "file", "files")} and ${plural(s.folders, "folder", "folders")} below`];
  if (!rec.report.done && !rec.stopped) lines.push("At least this much: still counting.");
  if (rec.stopped) lines.push("At least this much: counting was stopped before this folder was done.");
  for (const f of s.shortfalls ?? []) {
    const where = f.example ? ` (e.g. ${f.example})` : "";
    lines.push(`At least this much: ${plural(f.count, "folder", "folders")} ${f.code === "CANCELLED" ? "not counted: counting was stopped" : `not counted in full: ${sentenceFor(f.code)}`} [${f.code}]${where}.`);
  }
  if (s.isLowerBound && rec.report.done && !(s.shortfalls?.length)) lines.push("At least this much: something below could not be counted.");
  if (s.otherDisk) lines.push("Another disk is mounted here: it is not entered nor counted (as du -x).");
  if (rec.stale) lines.push("Something in or below this folder changed since it was counted: Sizes again to count it anew.");
  return lines.join("\n");
}

/** "37%" (one decimal below 10%, "<0.1%" for a sliver, "0%" for nothing). */
export function shareText(share: number): string {
  if (share <= 0) return "0%";
  const pct = share * 100;
  if (pct < 0.1) return "<0.1%";
  return `${pct < 10 ? pct.toFixed(1) : Math.round(pct)}%`;
}

/** The toolbar's words for a run: "Counting… 12,345 entries". */
export function runText(entries: number): string {
  return `Counting… ${plural(entries, "entry", "entries")}`;
}

export { isLowerBound };

/** What a row's Size cell shows of folder sizes: its figure and its share of its folder's. */
export interface RowSize {
  /** A folder's counted figure; null for a file, whose cell keeps its length. */
  readonly text: string | null;
  readonly title: string;
  /** Still being counted: the figure grows. */
  readonly counting: boolean;
  readonly stale: boolean;
  /** Its share of the folder it is in, in [0, 1]; null when that folder has no figure. */
  readonly share: number | null;
  /** Changes whenever anything above does (the row is redrawn only then). */
  readonly key: string;
}

/**
 * The Size cell of the entry `handle` (a folder when `isFolder`) in the
 * folder `parent`: a folder's own counted figure; for a file its folder's
 * finished report names among the largest, its share and figure (the cell
 * keeps the file's length: a column of files' lengths stays one measure).
 * Null when nothing is known.
 */
export function rowSize(sizes: SizesState, handle: string, isFolder: boolean, parent: string): RowSize | null {
  const m = sizes.measure;
  const parentRec = sizes.records.get(parent);
  const own = isFolder ? sizes.records.get(handle) : undefined;
  let text: string | null;
  let title: string;
  let figure: number;
  let counting = false;
  let stale = false;
  if (own) {
    text = sizeText(own, m);
    title = sizeTitle(own, m);
    figure = measured(own.report.sizes, m);
    counting = !own.report.done && !own.stopped;
    stale = own.stale;
  } else {
    const child = childFigure(parentRec, handle);
    if (!child) return null;
    figure = measured(child, m);
    text = null;
    title = `${child.isLowerBound ? "at least " : ""}${formatSize(figure)} (${formatCount(figure)} bytes) ${measureName(m)}`;
    stale = parentRec!.stale;
  }
  const share = parentRec ? shareOf(figure, measured(parentRec.report.sizes, m)) : null;
  if (share !== null) title += `\n${shareText(share)} of its folder's ${measureName(m)}`;
  return { text, title, counting, stale, share, key: `${text}|${counting}|${stale}|${share}|${title}` };
}
