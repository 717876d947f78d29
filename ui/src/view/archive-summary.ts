// An archive's summary in the preview pane: its format, what its index
// holds (entries by kind), the total size it claims uncompressed against
// its own size, what is encrypted or unsafely named, its comment (as text)
// and why its index stops short, if it does. Every number is the engine's
// (`ArchiveSummary`); the words are here.

import type { ArchiveFormat } from "../bindings/ArchiveFormat";
import type { ArchiveSummary } from "../bindings/ArchiveSummary";
import { sentenceAlone } from "../errors";
import { el } from "./dom";
import { formatCount, formatSize, plural } from "./format";

const FORMAT_NAMES: Record<ArchiveFormat, string> = {
  zip: "ZIP",
  tar: "tar",
  tarGz: "tar, gzip-compressed",
  tarBz2: "tar, bzip2-compressed",
  tarXz: "tar, xz-compressed",
  tarZst: "tar, Zstandard-compressed",
};

/** "ZIP", "tar, gzip-compressed"... */
export function formatName(format: ArchiveFormat): string {
  return FORMAT_NAMES[format] ?? format;
}

/** What the row and the preview's facts call an archive: "ZIP archive". */
export function archiveLabel(format: ArchiveFormat): string {
  return format === "zip" ? "ZIP archive" : `${formatName(format)} archive`;
}

/** Uncompressed to compressed, for people: "1,028 : 1", "3.4 : 1"; null when the archive file is empty. */
export function ratioText(size: number, archiveSize: number): string | null {
  if (archiveSize <= 0) return null;
  const r = size / archiveSize;
  return `${r < 10 ? r.toFixed(1) : formatCount(Math.round(r))} : 1`;
}

/** The summary as (label, text) pairs, in the order shown; the comment is its own block (see `archiveSummary`). */
export function archiveFacts(s: ArchiveSummary): Array<[string, string]> {
  const facts: Array<[string, string]> = [["Format", formatName(s.format)]];
  const kinds = [plural(s.files, "file", "files"), plural(s.folders, "folder", "folders")];
  if (s.links) kinds.push(plural(s.links, "link", "links"));
  // The records of its directory; what they hold counts a folder only named in paths too.
  facts.push(["Entries", `${formatCount(s.entries)} in its directory`]);
  facts.push(["Holds", kinds.join(", ")]);
  if (s.claimedEntries !== undefined && s.claimedEntries !== s.entries) {
    facts.push(["Claimed", `its directory's end says ${plural(s.claimedEntries, "entry", "entries")}`]);
  }
  facts.push(["Uncompressed", `${formatSize(s.size)} in total, as the archive claims`]);
  facts.push(["Archive size", formatSize(s.archiveSize)]);
  const ratio = ratioText(s.size, s.archiveSize);
  if (ratio) facts.push(["Ratio", `${ratio} (uncompressed : archive)`]);
  if (s.readBytes !== undefined) facts.push(["Read", `${formatSize(s.readBytes)} decompressed to index it`]);
  if (s.encrypted) facts.push(["Encrypted", `${plural(s.encrypted, "entry", "entries")}: names listed, content encrypted`]);
  if (s.unsafeNames) {
    facts.push(["Unsafe names", `${plural(s.unsafeNames, "entry", "entries")} whose name would reach outside the archive: listed as written, never opened`]);
  }
  return facts;
}

/** The summary's elements: the facts, the comment as text, and the problem, if any. */
export function archiveSummary(s: ArchiveSummary): HTMLElement {
  const facts = el("dl", { class: "facts archive-facts" });
  for (const [k, v] of archiveFacts(s)) facts.append(el("dt", {}, k), el("dd", {}, v));
  const out = el("div", { class: "archive-summary" }, facts);
  if (s.comment !== undefined && s.comment !== "") {
    out.append(el("h3", { class: "archive-comment-title" }, "Comment"), el("pre", { class: "archive-comment" }, s.comment));
  }
  if (s.problem) {
    out.append(
      el(
        "p",
        { class: "preview-error", role: "alert", "data-code": s.problem.code },
        `The index stops short. ${sentenceAlone(s.problem.code)}`,
        el("span", { class: "error-detail" }, ` (${s.problem.message})`),
        " ",
        el("code", { class: "error-code" }, s.problem.code),
      ),
    );
  }
  return out;
}
