//! What "Open…" may hand to the system's default application: documents,
//! and exactly the file that was checked.
//!
//! The policy is an allowlist, [`OPENABLE`]: a file opens only when
//! - it is a regular file (opened as `file::open_regular` opens
//!   one: never a fifo or device) with no execute bit;
//! - its extension is in the table, and its content starts the way that
//!   extension's family must (magic bytes, or UTF-8 without NUL for text);
//! - its content carries no program, script or shortcut signature (`#!`, ELF,
//!   `MZ`, a Windows shortcut, a desktop entry, a Java class) whatever its name;
//! - a zip-based document holds no macro project (for OOXML, no part that
//!   `[Content_Types].xml` declares as VBA, macro-enabled, a macro sheet or
//!   ActiveX, whatever the part is called), and a zip no Java manifest;
//! - through a symlink, the file reached has an allowed name of the same row;
//! - the type the system reads from its content (`xdg-mime query filetype`,
//!   the type `xdg-open` goes by) belongs to the same family as its name, and
//!   is never PostScript, HTML, XHTML, SVG, XML, RTF or script
//!   ([`REFUSED_TYPES`]): a `notes.txt` that starts `%!PS` is not handed to a
//!   PostScript viewer;
//! - the application the system would start for it is not an interpreter,
//!   Wine, Java or a terminal emulator (see [`crate::default_app`]); without
//!   `xdg-mime` nothing can be vetted, so nothing opens.
//!
//! The opener is still handed a path, not the file checked: a file swapped
//! for another after the check is the one opened.
//!
//! Anything else is `NOT_OPENABLE`. What is deliberately *not* in the table,
//! and why:
//! - installers and launchers (`.desktop`, `.AppImage`, `.jar`, `.deb`,
//!   `.rpm`, `.run`, `.msi`, `.exe`, `.lnk`, `.url`, `.flatpakref`, ...) and
//!   scripts of every shell and interpreter: opening them runs them;
//! - macro-enabled Office files (`.docm`, `.xlsm`, `.pptm`, ...);
//! - legacy OLE Office files (`.doc`, `.xls`, `.ppt`): any of them may carry
//!   VBA macros and nothing short of parsing the OLE container tells; and
//!   `.rtf`, which embeds OLE objects, a long-standing exploit carrier;
//! - HTML, SVG, XML and EPUB: they open in a browser or a web view, where
//!   they can run script with access to local files;
//! - PostScript (`.ps`, `.eps`): a programming language, run by its viewer.
#![forbid(unsafe_code)]

use std::path::PathBuf;

use crate::default_app::Desktop;
use crate::error::{CanopyError, ErrorCode};
use crate::file::open_regular;
use crate::limits::OPEN_SNIFF_BYTES;
use crate::local::LocalFile;
use crate::names::decode_handle;
use crate::preview::{read_at, FileRequest};

mod content;
mod system_type;
mod table;
mod zip;

pub use content::check_content;
pub use system_type::{check_system_type, family_has_type, is_allowed_type, REFUSED_TYPES};
pub use table::{rule_for, Content, Family, Magic, Openable, Signature, ZipName, OPENABLE};
use zip::{check_ooxml_types, check_zip_names, zip_directory};

#[cfg(test)]
mod tests;

pub(super) fn not_openable(why: impl std::fmt::Display) -> CanopyError {
    CanopyError::new(ErrorCode::NotOpenable, format!("not opened: {why}"))
}

/// Decides whether "Open…" may hand this file to the default application,
/// and returns the exact path that was checked (its bytes, for the opener).
///
/// # Errors
/// `INVALID_ARGUMENT` for a bad handle; `NOT_A_FILE` for anything but a
/// regular file (never opened); `NOT_OPENABLE` when a rule of the module
/// docs refuses; the OS code when it cannot be read.
pub fn check_openable(req: &FileRequest, desktop: &Desktop) -> Result<PathBuf, CanopyError> {
    let path = decode_handle(&req.handle)?;
    let (file, st) = open_regular(&path)?;
    if st.st_mode & 0o111 != 0 {
        return Err(not_openable("it is marked executable"));
    }
    let unknown = || {
        not_openable("Canopy opens only the documents, images, audio, video, text and archives it knows by name")
    };
    let rule = rule_for(&path).ok_or_else(unknown)?;
    // Through a link, the file reached must bear an allowed name of the same
    // row too: an application may go by the target's name.
    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
        let target = std::fs::canonicalize(&path)
            .map_err(|e| CanopyError::from_io(&e, "cannot follow the link"))?;
        if !rule_for(&target).is_some_and(|r| std::ptr::eq(r, rule)) {
            return Err(not_openable(
                "the link leads to a file whose name is not of the same kind",
            ));
        }
    }
    let size = st.st_size.max(0) as u64;
    let file = LocalFile::new(file, size);
    let head = read_at(&file, 0, OPEN_SNIFF_BYTES)?;
    check_content(rule, &head, head.len() as u64 >= size)?;
    match rule.content {
        Content::Zip(_, forbidden) => check_zip_names(&zip_directory(&file, size)?, forbidden)?,
        Content::Ooxml(_, forbidden) => {
            let entries = zip_directory(&file, size)?;
            check_zip_names(&entries, forbidden)?;
            check_ooxml_types(&file, size, &entries)?;
        }
        Content::Magic(_) | Content::Text => {}
    }
    // `xdg-open` goes by the type the system reads from the content, which
    // may not be the name's: it must be of the same family, and its
    // application is vetted too.
    let mime = desktop
        .filetype(&path)?
        .ok_or_else(|| not_openable("the system cannot tell what its content is"))?;
    check_system_type(rule, &mime)?;
    for mime in rule.mime.iter().copied().chain([mime.as_str()]) {
        desktop.check_default_for(mime)?;
    }
    Ok(path)
}

/// [`check_openable`] on a bounded worker (see [`crate::bounded`]): a file on
/// a mount that never answers costs the folder budget plus the handler query's,
/// then `TIMEOUT`; a path at or below one already stuck fails at once.
///
/// # Errors
/// As [`check_openable`], and `TIMEOUT` ("not responding").
pub fn check_openable_bounded(req: &FileRequest, desktop: Desktop) -> Result<PathBuf, CanopyError> {
    let path = decode_handle(&req.handle)?;
    let req = req.clone();
    let budget = crate::limits::TIME_BUDGET + crate::limits::HANDLER_QUERY_TIMEOUT;
    crate::bounded::call(crate::bounded::Place::path(&path), budget, move |_| {
        check_openable(&req, &desktop)
    })?
}
