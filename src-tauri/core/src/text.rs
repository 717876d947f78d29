//! `canopy-list`'s text mode: one line per entry, rendered from the same
//! [`Listing`] the UI receives.
//!
//! Every name and link target is escaped (see [`crate::names::escape_for_line`])
//! so no name can forge a line; the tags and the `[WARNING]` wording are a
//! contract with scripts and stay exactly as they are.

use std::io::{self, Write};

use crate::names::NamePart;
use crate::wire::{Entry, EntryKind, Folder, LinkTarget, Listing};

/// The escaped one-line form of an entry's name, built from its wire parts
/// (equal to `escape_for_line` of the raw bytes).
pub fn line_name(name: &str, parts: Option<&[NamePart]>) -> String {
    match parts {
        None => name.replace('\\', "\\\\"),
        Some(parts) => parts
            .iter()
            .map(|p| match p {
                NamePart::Text(t) => t.replace('\\', "\\\\"),
                NamePart::Escape(e) => e.clone(),
            })
            .collect(),
    }
}

fn entry_line_name(e: &Entry) -> String {
    line_name(&e.name, e.name_parts.as_deref())
}

/// Writes the listing as text.
///
/// # Errors
/// The writer's error (e.g. a closed pipe).
pub fn write_text(listing: &Listing, out: &mut dyn Write) -> io::Result<()> {
    let root = &listing.root;
    let label = entry_line_name(root);
    if let Some(err) = &root.error {
        writeln!(out, "[{}] {label}", err.code)?;
    }
    if let Some(folder) = &root.folder {
        write_folder(folder, "", &label, out)?;
    }
    Ok(())
}

fn tag(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::Folder => "[DIR]",
        EntryKind::File => "[FILE]",
        EntryKind::Symlink => "[LINK]",
        EntryKind::Unknown => "[UNKNOWN]",
        EntryKind::Fifo | EntryKind::Socket | EntryKind::CharDevice | EntryKind::BlockDevice => "[SPECIAL]",
    }
}

fn write_folder(folder: &Folder, prefix: &str, label: &str, out: &mut dyn Write) -> io::Result<()> {
    for e in &folder.entries {
        let path = format!("{prefix}{}", entry_line_name(e));
        match &e.link {
            Some(link) => {
                let target = line_name(&link.target, link.target_parts.as_deref());
                let note = match link.points_to {
                    LinkTarget::Dangling => " (dangling)",
                    LinkTarget::Loop => " (loop)",
                    _ => "",
                };
                writeln!(out, "{} {path} -> {target}{note}", tag(e.kind))?;
            }
            None => writeln!(out, "{} {path}", tag(e.kind))?,
        }
        if let Some(err) = &e.error {
            writeln!(out, "[{}] {path}", err.code)?;
        }
        if let Some(sub) = &e.folder {
            if sub.children_loaded {
                write_folder(sub, &format!("{path}/"), &path, out)?;
            }
        }
    }
    if let Some(total) = folder.total {
        let shown = folder.entries.len() as u64;
        let hidden = total.saturating_sub(shown);
        if hidden > 0 || folder.count_is_lower_bound {
            let of = if folder.count_is_lower_bound { "of at least" } else { "of" };
            if folder.offset == 0 {
                writeln!(out, "[WARNING] {label}: {hidden} items hidden (showing first {shown} {of} {total} total)")?;
            } else {
                let first = folder.offset + 1;
                let last = folder.offset + shown;
                writeln!(out, "[WARNING] {label}: {hidden} items hidden (showing {first}-{last} {of} {total} total)")?;
            }
        }
    }
    Ok(())
}
