// What Find says about a search: found, looked through, left out, why it
// stopped. Every figure is the engine's (FindCounts, FindReport).

import type { FindState } from "../find-state";
import { formatCount, plural } from "./format";

/** "12 names · 38 files, 112 lines; 4,210 files searched · 30 hidden by Hide ignored", and how it ended. */
export function findSummary(s: FindState): string {
  if (s.error) return `Find failed: ${s.error.code}: ${s.error.message}`;
  const c = s.counts;
  if (!c) return s.running !== null ? "Finding…" : "";
  const found: string[] = [];
  if (c.names) found.push(plural(c.names, "name", "names"));
  if (s.contents && c.files) found.push(`${plural(c.files, "file", "files")}, ${plural(c.lines, "line", "lines")}`);
  const what = found.length ? found.join(" · ") : s.running !== null ? "nothing yet" : "nothing found";
  const parts = [`${what}; ${plural(c.searchedFiles, "file", "files")} searched`];
  if (c.ignored) parts.push(`${formatCount(c.ignored)} hidden by Hide ignored`);
  if (c.binary) parts.push(`${formatCount(c.binary)} binary skipped`);
  if (c.failed) parts.push(`${formatCount(c.failed)} could not be read`);
  const r = s.report;
  if (r?.more) parts.push(`the first ${formatCount(s.hits.length)} are shown`);
  if (r?.cut) parts.push(`stopped early: ${r.cut}`);
  const text = parts.join(" · ");
  if (s.running !== null) return `Finding… ${text}`;
  if (s.stopped) return `Stopped: ${text}`;
  return text.charAt(0).toUpperCase() + text.slice(1);
}
