// Find's state and its transitions: pure functions, state in, state out.
//
// One search at a time. Its hits arrive in the engine's order in progress
// messages and are appended as they come; a message or an answer for any
// other request (one superseded or stopped) is dropped, so a stale search
// never adds to the shown one. The counts are the engine's, as it last
// sent them; nothing here counts hits again.

import type { CanopyError } from "./bindings/CanopyError";
import type { FindCounts } from "./bindings/FindCounts";
import type { FindHit } from "./bindings/FindHit";
import type { FindProgress } from "./bindings/FindProgress";
import type { FindReport } from "./bindings/FindReport";

export interface FindState {
  /** The results region is shown. */
  readonly open: boolean;
  /** The request id of the search shown (0 for none): a view rebuilds its rows when it changes. */
  readonly search: number;
  /** What the shown results are for. */
  readonly text: string;
  readonly contents: boolean;
  /** The search running, if one is. */
  readonly running: number | null;
  readonly hits: readonly FindHit[];
  readonly counts: FindCounts | null;
  /** The engine's answer, once it came. */
  readonly report: FindReport | null;
  /** Stopped by the user (Esc, Stop) before its end. */
  readonly stopped: boolean;
  readonly error: CanopyError | null;
}

export const closedFind: FindState = {
  open: false,
  search: 0,
  text: "",
  contents: false,
  running: null,
  hits: [],
  counts: null,
  report: null,
  stopped: false,
  error: null,
};

/** A new search: the last one's results are gone. */
export function startFind(text: string, contents: boolean, requestId: number): FindState {
  return { ...closedFind, open: true, search: requestId, text, contents, running: requestId };
}

/** Hits and counts from the running search; anything else is dropped. */
export function addProgress(s: FindState, p: FindProgress): FindState {
  if (p.requestId !== s.running) return s;
  return { ...s, hits: p.hits.length ? [...s.hits, ...p.hits] : s.hits, counts: p.counts };
}

/** The running search answered. */
export function finishFind(s: FindState, requestId: number, report: FindReport): FindState {
  if (requestId !== s.running) return s;
  return { ...s, running: null, report, counts: report.counts };
}

/** The running search was stopped: what it found stays. */
export function stopFind(s: FindState): FindState {
  if (s.running === null) return s;
  return { ...s, running: null, stopped: true };
}

/** The running search failed. */
export function failFind(s: FindState, requestId: number, error: CanopyError): FindState {
  if (requestId !== s.running) return s;
  return { ...s, running: null, error };
}
