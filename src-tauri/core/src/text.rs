//! `canopy-list`'s text mode: one line per entry, rendered from the same
//! [`Listing`] the UI receives.
//!
//! Every name and link target is escaped (see [`crate::names::escape_for_line`])
//! so no name can forge a line, and guarded (see
//! [`crate::names::guard_line_field`]) so ` -> ` and the link notes only come
//! from Canopy: each line parses back to exactly one entry. The grammar is in
//! the README; the tags and the `[WARNING]` wording are a contract with scripts.
//! No line is longer than `LIST_LINE_BYTES`: a path or target longer than
//! `LINE_FIELD_BYTES` is cut in its middle, `\cut{N}` saying how many bytes
//! of it were left out (see [`crate::names::cut_line_field`]).
//!
//! Besides entries: a filtered listing starts with `[MATCH]`; after a
//! folder's last descendant come its `[WARNING]`, then `[REST]` (what the
//! hidden entries are, when counted) and `[IGNORED]` (entries the ignore
//! rules hid); the root's come last. Without a filter, a count of the rest
//! or hidden ignored entries, none of these three is printed.
//! With sizes (`--sizes`), a folder's line ends with its size, ` (1.52 GiB)`
//! or ` (≥ 1.52 GiB)` for a lower bound (a name ending like that is
//! harmless: the size is read from the line's end, and every folder line
//! has one), and the listed folder's is the first line, `[SIZE] LABEL (…)`.
//! Below a lower bound's line (and its error line) come its reasons, one
//! `[LOWER BOUND] CODE in N folder(s), e.g. PATH` line each.
//! [`partial_order_line`] is for front ends that say a folder's order is
//! partial (`canopy-mcp`); `canopy-list` does not print it.
#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::io::{self, Write};

use crate::limits::LINE_FIELD_BYTES;
use crate::names::{
    cut_line_field, escape_for_line, guard_line_field, NamePart, LINK_NOTES, SIZE_UNITS,
};
use crate::rest::RestGroup;
use crate::wire::{Entry, EntryKind, Folder, FolderSizes, LinkTarget, Listing};

/// The escaped one-line form of an entry's name, built from its wire parts
/// (equal to `escape_for_line` of the raw bytes).
pub fn line_name(name: &str, parts: Option<&[NamePart]>) -> String {
    let mut out = String::with_capacity(name.len());
    push_line_name(&mut out, name, parts);
    out
}

fn push_escaped_text(out: &mut String, text: &str) {
    for piece in text.split_inclusive('\\') {
        out.push_str(piece);
        if piece.ends_with('\\') {
            out.push('\\');
        }
    }
}

fn push_line_name(out: &mut String, name: &str, parts: Option<&[NamePart]>) {
    let start = out.len();
    match parts {
        None => push_escaped_text(out, name),
        Some(parts) => {
            for p in parts {
                match p {
                    NamePart::Text(t) => push_escaped_text(out, t),
                    NamePart::Escape(e) => out.push_str(e),
                }
            }
        }
    }
    guard_line_field(out, start);
}

/// An escaped field as a line shows it: cut to `LINE_FIELD_BYTES`.
fn cut(field: &str) -> Cow<'_, str> {
    cut_line_field(field, LINE_FIELD_BYTES)
}

/// Which of a folder's sizes the text prints (when the listing carries them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Measure {
    /// Blocks allocated (`du`'s default).
    #[default]
    DiskUsage,
    /// `st_size` summed (`du -b`, `--apparent`).
    Apparent,
}

/// Writes the listing as text.
///
/// # Errors
/// The writer's error (e.g. a closed pipe).
pub fn write_text(listing: &Listing, out: &mut impl Write) -> io::Result<()> {
    write_text_measured(listing, Measure::DiskUsage, out)
}

/// Writes the listing as text; folders that carry sizes (`--sizes`) print
/// `measure` of them after their path, the listed folder's on a `[SIZE]`
/// line first.
///
/// # Errors
/// The writer's error (e.g. a closed pipe).
pub fn write_text_measured(
    listing: &Listing,
    measure: Measure,
    out: &mut impl Write,
) -> io::Result<()> {
    let root = &listing.root;
    let label = line_name(&root.name, root.name_parts.as_deref());
    if let Some(sizes) = root.folder.as_ref().and_then(|f| f.sizes.as_ref()) {
        writeln!(out, "[SIZE] {}{}", cut(&label), size_suffix(sizes, measure))?;
        for line in lower_bound_lines(sizes) {
            writeln!(out, "{line}")?;
        }
    }
    if let Some(line) = match_line(listing, &label) {
        writeln!(out, "{line}")?;
    }
    if let Some(err) = &root.error {
        writeln!(out, "[{}] {}", err.code, cut(&label))?;
    }
    if let Some(folder) = &root.folder {
        write_folder(folder, &mut String::new(), &label, measure, out)?;
    }
    Ok(())
}

/// A count of bytes for people: `512 B`, `1.52 GiB` (binary units, two
/// decimals, rounded down so a lower bound never reads as more than it is).
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: &[&str] = SIZE_UNITS.split_at(1).1;
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut unit = 0;
    let mut scale: u128 = 1024;
    while unit + 1 < UNITS.len() && u128::from(bytes) >= scale * 1024 {
        scale *= 1024;
        unit += 1;
    }
    let hundredths = u128::from(bytes) * 100 / scale;
    format!(
        "{}.{:02} {}",
        hundredths / 100,
        hundredths % 100,
        UNITS[unit]
    )
}

/// ` (1.52 GiB)`, ` (≥ 1.52 GiB)` for a lower bound, or ` (another disk)`
/// for a mount point that was not entered.
pub fn size_suffix(sizes: &FolderSizes, measure: Measure) -> String {
    if sizes.other_disk {
        return " (another disk)".into();
    }
    let bytes = match measure {
        Measure::DiskUsage => sizes.disk_usage,
        Measure::Apparent => sizes.apparent,
    };
    let least = if sizes.is_lower_bound { "≥ " } else { "" };
    format!(" ({least}{})", human_bytes(bytes))
}

/// The `[MATCH]` line (without its line break) of a filtered listing whose
/// root prints as `label`: `[MATCH] LABEL: M of N entries match "PATTERN"`,
/// the pattern escaped like names and holding no raw quote (the line reads
/// back from its end); `None` without a filter.
pub fn match_line(listing: &Listing, label: &str) -> Option<String> {
    let (filter, folder) = (
        listing.settings.filter.as_deref()?,
        listing.root.folder.as_deref()?,
    );
    let (matched, of) = (
        folder.total.unwrap_or(0),
        folder.unfiltered_total.unwrap_or(0),
    );
    let least = if folder.count_is_lower_bound {
        "at least "
    } else {
        ""
    };
    let pattern = escape_for_line(filter.as_bytes()).replace('"', "\\u{22}");
    let (label, pattern) = (cut(label), cut(&pattern));
    Some(format!(
        "[MATCH] {label}: {least}{matched} of {least}{of} entries match \"{pattern}\""
    ))
}

/// The `[PARTIAL_ORDER]` line (without its line break) of a folder whose
/// entries are the best of those placed, not of the whole folder:
/// `[PARTIAL_ORDER] LABEL: order is partial: C of T checked` under the size
/// and modified orders (the other entries sort after them, unread), or
/// `... order is partial: not every entry was read in time`; `None` when the
/// order is whole.
pub fn partial_order_line(label: &str, folder: &Folder) -> Option<String> {
    if !folder.partial_order {
        return None;
    }
    let label = cut(label);
    let total = folder.total.unwrap_or(0);
    Some(match folder.checked {
        Some(checked) => {
            format!("[PARTIAL_ORDER] {label}: order is partial: {checked} of {total} checked")
        }
        None => {
            format!("[PARTIAL_ORDER] {label}: order is partial: not every entry was read in time")
        }
    })
}

/// The tag that starts an entry's line, e.g. `[DIR] `.
pub fn tag(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::Folder => "[DIR] ",
        EntryKind::File => "[FILE] ",
        EntryKind::Symlink => "[LINK] ",
        EntryKind::Fifo => "[FIFO] ",
        EntryKind::Socket => "[SOCKET] ",
        EntryKind::CharDevice => "[CHAR_DEVICE] ",
        EntryKind::BlockDevice => "[BLOCK_DEVICE] ",
        EntryKind::Unknown => "[UNKNOWN] ",
    }
}

/// Writes one entry's own lines: `[KIND] path` (with ` -> target` and its
/// note for a link), then `[CODE] path` when the entry carries an error.
/// `path` is the entry's escaped path relative to the listed folder (see
/// [`line_name`]); the entry's contents are not written.
///
/// # Errors
/// The writer's error.
pub fn write_entry(e: &Entry, path: &str, out: &mut impl Write) -> io::Result<()> {
    write_entry_measured(e, path, Measure::DiskUsage, out)
}

/// [`write_entry`], with a folder's size (when it carries one) after its
/// path: `[DIR] photos (1.52 GiB)`.
///
/// # Errors
/// The writer's error.
pub fn write_entry_measured(
    e: &Entry,
    path: &str,
    measure: Measure,
    out: &mut impl Write,
) -> io::Result<()> {
    // An archive is a file Canopy opens like a folder: it has a tag of its own.
    out.write_all(if e.archive.is_some() {
        b"[ARCHIVE] "
    } else {
        tag(e.kind).as_bytes()
    })?;
    let path = cut(path);
    out.write_all(path.as_bytes())?;
    if let Some(link) = &e.link {
        let note = match link.points_to {
            LinkTarget::Dangling => LINK_NOTES[0],
            LinkTarget::Loop => LINK_NOTES[1],
            LinkTarget::Unknown => LINK_NOTES[2],
            LinkTarget::Outside => LINK_NOTES[3],
            LinkTarget::Folder | LinkTarget::File | LinkTarget::Other => "",
        };
        let target = line_name(&link.target, link.target_parts.as_deref());
        write!(out, " -> {}{note}", cut(&target))?;
    } else if e.kind == EntryKind::Symlink {
        // Seen as a link, but its target could not be read (it was swapped
        // for a folder meanwhile; the error line follows): an empty target,
        // which no real link has, so the line keeps its one ` -> `.
        write!(out, " -> {}", LINK_NOTES[2])?;
    }
    if let Some(sizes) = e.folder.as_ref().and_then(|f| f.sizes.as_ref()) {
        out.write_all(size_suffix(sizes, measure).as_bytes())?;
    }
    out.write_all(b"\n")?;
    if let Some(err) = &e.error {
        writeln!(out, "[{}] {path}", err.code)?;
    }
    if let Some(sizes) = e.folder.as_ref().and_then(|f| f.sizes.as_ref()) {
        for line in lower_bound_lines(sizes) {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// Why a folder's size is a lower bound, one line (without its line break)
/// per reason: `[LOWER BOUND] DENIED in 2 folder(s), e.g. top/secret`, the
/// example's path relative to the listed folder (`.` for itself) and read
/// to the line's end. None for an exact size.
pub fn lower_bound_lines(sizes: &FolderSizes) -> Vec<String> {
    sizes
        .shortfalls
        .iter()
        .map(|s| {
            let mut line = format!("[LOWER BOUND] {} in {} folder(s), e.g. ", s.code, s.count);
            let start = line.len();
            // The engine's example is escaped as names are; guarded here
            // as a path on a line is (` -> ` only on a link line).
            line.push_str(if s.example.is_empty() {
                "."
            } else {
                &s.example
            });
            guard_line_field(&mut line, start);
            let example = cut(&line[start..]).into_owned();
            line.truncate(start);
            line.push_str(&example);
            line
        })
        .collect()
}

/// The `[WARNING]` line (without its line break) for a folder of `total`
/// entries of which `shown` were shown from position `offset`; `None` when
/// nothing is hidden. `lower_bound`: the read stopped early, `total` is at
/// least that many. `label` is the folder's escaped path (its name for the
/// listed folder).
pub fn warning_line(
    label: &str,
    offset: u64,
    shown: u64,
    total: u64,
    lower_bound: bool,
) -> Option<String> {
    let hidden = total.saturating_sub(shown);
    let past_end = offset > 0 && offset >= total;
    if hidden == 0 && !lower_bound && !past_end {
        return None;
    }
    let of = if lower_bound { "of at least" } else { "of" };
    let label = cut(label);
    Some(if shown == 0 && past_end {
        let least = if lower_bound { "at least " } else { "" };
        format!("[WARNING] {label}: {hidden} items hidden (offset {offset} is past the end of {least}{total} total)")
    } else if offset == 0 {
        format!(
            "[WARNING] {label}: {hidden} items hidden (showing first {shown} {of} {total} total)"
        )
    } else {
        let (first, last) = (offset + 1, offset + shown);
        format!(
            "[WARNING] {label}: {hidden} items hidden (showing {first}-{last} {of} {total} total)"
        )
    })
}

/// Writes a folder's lines; `path` holds the folder's relative path plus `/`
/// (empty for the root) and is restored before returning.
fn write_folder(
    folder: &Folder,
    path: &mut String,
    label: &str,
    measure: Measure,
    out: &mut impl Write,
) -> io::Result<()> {
    let base = path.len();
    for e in &folder.entries {
        push_line_name(path, &e.name, e.name_parts.as_deref());
        write_entry_measured(e, path, measure, out)?;
        if let Some(sub) = &e.folder {
            if sub.children_loaded {
                let label = path.clone();
                path.push('/');
                write_folder(sub, path, &label, measure, out)?;
            }
        }
        path.truncate(base);
    }
    if let Some(total) = folder.total {
        let shown = folder.entries.len() as u64;
        if let Some(line) = warning_line(
            label,
            folder.offset,
            shown,
            total,
            folder.count_is_lower_bound,
        ) {
            writeln!(out, "{line}")?;
            if !folder.rest.is_empty() {
                let groups: Vec<String> = folder.rest.iter().map(RestGroup::label).collect();
                writeln!(out, "[REST] {}: {}", cut(label), groups.join(", "))?;
            }
        }
    }
    if let Some(line) = ignored_line(label, folder) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// `[IGNORED] label: N items hidden by ignore rules` for a folder that hid
/// ignored (or excluded) entries, without a line break; `None` otherwise.
pub fn ignored_line(label: &str, folder: &Folder) -> Option<String> {
    (folder.ignored_hidden > 0).then(|| {
        format!(
            "[IGNORED] {}: {} items hidden by ignore rules",
            cut(label),
            folder.ignored_hidden
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_binary_units_rounded_down() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1024), "1.00 KiB");
        assert_eq!(
            human_bytes(1024 * 1024 - 1),
            "1023.99 KiB",
            "never rounded up to the next unit"
        );
        assert_eq!(human_bytes(1_632_087_572), "1.51 GiB");
        assert_eq!(human_bytes(u64::MAX), "15.99 EiB");
        let lower = FolderSizes {
            disk_usage: 4096,
            is_lower_bound: true,
            ..FolderSizes::default()
        };
        assert_eq!(size_suffix(&lower, Measure::DiskUsage), " (≥ 4.00 KiB)");
        assert_eq!(size_suffix(&lower, Measure::Apparent), " (≥ 0 B)");
        for bytes in [0, 5, 1024, 123_456_789, u64::MAX] {
            let text = format!("name ({})", human_bytes(bytes));
            assert!(
                crate::names::size_suffix_at(&text).is_some(),
                "what the text prints is what a name may not end with: {text}"
            );
        }
    }
    use crate::{list, CanopyError, ErrorCode, ListCall, ListSettings, LocalFs};

    #[test]
    fn a_link_whose_target_could_not_be_read_keeps_its_one_arrow() {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("elsewhere", dir.path().join("x")).unwrap();
        let listing = list(
            &LocalFs::new(),
            dir.path(),
            &ListSettings::default(),
            &ListCall::default(),
        )
        .unwrap();
        let mut e = listing.root.folder.unwrap().entries.remove(0);
        // What a rename between the entry's lstat and its readlink leaves.
        e.link = None;
        e.error = Some(CanopyError::new(
            ErrorCode::Io,
            "the link changed while it was read",
        ));
        let mut out = Vec::new();
        write_entry(&e, "x", &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text, "[LINK] x ->  (unchecked)\n[IO] x\n",
            "the link line holds ` -> ` once, the error its own line"
        );
    }
}
